"""SGNHT (Ding et al.) §4: the Main Theorem's condition (9) and the matrix-Ξ thermostat.

Reconstructed from the extracted text (subscripts and transposes were flattened):

* (7) ``dΓ = v(Γ) dt + N(0, 2D(θ) dt)``, ``Γ = (θ, p, ξ)``; ``ρ = exp(−H)/Z``, ``H = U(θ) + Q``.
* (8) ``exp(−U(θ)) ∝ ∫∫ exp(−U(θ) − Q(θ, p, ξ)) dp dξ``.
* (9) ``∇·(ρv) = ∇∇ᵀ : (ρD)``, ``X : Y = tr(XᵀY)``.
* §4.2: ``dθ = p dt, dp = f dt − Ξp dt + N(0, 2D dt)``, ``f = −∇U``, ``dΞ = v(Ξ) dt`` with
  ``∇_Ξ·v(Ξ) = 0`` and D constant;
  ``LHS = (∇·v − ∇H·v)ρ = (−tr Ξ + fᵀp − Q_pᵀf + Q_pᵀΞp − Q_Ξ : v(Ξ))ρ``,
  ``RHS = D : ρ_pp = D : (Q_pQ_pᵀ − Q_pp)ρ``;
  with ``Q_p = p``, ``Q = pᵀp/2 + S(Ξ)``:
  (10) ``−Ξ : I + Ξ : (ppᵀ) − S_Ξ : v(Ξ) = D : (ppᵀ) − D : I``;
  (11) ``v(Ξ) = (ppᵀ − I)/μ``, ``S_Ξ = (Ξ − D)μ``, ``Q = pᵀp/2 + μ(Ξ − D):(Ξ − D)/2``;
  scalar case ``D = DI, Ξ = ξI``: ``v(ξ) = (pᵀp − n)/μ``, which is (6) at ``μ = n``;
  ``Ξ ~ MN(D, μ⁻¹I, I)`` (scalar ``N(D, μ⁻¹)``).
* §4.2 / Appendix D: a fixed friction ``Ξ ≠ D`` does not leave the target invariant.

Every step holds.  Two readings are recorded in the step details: (9) is the stationary
Fokker–Planck equation *for the convention* ``N(0, 2D dt)`` (generator ``v·∇ + D:∇∇ᵀ``),
and the scalar law is a separate solution of (10) with ``S(ξ) = μ(ξ − D)²/2``, not (11)
restricted to ``Ξ = ξI`` (that restriction is not invariant under (11): ``dΞ₁₂ = p₁p₂/μ``).

One statement fails on the state space (11) actually keeps (:func:`symmetric_xi_steps`): from
a symmetric ``Ξ₀`` the law is the §4.2 density on symmetric matrices, off-diagonal variance
``1/(2μ)``, and ``MN(D, μ⁻¹I, I)`` read on the unique entries is not invariant.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from . import Step, identity, is_zero

__all__ = ["eq9_steps", "fokker_planck_residual", "matrix_xi_steps", "symmetric_xi_steps"]


def fokker_planck_residual(
    variables: Sequence[sp.Symbol], drift: Sequence[sp.Expr], diffusion: sp.Matrix, H: sp.Expr
) -> sp.Expr:
    """``[∇·(ρv) − ∇∇ᵀ:(ρD)]/ρ`` for ``ρ = exp(−H)``, expanded (SGNHT eq. (9)).

    Parameters
    ----------
    variables : the coordinates ``Γ``.
    drift : ``v(Γ)``, one expression per coordinate.
    diffusion : ``D(Γ)``, square, in the convention ``N(0, 2D dt)`` of eq. (7).
    H : the energy, ``ρ ∝ exp(−H)``.
    """
    rho = sp.exp(-H)
    x = list(variables)
    lhs = sum(sp.diff(rho * drift[i], x[i]) for i in range(len(x)))
    rhs = sum(
        sp.diff(rho * diffusion[i, j], x[i], x[j])
        for i in range(len(x))
        for j in range(len(x))
        if diffusion[i, j] != 0
    )
    return sp.expand(sp.powsimp(sp.expand((lhs - rhs) / rho)))


def _ddot(X: sp.Matrix, Y: sp.Matrix) -> sp.Expr:
    """``X : Y = tr(XᵀY)``."""
    return (X.T * Y).trace()


def eq9_steps() -> list[Step]:
    """(9) as the stationary Fokker–Planck equation, and the §4.2 forms of its two sides."""
    x1, x2 = sp.symbols("x1 x2", real=True)
    X = [x1, x2]
    rho, phi = sp.Function("rho")(x1, x2), sp.Function("phi")(x1, x2)
    v = [sp.Function(f"v{i}")(x1, x2) for i in (1, 2)]
    d11, d12, d22 = (sp.Function(f"d{ij}")(x1, x2) for ij in ("11", "12", "22"))
    Dm = sp.Matrix([[d11, d12], [d12, d22]])

    def gen(f: sp.Expr) -> sp.Expr:  # generator of (7): v·∇ + D:∇∇ᵀ (½ · 2D)
        drift = sum(v[i] * sp.diff(f, X[i]) for i in range(2))
        return drift + sum(Dm[i, j] * sp.diff(f, X[i], X[j]) for i in range(2) for j in range(2))

    adjoint = -sum(sp.diff(rho * v[i], X[i]) for i in range(2)) + sum(
        sp.diff(rho * Dm[i, j], X[i], X[j]) for i in range(2) for j in range(2)
    )
    flux = [
        rho * phi * v[i]
        + sum(rho * Dm[i, j] * sp.diff(phi, X[j]) - phi * sp.diff(rho * Dm[i, j], X[j])
              for j in range(2))
        for i in range(2)
    ]  # fmt: skip
    steps = [
        identity(
            "(9) is stationary Fokker–Planck",
            "(9): ∇·(ρv) = ∇∇ᵀ:(ρD) ⟺ ∫ρ Lφ = 0 ∀φ, L = v·∇ + D:∇∇ᵀ",
            rho * gen(phi) - phi * adjoint,
            sum(sp.diff(flux[i], X[i]) for i in range(2)),
            "ρLφ − φL*ρ is a divergence for generic ρ, φ, v and symmetric D(x), so ∫ρLφ = 0 "
            "for all φ iff L*ρ = −∇·(ρv) + ∇∇ᵀ:(ρD) = 0; N(0, 2D dt) gives D:∇∇ᵀ, not ½D:∇∇ᵀ",
        )
    ]
    H = sp.Function("H")(x1, x2)
    r = sp.exp(-H)
    steps.append(
        identity(
            "∇·(ρv) = (∇·v − ∇H·v)ρ",
            "§4.2, LHS, first equality",
            sum(sp.diff(r * v[i], X[i]) for i in range(2)),
            (
                sum(sp.diff(v[i], X[i]) for i in range(2))
                - sum(sp.diff(H, X[i]) * v[i] for i in range(2))
            )
            * r,
            "product rule",
        )
    )
    # RHS with D constant on the p block: ∇∇ᵀ:(ρD) = D:ρ_pp = D:(Q_pQ_pᵀ − Q_pp)ρ
    p1, p2 = sp.symbols("p1 p2", real=True)
    P = [p1, p2]
    Q = sp.Function("Q")(p1, p2)
    c11, c12, c22 = sp.symbols("c11 c12 c22", real=True)
    Dc = sp.Matrix([[c11, c12], [c12, c22]])
    rq = sp.exp(-Q)
    rho_pp = sp.Matrix(2, 2, lambda i, j: sp.diff(rq, P[i], P[j]))
    Qp = sp.Matrix([sp.diff(Q, q) for q in P])
    Qpp = sp.hessian(Q, P)
    steps.append(
        identity(
            "∇∇ᵀ:(ρD) = D:ρ_pp",
            "§4.2, RHS, first equality (D constant, p block only)",
            sum(sp.diff(rq * Dc[i, j], P[i], P[j]) for i in range(2) for j in range(2)),
            _ddot(Dc, rho_pp),
            "D has no p-dependence",
        )
    )
    steps.append(
        identity(
            "ρ_pp = (Q_pQ_pᵀ − Q_pp)ρ",
            "§4.2, RHS, second equality",
            _ddot(Dc, rho_pp),
            _ddot(Dc, Qp * Qp.T - Qpp) * rq,
            "chain rule on exp(−Q), generic Q(p)",
        )
    )
    return steps


def _thermostat(n: int):
    """Symbols of the §4.2 system in n dimensions: θ, p, Ξ (all n² entries), D, μ, U."""
    th = sp.symbols(f"theta1:{n + 1}", real=True)
    p = sp.Matrix(sp.symbols(f"p1:{n + 1}", real=True))
    Xi = sp.Matrix(n, n, sp.symbols(f"x1:{n * n + 1}", real=True))
    Dm = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"d{min(i, j) + 1}{max(i, j) + 1}", real=True))
    mu = sp.Symbol("mu", positive=True)
    U = sp.Function("U")(*th)
    return th, p, Xi, Dm, mu, U


def matrix_xi_steps() -> list[Step]:
    """§4.2: from (9) to (10) and (11), the scalar case, the laws of Ξ, and Appendix D."""
    steps: list[Step] = []
    n = 2
    th, p, Xi, Dm, mu, U = _thermostat(n)
    f = sp.Matrix([-sp.diff(U, t) for t in th])
    # generic Q(p, Ξ) for the LHS formula
    Qg = sp.Function("Q")(*p, *Xi)
    Qp = sp.Matrix([sp.diff(Qg, q) for q in p])
    QXi = sp.Matrix(n, n, lambda i, j: sp.diff(Qg, Xi[i, j]))
    vXi = sp.Matrix(n, n, lambda i, j: sp.Function(f"w{i}{j}")(*p))  # ∇_Ξ·v(Ξ) = 0: no Ξ
    H = U + Qg
    drift = [*p, *(f - Xi * p), *vXi]
    var = [*th, *p, *Xi]
    div_v = sum(sp.diff(drift[i], var[i]) for i in range(len(var)))
    gradH_v = sum(sp.diff(H, var[i]) * drift[i] for i in range(len(var)))
    printed = -Xi.trace() + (f.T * p)[0] - (Qp.T * f)[0] + (Qp.T * Xi * p)[0] - _ddot(QXi, vXi)
    steps.append(
        identity("LHS of §4.2", "§4.2: ∇·v − ∇H·v = −tr Ξ + fᵀp − Q_pᵀf + Q_pᵀΞp − Q_Ξ:v(Ξ)",
                 div_v - gradH_v, printed, "generic Q(p, Ξ), n = 2, all four entries of Ξ")
    )  # fmt: skip
    # (10): Q_p = p, Q = pᵀp/2 + S(Ξ)
    S = sp.Function("S")(*Xi)
    Q10 = (p.T * p)[0] / 2 + S
    Qp10 = sp.Matrix([sp.diff(Q10, q) for q in p])
    SXi = sp.Matrix(n, n, lambda i, j: sp.diff(S, Xi[i, j]))
    lhs10 = -Xi.trace() + (f.T * p)[0] - (Qp10.T * f)[0] + (Qp10.T * Xi * p)[0] - _ddot(SXi, vXi)
    rhs10 = _ddot(Dm, Qp10 * Qp10.T - sp.hessian(Q10, list(p)))
    eye = sp.eye(n)
    steps.append(
        identity("(10)", "(10): −Ξ:I + Ξ:(ppᵀ) − S_Ξ:v(Ξ) = D:(ppᵀ) − D:I (both sides)",
                 lhs10 - rhs10,
                 (-_ddot(Xi, eye) + _ddot(Xi, p * p.T) - _ddot(SXi, vXi))
                 - (_ddot(Dm, p * p.T) - _ddot(Dm, eye)),
                 "Q_p = p cancels the f terms; Q_pp = I")
    )  # fmt: skip
    # (11) solves (10), n = 2 and n = 3, D symmetric
    ok = True
    for m in (2, 3):
        _, pm, Xm, Dmm, mum, _ = _thermostat(m)
        v11 = (pm * pm.T - sp.eye(m)) / mum
        S11 = (Xm - Dmm) * mum
        resid = -_ddot(Xm, sp.eye(m)) + _ddot(Xm, pm * pm.T) - _ddot(S11, v11)
        ok = ok and is_zero(resid - (_ddot(Dmm, pm * pm.T) - _ddot(Dmm, sp.eye(m))))
    steps.append(
        Step("(11) solves (10)", "(11): v(Ξ) = (ppᵀ − I)/μ, S_Ξ = (Ξ − D)μ", ok,
             "residual of (10) is 0 for generic Ξ (n = 2, 3)")
    )  # fmt: skip
    Q11 = (p.T * p)[0] / 2 + mu * _ddot(Xi - Dm, Xi - Dm) / 2
    grad = sp.Matrix(n, n, lambda i, j: sp.diff(Q11, Xi[i, j]))
    steps.append(
        Step("Q of (11)", "(11): S_Ξ = (Ξ − D)μ ⟹ Q = pᵀp/2 + μ(Ξ − D):(Ξ − D)/2",
             all(is_zero(g) for g in grad - mu * (Xi - Dm)),
             "∂Q/∂Ξ_ij = μ(Ξ_ij − D_ij) for the n² free entries (D symmetric)")
    )  # fmt: skip
    # the whole of (9) for the matrix thermostat, directly from the definitions
    dm = sp.zeros(len(var), len(var))
    dm[n : 2 * n, n : 2 * n] = Dm
    drift11 = [*p, *(f - Xi * p), *((p * p.T - eye) / mu)]
    resid = fokker_planck_residual(var, drift11, dm, U + Q11)
    steps.append(
        Step("(9) for (11), n = 2", "(9) with v = (p, f − Ξp, (ppᵀ − I)/μ), ρ ∝ e^{−U−Q}",
             resid == 0, "∇·(ρv) − ∇∇ᵀ:(ρD) computed from scratch, generic U")
    )  # fmt: skip
    # marginalisation (8): Q has no θ, so the θ-marginal is e^{−U} times a finite constant
    pp, xx = sp.symbols("pp xx", real=True)
    integral = sp.integrate(sp.exp(-(pp**2) / 2 - mu * xx**2 / 2), (pp, -sp.oo, sp.oo),
                            (xx, -sp.oo, sp.oo))  # fmt: skip
    steps.append(
        identity("(8)", "(8) for Q of (11): ∫∫ e^{−Q} dp dΞ is free of θ (one p, one Ξ entry)",
                 integral, 2 * sp.pi / sp.sqrt(mu), "Gaussian integral, finite for μ > 0")
    )  # fmt: skip
    # scalar case
    xi, Dsc = sp.symbols("xi D", real=True)
    ok = True
    for m in (1, 2, 3):
        pm = sp.Matrix(sp.symbols(f"p1:{m + 1}", real=True))
        Ssc_xi = mu * (xi - Dsc)  # S(ξ) = μ(ξ − D)²/2
        vsc = ((pm.T * pm)[0] - m) / mu
        lhs = -m * xi + xi * (pm.T * pm)[0] - Ssc_xi * vsc
        ok = ok and is_zero(lhs - (Dsc * (pm.T * pm)[0] - m * Dsc))
    steps.append(
        Step("scalar case", "§4.2: D = DI, Ξ = ξI ⟹ v(ξ) = (pᵀp − n)/μ", ok,
             "(10) with S(ξ) = μ(ξ − D)²/2 (n = 1, 2, 3); a separate solution of (10), not (11) "
             "restricted to Ξ = ξI, which (11) does not preserve (dΞ₁₂ = p₁p₂/μ)")
    )  # fmt: skip
    nn = sp.Symbol("n", positive=True, integer=True)
    ps = sp.Symbol("pTp", positive=True)
    steps.append(
        identity("μ = n gives (6)", "§4.2: reduces to (6) of §3, dξ = (pᵀp/n − 1)dt, at μ = n",
                 ((ps - nn) / mu).subs(mu, nn), ps / nn - 1, "substitution")
    )  # fmt: skip
    # law of Ξ: MN(D, μ⁻¹I, I) ⟺ density ∝ exp(−½ tr(V⁻¹(Ξ − D)ᵀU⁻¹(Ξ − D))), U = I/μ, V = I
    E = Xi - Dm
    mn = -((eye * E.T * (eye / mu).inv() * E).trace()) / 2
    steps.append(
        identity("Ξ ~ MN(D, μ⁻¹I, I)", "§4.2: the stationary law of Ξ; scalar N(D, μ⁻¹)",
                 mn, -(mu * _ddot(E, E)) / 2, "matrix-normal log-density against −S(Ξ)")
    )  # fmt: skip
    # Appendix D / §4.2: fixed Ξ ≠ D breaks (9) for the target; e^{−(ξ/D)H} is invariant
    th1, p1 = sp.symbols("theta p", real=True)
    U1 = sp.Function("U")(th1)
    xi1, D1 = sp.symbols("xi D", positive=True)
    v1 = [p1, -sp.diff(U1, th1) - xi1 * p1]
    r_target = fokker_planck_residual([th1, p1], v1, sp.diag(0, D1), U1 + p1**2 / 2)
    steps.append(
        identity("fixed ξ: residual", "§4.2, 'when Ξ ≠ D the dynamics will not generate the "
                 "correct target' (Appendix D)", r_target, (xi1 - D1) * (p1**2 - 1),
                 "the residual of (9) for ρ = e^{−U − p²/2} is (ξ − D)(p² − 1): 0 iff ξ = D")
    )  # fmt: skip
    r_temp = fokker_planck_residual([th1, p1], v1, sp.diag(0, D1), xi1 / D1 * (U1 + p1**2 / 2))
    steps.append(
        Step("fixed ξ: tempered law invariant", "Appendix D reading: the invariant law is "
             "e^{−(ξ/D)H}, the target at temperature D/ξ", r_temp == 0, "residual 0")
    )  # fmt: skip
    return steps


def symmetric_xi_steps() -> list[Step]:
    """§4.2's law of Ξ when Ξ is symmetric, as (11) keeps it from a symmetric Ξ₀ (n = 2).

    The §4.2 derivation treats the n² entries of Ξ as free coordinates.  (11) has a
    symmetric drift ``(ppᵀ − I)/μ``, so a symmetric Ξ₀ (e.g. ``Ξ₀ = D``) stays symmetric
    and Ξ lives on the n(n + 1)/2 unique entries.  There, (9) holds for
    ``ρ ∝ exp(−U − pᵀp/2 − (μ/2)‖Ξ − D‖²_F)``, in which each off-diagonal entry appears
    twice: its variance is ``1/(2μ)``.  The matrix normal ``MN(D, μ⁻¹I, I)`` restricted to
    symmetric Ξ (variance ``1/μ`` for every unique entry) is not invariant: the residual
    of (9) is ``p₁p₂(Ξ₁₂ − D₁₂)``.
    """
    th = sp.symbols("theta1:3", real=True)
    p1, p2, x11, x12, x22 = sp.symbols("p1 p2 x11 x12 x22", real=True)
    d11, d12, d22 = sp.symbols("d11 d12 d22", real=True)
    mu = sp.Symbol("mu", positive=True)
    U = sp.Function("U")(*th)
    Xi = sp.Matrix([[x11, x12], [x12, x22]])
    Dm = sp.Matrix([[d11, d12], [d12, d22]])
    p = sp.Matrix([p1, p2])
    v = (p * p.T - sp.eye(2)) / mu
    f = sp.Matrix([-sp.diff(U, t) for t in th])
    vp = f - Xi * p
    var = [*th, p1, p2, x11, x12, x22]
    drift = [p1, p2, vp[0], vp[1], v[0, 0], v[0, 1], v[1, 1]]
    diff = sp.zeros(7, 7)
    diff[2:4, 2:4] = Dm
    E = Xi - Dm
    kinetic = U + (p1**2 + p2**2) / 2
    frob = fokker_planck_residual(var, drift, diff, kinetic + mu * _ddot(E, E) / 2)
    unique = kinetic + mu * (E[0, 0] ** 2 + E[0, 1] ** 2 + E[1, 1] ** 2) / 2
    paper = fokker_planck_residual(var, drift, diff, unique)
    x, d = sp.symbols("x d", real=True)
    w = sp.exp(-mu * (x - d) ** 2)
    var12 = sp.integrate((x - d) ** 2 * w, (x, -sp.oo, sp.oo)) / sp.integrate(w, (x, -sp.oo, sp.oo))
    return [
        identity("(11) keeps Ξ symmetric", "(11): v(Ξ) = (ppᵀ − I)/μ is symmetric, dΞ₁₂ = dΞ₂₁",
                 v[0, 1], v[1, 0], "p₁p₂/μ on both sides"),
        identity("(9) on symmetric Ξ", "(9) with coordinates Ξ₁₁, Ξ₁₂, Ξ₂₂ and "
                 "ρ ∝ e^{−U − pᵀp/2 − (μ/2)‖Ξ − D‖²_F}", frob, sp.S.Zero,
                 "residual 0, generic U: the §4.2 density, with Ξ₁₂ counted twice in ‖·‖_F"),
        identity("Var Ξ₁₂ = 1/(2μ)", "the off-diagonal marginal of that density, "
                 "∝ e^{−μ(Ξ₁₂ − D₁₂)²}", var12, 1 / (2 * mu), "Gaussian integral"),
        identity("MN(D, μ⁻¹I, I) on symmetric Ξ", "§4.2: 'Ξ ~ MN(D, μ⁻¹I, I)' read on the "
                 "unique entries (variance 1/μ each)", paper, sp.S.Zero,
                 "the residual of (9) is p₁p₂(Ξ₁₂ − D₁₂) ≠ 0: not invariant for symmetric Ξ",
                 point={p1: 1, p2: 1, x12: 1, d12: 0, x11: 0, x22: 0, d11: 0, d22: 0}),
    ]  # fmt: skip
