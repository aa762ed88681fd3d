"""SVRHMC §4, eqs. (12)–(18) and Algorithm 3, step by step.

Expected truth values are our reading of SVRHMC §4 (Li et al.); the numbers are
re-derived below in floating point from the printed recursions, independently of
:mod:`sgmcmc_verify.proofs.svrhmc_splitting`.
"""

import math

import numpy as np
import pytest
from scipy.linalg import solve_discrete_lyapunov

from sgmcmc_verify.proofs import by_name
from sgmcmc_verify.proofs import svrhmc_splitting as pr

EXPECTED = {
    "(12)–(15) ⇒ (17)": True,
    "(12), (16) ⇒ (18)": True,
    "Algorithm 3 line 9 = (17)": False,  # prints p_t (outer index) for p_{tK+k}
    "symmetric: Φ_{−h}∘Φ_h = id": True,
    "(12)–(16) weak order 2": True,
    "(1)–(2) only first order": True,
    "splitting: k·Var θ = 1 − D²h²/24 + O(h³)": True,
    "Euler (1)–(2): k·Var θ = 1 + kh²/4 + O(h³)": True,
}


@pytest.fixture(scope="module")
def steps():
    return pr.splitting_steps()


def test_each_step_holds_or_fails_as_read(steps, expect_steps):
    expect_steps(steps, EXPECTED)


def test_algorithm3_line9_counterexample(steps):
    """t = 0, K = 2, k = 1: line 9 uses p_0 = 0 (line 2) where (17) needs p_1; D = 1, h = 0.1."""
    D, h, p0, p1, grad, noise = 1.0, 0.1, 0.0, 1.0, 0.0, 0.0
    e = math.exp(-D * h / 2)
    printed = e * (e * p0 - h * grad + math.sqrt(2 * D * h) * noise)
    eq17 = e * (e * p1 - h * grad + math.sqrt(2 * D * h) * noise)
    assert printed == 0.0 and abs(eq17 - math.exp(-0.1)) < 1e-15
    cx = by_name(steps)["Algorithm 3 line 9 = (17)"].counterexample
    assert cx["lhs"] == 0 and abs(float(cx["rhs"]) - eq17) < 1e-15


def _stationary_var(A: np.ndarray, c: np.ndarray) -> float:
    """Var θ of X' = AX + cξ at stationarity: Σ = AΣAᵀ + ccᵀ (scipy's direct solver)."""
    return float(solve_discrete_lyapunov(A, np.outer(c, c))[0, 0])


def test_stationary_variances_numerically():
    """f = θ²/2 (k = 1), D = 1, h = 0.01: the h² coefficients of the last two steps.

    (k·Var θ − 1)/h² = c₂ + O(h); the tolerance 0.01 admits an O(h) term with a
    coefficient up to 1 and still separates −1/24, +1/4 and 0.
    """
    k, D, h = 1.0, 1.0, 0.01
    e = math.exp(-D * h / 2)
    s = math.sqrt(2 * D * h)
    # splitting (12)-(16): p' = e(e p − hk(θ + hp/2) + sξ), θ' = θ + hp/2 + hp'/2
    pt, pp, px = -e * h * k, e * e - e * h * k * h / 2, e * s
    A = np.array([[1 + h / 2 * pt, h / 2 + h / 2 * pp], [pt, pp]])
    var_split = _stationary_var(A, np.array([h / 2 * px, px]))
    assert abs((k * var_split - 1) / h**2 - (-(D**2) / 24)) < 0.01
    # Euler (1)-(2): p' = (1 − Dh)p − hkθ + sξ, θ' = θ + hp'
    A = np.array([[1 - h * h * k, h * (1 - D * h)], [-h * k, 1 - D * h]])
    var_euler = _stationary_var(A, np.array([h * s, s]))
    assert abs((k * var_euler - 1) / h**2 - k / 4) < 0.01
