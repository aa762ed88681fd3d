"""Overdamped samplers: registry, zero-noise steps against sympy, determinism, bad input,
and stationary variance against the exact discrete-chain value with a stated α."""

import math
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import sgmcmc_verify as sv
from sgmcmc_verify import algorithms, integrators, problems, registry
from sgmcmc_verify.stats import variance_test

CLAIMS_MD = Path(sv.__file__).parent / "data" / "CLAIMS.md"  # the shipped catalogue
# ALG-AGLD and ALG-ACCESS are the framework and the access strategies every AGLD entry composes.
ALL_IDS = {
    "ALG-LMC", "ALG-SGLD", "ALG-AGLD-9", "ALG-SNAP", "ALG-SVRG-LD", "ALG-SAGA-LD", "ALG-EWSG-LMC",
    "ALG-ULD-EM", "ALG-SGHMC-EWSG", "ALG-EWSG", "ALG-SGHMC-CHEN", "ALG-SGNHT", "ALG-SGNHT-2",
    "ALG-SGNHT-MAT", "ALG-SGHMC-SVR", "ALG-SVRG-HMC", "ALG-SAGA-HMC", "ALG-SVRG2-HMC",
    "ALG-SAGA2-HMC",
}  # fmt: skip


def test_registry_covers_every_algorithm_with_citations():
    ids = {a.alg_id for a in registry.ALGORITHMS.values()}
    assert ALL_IDS <= ids
    nine = {n for n, a in registry.ALGORITHMS.items() if a.alg_id == "ALG-AGLD-9"}
    assert nine == {f"{s}-{a}" for s in ("ptu", "ppu", "tmu") for a in ("ra", "rr", "ca")}
    for spec in registry.ALGORITHMS.values():
        assert re.search(r"(eqs?\.|Alg|Strategy|§)", spec.citation), spec.name


def test_registry_ids_exist_in_claims_md_and_cover_its_table():
    text = CLAIMS_MD.read_text()
    table = set(re.findall(r"^\| (ALG-[A-Z0-9-]+)", text, re.M))
    table |= set(re.findall(r"(ALG-[A-Z0-9]+-LD)", text))
    for spec in registry.ALGORITHMS.values():
        # PEER-* are schemes other libraries ship (issue 11), outside the papers' catalogue
        assert spec.alg_id in text or spec.alg_id.startswith("PEER-"), spec.name
    assert table - {"ALG-AGLD", "ALG-ACCESS"} <= {a.alg_id for a in registry.ALGORITHMS.values()}


def _sympy_lmc_step(grad_expr, theta, h, xi):
    return theta - h * grad_expr + sp.sqrt(2 * h) * xi


def test_lmc_step_matches_sympy_on_the_double_well_polynomial():
    """AGLD eq. (3) with ∇U of a quartic, against sympy at a rational point."""
    t = sp.symbols("t")
    U = (t + 4) * (t + 1) * (t - 1) * (t - 3) / 14
    grad = sp.diff(U, t)

    class Quartic(problems.Problem):
        def data_potential(self, theta):
            x = theta[:, 0]
            return (x + 4) * (x + 1) * (x - 1) * (x - 3) / 14

        def _component_grads(self, theta, idx):
            g = sp.lambdify(t, grad)(theta[:, 0])
            return np.broadcast_to(np.asarray(g)[:, None, None], (theta.shape[0], 1, 1)).copy()

    prob = Quartic("quartic", 1, 1)
    s = registry.make_sampler("lmc", prob, h=0.01)
    x0, xi = sp.Rational(3, 7), sp.Rational(-1, 3)
    state = s.init(np.array([[float(x0)]]), np.random.default_rng(0))
    new, _ = s.step(state, algorithms.StepRandomness(None, np.array([[float(xi)]])))
    exact = _sympy_lmc_step(grad.subs(t, x0), x0, sp.Rational(1, 100), xi)
    assert new.theta[0, 0] == pytest.approx(float(exact), rel=4 * np.finfo(float).eps)


def test_zero_noise_sgld_step_is_the_minibatch_gradient_step():
    prob = problems.gaussian_differing(5, 2, seed=1)
    s = registry.make_sampler("sgld", prob, h=0.05, n=2)
    theta = np.array([[0.3, -0.2]])
    idx = np.array([[1, 3]])
    state = s.init(theta, np.random.default_rng(0))
    new, info = s.step(state, algorithms.StepRandomness(idx, np.zeros((1, 2))))
    # hand: θ − h·(N/n)·Σ Λ_i(θ − c_i)
    g = sum(prob.precisions[i] @ (theta[0] - prob.centres[i]) for i in (1, 3)) * 5 / 2
    np.testing.assert_allclose(new.theta[0], theta[0] - 0.05 * g, rtol=1e-14)
    np.testing.assert_array_equal(info.indices, idx)


@pytest.mark.parametrize("name", registry.names())
def test_every_algorithm_runs_deterministically_and_stays_finite(name):
    prob = problems.gaussian_differing(12, 2, seed=0)
    a = sv.run(name, prob, h=0.02, n_steps=40, chains=8, seed=11, record=("theta", "grad"))
    b = sv.run(name, prob, h=0.02, n_steps=40, chains=8, seed=11, record=("theta", "grad"))
    np.testing.assert_array_equal(a.draws["theta"], b.draws["theta"])
    assert a.draws["theta"].shape == (8, 40, 2) and np.isfinite(a.draws["theta"]).all()
    c = sv.run(name, prob, h=0.02, n_steps=40, chains=8, seed=12)
    assert not np.array_equal(a.draws["theta"], c.draws["theta"])


def _sgld_exact_variance(prob, h, n):
    """DESIGN.md anchor: Euler SGLD on N(μ, 1/a) with noise variance s².

    a·Var = (2 + h s²)/(2 − h a).
    """
    a = float(prob.precision[0, 0])
    c = prob.centres[:, 0]
    s2 = a**2 * np.var(c) / n  # e = a(c̄ − mean of the batch), batch with replacement
    return (2 + h * s2) / (2 - h * a) / a


ALPHA = 1e-4  # per test below; 4 tests → 4e-4 for this file's statistical assertions


def _variance_outcome(name, n):
    """Var θ of 20,000 independent chains at step 150 against the DESIGN anchor (α = ALPHA)."""
    prob = problems.gaussian_identical(10, 1, precision=2.0, spread=2.0, seed=3)
    h = 0.2
    kw = {} if n is None else {"n": n}
    expected = _sgld_exact_variance(prob, h, n) if n else 2 / (2 - h * 2.0) / 2.0
    mean = prob.exact["mean"].value
    res = sv.run(name, prob, h=h, n_steps=150, chains=20_000, seed=5, burn_in=149, theta0=mean,
                 **kw)  # fmt: skip
    # (1 − ha)^{2·150} ≈ 1e-29: the chains are stationary at the recorded step;
    # one draw per independent chain, so the ESS-based test is exact in its ESS.
    return variance_test(res.draws["theta"], expected, alpha=ALPHA, mean=mean)


@pytest.mark.parametrize(("name", "n"), [("lmc", None), ("sgld", 2)])
def test_stationary_variance_matches_the_exact_discrete_chain(name, n):
    out = _variance_outcome(name, n)
    assert not out.reject, out.description


@pytest.mark.parametrize(("name", "n"), [("lmc", None), ("sgld", 2)])
def test_variance_check_catches_noise_scale_sqrt_h(name, n, monkeypatch):
    """Planted bug: √h in place of √(2h) in the overdamped step."""
    monkeypatch.setattr(
        integrators, "overdamped_em", lambda th, g, xi, h: th - h * g + math.sqrt(h) * xi
    )
    assert _variance_outcome(name, n).reject


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"h": 0.0}, "h must be finite and > 0"),
        ({"h": -1.0}, "h must be finite and > 0"),
        ({"h": float("nan")}, "h must be finite and > 0"),
        ({"n_steps": 0}, "n_steps must be >= 1"),
        ({"chains": 0}, "chains must be >= 1"),
        ({"thin": 0}, "thin must be >= 1"),
        ({"burn_in": 10}, "burn_in \\(10\\) must be < n_steps"),
        ({"theta0": np.array([np.nan, 0.0])}, "theta0 must be finite"),
        ({"theta0": np.zeros(3)}, "shape \\(chains, 2\\)"),
        ({"theta0": np.zeros((5, 2))}, "theta0 has 5 chains, expected 4"),
        ({"record": ("theta", "momentum")}, "unknown observable to record 'momentum'"),
        ({"keep": "all"}, "unknown keep"),
        ({"n": 3, "D": 2}, "unknown parameter\\(s\\) \\['D'\\] for sgld"),
        ({"seed": 1.5}, "seed must be an integer"),
        ({"seed": -1}, "seed must be a non-negative integer, got -1"),
        ({"seed": True}, "seed must be an integer"),
        ({"n": 2.5}, "n \\(batch size\\) must be an integer, got 2.5"),  # was truncated to 2
        ({"n": 0}, "n \\(batch size\\) must be >= 1"),
    ],
)
def test_run_rejects_bad_arguments_before_work(kwargs, match):
    prob = problems.gaussian_identical(10, 2)
    args = {"h": 0.1, "n_steps": 10, "chains": 4, **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        sv.run("sgld", prob, **args)


def test_unknown_algorithm_name_suggests_the_nearest():
    with pytest.raises(ValueError, match="did you mean 'sgld'"):
        sv.run("sgdl", problems.gaussian_identical(4, 1), h=0.1, n_steps=2)


def test_a_problem_that_is_not_a_problem_is_a_one_line_type_error():
    for garbage in (None, "gaussian", {"N": 4, "d": 2}):
        with pytest.raises(TypeError, match="problem must be a sgmcmc_verify Problem"):
            registry.make_sampler("sgld", garbage, h=0.1)


def test_problem_rejects_shape_mismatch_and_bad_indices():
    prob = problems.gaussian_identical(4, 2)
    with pytest.raises(ValueError, match="shape \\(chains, 2\\)"):
        prob.grad(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="indices must lie in \\[0, 4\\)"):
        prob.component_grads(np.zeros((1, 2)), np.array([[4]]))
    with pytest.raises(ValueError, match="must be finite"):
        problems.GaussianQuadratic(np.array([[np.inf]]), np.ones((1, 1, 1)))


def test_keep_moments_equals_the_moments_of_the_draws():
    prob = problems.gaussian_differing(10, 2, seed=1)
    kw = dict(h=0.05, n_steps=50, chains=6, seed=2, burn_in=10, thin=4, n=3)
    a = sv.run("sgld", prob, **kw)
    b = sv.run("sgld", prob, keep="moments", **kw)
    th = a.draws["theta"]
    assert th.shape == (6, 10, 2) and b.draws == {}
    np.testing.assert_allclose(b.moments["mean"], th.mean(1), rtol=1e-13)
    np.testing.assert_allclose(
        b.moments["second"], np.einsum("cti,ctj->cij", th, th) / 10, rtol=1e-13
    )
