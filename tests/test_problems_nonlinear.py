"""Tests of the non-Gaussian problems: AGLD §6.1 mixture, SGNHT §3 double well, SGNHT §5.1.

Every statistical test states its level α and uses a fixed seed; thresholds come
from ``scipy.stats.norm.isf`` with a Bonferroni correction where several
quantities are tested together.  A failing statistical test is a finding, not a
reason to rerun.
"""

from __future__ import annotations

import itertools
import json

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import integrate, special
from scipy.stats import norm

from sgmcmc_verify.problems.base import Problem
from sgmcmc_verify.problems.double_well import _COEFFS_14U, DoubleWell, double_well
from sgmcmc_verify.problems.mixture import (
    REFERENCE_PATH,
    AGLDMixture,
    _centres,
    _reference_moments,
    agld_gmm,
    centres_sha256,
    load_reference,
)
from sgmcmc_verify.problems.sgnht_models import (
    NormalGamma,
    NormalMean,
    normal_gamma,
    normal_mean,
)

# -- fixtures -------------------------------------------------------------------


@pytest.fixture(scope="module")
def gmm() -> AGLDMixture:
    return agld_gmm()


@pytest.fixture(scope="module")
def gmm_small() -> AGLDMixture:
    return agld_gmm(N=20, d=3, seed=1, reference_draws=0)


@pytest.fixture(scope="module")
def dw() -> DoubleWell:
    return double_well()


@pytest.fixture(scope="module")
def nm() -> NormalMean:
    return normal_mean()


@pytest.fixture(scope="module")
def ng() -> NormalGamma:
    return normal_gamma()


PROBLEMS = ["gmm", "gmm_small", "dw", "nm", "ng"]


def _points(problem: Problem, chains: int, seed: int) -> np.ndarray:
    """Test states: moderate values where every problem is well defined."""
    rng = np.random.default_rng(seed)
    if isinstance(problem, NormalGamma):
        return np.column_stack([rng.normal(0, 1, chains), rng.uniform(-1.5, 1.5, chains)])
    if isinstance(problem, DoubleWell):
        return rng.uniform(-5, 5, (chains, 1))
    return rng.normal(0, 3, (chains, problem.d))


def _fd_grad(fun, theta: np.ndarray, h: float = 1e-5) -> np.ndarray:
    """Central finite differences of ``fun: (chains, d) -> (chains, ...)`` along each axis."""
    cols = []
    for k in range(theta.shape[1]):
        e = np.zeros(theta.shape[1])
        e[k] = h
        cols.append((fun(theta + e) - fun(theta - e)) / (2 * h))
    return np.stack(cols, axis=-1)


# -- gradients: finite differences, consistency, shapes --------------------------


@pytest.mark.parametrize("name", PROBLEMS)
def test_grad_matches_central_differences(name, request):
    p = request.getfixturevalue(name)
    theta = _points(p, 6, seed=11)
    fd = _fd_grad(p.potential, theta)
    g = p.grad(theta)
    # central differences, h = 1e-5: error O(h²·U''') + O(2^-52·|U|/h) ≈ 1e-10·max(1, |U|)
    scale = np.maximum(1.0, np.abs(p.potential(theta))).max()
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7 * scale)


@pytest.mark.parametrize("name", ["gmm", "gmm_small", "nm", "ng"])
def test_component_grads_match_component_differences(name, request):
    p = request.getfixturevalue(name)
    theta = _points(p, 4, seed=12)
    idx = np.random.default_rng(13).integers(0, p.N, (4, 7))
    fd = _fd_grad(lambda t: p.component_potentials(t, idx), theta)  # (chains, b, d)
    np.testing.assert_allclose(p.component_grads(theta, idx), fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", ["gmm", "gmm_small", "nm", "ng"])
def test_component_potentials_sum_to_potential(name, request):
    p = request.getfixturevalue(name)
    theta = _points(p, 5, seed=14)
    idx = np.broadcast_to(np.arange(p.N), (5, p.N))
    total = p.prior_potential(theta) + p.component_potentials(theta, idx).sum(axis=1)
    np.testing.assert_allclose(total, p.potential(theta), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", PROBLEMS)
def test_component_grads_sum_plus_prior_equals_grad(name, request):
    p = request.getfixturevalue(name)
    theta = _points(p, 5, seed=15)
    total = p.prior_grad(theta) + p.all_component_grads(theta).sum(axis=1)
    np.testing.assert_allclose(total, p.grad(theta), rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("name", PROBLEMS)
def test_shapes(name, request):
    p = request.getfixturevalue(name)
    theta = _points(p, 3, seed=16)
    idx = np.zeros((3, 4), dtype=int)
    assert p.potential(theta).shape == (3,)
    assert p.grad(theta).shape == (3, p.d)
    assert p.prior_grad(theta).shape == (3, p.d)
    assert p.component_grads(theta, idx).shape == (3, 4, p.d)
    assert p.all_component_grads(theta).shape == (3, p.N, p.d)
    assert p.component_grads(theta, np.zeros((3, 0), dtype=int)).shape == (3, 0, p.d)
    assert p.exact["mean"].value.shape == (p.d,)
    json.dumps(p.describe())


# -- validation -------------------------------------------------------------------


@pytest.mark.parametrize("name", PROBLEMS)
def test_bad_theta_and_index_shapes_raise(name, request):
    p = request.getfixturevalue(name)
    good = _points(p, 2, seed=17)
    for bad in (good[0], np.zeros((2, p.d + 1)), np.zeros((2, p.d, 1))):
        with pytest.raises(ValueError, match="theta must have shape"):
            p.potential(bad)
        with pytest.raises(ValueError, match="theta must have shape"):
            p.grad(bad)
        with pytest.raises(ValueError, match="theta must have shape"):
            p.component_grads(bad, np.zeros((2, 1), dtype=int))
    with pytest.raises(ValueError, match="indices must lie"):
        p.component_grads(good, np.full((2, 1), p.N))
    with pytest.raises(ValueError, match="indices must have shape"):
        p.component_grads(good, np.zeros((3, 1), dtype=int))
    with pytest.raises(TypeError, match="indices must be integers"):
        p.component_grads(good, np.zeros((2, 1)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_data_rejected(bad):
    A = _centres(5, 2, 0)
    A[2, 1] = bad
    with pytest.raises(ValueError, match="finite"):
        AGLDMixture(A)
    x = np.zeros(5)
    x[3] = bad
    with pytest.raises(ValueError, match="finite"):
        NormalMean(x)
    with pytest.raises(ValueError, match="finite"):
        NormalGamma(x)
    with pytest.raises(ValueError, match="finite"):
        NormalGamma(np.zeros(5), mu0=bad)


def test_bad_data_shapes_and_parameters_rejected():
    with pytest.raises(ValueError, match="shape"):
        AGLDMixture(np.zeros(4))
    with pytest.raises(ValueError, match="shape"):
        AGLDMixture(np.zeros((0, 3)))
    for cls in (NormalMean, NormalGamma):
        with pytest.raises(ValueError, match="1-D"):
            cls(np.zeros((3, 2)))
        with pytest.raises(ValueError, match="1-D"):
            cls(np.zeros(0))
    for kw in ({"kappa0": 0.0}, {"a0": -1.0}, {"b0": np.inf}):
        with pytest.raises(ValueError, match="> 0"):
            NormalGamma(np.zeros(3), **kw)
    with pytest.raises(ValueError, match=">= 1"):
        agld_gmm(N=0)
    with pytest.raises(TypeError, match="integer"):
        agld_gmm(d=2.0)
    with pytest.raises(TypeError, match="integer"):
        agld_gmm(seed=1.5)
    with pytest.raises(ValueError, match="reference_draws"):
        agld_gmm(N=3, d=2, reference_draws=1)
    with pytest.raises(ValueError, match=">= 1"):
        normal_mean(N=0)
    with pytest.raises(ValueError, match=">= 1"):
        normal_gamma(N=-2)


# -- sympy derivations ------------------------------------------------------------


def test_double_well_gradient_against_sympy(dw):
    t = sp.symbols("theta", real=True)
    U = (t + 4) * (t + 1) * (t - 1) * (t - 3) / 14 + sp.Rational(1, 2)  # SGNHT §3
    assert sp.Poly(sp.expand(14 * U), t).all_coeffs()[::-1] == list(_COEFFS_14U)
    dU = sp.lambdify(t, sp.diff(U, t), "numpy")
    Uf = sp.lambdify(t, U, "numpy")
    theta = np.linspace(-7, 7, 57)[:, None]
    np.testing.assert_allclose(dw.grad(theta)[:, 0], dU(theta[:, 0]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(dw.potential(theta), Uf(theta[:, 0]), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(
        dw.component_grads(theta, np.zeros((57, 2), dtype=int)),
        np.repeat(dU(theta[:, 0])[:, None, None], 2, axis=1),
        rtol=1e-13,
        atol=1e-13,
    )


def test_mixture_against_sympy_paper_form(gmm_small):
    """f_i^paper = −log(e^{−‖x−a‖²/2} + e^{−‖x+a‖²/2}) differentiated by sympy, at 30 digits."""
    p = gmm_small
    d = p.d
    xs = sp.symbols(f"x0:{d}", real=True)
    As = sp.symbols(f"a0:{d}", real=True)
    sq = lambda v: sum(c**2 for c in v)  # noqa: E731
    f_paper = -sp.log(
        sp.exp(-sq([x - a for x, a in zip(xs, As, strict=True)]) / 2)
        + sp.exp(-sq([x + a for x, a in zip(xs, As, strict=True)]) / 2)
    )
    f_fun = sp.lambdify([xs, As], f_paper, "mpmath")
    g_fun = sp.lambdify([xs, As], [sp.diff(f_paper, x) for x in xs], "mpmath")
    rng = np.random.default_rng(21)
    # moderate points and far points where naive float64 exp would underflow
    theta = np.vstack([rng.normal(0, 2, (3, d)), 40.0 * np.ones((1, d)), -25.0 * np.eye(d)[:1]])
    idx = rng.integers(0, p.N, (theta.shape[0], 3))
    got_f = p.component_potentials(theta, idx)
    got_g = p.component_grads(theta, idx)
    with mpmath.workdps(30):
        for c in range(theta.shape[0]):
            xv = [mpmath.mpf(float(v)) for v in theta[c]]
            for j in range(idx.shape[1]):
                av = [mpmath.mpf(float(v)) for v in p.centres[idx[c, j]]]
                want_f = float(f_fun(xv, av)) / p.N  # f_i = f_i^paper / N
                want_g = np.array([float(v) for v in g_fun(xv, av)]) / p.N
                np.testing.assert_allclose(got_f[c, j], want_f, rtol=1e-12)
                np.testing.assert_allclose(got_g[c, j], want_g, rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize(("d", "order"), [(3, "C"), (3, "F"), (1, "C"), (1, "F")])
def test_mixture_gradients_are_the_printed_expression_bit_for_bit(d, order):
    """``∇f_i(θ) = (θ − a_i tanh(a_iᵀθ))/N`` evaluated in place gives the bits of the plain
    numpy expression, and the batch sum those of numpy's sum over the batch (memory layout
    included: RR draws transposed, "F", batches, and for d = 1 numpy's sum follows it);
    so does ``∇U``, computed in place."""
    p = agld_gmm(N=20, d=d, seed=1, reference_draws=0)
    rng = np.random.default_rng(4)
    theta = rng.normal(0, 2, (30, d))
    idx = np.asarray(rng.integers(0, p.N, (30, 10)), order=order)
    a = p.centres[idx]
    t = np.tanh(np.einsum("cbi,ci->cb", a, theta))
    want = (theta[:, None, :] - t[..., None] * a) / p.N
    np.testing.assert_array_equal(p.component_grads(theta, idx), want)
    np.testing.assert_array_equal(p.component_grad_sum(theta, idx), want.sum(axis=1))
    full = theta - np.tanh(theta @ p.centres.T) @ p.centres / p.N  # ∇U, as printed
    np.testing.assert_array_equal(p.grad(theta), full)


def test_mixture_stable_far_from_origin(gmm):
    theta = np.array([1e3 * np.ones(gmm.d), -1e4 * np.ones(gmm.d)])
    assert np.all(np.isfinite(gmm.potential(theta)))
    assert np.all(np.isfinite(gmm.grad(theta)))
    assert np.all(np.isfinite(gmm.hessian(theta)))
    # at ‖x‖ → ∞ along a_i-aligned directions ∇U → x − sign·ā
    np.testing.assert_allclose(gmm.grad(theta[:1])[0], theta[0] - gmm.centres.mean(axis=0))


def _sympy_normal_logpdf(x, mean, precision):
    from sympy.stats import Normal, density

    return sp.log(density(Normal("X", mean, 1 / sp.sqrt(precision)))(x))


def test_normal_mean_against_sympy(nm):
    mu, x = sp.symbols("mu x", real=True)
    f = -_sympy_normal_logpdf(x, mu, 1)  # SGNHT §5.1: N(x_i | μ, 1), flat prior
    f_fun = sp.lambdify([mu, x], f, "numpy")
    g_fun = sp.lambdify([mu, x], sp.diff(f, mu), "numpy")
    theta = _points(nm, 4, seed=22)
    idx = np.random.default_rng(23).integers(0, nm.N, (4, 6))
    xi = nm.x[idx]
    np.testing.assert_allclose(nm.component_potentials(theta, idx), f_fun(theta, xi), rtol=1e-13)
    np.testing.assert_allclose(
        nm.component_grads(theta, idx)[..., 0], g_fun(theta, xi) + 0 * xi, rtol=1e-13
    )
    np.testing.assert_array_equal(nm.prior_potential(theta), 0.0)


def test_normal_gamma_against_sympy(ng):
    """f_i and U_0 from sympy.stats densities, with γ = e^τ and the Jacobian e^τ."""
    from sympy.stats import Gamma, density

    mu, tau, x = sp.symbols("mu tau x", real=True)
    g = sp.exp(tau)
    f = -_sympy_normal_logpdf(x, mu, g)  # N(x_i | μ, γ⁻¹)
    prior_density = (
        sp.exp(_sympy_normal_logpdf(mu, ng.mu0, ng.kappa0 * g))  # μ | γ ~ N(0, (κ₀γ)⁻¹)
        * density(Gamma("G", ng.a0, 1 / sp.Float(ng.b0)))(g)  # sympy: shape k, scale θ
        * g  # |dγ/dτ|
    )
    U0 = -sp.log(prior_density)
    f_fun = sp.lambdify([mu, tau, x], f, "numpy")
    fg_fun = sp.lambdify([mu, tau, x], [sp.diff(f, mu), sp.diff(f, tau)], "numpy")
    U0_fun = sp.lambdify([mu, tau], U0, "numpy")
    U0g_fun = sp.lambdify([mu, tau], [sp.diff(U0, mu), sp.diff(U0, tau)], "numpy")

    theta = _points(ng, 5, seed=24)
    m, t = theta[:, 0], theta[:, 1]
    idx = np.random.default_rng(25).integers(0, ng.N, (5, 6))
    xi = ng.x[idx]
    mm, tt = m[:, None] + 0 * xi, t[:, None] + 0 * xi
    np.testing.assert_allclose(ng.component_potentials(theta, idx), f_fun(mm, tt, xi), rtol=1e-12)
    want = np.stack([np.asarray(v, float) for v in fg_fun(mm, tt, xi)], axis=-1)
    np.testing.assert_allclose(ng.component_grads(theta, idx), want, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(ng.prior_potential(theta), U0_fun(m, t), rtol=1e-12)
    want0 = np.stack([np.asarray(v, float) + 0 * m for v in U0g_fun(m, t)], axis=-1)
    np.testing.assert_allclose(ng.prior_grad(theta), want0, rtol=1e-12, atol=1e-13)


# -- exact values: independent checks ------------------------------------------------


def test_double_well_exact_by_scipy_quad(dw):
    """mpmath (50 digits, tanh–sinh) against scipy.integrate.quad (float64, QUADPACK)."""
    U = lambda t: dw.potential(np.array([[t]]))[0]  # noqa: E731
    pts = [-np.inf, -4.0, -1.0, 1.0, 3.0, np.inf]

    def q(fn, a=pts):
        return sum(
            integrate.quad(lambda t: fn(t) * np.exp(-U(t)), lo, hi, epsabs=0, epsrel=1e-12)[0]
            for lo, hi in itertools.pairwise(a)
        )

    Z = q(lambda t: 1.0)
    m1 = q(lambda t: t) / Z
    ex = dw.exact
    np.testing.assert_allclose(np.log(Z), ex["log_normaliser"].value, rtol=1e-11)
    np.testing.assert_allclose(m1, ex["mean"].value[0], rtol=1e-11)
    np.testing.assert_allclose(q(lambda t: (t - m1) ** 2) / Z, ex["var"].value, rtol=1e-10)
    np.testing.assert_allclose(ex["cov"].value[0, 0], ex["var"].value, rtol=0)
    np.testing.assert_allclose(q(lambda t: t**4) / Z, ex["fourth_moment"].value, rtol=1e-10)
    left = q(lambda t: 1.0, [-np.inf, -4.0, dw.barrier]) / Z
    np.testing.assert_allclose(left, ex["left_well_mass"].value, rtol=1e-10)
    np.testing.assert_allclose(
        np.abs(dw.grad(np.array([[dw.minima[0]], [dw.barrier]]))), 0, atol=1e-12
    )
    assert all(v.provenance.startswith("mpmath quad, 50 digits") for v in ex.values())
    assert all(v.is_exact for v in ex.values())


def test_double_well_density(dw):
    grid = np.linspace(-8, 8, 4001)
    dens = dw.density(grid)
    assert dens.shape == grid.shape
    np.testing.assert_allclose(integrate.simpson(dens, x=grid), 1.0, rtol=1e-9)
    assert dw.density(np.zeros((3, 1))).shape == (3, 1)
    np.testing.assert_allclose(
        dw.density(np.array([0.3])),
        np.exp(-dw.potential(np.array([[0.3]]))) / np.exp(dw.exact["log_normaliser"].value),
    )


def test_normal_mean_exact_by_quadrature(nm):
    U = lambda mu: nm.potential(np.array([[mu]]))[0]  # noqa: E731
    U_min = U(nm.xbar)
    lo, hi = nm.xbar - 2.0, nm.xbar + 2.0  # ±20 posterior sd

    def q(fn):
        return integrate.quad(lambda m: fn(m) * np.exp(U_min - U(m)), lo, hi, epsrel=1e-12)[0]

    Z = q(lambda m: 1.0)
    m1 = q(lambda m: m) / Z
    np.testing.assert_allclose(np.log(Z) - U_min, nm.exact["log_normaliser"].value, rtol=1e-12)
    np.testing.assert_allclose(m1, nm.exact["mean"].value[0], rtol=1e-12)
    np.testing.assert_allclose(
        q(lambda m: (m - m1) ** 2) / Z, nm.exact["cov"].value[0, 0], rtol=1e-10
    )
    np.testing.assert_allclose(nm.exact["cov"].value, [[1 / 100]])


def _grid_moments(p: NormalGamma, half_width: float = 14.0, n: int = 801):
    """Moments of exp(−U(μ, τ)) by tensor Simpson on a box of ±half_width posterior sd."""
    mu_c, tau_c = (
        p.posterior["mu_N"],
        special.digamma(p.posterior["a_N"]) - np.log(p.posterior["b_N"]),
    )
    sd_mu = np.sqrt(p.posterior["b_N"] / (p.posterior["a_N"] * p.posterior["kappa_N"]))
    sd_tau = np.sqrt(special.polygamma(1, p.posterior["a_N"]))
    mu = mu_c + half_width * sd_mu * 1.5 * np.linspace(-1, 1, n)  # Student-t: wider in μ
    tau = tau_c + half_width * sd_tau * np.linspace(-1, 1, n)
    M, T = np.meshgrid(mu, tau, indexing="ij")
    U = p.potential(np.column_stack([M.ravel(), T.ravel()])).reshape(M.shape)
    u0 = U.min()
    w = np.exp(u0 - U)

    def integ(f):
        return integrate.simpson(integrate.simpson(f * w, x=tau, axis=1), x=mu)

    Z = integ(1.0)
    E = lambda f: integ(f) / Z  # noqa: E731
    m_mu, m_tau, m_g = E(M), E(T), E(np.exp(T))
    return {
        "log_normaliser": np.log(Z) - u0,
        "mean_mu": m_mu,
        "var_mu": E((M - m_mu) ** 2),
        "mean_tau": m_tau,
        "var_tau": E((T - m_tau) ** 2),
        "mean_gamma": m_g,
        "var_gamma": E((np.exp(T) - m_g) ** 2),
        "cov_mu_tau": E((M - m_mu) * (T - m_tau)),
    }


def test_normal_gamma_exact_by_grid_integration(ng):
    """Closed-form conjugate moments against direct 2-D integration of exp(−U) as coded."""
    got = _grid_moments(ng)
    for key in (
        "log_normaliser",
        "mean_mu",
        "var_mu",
        "mean_tau",
        "var_tau",
        "mean_gamma",
        "var_gamma",
    ):
        np.testing.assert_allclose(got[key], ng.exact[key].value, rtol=1e-8, err_msg=key)
    assert abs(got["cov_mu_tau"]) < 1e-10
    np.testing.assert_allclose(ng.exact["mean"].value, [got["mean_mu"], got["mean_tau"]], rtol=1e-8)
    np.testing.assert_allclose(
        ng.exact["cov"].value, np.diag([got["var_mu"], got["var_tau"]]), rtol=1e-8, atol=1e-12
    )


def test_normal_gamma_grid_power(ng):
    """Power check: the variance reading μ | γ ~ N(0, γ) gives a different posterior."""
    alt = NormalGamma(ng.x)
    alt.prior_potential = lambda th: (  # −log N(μ | 0, var γ) − log Gam(γ|1,1) − τ
        0.5 * np.log(2 * np.pi)
        + 0.5 * th[:, 1]
        + 0.5 * np.exp(-th[:, 1]) * th[:, 0] ** 2
        + np.exp(th[:, 1])
        - th[:, 1]
    )
    got = _grid_moments(alt)
    assert abs(got["log_normaliser"] - ng.exact["log_normaliser"].value) > 1e-3
    assert abs(got["var_mu"] - ng.exact["var_mu"].value) / ng.exact["var_mu"].value > 1e-4


def test_normal_models_share_data():
    a, b = normal_mean(N=30, seed=5), normal_gamma(N=30, seed=5)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_allclose(a.exact["mean"].value, [a.x.mean()])
    assert b.posterior["a_N"] == 16.0 and b.posterior["kappa_N"] == 31.0


# -- AGLD mixture reference values ------------------------------------------------------

ALPHA = 0.01


def _plain_snis(p: AGLDMixture, n: int, seed: int, scale: float = 1.2):
    """Independent reference: plain SNIS from ½N(±ā, scale² I) (no mode search, no CV).

    Returns estimates and delta-method standard errors of E‖x‖², diag Cov and log Z.
    """
    rng = np.random.default_rng(seed)
    abar = p.centres.mean(axis=0)
    d = p.d
    sign = rng.choice([-1.0, 1.0], size=n)
    x = sign[:, None] * abar + scale * rng.standard_normal((n, d))
    lq = (
        np.logaddexp(
            -0.5 * np.sum((x - abar) ** 2, axis=1) / scale**2,
            -0.5 * np.sum((x + abar) ** 2, axis=1) / scale**2,
        )
        - np.log(2.0)
        - 0.5 * d * np.log(2 * np.pi * scale**2)
    )
    lw = -p.potential(x) - lq
    w = np.exp(lw - lw.max())
    r = w / w.mean()
    h = np.column_stack([np.sum(x * x, axis=1), x * x])  # E‖x‖², then diag of E[xxᵀ]
    est = r @ h / n
    se = np.sqrt(np.mean((r[:, None] * (h - est)) ** 2, axis=0) / n)
    log_z = lw.max() + np.log(w.mean())
    se_log_z = r.std(ddof=1) / np.sqrt(n)
    return np.append(est, log_z), np.append(se, se_log_z)


def _mixture_reference_vector(p: AGLDMixture, ms_shift: float = 0.0):
    ex = p.exact
    val = np.concatenate(
        [
            [ex["mean_sq_norm"].value + ms_shift],
            np.diag(ex["cov"].value),
            [ex["log_normaliser"].value],
        ]
    )
    se = np.concatenate(
        [[ex["mean_sq_norm"].stderr], np.diag(ex["cov"].stderr), [ex["log_normaliser"].stderr]]
    )
    return val, se


def _max_abs_z(p: AGLDMixture, ms_shift: float = 0.0) -> tuple[float, float]:
    est, se = _plain_snis(p, n=20_000, seed=31)
    ref, ref_se = _mixture_reference_vector(p, ms_shift)
    z = (est - ref) / np.sqrt(se**2 + ref_se**2)
    crit = norm.isf(ALPHA / (2 * z.size))  # two-sided, Bonferroni over 12 quantities
    return float(np.abs(z).max()), float(crit)


def test_mixture_reference_by_independent_snis(gmm):
    """Stored reference vs a fresh plain SNIS (different proposal, seed 31), α = 0.01."""
    zmax, crit = _max_abs_z(gmm)
    assert zmax < crit, (zmax, crit)


def test_mixture_reference_power(gmm):
    """The same test rejects a reference with E‖x‖² off by 1 (2 %) and the unimodal guess."""
    zmax, crit = _max_abs_z(gmm, ms_shift=1.0)
    assert zmax > crit, (zmax, crit)
    est, se = _plain_snis(gmm, n=20_000, seed=31)
    z_unimodal = (est[0] - gmm.d) / se[0]  # E‖x‖² = d if the target were N(0, I)
    assert abs(z_unimodal) > norm.isf(ALPHA / 2)


def test_mixture_stored_reference_integrity(gmm):
    ref = load_reference()
    assert ref is not None and REFERENCE_PATH.is_file()
    assert ref["centres_sha256"] == centres_sha256(gmm.centres)
    assert (ref["N"], ref["d"], ref["data_seed"]) == (500, 10, 0)
    ex = gmm.exact
    assert ex["cov"].provenance.startswith("stored agld_gmm_reference.json")
    assert not ex["cov"].is_exact and ex["mean"].is_exact
    np.testing.assert_array_equal(ex["mean"].value, np.zeros(10))
    C = ex["cov"].value
    np.testing.assert_array_equal(C, C.T)
    assert np.linalg.eigvalsh(C).min() > 0
    assert np.all(ex["cov"].stderr > 0) and ex["mean_sq_norm"].stderr > 0
    np.testing.assert_allclose(ex["mean_sq_norm"].value, np.trace(C), rtol=1e-14)
    assert ref["ess"] > 0.5 * ref["n_draws"]


def test_mixture_stored_mean_estimate_is_calibrated():
    """The stored run also estimated E[x], which is exactly 0: its z-scores must be small.

    A check of the delta-method standard errors: α = 0.01, Bonferroni over d = 10.
    """
    ref = load_reference()
    z = np.asarray(ref["mean_estimate"]) / np.asarray(ref["mean_estimate_stderr"])
    assert np.abs(z).max() < norm.isf(ALPHA / (2 * z.size))


def test_mixture_close_to_two_gaussians(gmm):
    """Consistency: the target is ½N(ā,I)+½N(−ā,I) up to the hyperplane mass (module doc)."""
    abar = gmm.centres.mean(axis=0)
    approx = np.eye(gmm.d) + np.outer(abar, abar)
    dev = np.abs(gmm.exact["cov"].value - approx).max()
    assert 1e-8 < dev < 1e-4, dev


def test_mixture_reference_computed_when_not_stored():
    p = agld_gmm(N=15, d=2, seed=3, reference_draws=4000)
    assert p.exact["cov"].provenance.startswith("computed at construction")
    assert p.exact["cov"].value.shape == (2, 2)
    q = agld_gmm(N=15, d=2, seed=3, reference_draws=0)
    assert set(q.exact) == {"mean"}


@pytest.mark.slow
def test_mixture_reference_regenerates():
    """Regenerate the stored reference: same seed → same numbers; new seed → agreement.

    The independent run (seed 7, 2·10⁵ draws) is compared on the 55 distinct
    covariance entries, E‖x‖² and log Z with a two-sided z-test at α = 0.001,
    Bonferroni over the 57 quantities.
    """
    ref = load_reference()
    A = _centres(ref["N"], ref["d"], ref["data_seed"])
    same = _reference_moments(A, ref["is_seed"], ref["n_draws"], eps=ref["eps"])
    for key in ("cov", "mean_sq_norm", "log_normaliser", "cov_stderr"):
        np.testing.assert_allclose(same[key], ref[key], rtol=1e-9, atol=1e-12, err_msg=key)
    new = _reference_moments(A, 7, 200_000, eps=ref["eps"])
    iu = np.triu_indices(ref["d"])
    a = np.concatenate([np.asarray(new["cov"])[iu], [new["mean_sq_norm"], new["log_normaliser"]]])
    b = np.concatenate([np.asarray(ref["cov"])[iu], [ref["mean_sq_norm"], ref["log_normaliser"]]])
    sa = np.concatenate(
        [
            np.asarray(new["cov_stderr"])[iu],
            [new["mean_sq_norm_stderr"], new["log_normaliser_stderr"]],
        ]
    )
    sb = np.concatenate(
        [
            np.asarray(ref["cov_stderr"])[iu],
            [ref["mean_sq_norm_stderr"], ref["log_normaliser_stderr"]],
        ]
    )
    z = (a - b) / np.sqrt(sa**2 + sb**2)
    assert np.abs(z).max() < norm.isf(0.001 / (2 * z.size)), np.abs(z).max()
