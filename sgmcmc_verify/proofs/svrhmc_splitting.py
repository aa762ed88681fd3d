"""SVRHMC §4: the symmetric splitting, eqs. (12)–(18), step by step.

The printed scheme (legible in the extracted text):

* (12) ``θ⁽¹⁾ = θ_t + (h/2)p_t``; (13) ``p⁽¹⁾ = e^{−Dh/2}p_t``;
  (14) ``p⁽²⁾ = p⁽¹⁾ − h∇̃_t + √(2Dh)ξ_t``; (15) ``p_{t+1} = e^{−Dh/2}p⁽²⁾``;
  (16) ``θ_{t+1} = θ⁽¹⁾ + (h/2)p_{t+1}``;
* eliminated: (17) ``p_{t+1} = e^{−Dh/2}(e^{−Dh/2}p_t − h∇̃_t + √(2Dh)ξ_t)``,
  (18) ``θ_{t+1} = θ_t + (h/2)p_{t+1} + (h/2)p_t``, with ``∇̃_t`` evaluated at ``θ⁽¹⁾``
  (text after (18));
* Algorithm 3, line 9 prints ``e^{−Dh/2}p_t`` (``t`` the outer index) where (17) at step
  ``tK + k`` has ``p_{tK+k}``;
* "this symmetric splitting scheme is a 2nd-order local integrator" (text after (18),
  citing Chen et al. 2015), against (1)–(2), first order.

Every update acts coordinatewise with scalar coefficients, so one coordinate suffices;
``∇̃`` is a generic function ``F`` of the evaluation point.  The order statement is
checked in the weak sense on the linear force ``F(θ) = kθ`` (the generator preserves
polynomials of degree ≤ 2, so ``E φ(X_h)`` and ``φ + hLφ + h²L²φ/2`` are exact polynomials
in ``h`` after series expansion of ``e^{−Dh/2}``).
"""

from __future__ import annotations

import sympy as sp

from . import Step, identity, is_zero

__all__ = ["eliminated", "five_step", "splitting_steps", "stationary_theta_variance"]

theta, p, xi, k = sp.symbols("theta p xi k", real=True)
h, D = sp.symbols("h D", positive=True)
F = sp.Function("F")


def five_step(
    th: sp.Expr = theta, mom: sp.Expr = p, noise: sp.Expr = xi, force=F
) -> dict[str, sp.Expr]:
    """Eqs. (12)–(16), one step; ``force(x)`` is ``∇̃`` at the point ``x`` (``= θ⁽¹⁾``)."""
    e = sp.exp(-D * h / 2)
    theta1 = th + h / 2 * mom  # (12)
    p1 = e * mom  # (13)
    p2 = p1 - h * force(theta1) + sp.sqrt(2 * D * h) * noise  # (14)
    p_next = e * p2  # (15)
    return {"theta1": theta1, "p_next": p_next, "theta_next": theta1 + h / 2 * p_next}  # (16)


def eliminated(
    th: sp.Expr = theta, mom: sp.Expr = p, noise: sp.Expr = xi, force=F
) -> tuple[sp.Expr, sp.Expr]:
    """Eqs. (17)–(18) with ``∇̃_t = force(θ_t + h p_t/2)``."""
    e = sp.exp(-D * h / 2)
    p_next = e * (e * mom - h * force(th + h / 2 * mom) + sp.sqrt(2 * D * h) * noise)  # (17)
    return p_next, th + h / 2 * p_next + h / 2 * mom  # (18)


def euler(th: sp.Expr, mom: sp.Expr, noise: sp.Expr, force) -> tuple[sp.Expr, sp.Expr]:
    """Eqs. (1)–(2): ``p' = (1 − Dh)p − h∇̃(θ) + √(2Dh)ξ``, ``θ' = θ + hp'``."""
    p_next = (1 - D * h) * mom - h * force(th) + sp.sqrt(2 * D * h) * noise
    return th + h * p_next, p_next


def _expect_xi(expr: sp.Expr) -> sp.Expr:
    """``E`` over ``ξ ~ N(0, 1)`` of a polynomial in ``ξ`` of degree ≤ 2."""
    poly = sp.Poly(sp.expand(expr), xi)
    moments = {0: 1, 1: 0, 2: 1}
    return sum(c * moments[i] for (i,), c in poly.terms())


def _generator(phi: sp.Expr) -> sp.Expr:
    """``L φ`` for (3)–(4) with ``f = kθ²/2``: ``p∂_θ + (−kθ − Dp)∂_p + D∂_p²``."""
    return p * sp.diff(phi, theta) + (-k * theta - D * p) * sp.diff(phi, p) + D * sp.diff(phi, p, 2)


def weak_defect(step, phi: sp.Expr, order: int) -> sp.Expr:
    """``E φ(X_h) − Σ_{j≤order} h^j L^j φ/j!`` truncated after ``h^order`` (linear force)."""
    th_n, p_n = step(theta, p, xi, lambda x: k * x)
    val = _expect_xi(phi.subs({theta: th_n, p: p_n}, simultaneous=True))
    taylor, term = phi, phi
    for j in range(1, order + 1):
        term = _generator(term)
        taylor += h**j * term / sp.factorial(j)
    return sp.expand(sp.series(val - taylor, h, 0, order + 1).removeO())


def _split_step(th, mom, noise, force):
    out = five_step(th, mom, noise, force)
    return out["theta_next"], out["p_next"]


def stationary_theta_variance(scheme: str) -> sp.Expr:
    """Stationary ``Var θ`` of the scheme on ``f = kθ²/2`` (exact gradient), from the
    Lyapunov equation ``Σ = AΣAᵀ + ccᵀ`` of the affine one-step map."""
    step = _split_step if scheme == "splitting" else euler
    X = sp.Symbol("X")  # stands for e^{−Dh/2}: keeps the linear solve rational
    th_n, p_n = step(theta, p, xi, lambda x: k * x)
    th_n, p_n = (sp.expand(e.subs(sp.exp(-D * h / 2), X)) for e in (th_n, p_n))
    A = sp.Matrix([[th_n.coeff(v) for v in (theta, p)], [p_n.coeff(v) for v in (theta, p)]])
    c = sp.Matrix([th_n.coeff(xi), p_n.coeff(xi)])
    s11, s12, s22 = sp.symbols("s11 s12 s22")
    S = sp.Matrix([[s11, s12], [s12, s22]])
    eqs = S - (A * S * A.T + c * c.T)
    sol = sp.solve([eqs[0, 0], eqs[0, 1], eqs[1, 1]], [s11, s12, s22], dict=True)[0]
    return sol[s11].subs(X, sp.exp(-D * h / 2))


def splitting_steps() -> list[Step]:
    """Eqs. (12)–(18), Algorithm 3 line 9, symmetry and the order claim, in order."""
    fs = five_step()
    p17, th18 = eliminated()
    steps = [
        identity("(12)–(15) ⇒ (17)", "(17): p_{t+1} = e^{−Dh/2}(e^{−Dh/2}p_t − h∇̃_t + √(2Dh)ξ_t)",
                 fs["p_next"], p17, "substitute (13), (14) into (15); ∇̃_t = F(θ⁽¹⁾)"),
        identity("(12), (16) ⇒ (18)", "(18): θ_{t+1} = θ_t + (h/2)p_{t+1} + (h/2)p_t",
                 fs["theta_next"], th18, "substitute (12) into (16)"),
    ]  # fmt: skip
    # Algorithm 3 line 9 prints p_t (outer index t) where (17) at step tK + k needs p_{tK+k}
    p_outer, p_inner = sp.symbols("p_t p_tKk", real=True)
    e = sp.exp(-D * h / 2)
    printed = e * (e * p_outer - h * sp.Symbol("G") + sp.sqrt(2 * D * h) * xi)
    wanted = e * (e * p_inner - h * sp.Symbol("G") + sp.sqrt(2 * D * h) * xi)
    pt = {p_outer: 0, p_inner: 1, D: 1, h: sp.Rational(1, 10), xi: 0, sp.Symbol("G"): 0}
    steps.append(
        identity(
            "Algorithm 3 line 9 = (17)",
            "Algorithm 3, line 9: p_{tK+k+1} = e^{−Dh/2}(e^{−Dh/2}p_t − h∇̃_{tK+k} + …)",
            printed,
            wanted,
            "p_t (outer index) ≠ p_{tK+k} unless k = 0 and t = tK; e.g. t = 0, K = 2, k = 1 "
            "uses p_0 = 0 (line 2) for p_1",
            point=pt,
        )
    )
    # symmetry: Φ_{−h} ∘ Φ_h = id without noise (what makes the splitting 'symmetric')
    fwd = five_step(noise=0)
    back = {key: val.subs(h, -h) for key, val in five_step(theta, p, 0).items()}
    sym_th = back["theta_next"].subs(
        {theta: fwd["theta_next"], p: fwd["p_next"]}, simultaneous=True
    )
    sym_p = back["p_next"].subs({theta: fwd["theta_next"], p: fwd["p_next"]}, simultaneous=True)
    steps.append(
        Step(
            "symmetric: Φ_{−h}∘Φ_h = id",
            "§4, 'symmetric splitting' (ξ = 0, generic ∇̃)",
            is_zero(sp.powsimp(sp.expand(sym_th - theta)))
            and is_zero(sp.powsimp(sp.expand(sym_p - p))),
            "the noise-free step composed with its reverse is the identity, exactly",
        )
    )
    phis = [theta, p, theta**2, theta * p, p**2]
    split2 = all(weak_defect(_split_step, phi, 2) == 0 for phi in phis)
    steps.append(
        Step(
            "(12)–(16) weak order 2",
            "§4 after (18): 'a 2nd-order local integrator'",
            split2,
            "E φ(X_h) = φ + hLφ + h²L²φ/2 + O(h³) for φ = θ, p, θ², θp, p² (F = kθ)",
        )
    )
    defects = {str(phi): weak_defect(euler, phi, 2) for phi in phis}
    steps.append(
        Step(
            "(1)–(2) only first order",
            "§4: (1)–(2) is first order (the h² of (5)/(7) against the h⁴ of (19))",
            any(v != 0 for v in defects.values()),
            "the h² coefficient of E φ(X_h) − (φ + hLφ + h²L²φ/2) is non-zero for (1)–(2): "
            + "; ".join(f"{key}: {val}" for key, val in list(defects.items())[:2]),
        )
    )
    var_split = sp.series(k * stationary_theta_variance("splitting"), h, 0, 3).removeO()
    steps.append(
        identity(
            "splitting: k·Var θ = 1 − D²h²/24 + O(h³)",
            "§4: the splitting's bias is O(h²) (the h⁴ of (19) is its square)",
            var_split,
            1 - D**2 * h**2 / 24,
            "stationary Lyapunov equation of the affine step, f = kθ²/2, exact gradient",
        )
    )
    var_euler = sp.series(k * stationary_theta_variance("euler"), h, 0, 3).removeO()
    steps.append(
        identity(
            "Euler (1)–(2): k·Var θ = 1 + kh²/4 + O(h³)",
            "(1)–(2) on a Gaussian target (context for (7) vs (19))",
            var_euler,
            1 + k * h**2 / 4,
            "(1)–(2) updates θ with the new p (symplectic Euler), so on a Gaussian its θ-variance "
            "bias is also O(h²): this target cannot separate the two orders in Var θ",
        )
    )
    return steps
