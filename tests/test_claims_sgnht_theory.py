"""The closed forms and exact laws of :mod:`sgmcmc_verify.claims.sgnht_theory`, checked
independently: by sympy, by quadrature, and against exact Gaussian values."""

import itertools
import math

import numpy as np
import pytest
import scipy.integrate
import sympy as sp

from sgmcmc_verify.claims import sgnht_theory
from sgmcmc_verify.claims.sgnht_theory import (
    TemperedDoubleWell,
    derived_xi_slope,
    euler_kinetic_energy,
    euler_tv_bound,
)
from sgmcmc_verify.problems import double_well


def test_derived_xi_slope():
    assert derived_xi_slope(1.0, 1) == 0.0  # the paper's double well: E[ξ] = B + O(h²)
    assert derived_xi_slope(2.0, 1) == 1.5
    assert derived_xi_slope(1.5, 2) == 0.875
    assert derived_xi_slope(2.0, 1, old_p=True) - derived_xi_slope(2.0, 1) == 2.0


def test_tempered_double_well_matches_the_exact_values():
    pr = double_well()
    rho = TemperedDoubleWell(pr, 1.0)
    assert math.isclose(math.log(rho.Z) - rho._umin, pr.exact["log_normaliser"].value, rel_tol=1e-9)
    assert math.isclose(rho.left_mass(), pr.exact["left_well_mass"].value, rel_tol=1e-9)
    x = rho.quantile_points()
    np.testing.assert_allclose(rho.cdf(x), np.arange(1, 20) / 20, atol=1e-6)
    draws = rho.sample(200_000, np.random.default_rng(1))[:, 0]
    assert abs(np.mean(draws < pr.barrier) - rho.left_mass()) < 5 * math.sqrt(0.12 / 200_000)


def test_euler_first_order_law_solves_the_stationarity_equation():
    # module docstring: for p' = p − h(ξp + U') + N(0, 2ξTh), θ' = θ + hp', the first-order
    # density correction g of μ ∝ exp(−H/T) solves L*g = −E₂*1, E₂ = A₂ − L²/2, for any U
    th, p, s, eta = sp.symbols("theta p s eta", real=True)  # s = √h
    xi, T = sp.symbols("xi T", positive=True)
    U = sp.Function("U")(th)
    pn = p - s**2 * (xi * p + U.diff(th)) + s * sp.sqrt(2 * xi * T) * eta
    d = [sp.expand(s**2 * pn), sp.expand(pn - p)]  # increments of (θ, p)
    X = [th, p]

    def e_eta(e):  # E over η ~ N(0, 1): moments 1, 0, 1, 0, 3, ...
        e = sp.expand(e)
        return sum(e.coeff(eta, k) * (sp.factorial2(k - 1) if k else 1) for k in range(0, 9, 2))

    ops: dict = {}
    for order in range(1, 5):
        for idx in itertools.product(range(2), repeat=order):
            c = sp.expand(e_eta(sp.prod([d[i] for i in idx])) / math.factorial(order))
            c = sp.series(c, s, 0, 5).removeO()
            ops[tuple(sorted(idx))] = ops.get(tuple(sorted(idx)), 0) + c
    L = {k: sp.expand(v).coeff(s, 2) for k, v in ops.items()}
    A2 = {k: sp.expand(v).coeff(s, 4) for k, v in ops.items()}
    assert all(
        sp.expand(v).coeff(s, 1) == 0 and sp.expand(v).coeff(s, 3) == 0 for v in ops.values()
    )
    mu = sp.exp(-(p**2 / 2 + U) / T)

    def adj(op, f):  # L²(μ)-adjoint of a differential operator, applied to f
        return sum(
            (-1) ** len(k) * sp.diff(c * mu * f, *[X[i] for i in k]) / mu for k, c in op.items()
        )

    # E₂*1 = A₂*1 − ½ L*L*1, and L*1 = 0 (μ is invariant for the continuous dynamics)
    assert sp.simplify(adj(L, 1)) == 0
    g = xi / (4 * T) * (p**2 - T) + p * U.diff(th) / (2 * T)
    residual = adj(L, g) + adj(A2, 1) - adj(L, adj(L, 1)) / 2
    assert sp.simplify(sp.expand(residual)) == 0
    # E[g | θ] does not depend on θ: the θ-marginal has no O(h) term
    cond = sp.integrate(g * sp.exp(-(p**2) / (2 * T)), (p, -sp.oo, sp.oo))
    assert sp.simplify(cond.diff(th)) == 0
    # a wrong correction (without the modified-energy term) does not solve it
    bad = adj(L, g - p * U.diff(th) / (2 * T)) + adj(A2, 1)
    assert sp.simplify(sp.expand(bad)) != 0


@pytest.mark.parametrize("a, u", [(0.25, 0.0), (0.25, 1.3), (0.1, -4.0), (2.5, 0.2)])
def test_mean_abs_quadratic_matches_quadrature(a, u):
    want, _ = scipy.integrate.quad(
        lambda z: abs(a * (z * z - 1) + u * z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi),
        -40,
        40,
        points=sorted(np.roots([a, u, -a]).real),
        limit=200,
    )
    assert float(sgnht_theory._mean_abs_quadratic(a, np.array(u))) == pytest.approx(want, 1e-9)


@pytest.mark.parametrize("xi, T, k", [(1.0, 1.0, 1.0), (10.0, 0.1, 3.0), (0.1, 10.0, 0.5)])
def test_euler_kinetic_energy_matches_the_gaussian_exactly(xi, T, k):
    # U = kθ²/2: the chain is linear, its stationary covariance solves a discrete Lyapunov
    # equation exactly; the second-order formula must be off only at O(h³): the exact
    # series is E[K] = T/2 + Tξh/4 + T(ξ² + k)h²/8 + T(ξ³/16 + kξ/8)h³ + …, the formula's
    # h³ term is Tξ³/16, so the difference is (Tkξ/8)h³
    def gap(h):  # (exact E[K] − formula)/h³, and the exact E[K] (rational arithmetic)
        xq, Tq, kq, hq = (sp.Rational(str(v)) for v in (xi, T, k, h))
        M = sp.Matrix([[1 - hq * xq, -hq * kq], [hq * (1 - hq * xq), 1 - hq * hq * kq]])
        G = sp.Matrix([1, hq]) * sp.Matrix([[1, hq]]) * 2 * xq * Tq * hq
        a, b, c = sp.symbols("a b c")
        S = sp.Matrix([[a, b], [b, c]])
        sol = sp.solve(list(M * S * M.T + G - S), [a, b, c], dict=True)[0]
        exact = float(sol[a] / 2)
        got = euler_kinetic_energy(T, xi, h, k * T)  # E_ρ[U'²] = k²·T/k
        return float((sol[a] / 2 - sp.Rational(got)) / hq**3), exact

    (r1, _), (r2, exact) = gap(2e-3), gap(1e-3)
    # Richardson: 2r(h/2) − r(h) = coefficient + O(h²)
    assert 2 * r2 - r1 == pytest.approx(T * k * xi / 8, rel=0.02)
    h = 1e-3
    got = euler_kinetic_energy(T, xi, h, k * T)
    # the first-order value alone is off at O(h²)
    assert abs(exact - 0.5 * T / (1 - xi * h / 2)) > 100 * abs(exact - got)


def test_euler_tv_bound_matches_a_grid_and_scales_with_h():
    pr = double_well()
    rho = TemperedDoubleWell(pr, 1.0)
    x = np.linspace(-8.0, 7.0, 3001)
    z = np.linspace(-10.0, 10.0, 8001)
    wz = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    up = pr.grad(x[:, None])[:, 0]
    g = np.abs(0.25 * (z[None, :] ** 2 - 1) + z[None, :] * up[:, None] / 2)  # ξ = T = 1
    inner = np.trapezoid(g * wz, z, axis=1)
    fx = rho._f(x) / rho.Z
    want = 0.5 * 0.01 * np.trapezoid(inner * fx, x)
    assert euler_tv_bound(pr, 1.0, 1.0, 0.01) == pytest.approx(want, rel=1e-4)
    assert euler_tv_bound(pr, 1.0, 1.0, 0.02) == pytest.approx(2 * want, rel=1e-4)
