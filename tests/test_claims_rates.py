"""SVRHMC-T2/T4/T5/T6, EWSG-T4 and X-VR (sgmcmc_verify.claims.rates)."""

from __future__ import annotations

import numpy as np

from sgmcmc_verify import bugs, registry
from sgmcmc_verify.claims import rates
from sgmcmc_verify.exact.moments import stationary_moments
from sgmcmc_verify.problems import gaussian_differing


def _verdicts(parts):
    return {p.name: p.verdict for p in parts}


def test_split_chain_matches_implementation():
    p4 = gaussian_differing(**rates.P4)
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
        v = res.draws["theta"][:, 0, 0].var()
        ex = float(sm.state_cov[-1, 0, 0])
        assert abs(v - ex) < 5 * ex * np.sqrt(2 / 4000)  # 5σ: α ≈ 6e-7


def test_t2_t4_t5_t6_confirmed():
    for f in (rates.check_t2, rates.check_t4, rates.check_t5, rates.check_t6):
        parts, params = f(profile="quick", seed=0)
        assert set(_verdicts(parts).values()) == {"confirmed"}, (f.__name__, _verdicts(parts))
    assert abs(params["orders"]["theta2"] - 2) < 0.1


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


def test_ewsg_t4_runs():
    parts, _ = rates.check_ewsg_t4(profile="quick", seed=0)
    assert _verdicts(parts)["sghmc-ewsg: MSE at T → ∞ (exact)"] == "confirmed"
