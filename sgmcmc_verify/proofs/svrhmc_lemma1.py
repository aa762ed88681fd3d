"""SVRHMC (Li et al.) Corollary 2, Theorems 2 and 4, Lemma 1, Corollary 3, step by step (App. B).

The text was extracted from the PDF; the displays of Appendix B are legible, and the
reconstructions below are the printed formulas with the LaTeX restored:

* §2: ``f = Σ_i f_i − log Pr(θ)``; each ``f_i`` is L-smooth and G-Lipschitz.  SGHMC's
  ``∇̃ = (n/b) Σ_{i∈I} ∇f_i`` with ``I`` drawn *with replacement* (§2, B.1).
* (7), first term:  ``R^HMC = (L²n²K²h²/(bT)) (√(n²G² + D²d)/(D − L²n²K²h³/b))²``.
* (8), first term:  ``R^LD = n²K²(n²L²h²G² + hd)/(bT)``.
* Before Lemma 1: ``n²G² > n²K²(n²L²h²G² + hd)``.  Algorithm 1, line 1: ``D ≥ 1, Dh < 1``.
* (9) ``R^HMC ≤ max{1/D², L/(nK)} R^LD``; (10) the same with ``L/(nK)`` when
  ``D ≥ 1/(L√h)``; (11) (Corollary 3) ``R^HMC ≤ (bL/n²) R^LD`` at ``K = n/b``.

Squared norms are sums over coordinates and every update acts coordinatewise with
scalar coefficients, so the norm identities are checked in one coordinate (``d = 1``) with
the dimension restored where ``E‖ξ‖² = d`` enters.  ``T`` multiplies both sides of every
bound, so it is set to 1.

What fails
----------
* **B.3, the reduction** ("the proof is reduced to comparing ``h²L²n²G² + hd`` and
  ``h²L²n²G²/D² + h²L²d``"): it divides by ``D²`` although the denominator of R^HMC is
  ``(D − a)²``, ``a = L²n²K²h³/b``, having just shown only ``D − a > 0.9D``.  The dropped
  factor is ``D²/(D − a)² > 1``; hence (9), (10) and (11) fail as printed, at points that
  satisfy every hypothesis including B.3's ``nKbL ≫ 10`` (:data:`POINT_DEEP`, nKbL = 10001).
  With the factor restored (9) holds on the whole region, and in B.3's regime the
  factor is below ``(nKbL/(nKbL − 1))² ≤ (10/9)²``.
* **B.1 and B.2, ``∇f = Σ_j ∇f_j`` / ``‖∇f‖ ≤ nG``**: §2's ``f`` includes ``−log Pr``; the
  steps hold only for a flat prior (Algorithms 1–4 put the prior gradient into ``∇̃``,
  so B.2's ``Δ`` is unaffected, but the bound ``‖∇f‖ ≤ nG`` used for the ``p`` recursion is).

* **B.4** (Theorem 4): the law ``Pr(α_t^i = θ_j) = (1 − γ)^{t−j−1}γ`` omits the mass
  ``(1 − γ)^t`` of never-sampled indices (the final staleness bound survives it); the
  rearranged quadratic is printed with ``+`` signs (unsatisfiable at S = 0); and (27)'s
  denominator ``D − h³L²n⁴/b³`` drops the 8 of ``8h⁴L²n⁴/b³`` (corrected:
  ``D − 8h³L²n⁴/b³``).

Everything else holds (B.2's ``≲`` with explicit constants: ``√(S/T) ≤ 3√(n²G² + D²d)/(D −
L²n²K²h³/b)``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import sympy as sp

from . import Step, certified, identity, is_zero

__all__ = [
    "POINTS",
    "POINT_DEEP",
    "POINT_NKBL10",
    "corollary2_steps",
    "corollary2_without_replacement",
    "corollary3_steps",
    "dropped_factor",
    "in_region",
    "lemma1_steps",
    "r_hmc",
    "r_ld",
    "ratio_steps",
    "theorem2_steps",
    "theorem4_steps",
]

n, b, K, d, L, h, D, G = sp.symbols("n b K d L h D G", positive=True)
#: slack symbols: ``w`` for nKLh < 1, ``e`` for Dh < 1, ``delta`` for D ≥ 1, ``v`` for nKbL ≥ 10
w, e, delta, v = sp.symbols("w e delta v", positive=True)

#: ``nKLh = 1/(1 + w)``: the consequence ``h < 1/(nKL)`` of the assumption before Lemma 1.
U_BELOW_1 = {L: 1 / (n * K * h * (1 + w))}
#: ``Dh = 1/(1 + e)``: Algorithm 1, line 1.
DH_BELOW_1 = {h: 1 / (D * (1 + e))}

#: In every hypothesis of Lemma 1, (10) and Corollary 3, with B.3's ``nKbL ≫ 10``
#: (nKbL = 10001): ``L = nK + 1/100`` so ``nKLh = 100/100.01``, ``D²L²h = 1`` ((10)'s
#: condition with equality, which makes the ratio free of G), ``K = n/b``.  The literal
#: bounds fail by the factor ≈ 1 + 1.0·10⁻⁴ (the dropped factor is ≈ 1 + 2.0·10⁻⁴).
POINT_DEEP: dict[str, Fraction] = {
    "n": Fraction(10),
    "b": Fraction(1),
    "K": Fraction(10),
    "d": Fraction(1),
    "L": Fraction(10001, 100),
    "G": Fraction(10),
    "h": Fraction(100, 10001) ** 2,
    "D": Fraction(1),
}
#: In every hypothesis of Lemma 1, (10) and Corollary 3 with nKbL = 10 exactly (B.3's
#: threshold): nKLh = 0.99, ``D = 1.272 ≥ 1/(L√h) = 1.2713``, ``K = n/b = 2``.
POINT_NKBL10: dict[str, Fraction] = {
    "n": Fraction(2),
    "b": Fraction(1),
    "K": Fraction(2),
    "d": Fraction(1),
    "L": Fraction(5, 2),
    "G": Fraction(100),
    "h": Fraction(99, 1000),
    "D": Fraction(159, 125),
}


def _a(p: dict[str, Any]) -> Any:
    """``a = L²n²K²h³/b``, what the denominator of R^HMC subtracts from ``D`` (eq. (7))."""
    return p["L"] ** 2 * p["n"] ** 2 * p["K"] ** 2 * p["h"] ** 3 / p["b"]


def _g2(p: dict[str, Any]) -> Any:
    """``G²``: given as ``p["G2"]`` (exact rational G² with irrational G) or as ``p["G"]``."""
    return p["G2"] if "G2" in p else p["G"] ** 2


def r_hmc(p: dict[str, Any]) -> Any:
    """``T·R^HMC = (L²n²K²h²/b)(n²G² + D²d)/(D − a)²`` (Lemma 1; eq. (7)), exact or symbolic.

    ``(√(n²G² + D²d))²`` is written out, so the value is exact for rational inputs.
    """
    lead = p["L"] ** 2 * p["n"] ** 2 * p["K"] ** 2 * p["h"] ** 2 / p["b"]
    return lead * (p["n"] ** 2 * _g2(p) + p["D"] ** 2 * p["d"]) / (p["D"] - _a(p)) ** 2


def r_ld(p: dict[str, Any]) -> Any:
    """``T·R^LD = n²K²(n²L²h²G² + hd)/b`` (Lemma 1; eq. (8))."""
    inner = p["n"] ** 2 * p["L"] ** 2 * p["h"] ** 2 * _g2(p) + p["h"] * p["d"]
    return p["n"] ** 2 * p["K"] ** 2 * inner / p["b"]


def dropped_factor(p: dict[str, Any]) -> Any:
    """``D²/(D − L²n²K²h³/b)²``: the factor B.3 drops when it reduces (9) to a comparison."""
    return p["D"] ** 2 / (p["D"] - _a(p)) ** 2


def in_region(p: dict[str, Fraction]) -> list[str]:
    """The hypotheses of Lemma 1 that ``p`` violates (empty: ``p`` is admissible), exactly."""
    checks = {
        "D ≥ 1": p["D"] >= 1,
        "Dh < 1": p["D"] * p["h"] < 1,
        "b ≤ n": p["b"] <= p["n"],
        "D − a > 0": p["D"] - _a(p) > 0,
        "n²G² > n²K²(n²L²h²G² + hd)": p["n"] ** 2 * _g2(p)
        > p["n"] ** 2
        * p["K"] ** 2
        * (p["n"] ** 2 * p["L"] ** 2 * p["h"] ** 2 * _g2(p) + p["h"] * p["d"]),
    }
    return [k for k, ok in checks.items() if not ok]


_SYM: dict[str, sp.Symbol] = {"n": n, "b": b, "K": K, "d": d, "L": L, "G": G, "h": h, "D": D}


def _at(point: dict[str, Fraction]) -> dict[sp.Symbol, sp.Rational]:
    return {_SYM[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}


def _bound_step(
    name: str, equation: str, factor: Callable[[dict[str, Any]], Any], points: dict[str, dict]
) -> Step:
    """``R^HMC ≤ factor·R^LD`` at each admissible point; the violations are the counterexample."""
    violations = {}
    for label, pt in points.items():
        if in_region(pt):
            raise ValueError(f"{label} is outside the region: {in_region(pt)}")
        lhs, rhs = r_hmc(pt), factor(pt) * r_ld(pt)
        if lhs > rhs:
            violations[label] = {
                "point": {k: str(x) for k, x in pt.items()},
                "T·R^HMC": lhs,
                "factor·T·R^LD": rhs,
                "ratio": lhs / rhs,
                "nKbL": pt["n"] * pt["K"] * pt["b"] * pt["L"],
            }
    if violations:
        return Step(name, equation, False, "violated at admissible points", violations)
    return Step(name, equation, True, f"holds at {len(points)} admissible points")


POINTS = {"nKbL = 10": POINT_NKBL10, "nKbL = 10001": POINT_DEEP}


# ======================================================================================
# B.1: Corollary 2
# ======================================================================================


def corollary2_lines(nn: int = 3, bb: int = 2) -> tuple[list[sp.Expr], list[sp.Symbol]]:
    """The eight members of the B.1 display, one coordinate, ``I`` over all ``n^b`` tuples.

    ``a_i`` is one coordinate of ``∇f_i(θ_t)``.  Lines 4 and 5 are printed identically.
    """
    a = list(sp.symbols(f"a0:{nn}", real=True))
    tuples = list(itertools.product(range(nn), repeat=bb))
    abar = sum(a) / nn
    N, B = sp.Integer(nn), sp.Integer(bb)

    def E_I(fn: Callable[[tuple[int, ...]], sp.Expr]) -> sp.Expr:
        return sum(fn(t) for t in tuples) / len(tuples)

    lines = [
        E_I(lambda t: (N / B * sum(a[i] for i in t) - sum(a)) ** 2),
        N**2 * E_I(lambda t: (sum(a[i] for i in t) / B - abar) ** 2),
        N**2 * E_I(lambda t: (sum(a[i] - abar for i in t) / B) ** 2),
        N**2 / B**2 * E_I(lambda t: sum(a[i] - abar for i in t) ** 2),
        N**2 / B**2 * E_I(lambda t: sum(a[i] - abar for i in t) ** 2),
        N**2 / B * sum((ai - abar) ** 2 for ai in a) / N,
        N**2 / B * sum(ai**2 for ai in a) / N,
        N**2 * G**2 / B,
    ]
    return lines, a


def corollary2_steps(nn: int = 3, bb: int = 2) -> list[Step]:
    """B.1 (proof of Corollary 2, eq. (6)): ``E‖∇̃ − ∇f‖² ≤ n²G²/b``, line by line.

    Exact for ``n = nn``, ``b = bb`` with symbolic gradients (the equalities are identities
    in the ``a_i``; the two inequalities have explicit gaps).
    """
    lines, a = corollary2_lines(nn, bb)
    abar = sum(a) / nn
    eq = "B.1 display"
    steps = [
        identity(
            f"line {k + 1} = line {k + 2}",
            f"{eq}, equality {k + 1}",
            lines[k],
            lines[k + 1],
            "both sides expanded over all n^b index tuples",
        )
        for k in range(5)
    ]
    steps.append(
        certified(
            "line 6 ≤ line 7",
            f"{eq}: E(X − EX)² ≤ EX²",
            lines[6] - lines[5],
            sp.Integer(nn) ** 2 / bb * abar**2,
            "gap = (n²/b)·ā², a square",
        )
    )
    # |a_i| ≤ G (G-Lipschitz): the gap is a sum of G² − a_i², each ≥ 0 by hypothesis
    gap = lines[7] - lines[6]
    per_i = sp.Rational(nn, bb) * sum(G**2 - ai**2 for ai in a)
    steps.append(
        Step(
            "line 7 ≤ line 8",
            f"{eq}: ‖∇f_i‖ ≤ G",
            is_zero(gap - per_i),
            "gap = (n/b)·Σ_i (G² − a_i²), each term ≥ 0 because ‖∇f_i‖ ≤ G",
        )
    )
    # B.1 "Recall ... ∇f(θ_t) = Σ_j ∇f_j(θ_t)": §2 has f = Σ f_i − log Pr(θ).
    theta = sp.Symbol("theta", real=True)
    grad_f = G + theta  # n = 1, f_1(θ) = Gθ (G-Lipschitz), prior N(0, 1): −∇log Pr = θ
    err = (1 * G - grad_f) ** 2  # ∇̃ = (n/b)Σ∇f_i = G for n = b = 1
    pt = {G: sp.Integer(1), theta: sp.Integer(2)}
    steps.append(
        Step(
            "∇f = Σ_j ∇f_j",
            "B.1, text before the display (and eq. (6) with §2's f = Σf_i − log Pr)",
            bool(err.subs(pt) <= 1),  # Corollary 2 at n = b = G = 1: n²G²/b = 1
            "§2's f includes −log Pr(θ) but ∇̃ = (n/b)Σ_{i∈I}∇f_i does not: holds only for a "
            "flat prior; then E‖∇̃ − ∇f‖² = (n²/b)Var + ‖∇log Pr‖²",
            {
                "n, b": (1, 1),
                "f_1(θ)": "Gθ",
                "prior": "N(0, 1)",
                "G, θ": (1, 2),
                "E‖∇̃ − ∇f‖²": err.subs(pt),
                "n²G²/b": 1,
            },
        )
    )
    return steps


def corollary2_without_replacement(nn: int = 3, bb: int = 2) -> Step:
    """Line 1 of B.1 for a uniform b-subset (Algorithms 1–4, line 6/7) instead of i.i.d. draws.

    Not a step of the paper (B.1 draws with replacement): the finite-population identity
    ``E_subset = ((n − b)/(n − 1))·(line 6)``, over all ordered b-subsets, which shows the
    bound (6) holds for the subsets the algorithms print too.  Needs ``1 ≤ b ≤ n``, ``n > 1``.
    """
    if not 1 <= bb <= nn or nn < 2:
        raise ValueError(f"need 1 ≤ b ≤ n and n > 1, got n = {nn}, b = {bb}")
    lines, a = corollary2_lines(nn, bb)
    perms = list(itertools.permutations(range(nn), bb))
    wor = sum((sp.Rational(nn, bb) * sum(a[i] for i in t) - sum(a)) ** 2 for t in perms)
    return identity(
        "line 1, without replacement",
        "B.1 line 1 with Algorithm 1 line 7's subset |I| = b (finite-population correction)",
        wor / len(perms),
        sp.Rational(nn - bb, nn - 1) * lines[5],
        "both sides expanded over all ordered b-subsets",
    )


# ======================================================================================
# B.2: Theorem 2
# ======================================================================================


def _expect(expr: sp.Expr, Dl: sp.Symbol, xi: sp.Symbol, V: sp.Symbol) -> sp.Expr:
    """``E`` over independent ``Δ`` (mean 0, ``EΔ² = V``) and ``ξ ~ N(0, 1)``, given the past."""
    m_D = {0: 1, 1: 0, 2: V}
    m_x = {0: 1, 1: 0, 2: 1}
    poly = sp.Poly(sp.expand(expr), Dl, xi)
    return sp.expand(sum(c * m_D[i] * m_x[j] for (i, j), c in poly.terms()))


def _coefficient_count(KK: int, TT: int) -> int:
    """Max over j of how often ``‖θ_{j+1} − θ_j‖²`` appears in ``Σ_t Σ_{j=⌊t/K⌋K}^{t−1}``."""
    count = [0] * TT
    for t in range(TT):
        for j in range((t // KK) * KK, t):
            count[j] += 1
    return max(count)


def _cauchy(name: str, equation: str, m: int = 3) -> Step:
    """``m Σx_j² − (Σx_j)² = Σ_{i<j}(x_i − x_j)² ≥ 0``: Cauchy's inequality for m terms."""
    x = sp.symbols(f"x0:{m}", real=True)
    return certified(
        name,
        equation,
        m * sum(xi**2 for xi in x) - sum(x) ** 2,
        sum((x[i] - x[j]) ** 2 for i in range(m) for j in range(i + 1, m)),
        f"m Σx_j² − (Σx_j)² = Σ_{{i<j}}(x_i − x_j)² (m = {m} shown)",
    )


def _quadratic(c: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """``A, B, C`` of the momentum quadratic ``A·S/T − B√(S/T) − C ≤ 0`` (B.2, B.4)."""
    A = 1 - (1 - D * h) ** 2 - c * h**4
    return A, 2 * n * G * h * (1 - D * h), h**2 * n**2 * G**2 + 2 * D * h * d


def _quadratic_certificates(c: sp.Expr, names: tuple[str, str], eqs: tuple[str, str]) -> list[Step]:
    """``A ≥ h(D − ch³)`` (needs Dh < 1) and ``B² + 4AC ≤ 16h²(n²G² + D²d)`` for ``c``."""
    A, B, C = _quadratic(c)
    return [
        certified(names[0], eqs[0], A - h * (D - c * h**3), e / (1 + e) ** 2,
                  "gap = Dh(1 − Dh) ≥ 0 (Dh < 1)", substitution=DH_BELOW_1),
        certified(names[1], eqs[1], 16 * h**2 * (n**2 * G**2 + D**2 * d) - (B**2 + 4 * A * C),
                  12 * h**2 * n**2 * G**2 + 8 * D**3 * h**3 * d + 4 * c * h**4 * C,
                  "gap = 12h²n²G² + 8D³h³d + 4ch⁴C, every term positive"),
    ]  # fmt: skip


def theorem2_steps() -> list[Step]:
    """B.2 (proof of Theorem 2), eqs. (20)–(25), step by step.

    The ``≲`` of (23) is checked with explicit constants: with ``A = 1 − (1 − Dh)² −
    L²n²K²h⁴/b``, ``B = 2nGh(1 − Dh)``, ``C = h²n²G² + 2Dhd`` the positive root of
    ``Ax² − Bx − C`` is at most ``3√(n²G² + D²d)/(D − L²n²K²h³/b)`` whenever the
    denominator is positive and ``Dh < 1``.
    """
    steps: list[Step] = []
    # -- (21): Δ_t in terms of c_i = ∇f_i(θ_t) − ∇f_i(w); prior terms cancel (Alg. 1 l. 8)
    nn, bb = 3, 2
    c = list(sp.symbols(f"c0:{nn}", real=True))
    prior = sp.Symbol("q", real=True)  # −∇log Pr(θ_t)
    fw = list(sp.symbols(f"fw0:{nn}", real=True))  # ∇f_i(w)
    tuples = list(itertools.product(range(nn), repeat=bb))
    ok = True
    for t in tuples:
        est = prior + sp.Rational(nn, bb) * sum(c[i] for i in t) + sum(fw)  # line 8, g = Σ∇f_i(w)
        full = prior + sum(c[j] + fw[j] for j in range(nn))  # ∇f(θ_t)
        rewritten = nn * (sum(c[i] for i in t) / sp.Integer(bb) - sum(c) / nn)
        ok = ok and is_zero(est - full - rewritten)
    steps.append(
        Step(
            "(21) equalities",
            "(21), lines 1–2",
            ok,
            "Δ_t = n[(1/b)Σ_{i∈I}c_i − (1/n)Σ_j c_j] for every batch; −∇log Pr and g cancel",
        )
    )
    cbar = sum(c) / nn

    def mse(batches: list[tuple[int, ...]]) -> sp.Expr:
        return sum((sp.Rational(nn, bb) * sum(c[i] for i in t) - sum(c)) ** 2 for t in batches)

    with_repl = mse(tuples) / len(tuples)
    bound = sp.Rational(nn**2, bb) * sum(ci**2 for ci in c) / nn
    steps.append(
        certified(
            "(21) inequality, with replacement",
            "(21): E(X − EX)² ≤ EX²",
            bound - with_repl,
            sp.Rational(nn**2, bb) * cbar**2,
            "gap = (n²/b)·c̄²",
        )
    )
    perms = list(itertools.permutations(range(nn), bb))
    without = mse(perms) / len(perms)
    var = sum((ci - cbar) ** 2 for ci in c) / nn
    steps.append(
        certified(
            "(21) inequality, without replacement",
            "(21) with Algorithm 1 line 7's subset |I| = b",
            bound - without,
            sp.Rational(nn**2, bb) * (cbar**2 + (1 - sp.Rational(nn - bb, nn - 1)) * var),
            "E = (n²/b)·(n − b)/(n − 1)·Var_i(c_i) ≤ (n²/b)E_i c_i²",
        )
    )
    # -- (22): Cauchy over the epoch, then counting multiplicities
    steps.append(
        _cauchy("(22) Cauchy", "(22), second inequality: ‖Σ_j δ_j‖² ≤ mΣ‖δ_j‖², m ≤ K − 1 ≤ K")
    )
    worst = max(_coefficient_count(KK, TT) / KK for KK in range(1, 7) for TT in range(1, 25))
    steps.append(
        Step(
            "(22) counting",
            "(22), third inequality: Σ_t K Σ_{j=⌊t/K⌋K}^{t−1} ≤ K² Σ_t",
            worst <= 1,
            f"each increment is counted ≤ K − 1 times (max count/K = {worst})",
        )
    )
    # -- the p recursion
    p, g, Dl, xi, V = sp.symbols("p g Delta xi V", real=True)
    inner = (1 - D * h) * p - h * g - h * Dl + sp.sqrt(2 * D * h) * xi
    steps.append(
        identity(
            "E‖p_{t+1}‖² expansion",
            "B.2, third equality of the p recursion",
            _expect(inner**2, Dl, xi, V),
            ((1 - D * h) * p - h * g) ** 2 + h**2 * V + 2 * D * h,
            "cross terms vanish: E[Δ_t | past] = 0, ξ_t independent, E‖ξ‖² = d (d = 1 here)",
        )
    )
    # ‖(1 − Dh)p − h∇f‖ ≤ (1 − Dh)‖p‖ + h·nG (triangle, Dh < 1); square it
    absp = sp.Symbol("absp", nonnegative=True)
    bound_sq = (1 - D * h) ** 2 * absp**2 + 2 * n * G * h * (1 - D * h) * absp
    steps.append(
        identity(
            "‖(1 − Dh)p − h∇f‖² bound",
            "B.2, first inequality of the p recursion, given ‖∇f‖ ≤ nG",
            bound_sq + h**2 * n**2 * G**2,
            ((1 - D * h) * absp + h * n * G) ** 2,
            "the printed RHS is ((1 − Dh)‖p‖ + hnG)², the square of the triangle bound "
            "(1 − Dh ≥ 0 by Dh < 1); then E‖p‖ ≤ √E‖p‖² (Jensen)",
        )
    )
    theta = sp.Symbol("theta", real=True)
    steps.append(
        Step(
            "‖∇f‖ ≤ nG",
            "B.2, sentence after the p recursion",
            bool(abs((G + theta).subs({G: 1, theta: 2})) <= 1),  # ‖∇f(θ)‖ ≤ nG at n = G = 1
            "∇f = Σ∇f_i − ∇log Pr: ‖Σ∇f_i‖ ≤ nG, but the prior gradient is unbounded unless "
            "the prior is flat",
            {
                "n": 1,
                "f_1(θ)": "Gθ",
                "prior": "N(0, 1)",
                "G, θ": (1, 2),
                "‖∇f(θ)‖": (G + theta).subs({G: 1, theta: 2}),
                "nG": 1,
            },
        )
    )
    # -- grand summation and rearrangement
    S, T = sp.symbols("S T", positive=True)
    ps = sp.symbols("p0:5", real=True)  # p_0 … p_4, one coordinate
    cK = L**2 * n**2 * K**2 / b
    summed_rhs = (1 - D * h) ** 2 * S + 2 * n * G * h * (1 - D * h) * sp.sqrt(T) * sp.sqrt(S)
    summed_rhs += T * (h**2 * n**2 * G**2 + 2 * D * h * d) + cK * h**4 * S
    Cq0 = h**2 * n**2 * G**2 + 2 * D * h * d
    rearranged = (1 - (1 - D * h) ** 2 - cK * h**4) * S / T
    rearranged -= 2 * n * G * h * (1 - D * h) * sp.sqrt(S / T) + Cq0
    steps.append(
        identity(
            "rearrangement",
            "B.2, 'Rearranging the terms'",
            (S - summed_rhs) / T,
            rearranged,
            "(S − RHS)/T, term by term",
        )
    )
    steps.append(
        identity(
            "h²ΣE‖Δ‖² ≤ (L²n²K²h⁴/b)S",
            "B.2, second inequality of the grand sum: Σ_{t<T}‖θ_{t+1} − θ_t‖² = h²S",
            sum((h * ps[t + 1]) ** 2 for t in range(4)),
            h**2 * sum(ps[t] ** 2 for t in range(1, 5)),
            "(2) gives θ_{t+1} − θ_t = hp_{t+1}; the sum over t = 0…T−1 is h²Σ_{t=1}^T p_t² "
            "(T = 4 shown), so (21)–(22) give h²ΣE‖Δ_t‖² ≤ (L²n²K²h²/b)·h²S",
        )
    )
    # -- (23): the quadratic
    A, Bq, Cq = _quadratic(cK)
    Q = n**2 * G**2 + D**2 * d
    steps.append(
        identity(
            "A = h(2D − D²h − ch³)",
            "(23), coefficient of S/T",
            A,
            h * (2 * D - D**2 * h - cK * h**3),
            "c = L²n²K²/b",
        )
    )
    steps.append(
        certified(
            "B ≤ 2nGh",
            "(23), numerator nG",
            2 * n * G * h - Bq,
            2 * n * G * D * h**2,
            "gap = 2nGDh²",
        )
    )
    a_step, numerator_step = _quadratic_certificates(
        cK,
        ("A ≥ h(D − ch³)", "B² + 4AC ≤ 16h²(n²G² + D²d)"),
        ("(23), the denominator D − L²n²K²h³/b", "(23), numerator √(n²G² + D²d)"),
    )
    steps.insert(-1, a_step)  # the paper's order: A, then B, then the numerator
    steps.append(numerator_step)
    root = (Bq + sp.sqrt(Bq**2 + 4 * A * Cq)) / (2 * A)
    steps.append(
        identity(
            "quadratic root",
            "(23), 'Solving a quadratic equation'",
            A * root**2 - Bq * root - Cq,
            sp.Integer(0),
            "√(S/T) ≤ x₊ = (B + √(B² + 4AC))/(2A), the positive root (A > 0)",
        )
    )
    sq = sp.Symbol("sqrtQ", positive=True)
    steps.append(
        certified(
            "(nG + 2√Q) ≤ 3√Q",
            "(23), second ≲ (with constant 3)",
            (3 * sq - (n * G + 2 * sq)) * (sq + n * G),
            D**2 * d,
            "(√Q − nG)(√Q + nG) = Q − n²G² = D²d ≥ 0, Q = n²G² + D²d",
            substitution={sq: sp.sqrt(Q)},
        )
    )
    steps.append(_root_spot_check())
    # -- (24), (25)
    steps.append(
        identity(
            "(24)",
            "(24): (1/T)ΣE‖Δ‖² ≲ (L²n²K²h²/b)(√(n²G² + D²d)/(D − L²n²K²h³/b))²",
            cK * h**2 * (3 * sp.sqrt(Q) / (D - cK * h**3)) ** 2,
            9 * L**2 * n**2 * K**2 * h**2 / b * (sp.sqrt(Q) / (D - cK * h**3)) ** 2,
            "(1/T)ΣE‖Δ‖² ≤ (L²n²K²h²/b)·S/T and (23) with constant 3: (24) with constant 9",
        )
    )
    u1, u2 = sp.symbols("u1 u2", real=True)
    steps.append(
        certified(
            "(25)",
            "(25): ‖a − b‖² ≤ 2(‖a‖² + ‖b‖²) ≤ 4G²",
            2 * (u1**2 + u2**2) - (u1 - u2) ** 2,
            (u1 + u2) ** 2,
            "gap = (a + b)²",
        )
    )
    return steps


def _mpf(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _root_spot_check() -> Step:
    """(23) with constant 3, at rational points of the region with D − ch³ > 0 (mpmath)."""
    worst = mpmath.mpf(0)
    grid = itertools.product((1, 7), (1, 3), (1, 5), (1, 2), ("1/2", "1/10"), (1, 4), ("1/3", 2))
    for nn, bb, KK, dd, hh, DD, LL in grid:
        hh, LL = _mpf(Fraction(hh)), _mpf(Fraction(LL))
        DD = mpmath.mpf(DD)
        if DD * hh >= 1 or bb > nn:
            continue
        c = LL**2 * nn**2 * KK**2 / bb
        den = DD - c * hh**3
        if den <= 0:
            continue
        for GG in (mpmath.mpf(1) / 10, mpmath.mpf(3)):
            A = 1 - (1 - DD * hh) ** 2 - c * hh**4
            B = 2 * nn * GG * hh * (1 - DD * hh)
            C = hh**2 * nn**2 * GG**2 + 2 * DD * hh * dd
            root = (B + mpmath.sqrt(B**2 + 4 * A * C)) / (2 * A)
            worst = max(worst, root / (3 * mpmath.sqrt(nn**2 * GG**2 + DD**2 * dd) / den))
    return Step(
        "(23) spot check",
        "(23) with constant 3",
        bool(worst <= 1),
        f"max x₊/(3√Q/(D − ch³)) = {mpmath.nstr(worst, 6)} over the grid",
    )


# ======================================================================================
# B.3: Lemma 1, and Corollary 3
# ======================================================================================


def lemma1_steps() -> list[Step]:
    """B.3 (proof of Lemma 1), eqs. (9)–(10), in the paper's order."""
    s: dict[str, Any] = dict(_SYM)
    M = sp.Symbol("M", positive=True)
    a = _a(s)
    u = n * K * L * h
    steps = [
        certified(
            "G² > K²n²L²h²G²",
            "B.3, line 1: G² > K²(n²L²h²G² + hd) > K²n²L²h²G²",
            K**2 * (n**2 * L**2 * h**2 * G**2 + h * d) - K**2 * n**2 * L**2 * h**2 * G**2,
            K**2 * h * d,
            "gap = K²hd > 0",
        ),
        identity(
            "h < 1/(nKL)",
            "B.3, line 1: hence h < 1/(nKL)",
            G**2 * (1 - u**2),
            G**2 * (1 - u) * (1 + u),
            "G²(1 − (nKLh)²) > 0 and 1 + nKLh > 0 force nKLh < 1",
        ),
        certified(
            "D − a > D − 1/(nKL)³·L²n²K²/b",
            "B.3 display, line 1",
            (D - a) - (D - (1 / (n * K * L)) ** 3 * L**2 * n**2 * K**2 / b),
            h * w * (w**2 + 3 * w + 3) / (b * (w + 1) ** 2),
            "h < 1/(nKL), written via w",
            substitution=U_BELOW_1,
        ),
        identity(
            "= D − 1/(nKbL)",
            "B.3 display, line 2",
            (1 / (n * K * L)) ** 3 * L**2 * n**2 * K**2 / b,
            1 / (n * K * b * L),
            "algebra",
        ),
        certified(
            "≥ D − 0.1 (nKbL ≥ 10)",
            "B.3 display, line 3: nKbL ≫ 10",
            (D - 1 / (n * K * b * L)) - (D - sp.Rational(1, 10)),
            v / (10 * (10 + v)),
            "nKbL = 10 + v",
            substitution={b: (10 + v) / (n * K * L)},
        ),
        certified(
            "D − 0.1 ≥ 0.9D",
            "B.3 display, line 3: D > 1",
            (D - sp.Rational(1, 10)) - sp.Rational(9, 10) * D,
            delta / 10,
            "D = 1 + δ",
            substitution={D: 1 + delta},
        ),
        identity(
            "R^LD reduction",
            "B.3, 'reduced to comparing': R^LD·bT/(n²K²)",
            r_ld(s) * b / (n**2 * K**2),
            h**2 * L**2 * n**2 * G**2 + h * d,
            "algebra",
        ),
        identity(
            "R^HMC reduction",
            "B.3, 'reduced to comparing': R^HMC·bT/(n²K²) = h²L²n²G²/D² + h²L²d",
            r_hmc(s) * b / (n**2 * K**2),
            h**2 * L**2 * n**2 * G**2 / D**2 + h**2 * L**2 * d,
            "the denominator of R^HMC is (D − a)², not D²: the step drops D²/(D − a)²",
            point=_at(POINT_DEEP),
        ),
        identity(
            "R^HMC reduction, factor restored",
            "B.3 reduction with the dropped factor D²/(D − L²n²K²h³/b)²",
            r_hmc(s) * b / (n**2 * K**2),
            dropped_factor(s) * (h**2 * L**2 * n**2 * G**2 / D**2 + h**2 * L**2 * d),
            "exact",
        ),
        certified(
            "h²L²d ≤ hL²d/(nKL)",
            "B.3 chain, line 1",
            h * L**2 * d / (n * K * L) - h**2 * L**2 * d,
            d * w / (K**2 * n**2 * (w + 1) ** 2),
            "h < 1/(nKL)",
            substitution=U_BELOW_1,
        ),
        identity(
            "= hd·L/(nK)",
            "B.3 chain, line 2",
            h * L**2 * d / (n * K * L),
            h * d * L / (n * K),
            "algebra",
        ),
    ]
    gap_max = M * (h**2 * L**2 * n**2 * G**2 + h * d) - (
        h**2 * L**2 * n**2 * G**2 / D**2 + h * d * L / (n * K)
    )
    split = (M - 1 / D**2) * h**2 * L**2 * n**2 * G**2 + (M - L / (n * K)) * h * d
    steps.append(
        Step(
            "≤ max{1/D², L/(nK)}(…)",
            "B.3 chain, line 3",
            is_zero(gap_max - split),
            "gap = (M − 1/D²)h²L²n²G² + (M − L/(nK))hd, both coefficients ≥ 0 for M = max",
        )
    )
    steps.append(
        _bound_step(
            "(9)",
            "(9): R^HMC ≤ max{1/D², L/(nK)}·R^LD",
            lambda p: max(1 / p["D"] ** 2, p["L"] / (p["n"] * p["K"])),
            POINTS,
        )
    )
    # the corrected statement: R^HMC < (D/(D − a))²·M·R^LD on the whole region
    gap = b / (n**2 * K**2) * (D**2 * M * r_ld(s) - (D - a) ** 2 * r_hmc(s))
    form = (D**2 * M - 1) * n**2 * L**2 * h**2 * G**2 + D**2 * h * d * (M - L**2 * h)
    rest = certified(
        "L/(nK) − L²h > 0",
        "(9) corrected",
        L / (n * K) - L**2 * h,
        w / (K**2 * n**2 * h * (w + 1) ** 2),
        "h < 1/(nKL)",
        substitution=U_BELOW_1,
    )
    steps.append(
        Step(
            "(9) with the factor restored",
            "(9) corrected: R^HMC ≤ (D/(D − L²n²K²h³/b))²·max{1/D², L/(nK)}·R^LD",
            is_zero(gap - form) and rest.holds,
            "(b/n²K²)[D²M·R^LD − (D − a)²R^HMC] = (D²M − 1)n²L²h²G² + D²hd(M − L²h); "
            "D²M ≥ 1 and M − L²h ≥ L/(nK) − L²h > 0",
        )
    )
    c = n * K * b * L
    steps.append(
        identity("a·nKbL = (nKLh)³", "B.3 regime", a * c, u**3, "so a < 1/(nKbL) on the region")
    )
    steps.append(
        certified(
            "D/(D − a) ≤ nKbL/(nKbL − 1)",
            "B.3 regime: the dropped factor is bounded",
            (D - c * a) / u**3,
            sp.expand((1 + delta) * (1 + w) ** 3 - 1),
            "⇔ c·a ≤ D; c·a = (nKLh)³ < 1 ≤ D (D = 1 + δ, nKLh = 1/(1 + w))",
            substitution={**U_BELOW_1, D: 1 + delta},
        )
    )
    steps.append(
        certified(
            "nKbL ≥ 10 ⇒ factor ≤ (10/9)²",
            "B.3 regime",
            sp.Rational(10, 9) - (10 + v) / (9 + v),
            v / (9 * (9 + v)),
            "c/(c − 1) decreases in c; c = 10 + v",
        )
    )
    steps.append(
        certified(
            "D ≥ 1/(L√h) ⇒ 1/D² ≤ L/(nK)",
            "B.3, last display: D² ≥ 1/(L²h) ≥ nK/L",
            1 / (L**2 * h) - n * K / L,
            n**2 * K**2 * h * w * (1 + w),
            "h < 1/(nKL)",
            substitution=U_BELOW_1,
        )
    )
    steps.append(
        _bound_step(
            "(10)",
            "(10): R^HMC ≤ (L/(nK))·R^LD when D ≥ 1/(L√h)",
            lambda p: p["L"] / (p["n"] * p["K"]),
            POINTS,
        )
    )
    return steps


def ratio_steps() -> list[Step]:
    """The ratio ``R^HMC/R^LD`` as a function of G: the facts behind the verdicts on (9)–(11).

    Not displayed steps of the paper but the analysis of its bound: the ratio depends on
    G, d only through ``x = n²G²/d``; it is monotone in x with the sign of ``1 − D²L²h``
    (so (10)'s condition is exactly where it decreases in G); the assumption before
    Lemma 1 is ``G²(1 − (nKLh)²) > K²hd``; ``lim_{G→∞} R^HMC/(R^LD/D²) = D²/(D − a)² > 1``
    (so (9) fails for large G wherever ``1/D² ≥ L/(nK)``); and on the family
    ``n = K = b = d = L = D = 1`` the sup over G is ``1/(1 − h³)² → ∞`` as ``h → 1⁻``, so no
    constant repairs (9) on the whole region (only inside B.3's ``nKbL ≥ 10``).
    """
    x, G2 = sp.symbols("x G2", positive=True)
    pt = {"n": n, "b": b, "K": K, "d": d, "L": L, "G2": G2, "h": h, "D": D}
    a = _a(pt)
    ratio = r_hmc(pt) / r_ld(pt)
    form = L**2 * h**2 * (x + D**2) / ((D - a) ** 2 * (L**2 * h**2 * x + h))
    deriv = L**2 * h**3 * (1 - D**2 * L**2 * h) / ((D - a) ** 2 * (L**2 * h**2 * x + h) ** 2)
    assumption = n**2 * G2 - n**2 * K**2 * (n**2 * L**2 * h**2 * G2 + h * d)
    family = (1 / (D - a) ** 2).subs({n: 1, K: 1, b: 1, L: 1, D: 1})
    eq = "Lemma 1, eqs. (7)–(10)"
    return [
        identity(
            "R^HMC/R^LD = L²h²(x + D²)/((D − a)²(L²h²x + h)), x = n²G²/d",
            eq,
            ratio.subs(G2, x * d / n**2),
            form,
            "G and d enter only through x",
        ),
        identity(
            "∂/∂x of it = L²h³(1 − D²L²h)/((D − a)²(L²h²x + h)²)",
            eq,
            sp.diff(form, x),
            deriv,
            "monotone in G with the sign of 1 − D²L²h",
        ),
        identity(
            "assumption ⟺ G²(1 − (nKLh)²) > K²hd",
            "the assumption before Lemma 1",
            assumption,
            n**2 * (G2 * (1 - (n * K * L * h) ** 2) - K**2 * h * d),
            "both sides expanded",
        ),
        identity(
            "lim_{G→∞} R^HMC/(R^LD/D²) = D²/(D − a)²",
            "(9) as G → ∞",
            sp.limit(ratio * D**2, G2, sp.oo),
            D**2 / (D - a) ** 2,
            "the limit exceeds 1: (9) fails for large G wherever 1/D² ≥ L/(nK)",
        ),
        Step(
            "n=K=b=d=L=D=1: sup_G ratio = 1/(1 − h³)² → ∞ as h → 1⁻",
            "(9) on the whole region",
            is_zero(family - 1 / (1 - h**3) ** 2) and sp.limit(family, h, 1, "-") == sp.oo,
            "no constant repairs (9) on the region: the sup over G is unbounded as h → 1⁻",
        ),
    ]


def corollary3_steps() -> list[Step]:
    """Corollary 3, eq. (11): (10) at ``K = n/b``."""
    return [
        identity(
            "L/(nK) = bL/n² at K = n/b",
            "(10) → (11)",
            (L / (n * K)).subs(K, n / b),
            b * L / n**2,
            "substitution",
        ),
        _bound_step(
            "(11)",
            "(11): R^HMC ≤ (bL/n²)·R^LD at K = n/b, D ≥ 1/(L√h)",
            lambda p: p["b"] * p["L"] / p["n"] ** 2,
            POINTS,
        ),
    ]


# ======================================================================================
# B.4: Theorem 4 (SAGA-HMC)
# ======================================================================================


def theorem4_steps() -> list[Step]:
    """B.4 (proof of Theorem 4, SAGA-HMC), from (26) to (27), step by step.

    B.4 follows B.2 with the snapshot ``α_t^i`` of Algorithm 2 in place of ``w``;
    ``γ = 1 − (1 − 1/n)^b`` is the probability that index i is in a batch of b draws
    *with replacement* (Algorithm 2 line 6 says "a set |I| = b", for which it is b/n;
    both are ≥ b/(2n), so the conclusion is unaffected).
    """
    steps: list[Step] = []
    nn, bb = 3, 2
    tuples = list(itertools.product(range(nn), repeat=bb))
    p_in = Fraction(sum(1 for t in tuples if 0 in t), len(tuples))
    gamma = 1 - (1 - Fraction(1, nn)) ** bb
    steps.append(
        Step(
            "γ = Pr(i ∈ I)",
            "B.4: γ = 1 − (1 − 1/n)^b",
            p_in == gamma,
            f"n = 3, b = 2 with replacement: {p_in} = {gamma} (a subset would give b/n = 2/3)",
        )
    )
    # the law of α_t^i: at t = 1, α_1^i = θ_0 whatever was sampled at step 0
    steps.append(
        Step(
            "Pr(α_t^i = θ_j) = (1 − γ)^{t−j−1}γ",
            "B.4, second equality of the E‖θ_t − α_t^i‖² display",
            gamma == 1,  # the printed Pr(α_1^i = θ_0) = γ against the true value 1
            "omits the never-sampled mass (1 − γ)^t at j = 0 (α_0^i = θ_0, Algorithm 2 line 3): "
            "the printed probabilities sum to 1 − (1 − γ)^t",
            {"n, b": (nn, bb), "t": 1, "j": 0, "Pr(α_1^i = θ_0)": 1, "(1 − γ)^0·γ": gamma},
        )
    )
    steps.append(_cauchy("Cauchy", "B.4: ‖p_t + … + p_{j+1}‖² ≤ (t − j)Σ‖p_m‖²"))
    g, a, c = sp.symbols("gamma a c", positive=True)
    f_tel = (1 / g + a) * (1 - g) ** a
    steps.append(
        identity(
            "Σ_k (t−j+k+1)(1−γ)^{t−j+k}γ = (1/γ + t − j)(1−γ)^{t−j}",
            "B.4: 'a weighted summation of geometric series' (printed '<')",
            sp.powsimp(sp.expand(f_tel - f_tel.subs(a, a + 1))),
            sp.powsimp(sp.expand((a + 1) * (1 - g) ** a * g)),
            "telescoping F(a) − F(a + 1) = (a + 1)(1 − γ)^aγ with F(a) = (1/γ + a)(1 − γ)^a → 0: "
            "the printed '<' holds with equality",
        )
    )
    F_tel = (c + a) / g + (1 - g) / g**2
    steps.append(
        identity(
            "Σ_k (1/γ + k)(1 − γ)^k = (2 − γ)/γ²",
            "B.4: Σ_{j≥t}(1/γ + j − t)(1 − γ)^{j−t} ≤ 2/γ²",
            sp.expand(F_tel - (1 - g) * F_tel.subs(a, a + 1)),
            c + a,
            "telescoping with F(k) = (1 − γ)^k[(c + k)/γ + (1 − γ)/γ²], so the sum is "
            "c/γ + (1 − γ)/γ², = (2 − γ)/γ² ≤ 2/γ² at c = 1/γ",
        )
    )
    # true law: per t ≥ m, the weight of p_m is Σ_{j<m}(t − j)γq^{t−j−1} + t·q^t (never
    # sampled, α = θ_0), which telescopes to (1/γ + t − m)q^{t−m} − q^t/γ ≤ B.4's weight
    qg = 1 - g
    ok = all(
        is_zero(
            sum((t - j) * g * qg ** (t - j - 1) for j in range(m))
            + t * qg**t
            - ((1 / g + t - m) * qg ** (t - m) - qg**t / g)
        )
        for m in range(1, 5)
        for t in range(m, m + 5)
    )
    steps.append(
        Step(
            "bound survives the omitted mass",
            "B.4: Σ_t E_i‖θ_t − α_t^i‖² ≤ (2/γ²)h²Σ_tE‖p_t‖²",
            ok,
            "with the never-sampled mass the weight of E‖p_m‖² at each t ≥ m is "
            "(1/γ + t − m)(1 − γ)^{t−m} − (1 − γ)^t/γ, below B.4's (1/γ + t − m)(1 − γ)^{t−m} "
            "(identity in γ, 1 ≤ m ≤ 4, m ≤ t < m + 5): the conclusion holds",
        )
    )
    bern = all(
        (1 - Fraction(1, N)) ** B <= 1 / (1 + Fraction(B, N - 1))
        and 1 - (1 - Fraction(1, N)) ** B > Fraction(B, 2 * N)
        for N in range(2, 31)
        for B in range(1, N + 1)
    )
    steps.append(
        Step(
            "γ > b/(2n)",
            "B.4: (1 − 1/n)^b ≤ 1/(1 + b/(n−1)), so γ ≥ b/(n − 1 + b) > b/(2n)",
            bern,
            "exact for 2 ≤ n ≤ 30, 1 ≤ b ≤ n (Bernoulli; n + 1 > b)",
        )
    )
    S = sp.Symbol("S", positive=True)
    steps.append(
        identity(
            "8h⁴L²n⁴/b³",
            "B.4: h²ΣE‖Δ‖² ≤ h²(L²n²/b)(8h²n²/b²)S",
            h**2 * (L**2 * n**2 / b) * (8 * h**2 * n**2 / b**2) * S,
            8 * h**4 * L**2 * n**4 / b**3 * S,
            "(26), the staleness bound, γ > b/(2n)",
        )
    )
    cS = 8 * L**2 * n**4 / b**3
    A, _, Cq = _quadratic(cS)
    pt0 = {n: 2, b: 1, G: 1, d: 1, D: 1, h: sp.Rational(1, 10), L: 1}
    steps.append(
        Step(
            "rearranged, as printed",
            "B.4: (1 − (1 − Dh)² − 8h⁴L²n⁴/b³)S/T + 2nGh(1 − Dh)√(S/T) + (h²n²G² + 2Dhd) ≤ 0",
            bool(Cq.subs(pt0) <= 0),  # the printed line at S = 0
            "sign typo: the rearrangement of the grand sum gives −2nGh(1 − Dh)√(S/T) − (…) ≤ 0 "
            "(as in B.2); S = 0 satisfies the grand sum but not the printed line",
            {
                "point": {str(k): str(v) for k, v in pt0.items()},
                "S": 0,
                "printed LHS at S = 0": Cq.subs(pt0),
                "required": "≤ 0",
            },
        )
    )
    pt = {n: 2, b: 1, G: 1, d: 1, D: 1, h: sp.Rational(1, 2), L: sp.sqrt(2) / 4}
    printed_den = D - h**3 * L**2 * n**4 / b**3
    steps.append(
        Step(
            "(27) denominator D − h³L²n⁴/b³",
            "(27): √(S/T) ≲ √(n²G² + D²d)/(D − h³L²n⁴b⁻³)",
            not (A.subs(pt) <= 0 < printed_den.subs(pt)),  # no bound, yet (27) finite
            "the quadratic's leading coefficient is A = h(2D − D²h − 8h³L²n⁴/b³): the 8 is "
            "dropped. Where A ≤ 0 < D − h³L²n⁴/b³ the quadratic bounds nothing while (27) is "
            "finite, so no constant absorbs it",
            {
                "point": {str(k): str(v) for k, v in pt.items()},
                "A": A.subs(pt),
                "D − h³L²n⁴/b³": printed_den.subs(pt),
                "Dh": "1/2 < 1, D ≥ 1",
            },
        )
    )
    steps += _quadratic_certificates(
        cS,
        ("A ≥ h(D − 8h³L²n⁴/b³)", "B² + 4AC ≤ 16h²(n²G² + D²d) (B.4)"),
        ("(27) corrected: denominator D − 8h³L²n⁴/b³", "(27), numerator"),
    )
    return steps
