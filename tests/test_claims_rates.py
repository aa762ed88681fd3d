"""SVRHMC-T2/T4/T5/T6, EWSG-T4 and X-VR (sgmcmc_verify.claims.rates)."""

from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify import bugs, registry
from sgmcmc_verify.claims import decide, rates
from sgmcmc_verify.exact.moments import stationary_moments
from sgmcmc_verify.problems import gaussian_differing
from sgmcmc_verify.problems.gaussian import GaussianQuadratic


def _verdicts(parts):
    return {p.name: p.verdict for p in parts}


def _with_prior(problem):
    """``problem`` with a Gaussian prior (precision 0.7, mean 1.3): a flat prior would hide
    a prior term missing from an exact chain."""
    return GaussianQuadratic(
        problem.centres, problem.precisions, prior_precision=[[0.7]], prior_mean=[1.3]
    )


@pytest.mark.parametrize("prior", [False, True])
def test_split_chain_matches_implementation(prior):
    p4 = gaussian_differing(**rates.P4)
    p4 = _with_prior(p4) if prior else p4
    from sgmcmc_verify.driver import run_sampler

    for name in ("svrg2-hmc", "saga2-hmc"):
        res = run_sampler(
            registry.make_sampler(name, p4, h=0.4, b=1),
            n_steps=300,
            chains=4000,
            seed=3,
            burn_in=299,
        )
        sm = stationary_moments(rates._chain(name, p4, 0.4, b=1))
        th = res.draws["theta"][:, 0, 0]
        v, ex = th.var(), float(sm.state_cov[-1, 0, 0])
        assert abs(v - ex) < 5 * ex * np.sqrt(2 / 4000)  # 5σ: α ≈ 6e-7
        # the mean too (the prior moves it: 0 → ~0.5): 5σ of the 4000-chain mean
        mean = float(sm.state_mean[-1, 0])
        assert abs(th.mean() - mean) < 5 * np.sqrt(ex / 4000), (name, th.mean(), mean)


def test_t2_t4_t5_t6_confirmed():
    for f in (rates.check_t2, rates.check_t4, rates.check_t5, rates.check_t6):
        parts, params = f(profile="quick", seed=0)
        assert set(_verdicts(parts).values()) == {"confirmed"}, (f.__name__, _verdicts(parts))
        assert all(decide.is_decided(p.rule) for p in parts), f.__name__
        # the implementation's order is decided by the exact order, the MC cross-checks it
        assert parts[2].rule.startswith("all_of(order, ")
    assert abs(params["orders"]["theta2"] - 2) < 0.1


def test_exact_order_reads_the_integer_order():
    """v = 3h² + 40h³: local slopes drift (2.4 → 2.0) but the extrapolation gives k = 2."""
    hs = [0.1 * 2.0**-k for k in range(6)]
    o = rates.exact_order(hs, [3 * h**2 + 40 * h**3 for h in hs])
    assert o["k"] == 2 and abs(o["c"] - 3) <= 40 * hs[-1] + 1e-12  # c = v/h² = 3 + 40h
    assert rates.exact_order(hs, [0.0] * len(hs))["zero"]
    # a sign change at the smallest h: undecided
    assert rates.exact_order(hs, [h - 0.004 for h in hs])["k"] is None


def test_order_part_rules():
    """Order ≥ claimed confirms; lower refutes (lim = ∞); identically zero confirms (issue 12
    item 6: a zero-bias scheme is not refuted by a 'bias shrinks' rule); pre-asymptotic is
    qualified."""
    hs = [0.1 * 2.0**-k for k in range(6)]

    def verdict(vals, claimed):
        return rates.order_part("p", "e", hs, vals, claimed, quantity="q").verdict

    assert verdict([h**2 for h in hs], 2) == "confirmed"
    assert verdict([h**3 for h in hs], 2) == "confirmed"
    assert verdict([h for h in hs], 2) == "refuted"
    assert verdict([0.0] * 6, 2) == "confirmed"
    assert verdict([h**1.5 for h in hs], 1) == "qualified"


def test_rate_parts_planted_bias_error_refutes():
    """The implementation's MC bias is the exact bias + 0.2 (≈ 14 % of E θ²) at every h: the
    per-h tests (MDE ≈ 0.05) reject, both Monte Carlo parts refute; the exact parts do not."""
    p4 = gaussian_differing(**rates.P4)
    rows = rates._exact_order_table("svrg-hmc", p4)
    mc_rows = [
        {"h": h, "MC bias": e + 0.2, "se": 0.01, "exact bias": e, "z": 20.0, "MSE": 0.1}
        for h, e in zip(rates.H_MC, (0.066, 0.013, 0.003), strict=True)
    ]
    mc = {"rows": mc_rows, "mse_se": [0.01] * 3, "target": 1.397, "T": 400, "chains": 2000}
    parts, _ = rates.rate_parts("svrg-hmc", 1, rows, [10.0, 20.0, 40.0], mc, alpha=1e-3)
    v = _verdicts(parts)
    assert v["stationary bias order (exact)"] == "confirmed"
    assert v["1/(Th) term (exact)"] == "confirmed"
    assert v["bias order of the implementation (Monte Carlo)"] == "refuted"
    assert v["MSE of the time average of θ² (Monte Carlo)"] == "refuted"


def test_t5_rejects_missing_decay():
    def make(name, p, **kw):
        return bugs.splitting_missing_decay(registry.make_sampler(name, p, **kw))

    v = _verdicts(rates.check_t5(profile="quick", seed=0, make=make)[0])
    assert v["bias order of the implementation (Monte Carlo)"] == "refuted"
    assert v["MSE of the time average of θ² (Monte Carlo)"] == "refuted"


def test_exact_split_bug_is_first_order_or_worse():
    p4 = gaussian_differing(**rates.P4)
    v = [
        stationary_moments(rates.split_chain("svrg", p4, h=h, bug="missing_decay")).time_cov[0, 0]
        for h in (0.1, 0.05)
    ]
    assert v[1] - 1.37 > 1.0  # O(1) bias: the missing e^{-Dh/2} doubles the temperature of p


def test_vr_saga_ld_exceeds_sgld_at_large_h():
    parts, _ = rates.check_vr(profile="quick", seed=0)
    assert _verdicts(parts)["LD: variance inflation and MSE per data pass"] == "qualified"
    assert all(p.rule == "exact" for p in parts)
    assert parts[0].erratum is not None and parts[1].erratum is None


def test_ewsg_t4_parts():
    parts, _ = rates.check_ewsg_t4(profile="quick", seed=0)
    v = _verdicts(parts)
    assert v["sghmc-ewsg: MSE at T → ∞ (exact)"] == "confirmed"
    # a slope over a finite T grid cannot decide a 1/T term with an unspecified constant
    assert v["ewsg: MSE against T at h = 0.05 (Monte Carlo)"] == "not-checkable"
    assert all(decide.is_decided(p.rule) for p in parts)


def test_vr_tolerance_bounds_the_solve_error():
    """X-VR's tolerance per value, ⌈κ(I − K_rr)⌉·3·size·ε relative, bounds the float64 error of
    the stationary moment solve: checked against a 40-digit solve of the same system, for the
    worst-conditioned cell (saga-hmc at h = 0.1, κ ≈ 67, 48 unknowns)."""
    import mpmath

    from sgmcmc_verify.exact import moments

    ch = rates._chain("saga-hmc", gaussian_differing(**rates.P4), 0.1, b=1)
    K = moments._phase_maps(ch)[-1]
    A, rhs = np.eye(K.shape[0] - 1) - K[1:, 1:], K[1:, 0]
    q = np.linalg.solve(A, rhs)
    with mpmath.workdps(40):
        exact = mpmath.lu_solve(mpmath.matrix(A.tolist()), mpmath.matrix(rhs.tolist()))
        err = max(abs(float(q[i]) - exact[i]) for i in range(len(q)))
        scale = max(abs(v) for v in exact)
    bound = rates._solve_ops(ch) * decide.EPS * float(scale)
    assert float(err) <= bound
