"""Integrators: one zero-noise (and unit-noise) step against sympy transcriptions of the
papers' equations, and invalid arguments rejected before any work."""

import math

import numpy as np
import pytest
import sympy as sp

from sgmcmc_verify import algorithms, problems, registry
from sgmcmc_verify import integrators as integ

th, p, xi, g, zeta, h, gam, D, A, Bh, mu = sp.symbols("theta p xi g zeta h gamma D A Bhat mu")
VALUES = {th: sp.Rational(3, 7), p: sp.Rational(-2, 5), xi: sp.Rational(6, 5),
          g: sp.Rational(5, 3), zeta: sp.Rational(-1, 4), h: sp.Rational(1, 20),
          gam: sp.Rational(3, 2), D: sp.Rational(2, 1), A: sp.Rational(7, 4),
          Bh: sp.Rational(1, 2), mu: sp.Rational(3, 1)}  # fmt: skip

# The papers' one-step maps, transcribed (1-D; n = 1).
PAPER = {
    # EWSG eq. (3), σ = √(2γ)
    "uld": (th + p * h, p - (g + gam * p) * h + sp.sqrt(2 * gam) * sp.sqrt(h) * zeta),
    # SVRHMC eqs. (1)-(2)
    "euler": (
        th + h * ((1 - D * h) * p - h * g + sp.sqrt(2 * D * h) * zeta),
        (1 - D * h) * p - h * g + sp.sqrt(2 * D * h) * zeta,
    ),
    # SGNHT eq. (3) discretised as Algorithm 1 with ξ = A, noise N(0, 2(A − B̂)h)
    "chen": (
        th + h * (p - A * p * h - g * h + sp.sqrt(2 * (A - Bh) * h) * zeta),
        p - A * p * h - g * h + sp.sqrt(2 * (A - Bh) * h) * zeta,
    ),
    # SVRHMC eq. (17)-(18); g is the gradient at θ + h/2 p
    "split": (
        th + h / 2 * sp.exp(-D * h / 2) * (sp.exp(-D * h / 2) * p - h * g
                                           + sp.sqrt(2 * D * h) * zeta) + h / 2 * p,
        sp.exp(-D * h / 2) * (sp.exp(-D * h / 2) * p - h * g + sp.sqrt(2 * D * h) * zeta),
    ),
}  # fmt: skip

SGNHT_PAPER = {  # SGNHT Algorithm 1, n = 1
    "p": p - xi * p * h - g * h + sp.sqrt(2 * A) * sp.sqrt(h) * zeta,
}
SGNHT_PAPER["theta"] = th + SGNHT_PAPER["p"] * h
SGNHT_PAPER["xi"] = xi + (SGNHT_PAPER["p"] ** 2 - 1) * h


def _f(expr, noise):
    return float(expr.subs({**VALUES, zeta: noise}))


def _arr(x):
    return np.array([[float(x.subs(VALUES) if isinstance(x, sp.Basic) else x)]])


def _cases():
    v = {k.name: float(val) for k, val in VALUES.items()}
    return {
        "uld": integ.ULDEulerMaruyama(v["h"], gamma=v["gamma"]),
        "euler": integ.SGHMCEuler(v["h"], D=v["D"]),
        "chen": integ.SGHMCChen(v["h"], A=v["A"], B_hat=v["Bhat"]),
        "split": integ.SymmetricSplitting(v["h"], D=v["D"]),
    }


@pytest.mark.parametrize("name", ["uld", "euler", "chen", "split"])
@pytest.mark.parametrize("noise", [0.0, -0.25])
def test_momentum_step_matches_the_paper(name, noise):
    it = _cases()[name]
    state = integ.MomentumState(_arr(th), _arr(p))
    new = it.advance(state, _arr(g), np.array([[noise]]))
    exp_th, exp_p = PAPER[name]
    eps = 8 * np.finfo(float).eps
    assert new.theta[0, 0] == pytest.approx(_f(exp_th, noise), rel=eps, abs=eps)
    assert new.p[0, 0] == pytest.approx(_f(exp_p, noise), rel=eps, abs=eps)


def test_splitting_evaluates_the_gradient_at_the_half_step():
    it = _cases()["split"]
    state = integ.MomentumState(_arr(th), _arr(p))
    assert it.eval_point(state)[0, 0] == pytest.approx(float((th + h / 2 * p).subs(VALUES)))


@pytest.mark.parametrize("noise", [0.0, -0.25])
def test_sgnht_step_matches_algorithm_1(noise):
    v = {k.name: float(val) for k, val in VALUES.items()}
    it = integ.SGNHT(v["h"], A=v["A"])
    state = integ.ThermostatState(_arr(th), _arr(p), np.array([v["xi"]]))
    new = it.advance(state, _arr(g), np.array([[noise]]))
    eps = 16 * np.finfo(float).eps
    assert new.p[0, 0] == pytest.approx(_f(SGNHT_PAPER["p"], noise), rel=eps)
    assert new.theta[0, 0] == pytest.approx(_f(SGNHT_PAPER["theta"], noise), rel=eps)
    assert new.xi[0] == pytest.approx(_f(SGNHT_PAPER["xi"], noise), rel=eps)


def test_matrix_thermostat_step_matches_eq_11_in_2d():
    """p' = p − Ξp h − g h + √(2h) A^{1/2} ζ, θ' = θ + p'h, Ξ' = Ξ + (p'p'ᵀ − I)h/μ."""
    P = sp.Matrix(sp.symbols("p1 p2"))
    G = sp.Matrix(sp.symbols("g1 g2"))
    Z = sp.Matrix(sp.symbols("z1 z2"))
    X = sp.Matrix(2, 2, sp.symbols("x11 x12 x21 x22"))
    Amat = sp.Matrix([[2, 1], [1, 2]])
    root = sp.Matrix([[(sp.sqrt(3) + 1) / 2, (sp.sqrt(3) - 1) / 2],
                      [(sp.sqrt(3) - 1) / 2, (sp.sqrt(3) + 1) / 2]])  # fmt: skip
    assert sp.simplify(root * root - Amat) == sp.zeros(2, 2)
    hh, m = sp.Rational(1, 10), sp.Rational(2, 1)
    p_new = P - X * P * hh - G * hh + sp.sqrt(2 * hh) * root * Z
    Xi_new = X + (p_new * p_new.T - sp.eye(2)) * hh / m
    vals = dict(
        zip([*P, *G, *Z, *X], [0.3, -0.2, 1.1, 0.4, 0.5, -1.5, 1.0, 0.2, -0.1, 0.7], strict=True)
    )
    it = integ.SGNHTMatrix(0.1, A=np.array([[2.0, 1.0], [1.0, 2.0]]), mu=2.0)
    state = integ.MatrixThermostatState(
        np.zeros((1, 2)), np.array([[0.3, -0.2]]), np.array([[[1.0, 0.2], [-0.1, 0.7]]])
    )
    new = it.advance(state, np.array([[1.1, 0.4]]), np.array([[0.5, -1.5]]))
    np.testing.assert_allclose(new.p[0], np.array(p_new.subs(vals), float)[:, 0], rtol=1e-14)
    np.testing.assert_allclose(new.Xi[0], np.array(Xi_new.subs(vals), float), rtol=1e-13)


def test_reparametrised_sgnht_maps_back_to_algorithm_1_in_one_step():
    v = {k.name: float(val) for k, val in VALUES.items()}
    hh = v["h"]
    a1 = integ.SGNHT(hh, A=v["A"])
    a2 = integ.SGNHTReparam(hh * hh, a=v["A"] * hh)
    s1 = integ.ThermostatState(_arr(th), _arr(p), np.array([v["xi"]]))
    s2 = integ.ThermostatState(_arr(th), _arr(p) * hh, np.array([v["xi"] * hh]))
    n1 = a1.advance(s1, _arr(g), np.array([[0.3]]))
    n2 = a2.advance(s2, _arr(g), np.array([[0.3]]))
    np.testing.assert_allclose(n2.theta, n1.theta, rtol=1e-14)
    np.testing.assert_allclose(a2.momentum(n2), n1.p, rtol=1e-13)
    np.testing.assert_allclose(a2.thermostat(n2), n1.xi, rtol=1e-13)


PROB = problems.gaussian_identical(10, 2)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("svrg-hmc", {"h": 0.5, "D": 2.0}, "Dh < 1"),
        ("sghmc-svr", {"h": 0.1, "D": 10.0}, "Dh < 1"),
        ("svrg2-hmc", {"h": 0.1, "D": 0.5}, "D >= 1"),
        ("sghmc-chen", {"h": 0.1, "A": 1.0, "B_hat": 2.0}, "A·I − B̂ ⪰ 0"),
        ("sghmc-chen", {"h": 0.1, "A": 1.0, "B_hat": np.array([[0.5, 0.9], [0.9, 0.5]])},
         "A·I − B̂ ⪰ 0"),
        ("ewsg", {"h": 0.1, "M": -1}, "M \\(index-chain length\\) must be >= 0"),
        ("ewsg", {"h": 0.1, "x": "two"}, "unknown EWSG x 'two'"),
        ("sgnht", {"h": 0.1, "A": -1.0}, "A \\(injected diffusion\\)"),
        ("sgnht", {"h": 0.1, "gradient": "injected", "B": np.array([[1.0, 2.0], [2.0, 1.0]])},
         "positive semi-definite"),
        ("sgnht-mat", {"h": 0.1, "A": np.array([[1.0, 2.0], [2.0, 1.0]])}, "positive semi"),
        ("sgnht-mat", {"h": 0.1, "mu": 0.0}, "mu must be finite and > 0"),
        ("uld-em", {"h": 0.1, "gamma": -1.0}, "gamma must be finite and > 0"),
        ("uld-em", {"h": 0.1, "p0": "ones"}, "p0 must be 'zeros' or 'normal'"),
        ("saga-hmc", {"h": 0.0}, "h must be finite and > 0"),
    ],
)  # fmt: skip
def test_invalid_parameters_are_rejected_before_work(name, params, match):
    with pytest.raises(ValueError, match=match):
        s = registry.make_sampler(name, PROB, **params)
        s.init(np.zeros((2, 2)), np.random.default_rng(0))


def test_psd_root_is_a_square_root():
    M = np.array([[2.0, 0.5], [0.5, 1.0]])
    R = integ.psd_root("M", M, 2)
    np.testing.assert_allclose(R @ R.T, M, atol=1e-14)
    assert math.isclose(integ.psd_root("s", 4.0, 1)[0, 0], 2.0)


@pytest.mark.parametrize("name", ["baoa", "obabo"])
def test_peer_splittings_step_is_the_transcribed_affine_map(name):
    """One registry step of BAOA/OBABO (d = 2, correlated Λ, γ ≠ 1, full gradient) equals
    the map :func:`sgmcmc_verify.exact.linear.affine_map` transcribes from Leimkuhler &
    Matthews, to float64 rounding, for random states and noises."""
    from sgmcmc_verify.exact import linear
    from sgmcmc_verify.problems import GaussianQuadratic

    Lam = np.array([[2.0, 0.6], [0.6, 0.5]])
    mu = np.array([1.0, -2.0])
    prob = GaussianQuadratic(mu[None, :], Lam[None], name="corr-2d")
    h, gamma = 0.3, 2.5
    s = registry.make_sampler(name, prob, h=h, gamma=gamma, gradient="full")
    rng = np.random.default_rng(3)
    theta, p, noise = (rng.standard_normal((16, 2)) for _ in range(3))
    state = s.init(theta, rng)._replace(p=p)
    new, _ = s.step(state, algorithms.StepRandomness(None, noise))
    M, c, B = linear.affine_map(name, h, Lam, {"gamma": gamma}, mu=mu)
    z = np.hstack([theta, p])
    want = z @ M.T + c + noise @ B.T
    got = np.hstack([new.theta, new.p])
    assert np.allclose(got, want, rtol=0, atol=1e-13 * (1 + np.abs(want).max()))


def test_sghmc_chen_scalar_noise_root_is_elementwise_and_bitwise_the_product():
    """A scalar B̂ gives the root c·I: the elementwise path (no BLAS) equals the matrix
    product bit for bit; a matrix B̂ keeps the product."""
    rng = np.random.default_rng(2)
    theta, p, grad, noise = (rng.standard_normal((64, 3)) for _ in range(4))
    for B_hat in (0.3, np.diag([0.1, 0.2, 0.3]) + 0.05):
        chen = integ.SGHMCChen(0.1, A=1.5, B_hat=B_hat)
        state = integ.MomentumState(theta, p)
        new = chen.advance(state, grad, noise)
        root = chen._root(3)
        inj = np.sqrt(2 * 0.1) * noise @ root.T
        want = p - 1.5 * p * 0.1 - grad * 0.1 + inj
        assert np.array_equal(new.p, want), B_hat
