"""SGNHT §4.1 eq. (9) and §4.2 (10)–(11), the matrix-Ξ thermostat, step by step.

Expected truth values are our reading of SGNHT §4 (Ding et al.): every displayed step
holds.  The last tests show the same residual machinery rejecting wrong dynamics, with
values computed by hand.
"""

import sympy as sp

from sgmcmc_verify.proofs import sgnht_fokker_planck as pr

EQ9 = {
    "(9) is stationary Fokker–Planck": True,
    "∇·(ρv) = (∇·v − ∇H·v)ρ": True,
    "∇∇ᵀ:(ρD) = D:ρ_pp": True,
    "ρ_pp = (Q_pQ_pᵀ − Q_pp)ρ": True,
}

MATRIX_XI = {
    "LHS of §4.2": True,
    "(10)": True,
    "(11) solves (10)": True,
    "Q of (11)": True,
    "(9) for (11), n = 2": True,
    "(8)": True,
    "scalar case": True,
    "μ = n gives (6)": True,
    "Ξ ~ MN(D, μ⁻¹I, I)": True,
    "fixed ξ: residual": True,
    "fixed ξ: tempered law invariant": True,
}

#: Ξ as (11) keeps it from a symmetric Ξ₀: the §4.2 density holds on the unique entries
#: (off-diagonal variance 1/(2μ)); the matrix normal read on them does not.
SYMMETRIC_XI = {
    "(11) keeps Ξ symmetric": True,
    "(9) on symmetric Ξ": True,
    "Var Ξ₁₂ = 1/(2μ)": True,
    "MN(D, μ⁻¹I, I) on symmetric Ξ": False,
}


def test_eq9_steps(expect_steps):
    expect_steps(pr.eq9_steps(), EQ9)


def test_matrix_xi_steps(expect_steps):
    expect_steps(pr.matrix_xi_steps(), MATRIX_XI)


def test_symmetric_xi_steps(expect_steps):
    steps = pr.symmetric_xi_steps()
    expect_steps(steps, SYMMETRIC_XI)
    # by hand: with e^{−(μ/2)(Ξ₁₂ − D₁₂)²} the Ξ₁₂ terms of (9) leave p₁p₂(Ξ₁₂ − D₁₂);
    # at p₁ = p₂ = 1, Ξ₁₂ − D₁₂ = 1 that is 1
    assert steps[-1].counterexample["lhs"] == 1 and steps[-1].counterexample["rhs"] == 0


def test_residual_rejects_a_halved_thermostat_drift():
    """(11) with v(Ξ) = (ppᵀ − I)/(2μ) breaks (9): in 1-D the residual is (p² − 1)(ξ − D)/2."""
    th, p, xi = sp.symbols("theta p xi", real=True)
    D, mu = sp.symbols("D mu", positive=True)
    U = th**2 / 2
    drift = [p, -th - xi * p, (p**2 - 1) / (2 * mu)]
    H = U + p**2 / 2 + mu * (xi - D) ** 2 / 2
    r = pr.fokker_planck_residual([th, p, xi], drift, sp.diag(0, D, 0), H)
    # by hand: ∇·v − ∇H·v − D(p² − 1) = −ξ + ξp² − μ(ξ − D)(p² − 1)/(2μ) − D(p² − 1)
    assert sp.expand(r - (xi - D) * (p**2 - 1) / 2) == 0
    assert r.subs({xi: 1, D: 2, p: 0}) == sp.Rational(1, 2)


def test_fixed_friction_counterexample_value():
    """Fixed ξ = 1 ≠ D = 2, U = θ²/2, target e^{−U − p²/2}: at p = 0 the residual of (9) is
    ∇·v − ∇H·v − D(p² − 1) = −ξ − (θp + p(−θ − ξp)) + D = D − ξ = 1 (by hand)."""
    th, p = sp.symbols("theta p", real=True)
    xi, D = 1, 2
    r = pr.fokker_planck_residual([th, p], [p, -th - xi * p], sp.diag(0, D), th**2 / 2 + p**2 / 2)
    assert r.subs({p: 0, th: sp.Rational(3, 7)}) == 1
