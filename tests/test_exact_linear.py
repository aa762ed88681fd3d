"""Tests of :mod:`sgmcmc_verify.exact.linear`: exact stationary moments of the linear chains.

Each reference is computed independently of what it checks:

* the sympy 1-D formulas against the float64 Lyapunov solve of the block-built d-D
  maps (two transcriptions of the papers' equations, two solvers);
* the d-D Lyapunov solve against the second-moment recursion
  ``Σ_{k+1} = M Σ_k Mᵀ + B Bᵀ`` iterated from 0 (plainly, and by doubling);
* the ``h``-series against finite differences of the exact expressions in mpmath;
* identities derived by hand in the docstrings below (the DESIGN.md anchor, the
  Euler schemes' ``Cov(θ, p) = ∓ h E p²/2``, SVRHMC eqs. (17)–(18), ``B̂ = B``);
* one Monte Carlo check of the real sampler, with its power against a wrong map.

Error budget: one Monte Carlo assertion of size α = 1e-4 (two coordinates,
Bonferroni inside :func:`variance_test`); everything else is deterministic.
"""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import solve_discrete_lyapunov

import sgmcmc_verify as sv
from sgmcmc_verify import registry
from sgmcmc_verify.exact import linear as L
from sgmcmc_verify.problems import GaussianQuadratic
from sgmcmc_verify.problems.gaussian import gaussian_differing, gaussian_identical
from sgmcmc_verify.stats import variance_test

ALPHA = 1e-4
MOMENTUM = [s for s in L.SCHEMES if s not in ("lmc", "sgld", "psgld")]


def _sym(sm, name):
    return {str(s): s for s in sm.parameters}[name]


def _problem_1d(a, mu=0.0):
    return GaussianQuadratic(np.array([[mu]]), np.full((1, 1, 1), a), name="gauss-1d")


def _draw_params(data, scheme, scale=1.0):
    """Scheme parameters in [0.3, 3]; B̂ a fraction of A so that A − B̂ ≥ 0."""
    out = {}
    for k in L.SCHEME_PARAMS[scheme]:
        if k == "B_hat":
            out[k] = data.draw(st.floats(0.0, 1.0), label="B_hat/A") * out["A"]
        else:
            out[k] = data.draw(st.floats(0.3, 3.0), label=k)
    return out


def _doubled_recursion(M, c, Q):
    """``(m_K, Σ_K)`` of ``m_{k+1} = M m_k + c``, ``Σ_{k+1} = M Σ_k Mᵀ + Q`` from 0, K = 2^j.

    Doubling: ``Σ_{2k} = Σ_k + M^k Σ_k M^kᵀ`` and ``m_{2k} = m_k + M^k m_k``; it
    stops when ``M^k`` is below 1e-20, i.e. when further steps change nothing in float64.
    """
    A, S, m = M.copy(), Q.copy(), c.copy()
    for _ in range(80):
        S = S + A @ S @ A.T
        m = m + A @ m
        A = A @ A
        if np.abs(A).max() < 1e-20:
            return m, S
    raise AssertionError("recursion did not converge")


# ---------------------------------------------------------------------------------------------
# Symbolic, 1-D
# ---------------------------------------------------------------------------------------------


def test_design_anchor_euler_sgld():
    """DESIGN.md: Euler SGLD on N(0, 1/a), additive noise s²: a Var θ = (2 + hs²)/(2 − ha)."""
    sm = L.symbolic_moments("sgld")
    a, h, s2 = (_sym(sm, k) for k in ("a", "h", "s2"))
    assert sp.simplify(a * sm.var_theta - (2 + h * s2) / (2 - h * a)) == 0
    assert sp.simplify(L.symbolic_moments("lmc").var_theta - sm.var_theta.subs(s2, 0)) == 0
    assert L.leading_bias("sgld") == (1, (a + s2) / (2 * a))
    assert sm.provenance == "sympy, exact"


def test_euler_schemes_cross_covariance_identity():
    """By hand: stationarity of Var θ fixes Cov(θ, p) in both Euler schemes.

    ULD-EM (θ' = θ + h r): Var θ = Var θ + 2h Cov(θ, r) + h² E r², so Cov(θ, r) = −h E r²/2.
    SGHMC-Euler (θ' = θ + h p'): Cov(θ, p') = −h E p²/2, and Cov(θ', p') = Cov(θ, p') +
    h E p'² = +h E p²/2.
    """
    for scheme, sign in (("uld-em", -1), ("sghmc-euler", 1), ("sghmc-chen", 1)):
        sm = L.symbolic_moments(scheme)
        h = _sym(sm, "h")
        assert sp.simplify(sm.cov_theta_p - sign * h * sm.e_p2 / 2) == 0, scheme


def test_documented_closed_forms():
    """The closed forms quoted in the module docstring are the derived ones."""
    a, h, s2 = sp.symbols("a h s2", positive=True)
    g, D = sp.symbols("gamma D", positive=True)
    forms = {
        "uld-em": (2 * g + h * s2)
        * (2 - g * h + a * h**2)
        / (a * (g - a * h) * (4 - 2 * g * h + a * h**2)),
        "sghmc-euler": (2 - D * h) * (2 * D + h * s2) / (a * D * (4 - 2 * D * h - a * h**2)),
        "splitting": h * (2 * D + h * s2) / (4 * a * sp.sinh(D * h / 2)),
    }
    for scheme, form in forms.items():
        sm = L.symbolic_moments(scheme)
        sub = {_sym(sm, k): v for k, v in {"a": a, "h": h, "s2": s2}.items()}
        sub[_sym(sm, "gamma" if scheme == "uld-em" else "D")] = g if scheme == "uld-em" else D
        diff = (sm.var_theta.subs(sub) - form).rewrite(sp.exp)
        assert sp.simplify(diff) == 0, scheme
    assert L.symbolic_moments("splitting").cov_theta_p == 0


def test_sghmc_chen_with_b_hat_equal_to_b_is_sghmc_euler_with_full_gradient():
    """SGNHT §2: B̂ offsets h e ~ N(0, 2Bh); with B̂ = B the momentum noise is 2Ah in total."""
    inj = L.sghmc_chen_injected_moments()
    eu = L.symbolic_moments("sghmc-euler")
    B, B_hat, A = (_sym(inj, k) for k in ("B", "B_hat", "A"))
    sub = {_sym(eu, "D"): A, _sym(eu, "s2"): 0, _sym(eu, "h"): _sym(inj, "h")}
    sub[_sym(eu, "a")] = _sym(inj, "a")
    for q in L.QUANTITIES:
        assert sp.simplify(inj.expr(q).subs(B_hat, B) - eu.expr(q).subs(sub)) == 0, q
    # and otherwise an O(1) bias (B − B̂)/(A a) in Var θ
    assert L.leading_bias("sghmc-chen-injected") == (0, (B - B_hat) / (A * _sym(inj, "a")))


def test_symbolic_derivations_are_cached():
    for scheme in L.SCHEMES:
        assert L.symbolic_moments(scheme) is L.symbolic_moments(scheme)
        assert L.symbolic_moments(scheme).seconds > 0


@pytest.mark.parametrize("scheme", L.SCHEMES)
@given(data=st.data())
def test_symbolic_matches_the_numeric_lyapunov_solve(scheme, data):
    a = data.draw(st.floats(0.1, 3.0), label="a")
    params = _draw_params(data, scheme)
    h = data.draw(st.floats(0.002, 0.9), label="h·scale") / max(a, 1.0, *params.values())
    s2 = 0.0 if scheme == "lmc" else data.draw(st.floats(0.0, 5.0), label="s2")
    mu = data.draw(st.floats(-3.0, 3.0), label="mu")
    prob = _problem_1d(a, mu)
    M = L.affine_map(scheme, h, a, params).M
    rho = np.abs(np.linalg.eigvals(M)).max()
    if rho > 1 - L.STABILITY_MARGIN:
        with pytest.raises(ValueError, match="spectral radius"):
            L.stationary_moments(scheme, prob, h, noise_cov=s2, **params)
        return
    num = L.stationary_moments(scheme, prob, h, noise_cov=None if s2 == 0 else s2, **params)
    sym = L.moments_1d(scheme, h=h, a=a, s2=s2, **params)
    tol = 1e-10 * np.abs(num.cov).max() / (1 - rho)
    assert num.provenance == "discrete Lyapunov solve, float64"
    assert num.mean[0] == pytest.approx(mu, abs=1e-12 * (1 + abs(mu)) / (1 - rho))
    assert abs(sym["var_theta"] - num.theta_cov[0, 0]) <= tol
    if scheme in MOMENTUM:
        assert abs(num.mean[1]) <= 1e-12 * (1 + abs(mu)) / (1 - rho)
        assert abs(sym["e_p2"] - num.p_cov[0, 0]) <= tol
        assert abs(sym["cov_theta_p"] - num.theta_p_cov[0, 0]) <= tol


def _fd_coefficients(f, eta):
    """``c0, c1, c2`` of ``f(h) = c0 + c1 h + c2 h² + O(h³)`` from f(±η), f(±2η) (mpmath).

    Even and odd parts: (f(η) + f(−η))/2 = c0 + c2η² + O(η⁴), (f(η) − f(−η))/2 = c1η + O(η³).
    """
    e1 = (f(eta) + f(-eta)) / 2
    e2 = (f(2 * eta) + f(-2 * eta)) / 2
    c2 = (e2 - e1) / (3 * eta**2)
    c1 = (f(eta) - f(-eta)) / (2 * eta)
    return e1 - c2 * eta**2, c1, c2


@pytest.mark.parametrize("scheme", [*L.SCHEMES, "sghmc-chen-injected"])
@settings(max_examples=8)
@given(data=st.data())
def test_series_matches_finite_differences_of_the_exact_expression(scheme, data):
    sm = L.symbolic_moments(scheme) if scheme in L.SCHEMES else L.sghmc_chen_injected_moments()
    values = {str(s): data.draw(st.floats(0.2, 3.0), label=str(s)) for s in sm.parameters[1:]}
    if "B_hat" in values:
        values["B_hat"] *= values["A"] / 3  # keep A − B̂ ≥ 0
    # exact rationals: a float in sympy would round the expression to 15 digits
    point = {_sym(sm, k): sp.Rational(v) for k, v in values.items()}
    h = sm.parameters[0]
    with mpmath.workdps(80):
        eta = mpmath.mpf(10) ** -12
        for q in sm.quantities():
            exact = sp.lambdify(h, sm.expr(q).subs(point), modules="mpmath")
            fd = _fd_coefficients(exact, eta)
            for k, (coef, approx) in enumerate(zip(sm.series[q], fd, strict=True)):
                value = mpmath.mpf(sp.N(coef.subs(point), 60))
                assert abs(value - approx) <= mpmath.mpf(10) ** -20 * (1 + abs(value)), (q, k)


# ---------------------------------------------------------------------------------------------
# Numeric, d-D
# ---------------------------------------------------------------------------------------------


def _random_problem(rng, d):
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    Lam = (q * rng.uniform(0.2, 2.0, d)) @ q.T
    Lam = (Lam + Lam.T) / 2
    mu = rng.standard_normal(d)
    return GaussianQuadratic(mu[None, :], Lam[None], name="random"), Lam, mu


@given(
    scheme=st.sampled_from(L.SCHEMES),
    d=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
    noisy=st.booleans(),
    data=st.data(),
)
def test_lyapunov_solve_matches_the_iterated_second_moment_recursion(scheme, d, seed, noisy, data):
    rng = np.random.default_rng(seed)
    prob, Lam, mu = _random_problem(rng, d)
    params = _draw_params(data, scheme)
    lam_max = np.linalg.eigvalsh(Lam).max()
    h = data.draw(st.floats(0.002, 0.9), label="h·scale") / max(lam_max, 1.0, *params.values())
    S = None
    if noisy:
        R = rng.standard_normal((d, d))
        S = R @ R.T
    M, c, B = L.affine_map(scheme, h, Lam, params, mu=mu, noise_cov=S)
    rho = np.abs(np.linalg.eigvals(M)).max()
    if rho > 1 - L.STABILITY_MARGIN:
        with pytest.raises(ValueError, match="unstable"):
            L.stationary_moments(scheme, prob, h, noise_cov=S, **params)
        return
    mean, cov = L.stationary_moments(scheme, prob, h, noise_cov=S, **params)
    m_rec, S_rec = _doubled_recursion(M, c, B @ B.T)
    scale = np.abs(S_rec).max() / (1 - rho)
    np.testing.assert_allclose(cov, S_rec, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(mean, m_rec, rtol=0, atol=1e-10 * (1 + np.abs(mu).max()) / (1 - rho))
    # every scheme here has the fixed point (μ, 0), whatever the noise
    np.testing.assert_allclose(
        mean[:d], mu, rtol=0, atol=1e-10 * (1 + np.abs(mu).max()) / (1 - rho)
    )


def test_lyapunov_solve_matches_a_plain_long_iteration():
    """Literally iterate Σ_{k+1} = MΣ_kMᵀ + BBᵀ from Σ_0 = 0 for 3000 steps (ρ^6000 < 1e-100)."""
    rng = np.random.default_rng(7)
    prob, Lam, mu = _random_problem(rng, 3)
    S = np.diag([0.5, 0.2, 1.0])
    for scheme in L.SCHEMES:
        params = {"gamma": 1.3, "D": 1.3, "A": 1.3, "B_hat": 0.4}
        params = {k: v for k, v in params.items() if k in L.SCHEME_PARAMS[scheme]}
        M, c, B = L.affine_map(scheme, 0.2, Lam, params, mu=mu, noise_cov=S)
        Sig, m = np.zeros_like(M), np.zeros(M.shape[0])
        for _ in range(3000):
            Sig = M @ Sig @ M.T + B @ B.T
            m = M @ m + c
        res = L.stationary_moments(scheme, prob, 0.2, noise_cov=S, **params)
        assert res.spectral_radius**6000 < 1e-100
        np.testing.assert_allclose(res.cov, Sig, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(res.mean, m, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("scheme", L.SCHEMES)
def test_d_dim_moments_decouple_in_the_eigenbasis_into_the_1d_formulas(scheme):
    """With S = s² I, rotating to Λ's eigenbasis gives d independent 1-D chains.

    This exercises the d-D block construction (Λ acting on forms, c = hΛμ, ...)
    against the sympy 1-D derivation.
    """
    rng = np.random.default_rng(11)
    prob, Lam, mu = _random_problem(rng, 3)
    lam, V = np.linalg.eigh(Lam)
    params = {"gamma": 1.7, "D": 1.7, "A": 1.7, "B_hat": 0.5}
    params = {k: v for k, v in params.items() if k in L.SCHEME_PARAMS[scheme]}
    h, s2 = 0.15, 0.0 if scheme == "lmc" else 0.6
    res = L.stationary_moments(scheme, prob, h, noise_cov=s2 * np.eye(3), **params)
    one = L.moments_1d(scheme, h=h, a=lam, s2=s2, **params)
    np.testing.assert_allclose(res.theta_cov, (V * one["var_theta"]) @ V.T, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(res.theta_mean, mu, rtol=1e-11)
    if scheme in MOMENTUM:
        cross = np.broadcast_to(one["cov_theta_p"], lam.shape)
        np.testing.assert_allclose(res.p_cov, (V * one["e_p2"]) @ V.T, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(res.theta_p_cov, (V * cross) @ V.T, rtol=1e-11, atol=1e-13)


def test_splitting_map_agrees_with_the_composed_form_eqs_17_18():
    """SVRHMC eqs. (17)-(18), written out in 1-D by hand, against the (12)-(16) composition.

    p' = e(e p − h a (θ + h/2 p) + s ξ), θ' = θ + h/2 p' + h/2 p, with e = exp(−Dh/2), s² = 2Dh.
    """
    a, h, D = 1.4, 0.3, 1.2
    e, s = math.exp(-D * h / 2), math.sqrt(2 * D * h)
    p_row = np.array([-e * h * a, e * e - e * h * a * h / 2])
    th_row = np.array([1.0, h / 2]) + h / 2 * p_row
    M = np.vstack([th_row, p_row])
    B = np.array([[h / 2 * e * s], [e * s]])
    got = L.affine_map("splitting", h, a, {"D": D})
    np.testing.assert_allclose(got.M, M, rtol=1e-14)
    np.testing.assert_allclose(got.B @ got.B.T, B @ B.T, rtol=1e-14)


def test_sghmc_chen_is_sghmc_euler_with_d_equal_a_plus_a_different_noise():
    Lam = np.array([[1.5, 0.2], [0.2, 0.7]])
    B_hat = np.array([[0.3, 0.1], [0.1, 0.2]])
    chen = L.affine_map("sghmc-chen", 0.1, Lam, {"A": 1.2, "B_hat": B_hat})
    euler = L.affine_map("sghmc-euler", 0.1, Lam, {"D": 1.2})
    np.testing.assert_array_equal(chen.M, euler.M)
    # the injected covariance 2(A I − B̂)h enters p' directly and θ' = θ + h p'
    inj = 2 * (1.2 * np.eye(2) - B_hat) * 0.1
    expected = np.block([[0.01 * inj, 0.1 * inj], [0.1 * inj, inj]])
    np.testing.assert_allclose(chen.B @ chen.B.T, expected, rtol=1e-13, atol=1e-16)


def test_unstable_step_size_raises_a_clear_error():
    prob = _problem_1d(2.0)
    with pytest.raises(ValueError, match=r"unstable.*spectral radius.*reduce h"):
        L.stationary_moments("lmc", prob, 1.0)  # |1 − ha| = 1
    with pytest.raises(ValueError, match="unstable"):
        L.stationary_moments("uld-em", prob, 0.6, gamma=1.0)  # γ < ah


def test_bad_arguments_raise_before_work():
    prob = _problem_1d(1.0)
    with pytest.raises(ValueError, match="unknown scheme"):
        L.affine_map("sghmc", 0.1, 1.0)
    with pytest.raises(ValueError, match="unknown parameter"):
        L.stationary_moments("uld-em", prob, 0.1, D=1.0)
    with pytest.raises(ValueError, match="symmetric"):
        L.affine_map("lmc", 0.1, np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="A·I − B̂"):
        L.affine_map("sghmc-chen", 0.1, 1.0, {"A": 1.0, "B_hat": 2.0})
    with pytest.raises(ValueError, match="h must be"):
        L.affine_map("lmc", -0.1, 1.0)
    with pytest.raises(TypeError, match="GaussianQuadratic"):
        L.stationary_moments("lmc", object(), 0.1)
    with pytest.raises(ValueError, match="full gradient"):
        L.moments_1d("lmc", h=0.1, a=1.0, s2=0.5)


# ---------------------------------------------------------------------------------------------
# Registry names
# ---------------------------------------------------------------------------------------------

# From the brief / papers, written out independently of the module's tables.
EXPECTED_SCHEME = {
    "uld-em": "uld-em",
    "sghmc-ewsg": "uld-em",
    "ewsg": "uld-em",
    "sghmc-chen": "sghmc-chen",
    "sghmc-svr": "sghmc-euler",
    "svrg-hmc": "sghmc-euler",
    "saga-hmc": "sghmc-euler",
    "svrg2-hmc": "splitting",
    "saga2-hmc": "splitting",
    "sgld": "sgld",
    "sgld-wor": "sgld",
    "baoa": "baoa",
    "obabo": "obabo",
    "psgld-fixed": "psgld",  # Li et al. 2016 Alg. 1 with G fixed; cv-sgld is "lmc" on N = 1
    "sghmc-refresh": "sghmc-chen",  # Chen et al. 2014 Alg. 2 between its momentum refreshes
}


def test_scheme_for_covers_the_registry():
    for name in registry.names():
        family = registry.get(name).family
        if family == "thermostat":
            with pytest.raises(ValueError, match="not linear"):
                L.scheme_for(name)
        elif family == "overdamped":
            assert L.scheme_for(name) == EXPECTED_SCHEME.get(name, "lmc"), name
        else:
            assert L.scheme_for(name) == EXPECTED_SCHEME[name], name
    with pytest.raises(ValueError, match="unknown algorithm"):
        L.scheme_for("sgld2")


def test_every_linear_algorithm_on_one_data_term_is_its_full_gradient_scheme():
    """N = 1: every estimator returns the exact gradient (the smoke test's setting)."""
    prob = _problem_1d(1.0, mu=0.3)
    for name in registry.names():
        if registry.get(name).family == "thermostat":
            continue
        if name == "sghmc-refresh":  # periodic: its law differs from the inner scheme's
            got = L.algorithm_moments(name, prob, 0.1)
            assert got.theta_mean[0] == pytest.approx(0.3, rel=1e-12), name
            continue  # tests/test_new_references.py derives it from the period map
        scheme = L.scheme_for(name)
        got = L.algorithm_moments(name, prob, 0.1)
        ref = L.moments_1d(scheme, h=0.1, a=1.0)
        assert got.theta_cov[0, 0] == pytest.approx(ref["var_theta"], rel=1e-12), name
        assert got.theta_mean[0] == pytest.approx(0.3, rel=1e-12), name


@pytest.mark.parametrize("d", [1, 2])
def test_sgld_minibatch_noise_is_the_with_replacement_covariance(d):
    """By hand: on Λ_i = Λ/N the error is Λ(c̄ − mean_j c_{I_j}), covariance Λ Cov_pop(c) Λ / n."""
    prob = gaussian_identical(N=20, d=d, precision=np.diag([1.5, 0.5][:d]), spread=1.0, seed=4)
    n, h = 3, 0.2
    c = prob.centres
    S = prob.precision @ np.cov(c.T, ddof=0).reshape(d, d) @ prob.precision / n
    got = L.algorithm_moments("sgld", prob, h, n=n)
    want = L.stationary_moments("sgld", prob, h, noise_cov=S)
    np.testing.assert_allclose(got.cov, want.cov, rtol=1e-12)
    if d == 1:
        s2 = float(S[0, 0])
        ref = L.moments_1d("sgld", h=h, a=1.5, s2=s2)["var_theta"]
        assert got.theta_cov[0, 0] == pytest.approx(ref, rel=1e-12)
        assert ref > L.moments_1d("lmc", h=h, a=1.5)["var_theta"] * 1.05  # the noise matters


def test_injected_noise_with_b_hat_equal_b_matches_the_full_gradient_chain():
    prob = gaussian_identical(N=5, d=2, precision=np.diag([1.0, 2.0]), seed=1)
    got = L.algorithm_moments("sghmc-chen", prob, 0.1, gradient="injected", B=0.3, B_hat=0.3, A=1.5)
    ref = L.stationary_moments("sghmc-euler", prob, 0.1, D=1.5)
    np.testing.assert_allclose(got.cov, ref.cov, rtol=1e-10)


def test_nonlinear_cases_are_refused():
    prob = gaussian_identical(N=20, d=1)
    with pytest.raises(ValueError, match="not linear"):
        L.algorithm_moments("svrg-hmc", prob, 0.1)
    with pytest.raises(ValueError, match="not linear"):
        L.algorithm_moments("sgld", gaussian_differing(N=20, d=1), 0.1)
    with pytest.raises(ValueError, match="without-replacement"):
        L.algorithm_moments("sghmc-svr", prob, 0.1, replace=False)
    with pytest.raises(ValueError, match="not linear"):
        L.algorithm_moments("sgnht", prob, 0.1)


# ---------------------------------------------------------------------------------------------
# Monte Carlo: the real sampler against the exact discrete law, and power
# ---------------------------------------------------------------------------------------------

MC = {"h": 0.25, "D": 1.0, "b": 2, "chains": 10_000, "n_steps": 150}


def _wrong_map_moments(prob, noise_cov):
    """SVRHMC eqs. (1)-(2) with the bug 'θ moves with the old p' (θ' = θ + h p_t)."""
    M, c, B = L.affine_map(
        "sghmc-euler", MC["h"], prob.precision, {"D": MC["D"]}, noise_cov=noise_cov
    )
    M, c, B = M.copy(), c.copy(), B.copy()
    M[0] = [1.0, MC["h"]]
    c[0], B[0] = 0.0, 0.0
    cov = solve_discrete_lyapunov(M, B @ B.T)
    return np.diag(cov), cov


def test_monte_carlo_sghmc_svr_matches_the_exact_law_and_rejects_a_wrong_map():
    """sghmc-svr (SVRHMC eqs. (1)-(2), uniform minibatch b = 2) on 20 identical-curvature terms.

    10,000 independent chains, one draw each after 150 steps from (0, 0); test of
    Var θ and E p² (chain means of squares, known centre (μ, 0)) at α = 1e-4.
    The same draws must reject the exact law of the wrong map — a ~30 % shift, over
    20 standard errors (30 seeds tried: min |z| 20.7) — so the check has power against that bug.
    """
    prob = gaussian_identical(N=20, d=1, precision=1.0, spread=1.0, seed=3)
    exact = L.algorithm_moments("sghmc-svr", prob, MC["h"], b=MC["b"], D=MC["D"])
    # the chain starts at (0, 0): its exact law at step 150 equals the stationary one
    # to within ρ^150 ≈ 4e-10 of the distance, far below the Monte Carlo error (~1 %)
    assert exact.spectral_radius ** MC["n_steps"] < 1e-8
    res = sv.run(
        "sghmc-svr",
        prob,
        h=MC["h"],
        n_steps=MC["n_steps"],
        chains=MC["chains"],
        seed=20240611,
        burn_in=MC["n_steps"] - 1,
        record=("theta", "p"),
        b=MC["b"],
        D=MC["D"],
    )
    x = np.concatenate([res.draws["theta"], res.draws["p"]], axis=-1)  # (chains, 1, 2)
    out = variance_test(x, np.diag(exact.cov), alpha=ALPHA, mean=exact.mean, method="chain_means")
    assert not out.reject, out.description

    noise = prob.minibatch_noise_cov(prob.exact["mean"].value[None], MC["b"])[0]
    wrong_var, wrong_cov = _wrong_map_moments(prob, noise)
    # the wrong map is ULD-EM with γ = D (EWSG eq. (3)): a cross-check of the bug's law
    uld = L.stationary_moments("uld-em", prob, MC["h"], gamma=MC["D"], noise_cov=noise)
    np.testing.assert_allclose(wrong_cov, uld.cov, rtol=1e-12)
    assert np.all(np.abs(wrong_var / np.diag(exact.cov) - 1) > 0.15)
    bad = variance_test(x, wrong_var, alpha=ALPHA, mean=exact.mean, method="chain_means")
    assert bad.reject, bad.description


def test_baoa_and_obabo_closed_forms_from_the_literature():
    """Leimkuhler & Matthews (2013, 2015 §7) on the harmonic oscillator, full gradient:

    BAOAB (hence BAOA, its θ-chain) samples the configuration exactly, ``a Var θ = 1`` at
    every stable h; OBABO's θ has the velocity-Verlet shadow variance ``1/(a(1 − ah²/4))``.
    """
    a, h = sp.symbols("a h", positive=True)
    for scheme, form in {"baoa": 1 / a, "obabo": 1 / (a * (1 - a * h**2 / 4))}.items():
        sm = L.symbolic_moments(scheme)
        sub = {_sym(sm, "a"): a, _sym(sm, "h"): h, _sym(sm, "s2"): 0}
        assert sp.simplify(sm.var_theta.subs(sub) - form) == 0, scheme
    # zero-bias in θ with a full gradient, first order with gradient noise (s²/(2aγ)·h)
    assert L.leading_bias("baoa", s2=0) == (None, 0)
    order, coef = L.leading_bias("baoa")
    assert (
        order == 1
        and sp.simplify(
            coef
            - _sym(L.symbolic_moments("baoa"), "s2")
            / (
                2
                * _sym(L.symbolic_moments("baoa"), "a")
                * _sym(L.symbolic_moments("baoa"), "gamma")
            )
        )
        == 0
    )
