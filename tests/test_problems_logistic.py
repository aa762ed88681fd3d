"""Tests for :mod:`sgmcmc_verify.problems.logistic` (Bayesian logistic regression).

Expected values never come from the code under test: the potential is checked
against ``scipy.stats`` log-densities, gradients against finite differences, the
Spector data against ``statsmodels``' own maximum-likelihood fit and the published
coefficients, and the quadrature reference against (i) a closed form, (ii)
``scipy.integrate.quad`` / ``scipy.integrate.cubature``, (iii) a different
quadrature rule and (iv) Monte Carlo (self-normalised importance sampling with a
multivariate-t proposal; random-walk Metropolis in the slow tests) through z-tests
at family-wise level ``α = 1e-3`` with a Bonferroni correction.  Seeds are fixed;
nothing is rerun.
"""

from __future__ import annotations

import math
import socket

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats
from scipy.special import expit, log_expit

from sgmcmc_verify.problems import logistic as lg
from sgmcmc_verify.problems.logistic import (
    LogisticRegression,
    default_nodes,
    logistic_regression_spector,
    logistic_regression_synthetic,
    posterior_mode,
    posterior_quadrature,
)

ALPHA = 1e-3  # family-wise false-rejection rate of every Monte Carlo cross-check


# ---------------------------------------------------------------------------
# helpers (independent of the implementation under test)
# ---------------------------------------------------------------------------
def random_problem(seed: int, N: int, d: int, prior_sd: float) -> LogisticRegression:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    y = rng.integers(0, 2, N).astype(float)
    return LogisticRegression(X, y, prior_sd=prior_sd)


def reference_potential(theta, X, y, prior_sd):
    """``−log p(y | θ) − log N(θ; 0, τ²I)`` up to the prior's constant, via scipy.

    The likelihood uses ``scipy.special.log_expit``: ``stats.bernoulli.logpmf(y,
    expit(η))`` forms ``1 − expit(η)`` and loses ~1e-8 relative accuracy at
    ``|η| ≈ 20``, more than this test's tolerance.
    """
    eta = theta @ X.T
    loglik = (y * log_expit(eta) + (1 - y) * log_expit(-eta)).sum(axis=1)
    d = theta.shape[1]
    logprior = stats.norm.logpdf(theta, scale=prior_sd).sum(axis=1)
    return -loglik - logprior - d * math.log(prior_sd * math.sqrt(2 * math.pi))


def fd_hessian(grad, theta, h=1e-5):
    d = theta.size
    H = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        H[:, j] = (grad((theta + e)[None])[0] - grad((theta - e)[None])[0]) / (2 * h)
    return 0.5 * (H + H.T)


def laplace_proposal(problem):
    """Mode (scipy BFGS) and finite-difference Hessian: not the module's Newton solve."""
    res = optimize.minimize(
        lambda w: problem.potential(w[None])[0],
        np.zeros(problem.d),
        jac=lambda w: problem.grad(w[None])[0],
        method="BFGS",
        options={"gtol": 1e-10},
    )
    return res.x, np.linalg.inv(fd_hessian(problem.grad, res.x))


def snis(problem, draws, seed, *, df=5.0, inflate=1.3, chunk=1 << 17):
    """Self-normalised importance sampling with a multivariate-t proposal.

    Returns weighted sums from which the means of ``g(θ) = (θ, θθᵀ)`` and
    ``log ∫ exp(−U)`` and their delta-method standard errors follow.
    """
    rng = np.random.default_rng(seed)
    centre, cov = laplace_proposal(problem)
    prop = stats.multivariate_t(loc=centre, shape=inflate**2 * cov, df=df)
    shift = -problem.potential(centre[None])[0] - prop.logpdf(centre)
    d = problem.d
    acc = {"n": 0, "sw": 0.0, "sw2": 0.0, "swg": 0.0, "sw2g": 0.0, "sw2gg": 0.0}
    done = 0
    while done < draws:
        m = min(chunk, draws - done)
        th = prop.rvs(size=m, random_state=rng).reshape(m, d)
        lw = -problem.potential(th) - prop.logpdf(th).reshape(m) - shift
        w = np.exp(lw)
        g = np.concatenate([th, np.einsum("mi,mj->mij", th, th).reshape(m, d * d)], axis=1)
        acc["n"] += m
        acc["sw"] += w.sum()
        acc["sw2"] += (w**2).sum()
        acc["swg"] = acc["swg"] + w @ g
        acc["sw2g"] = acc["sw2g"] + w**2 @ g
        acc["sw2gg"] = acc["sw2gg"] + w**2 @ g**2
        done += m
    n, sw, sw2 = acc["n"], acc["sw"], acc["sw2"]
    ghat = acc["swg"] / sw
    # SNIS delta method: Var ≈ Σ w² (g − ĝ)² / (Σ w)².
    var = (acc["sw2gg"] - 2 * ghat * acc["sw2g"] + ghat**2 * sw2) / sw**2
    mean, second = ghat[:d], ghat[d:].reshape(d, d)
    w_mean = sw / n
    w_var = sw2 / n - w_mean**2
    return {
        "mean": mean,
        "mean_se": np.sqrt(var[:d]),
        "second": second,
        "second_se": np.sqrt(var[d:]).reshape(d, d),
        "log_normaliser": math.log(w_mean) + shift,
        "log_normaliser_se": math.sqrt(w_var / n) / w_mean,
        "ess_fraction": sw**2 / sw2 / n,
    }


def bonferroni_z_test(estimates, ses, reference, alpha=ALPHA):
    """Reject when any ``|est − ref| / se`` exceeds ``Φ⁻¹(1 − α/(2K))``."""
    est, se, ref = (np.ravel(np.asarray(a, dtype=float)) for a in (estimates, ses, reference))
    z = (est - ref) / se
    threshold = stats.norm.isf(alpha / (2 * z.size))
    return bool(np.any(np.abs(z) > threshold)), z, threshold


# ---------------------------------------------------------------------------
# potential and gradients
# ---------------------------------------------------------------------------
problem_args = st.tuples(
    st.integers(0, 2**32 - 1),  # seed
    st.integers(1, 40),  # N
    st.integers(1, 5),  # d
    st.floats(0.3, 30.0),  # prior_sd
)


@settings(max_examples=60, deadline=None)
@given(args=problem_args, chains=st.integers(1, 4), scale=st.floats(0.01, 3.0))
def test_potential_matches_scipy_stats(args, chains, scale):
    seed, N, d, tau = args
    p = random_problem(seed, N, d, tau)
    theta = scale * np.random.default_rng(seed + 1).standard_normal((chains, d))
    expected = reference_potential(theta, p.Z, p.y, tau)
    np.testing.assert_allclose(p.potential(theta), expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(
        p.prior_potential(theta), np.sum(theta**2, axis=1) / (2 * tau**2), rtol=1e-12
    )


def test_potential_is_stable_for_huge_linear_predictors():
    X = np.array([[1.0], [1.0], [-1.0]])
    y = np.array([1.0, 0.0, 0.0])
    p = LogisticRegression(X, y, prior_sd=1e6)
    theta = np.array([[1e4]])
    # f_1 = log(1+e^{1e4}) − 1e4 ≈ 0,  f_2 = log(1+e^{1e4}) ≈ 1e4,  f_3 = log(1+e^{−1e4}) ≈ 0.
    np.testing.assert_allclose(p.data_potential(theta), [1e4], rtol=1e-14)
    g = p.grad(theta)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, [[1e4 / 1e12 + 1.0]], rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(args=problem_args, chains=st.integers(1, 3), scale=st.floats(0.01, 3.0))
def test_grad_matches_central_differences(args, chains, scale):
    seed, N, d, tau = args
    p = random_problem(seed, N, d, tau)
    theta = scale * np.random.default_rng(seed + 2).standard_normal((chains, d))
    h = 1e-5
    fd = np.empty_like(theta)
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        fd[:, j] = (p.potential(theta + e) - p.potential(theta - e)) / (2 * h)
    np.testing.assert_allclose(p.grad(theta), fd, rtol=1e-6, atol=1e-6 * (1 + N))


@settings(max_examples=60, deadline=None)
@given(args=problem_args, chains=st.integers(1, 4), scale=st.floats(0.01, 3.0))
def test_component_grads_sum_plus_prior_equals_grad(args, chains, scale):
    seed, N, d, tau = args
    p = random_problem(seed, N, d, tau)
    theta = scale * np.random.default_rng(seed + 3).standard_normal((chains, d))
    idx = np.broadcast_to(np.arange(N), (chains, N))
    total = p.component_grads(theta, idx).sum(axis=1) + p.prior_grad(theta)
    np.testing.assert_allclose(total, p.grad(theta), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(
        p.component_grad_sum(theta, idx) + p.prior_grad(theta),
        p.grad(theta),
        rtol=1e-10,
        atol=1e-10,
    )


@settings(max_examples=40, deadline=None)
@given(args=problem_args, b=st.integers(1, 12), scale=st.floats(0.01, 3.0))
def test_component_grads_match_per_datum_differences(args, b, scale):
    """``∇f_i`` against central differences of an independently written ``f_i``."""
    seed, N, d, tau = args
    p = random_problem(seed, N, d, tau)
    rng = np.random.default_rng(seed + 4)
    theta = scale * rng.standard_normal((2, d))
    idx = rng.integers(0, N, (2, b))

    def f(th):  # (chains, d) -> (chains, b): −log Bernoulli(y_i | σ(x_iᵀθ))
        eta = np.einsum("cbi,ci->cb", p.Z[idx], th)
        return -stats.bernoulli.logpmf(p.y[idx], expit(eta))

    h = 1e-6
    fd = np.empty((2, b, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        fd[:, :, j] = (f(theta + e) - f(theta - e)) / (2 * h)
    grads = p.component_grads(theta, idx)
    np.testing.assert_allclose(grads, fd, rtol=1e-6, atol=1e-7)
    # GLM structure: ∇f_i = s_i x_i
    np.testing.assert_allclose(
        grads, p.component_scalars(theta, idx)[..., None] * p.Z[idx], rtol=1e-14
    )


@pytest.mark.parametrize(("chains", "b"), [(1, 1), (1, 7), (5, 1), (3, 4), (2, 0)])
def test_shapes(chains, b):
    p = random_problem(0, 9, 3, 1.0)
    theta = np.random.default_rng(1).standard_normal((chains, 3))
    idx = np.random.default_rng(2).integers(0, 9, (chains, b))
    assert p.potential(theta).shape == (chains,)
    assert p.prior_potential(theta).shape == (chains,)
    assert p.data_potential(theta).shape == (chains,)
    assert p.grad(theta).shape == (chains, 3)
    assert p.prior_grad(theta).shape == (chains, 3)
    assert p.component_scalars(theta, idx).shape == (chains, b)
    assert p.component_grads(theta, idx).shape == (chains, b, 3)
    assert p.component_grad_sum(theta, idx).shape == (chains, 3)
    assert p.all_component_grads(theta).shape == (chains, 9, 3)


# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------
GOOD_X = np.ones((3, 2))
GOOD_Y = np.array([0.0, 1.0, 1.0])


@pytest.mark.parametrize(
    ("X", "y", "kwargs", "match"),
    [
        (np.ones(3), GOOD_Y, {}, "shape"),
        (np.ones((3, 2, 1)), GOOD_Y, {}, "shape"),
        (np.ones((0, 2)), np.ones(0), {}, "shape"),
        (np.ones((3, 0)), GOOD_Y, {}, "shape"),
        (GOOD_X, np.array([0.0, 1.0]), {}, "shape"),
        (GOOD_X, GOOD_Y[:, None], {}, "shape"),
        (GOOD_X, np.array([0.0, 1.0, 2.0]), {}, "0 and 1"),
        (GOOD_X, np.array([0.0, 1.0, -1.0]), {}, "0 and 1"),
        (GOOD_X, np.array([0.0, 1.0, 0.5]), {}, "0 and 1"),
        (np.array([[1.0, np.nan]] * 3), GOOD_Y, {}, "finite"),
        (GOOD_X, np.array([0.0, np.inf, 1.0]), {}, "finite"),
        (GOOD_X, GOOD_Y, {"prior_sd": 0.0}, "prior_sd"),
        (GOOD_X, GOOD_Y, {"prior_sd": -1.0}, "prior_sd"),
        (GOOD_X, GOOD_Y, {"prior_sd": np.nan}, "prior_sd"),
        (GOOD_X, GOOD_Y, {"feature_names": ["a"]}, "feature_names"),
        (GOOD_X, GOOD_Y, {"quadrature_nodes": (8, 8)}, "nodes"),
        (GOOD_X, GOOD_Y, {"quadrature_nodes": 8}, "nodes"),
    ],
)
def test_constructor_rejects_bad_input(X, y, kwargs, match):
    with pytest.raises(ValueError, match=match):
        LogisticRegression(X, y, **kwargs)


def test_methods_reject_bad_theta_and_indices():
    p = random_problem(0, 5, 2, 1.0)
    with pytest.raises(ValueError, match="theta"):
        p.grad(np.zeros(2))
    with pytest.raises(ValueError, match="theta"):
        p.potential(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="indices"):
        p.component_grads(np.zeros((1, 2)), np.array([[5]]))
    with pytest.raises(ValueError, match="indices"):
        p.component_grads(np.zeros((2, 2)), np.array([[0]]))
    with pytest.raises(TypeError, match="integers"):
        p.component_grads(np.zeros((1, 2)), np.array([[0.0]]))


def test_factories_and_quadrature_reject_bad_arguments():
    with pytest.raises(ValueError, match="prior_sd"):
        logistic_regression_spector(prior_sd=0.0)
    with pytest.raises(ValueError, match="N"):
        logistic_regression_synthetic(N=0)
    with pytest.raises(ValueError, match="d"):
        logistic_regression_synthetic(d=0)
    with pytest.raises(TypeError, match="N"):
        logistic_regression_synthetic(N=2.5)
    with pytest.raises(ValueError, match="nodes"):
        posterior_quadrature(GOOD_X, GOOD_Y, 1.0, nodes=(20, 10))
    with pytest.raises(ValueError, match="nodes"):
        posterior_quadrature(GOOD_X, GOOD_Y, 1.0, nodes=(10,))
    with pytest.raises(ValueError, match="rule"):
        posterior_quadrature(GOOD_X, GOOD_Y, 1.0, rule="simpson")
    with pytest.raises(ValueError, match="0 and 1"):
        posterior_quadrature(GOOD_X, np.array([0.0, 3.0, 1.0]), 1.0)
    with pytest.raises(ValueError, match="budget"):
        posterior_quadrature(np.ones((3, 6)), GOOD_Y, 1.0)


def test_no_reference_beyond_budget_and_laziness():
    p = random_problem(0, 20, 6, 1.0)
    assert default_nodes(20, 6) is None
    assert p.exact == {}
    assert "budget" in p.reference_note
    with pytest.raises(ValueError, match="budget"):
        p.quadrature()
    # construction does no quadrature; the first access of `exact` does
    q = random_problem(1, 20, 2, 1.0)
    assert not q._exact_computed
    assert set(q.exact) == {"mean", "cov", "log_normaliser"}
    assert q._exact_computed
    with pytest.raises(ValueError, match="read-only"):
        q.exact["mean"].value[0] = 1.0


def test_problem_keeps_its_own_copy_of_the_data():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((10, 2))
    y = (rng.random(10) < 0.5).astype(float)
    p = LogisticRegression(X, y)
    before = p.potential(np.ones((1, 2)))
    X[:] = 0.0
    y[:] = 1.0
    np.testing.assert_array_equal(p.potential(np.ones((1, 2))), before)


# ---------------------------------------------------------------------------
# Spector data
# ---------------------------------------------------------------------------
def test_spector_loads_offline(monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    lg._spector_raw.cache_clear()
    p = logistic_regression_spector()
    assert (p.N, p.d) == (32, 4)
    assert p.feature_names == ("intercept", "GPA", "TUCE", "PSI")
    assert p.y.sum() == 11  # 11 of the 32 students improved their grade
    np.testing.assert_array_equal(p.Z[:, 0], 1.0)
    np.testing.assert_allclose(p.Z[:, 1:].mean(axis=0), 0.0, atol=1e-14)
    np.testing.assert_allclose(p.Z[:, 1:].std(axis=0), 1.0, rtol=1e-14)
    # first row of the raw data set: GPA 2.66, TUCE 20, PSI 0, GRADE 0
    raw0 = p.Z[0, 1:] * p.covariate_scale + p.covariate_mean
    np.testing.assert_allclose(raw0, [2.66, 20.0, 0.0], atol=1e-12)
    assert p.y[0] == 0.0


def test_spector_flat_prior_mode_is_the_published_logit_mle():
    """Data term check: the mode under a nearly flat prior is the logit MLE.

    Published (Spector & Mazzeo 1980; Greene, *Econometric Analysis*): const −13.0213,
    GPA 2.8261, TUCE 0.0952, PSI 2.3787.  Also compared with statsmodels' own fit.
    """
    from statsmodels.discrete.discrete_model import Logit

    p = logistic_regression_spector(prior_sd=1e6)
    mode, _ = posterior_mode(p.Z, p.y, p.prior_sd)
    sm_fit = Logit(p.y, p.Z).fit(disp=0, method="newton", tol=1e-12)
    np.testing.assert_allclose(mode, sm_fit.params, rtol=1e-7, atol=1e-9)
    slopes = mode[1:] / p.covariate_scale
    intercept = mode[0] - np.sum(slopes * p.covariate_mean)
    np.testing.assert_allclose(
        [intercept, *slopes], [-13.0213, 2.8261, 0.0952, 2.3787], atol=6e-5, rtol=0
    )


# ---------------------------------------------------------------------------
# quadrature reference: closed form, other integrators, other rules
# ---------------------------------------------------------------------------
def test_quadrature_exact_when_the_data_carry_no_information():
    """``X = 0``: every ``f_i = log 2``, so the posterior is the prior ``N(0, τ²I)``."""
    N, d, tau = 7, 3, 2.5
    p = LogisticRegression(np.zeros((N, d)), np.arange(N) % 2, prior_sd=tau)
    ex = p.exact
    np.testing.assert_allclose(ex["mean"].value, 0.0, atol=1e-13)
    np.testing.assert_allclose(ex["cov"].value, tau**2 * np.eye(d), rtol=1e-12, atol=1e-13)
    expected = -N * math.log(2) + 0.5 * d * math.log(2 * math.pi * tau**2)
    assert abs(ex["log_normaliser"].value - expected) < 1e-12


def test_quadrature_1d_matches_scipy_quad():
    p = logistic_regression_synthetic(N=30, d=1, prior_sd=3.0, seed=5)
    ex = p.exact
    u = lambda w: p.potential(np.array([[w]]))[0]  # noqa: E731
    w0 = optimize.minimize_scalar(u).x
    u0 = u(w0)
    moments = [
        integrate.quad(lambda w, k=k: w**k * math.exp(-(u(w) - u0)), -np.inf, np.inf,
                       epsabs=0, epsrel=1e-13, limit=200)[0]
        for k in range(3)
    ]  # fmt: skip
    mean = moments[1] / moments[0]
    var = moments[2] / moments[0] - mean**2
    assert abs(ex["mean"].value[0] - mean) < 1e-10
    assert abs(ex["cov"].value[0, 0] - var) < 1e-10
    assert abs(ex["log_normaliser"].value - (math.log(moments[0]) - u0)) < 1e-10


def test_quadrature_2d_matches_scipy_cubature():
    p = logistic_regression_synthetic()  # N = 200, d = 2
    ex = p.exact
    centre, cov = laplace_proposal(p)
    L = np.linalg.cholesky(cov)
    u0 = p.potential(centre[None])[0]

    def integrand(z):
        shape = z.shape[:-1]
        w = centre + z.reshape(-1, 2) @ L.T
        dens = np.exp(-(p.potential(w) - u0))
        out = np.column_stack(
            [dens, dens[:, None] * w, dens[:, None] * (w[:, [0, 0, 1]] * w[:, [0, 1, 1]])]
        )
        return out.reshape(*shape, 6)

    res = integrate.cubature(integrand, [-np.inf] * 2, [np.inf] * 2, rtol=1e-12, atol=1e-14)
    assert res.status == "converged"
    z0, m0, m1, s00, s01, s11 = res.estimate
    mean = np.array([m0, m1]) / z0
    second = np.array([[s00, s01], [s01, s11]]) / z0
    np.testing.assert_allclose(ex["mean"].value, mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ex["cov"].value, second - np.outer(mean, mean), rtol=0, atol=1e-10)
    log_z = math.log(z0) - u0 + math.log(abs(np.linalg.det(L)))
    assert abs(ex["log_normaliser"].value - log_z) < 1e-10


def test_spector_reference_is_converged_and_agrees_with_gauss_hermite():
    """Default (sinh-trapezoid) reference vs plain adaptive Gauss–Hermite on 24⁴/32⁴ nodes.

    At the default ``τ = 1`` the prior makes the tails Gaussian, where Gauss–Hermite
    converges geometrically; the two rules share only the centring and scaling.
    """
    p = logistic_regression_spector()
    ex = p.exact
    q = p.quadrature()
    assert q.nodes == (28, 32)
    assert q.max_error < 1e-9
    assert q.boundary_mass < 1e-13
    for key in ("mean", "cov", "log_normaliser"):
        assert ex[key].stderr is None
        assert "32^4 nodes" in ex[key].provenance
        assert "|Q32−Q28|" in ex[key].provenance
    gh = posterior_quadrature(p.Z, p.y, p.prior_sd, nodes=(24, 32), rule="gauss-hermite")
    assert gh.max_error < 1e-9
    # each rule's own error estimate must cover the discrepancy (no extra slack)
    assert np.all(np.abs(gh.mean - ex["mean"].value) <= q.mean_err + gh.mean_err)
    assert np.all(np.abs(gh.cov - ex["cov"].value) <= q.cov_err + gh.cov_err)
    assert abs(gh.log_normaliser - ex["log_normaliser"].value) <= (
        q.log_normaliser_err + gh.log_normaliser_err
    )


def test_spector_weak_prior_reference_reports_its_error():
    """At ``τ = 10`` the error estimate exceeds the 1e-10 'negligible' level, so it is
    reported in ``Exact.stderr`` (and stays below 1e-8)."""
    p = logistic_regression_spector(prior_sd=10.0)
    ex = p.exact
    q = p.quadrature()
    assert 1e-10 < q.max_error < 1e-8
    some_reported = False
    for key, err in (("mean", q.mean_err), ("cov", q.cov_err)):
        if ex[key].stderr is not None:
            some_reported = True
            np.testing.assert_array_equal(ex[key].stderr, err)
    assert some_reported


@pytest.mark.slow
@pytest.mark.parametrize("prior_sd", [1.0, 10.0, 100.0])
def test_spector_reference_within_its_error_estimate_slow(prior_sd):
    """A finer grid with a different sinh map (c = 2, V = 8, 48⁴ nodes) stays within the
    default reference's stated error."""
    p = logistic_regression_spector(prior_sd=prior_sd)
    q = p.quadrature()
    fine = posterior_quadrature(p.Z, p.y, prior_sd, nodes=(44, 48), sinh_scale=2.0, half_width=8.0)
    assert fine.max_error < q.max_error
    assert np.all(np.abs(fine.mean - q.mean) <= q.mean_err + fine.mean_err)
    assert np.all(np.abs(fine.cov - q.cov) <= q.cov_err + fine.cov_err)
    assert abs(fine.log_normaliser - q.log_normaliser) <= (
        q.log_normaliser_err + fine.log_normaliser_err
    )


# ---------------------------------------------------------------------------
# Monte Carlo cross-checks
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(("prior_sd", "seed"), [(1.0, 20240611), (10.0, 20240612)])
def test_spector_reference_vs_importance_sampling(prior_sd, seed):
    """SNIS (4·10⁵ multivariate-t draws) vs quadrature: mean and log normaliser,
    z-test at family-wise α = 1e-3, Bonferroni over the d + 1 quantities."""
    p = logistic_regression_spector(prior_sd=prior_sd)
    ex = p.exact
    mc = snis(p, 400_000, seed)
    assert mc["ess_fraction"] > 0.3  # proposal adequate, so the delta-method SEs are usable
    reject, z, thr = bonferroni_z_test(
        [*mc["mean"], mc["log_normaliser"]],
        [*mc["mean_se"], mc["log_normaliser_se"]],
        [*ex["mean"].value, ex["log_normaliser"].value],
    )
    assert not reject, f"z = {np.round(z, 2)}, threshold {thr:.2f}"


def test_importance_sampling_check_has_power():
    """A reference off by 8 Monte Carlo standard errors is rejected.

    Per coordinate the miss probability is Φ(3.72 − 8) ≈ 1e-5 (threshold for K = 5),
    so the check detects errors of this size essentially surely.
    """
    p = logistic_regression_spector()
    ex = p.exact
    mc = snis(p, 400_000, 7)
    est = [*mc["mean"], mc["log_normaliser"]]
    se = np.array([*mc["mean_se"], mc["log_normaliser_se"]])
    ref = np.array([*ex["mean"].value, ex["log_normaliser"].value])
    assert not bonferroni_z_test(est, se, ref)[0]
    assert np.all(se < 2e-3)  # 8 SE is a small error in absolute terms
    for k in range(ref.size):
        shifted = ref.copy()
        shifted[k] += 8 * se[k]
        assert bonferroni_z_test(est, se, shifted)[0], f"shift in coordinate {k} not detected"
    assert bonferroni_z_test(est, se, ref - 8 * se)[0]


@pytest.mark.slow
@pytest.mark.parametrize(("prior_sd", "seed"), [(1.0, 31), (10.0, 32)])
def test_spector_reference_vs_importance_sampling_long(prior_sd, seed):
    """1.6·10⁷ SNIS draws: mean, second moments and log normaliser (K = 4 + 10 + 1)."""
    p = logistic_regression_spector(prior_sd=prior_sd)
    ex = p.exact
    mc = snis(p, 16_000_000, seed)
    assert mc["ess_fraction"] > 0.3
    mean_ref = ex["mean"].value
    second_ref = ex["cov"].value + np.outer(mean_ref, mean_ref)
    iu = np.triu_indices(p.d)
    reject, z, thr = bonferroni_z_test(
        [*mc["mean"], *mc["second"][iu], mc["log_normaliser"]],
        [*mc["mean_se"], *mc["second_se"][iu], mc["log_normaliser_se"]],
        [*mean_ref, *second_ref[iu], ex["log_normaliser"].value],
    )
    assert not reject, f"z = {np.round(z, 2)}, threshold {thr:.2f}"


def random_walk_metropolis(problem, chains, burn, keep, seed):
    """Vectorised RWM, independent chains started overdispersed; returns chain means."""
    rng = np.random.default_rng(seed)
    centre, cov = laplace_proposal(problem)
    L = np.linalg.cholesky(cov)
    d = problem.d
    theta = centre + 1.5 * rng.standard_normal((chains, d)) @ L.T
    u = problem.potential(theta)
    step = 2.38 / math.sqrt(d) * L
    total = np.zeros((chains, d))
    accepted = 0
    for t in range(burn + keep):
        prop = theta + rng.standard_normal((chains, d)) @ step.T
        u_prop = problem.potential(prop)
        acc = np.log(rng.random(chains)) < u - u_prop
        theta = np.where(acc[:, None], prop, theta)
        u = np.where(acc, u_prop, u)
        if t >= burn:
            total += theta
            accepted += acc.sum()
    return total / keep, accepted / (keep * chains)


@pytest.mark.slow
@pytest.mark.parametrize(("prior_sd", "seed"), [(1.0, 41), (10.0, 42)])
def test_spector_reference_vs_random_walk_metropolis(prior_sd, seed):
    """2048 independent RWM chains (1000 burn-in + 4000 kept steps); the standard error
    of the grand mean comes from the spread of the independent chain means."""
    p = logistic_regression_spector(prior_sd=prior_sd)
    ex = p.exact
    chain_means, acc_rate = random_walk_metropolis(p, 2048, 1000, 4000, seed)
    assert 0.15 < acc_rate < 0.6
    est = chain_means.mean(axis=0)
    se = chain_means.std(axis=0, ddof=1) / math.sqrt(chain_means.shape[0])
    reject, z, thr = bonferroni_z_test(est, se, ex["mean"].value)
    assert not reject, f"z = {np.round(z, 2)}, threshold {thr:.2f}"


def test_log_normaliser_consistent_with_laplace():
    """Sanity: near-Gaussian posterior (τ = 1), so log Z is within 1% of Laplace's value,
    but not equal to it (the skew is real)."""
    p = logistic_regression_spector()
    mode, H = posterior_mode(p.Z, p.y, p.prior_sd)
    laplace = (
        -p.potential(mode[None])[0]
        + 0.5 * p.d * math.log(2 * math.pi)
        - 0.5 * (np.linalg.slogdet(H)[1])
    )
    lz = p.exact["log_normaliser"].value
    assert abs(lz - laplace) < 0.01 * abs(lz)
    assert abs(lz - laplace) > 1e-4
