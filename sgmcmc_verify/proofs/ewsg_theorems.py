"""EWSG (Ding et al., non-uniform subsampling) Theorems 1–3, step by step.

The extracted text has no appendix (no proofs), so each theorem is split into the steps
its statement and the surrounding text (§4.1–4.2) rely on.  Reconstructed formulas:

* Theorem 1: ``b_i = n∇V_i(θ) − ∇V(θ)``, ``V = Σ_i V_i``, "i.i.d. absolutely continuous";
  (2) ``min_p Tr(E_{I∼p}[b_I b_Iᵀ]) s.t. E_{I∼p}[b_I] = 0``; the optimum has ≤ d + 1
  non-zero entries with probability 1.
* §4.2 EM step: ``r_{k+1} = r_k − (∇V(θ_k) + γr_k)h + σ√h ξ_{k+1}``.
* Theorem 2: ``x = (r_{k+1} − r_k + hγr_k)/(σ√h)``, ``a_i = √h∇V_i(θ_k)/σ``,
  (4) ``p_i = Ẑ⁻¹ exp(−‖x + Σ_j a_j‖²/2 + ‖x + n a_i‖²/2)``; "the two transition
  kernels are identical".
* Theorem 3 (statement garbled, reconstructed): ``∇V_i`` i.i.d., ``|∇V_i| ≤ R``,
  ``Δ = Tr cov_{I∼p_E}[n∇V_I] − Tr cov_{I∼p_U}[n∇V_I]``; "if x = O(√h), E[Δ] < 0", and a
  concentration bound ``P(|Δ − EΔ| ≥ ε) ≤ 2 exp(−ε²/(nCh²))`` (not checked: no proof is
  given and the constant C is unspecified).

What fails: Theorem 1's hypothesis (``Σ_i b_i = 0`` identically, so the ``b_i`` cannot be
i.i.d. with a density); Theorem 2's "identical kernels" (``Σ_i p_i K_i = (n/Ẑ(x)) N_full``
and ``Ẑ`` depends on ``x``: the mixture is not even a probability density); Theorem 3's
``E[Δ] < 0`` (to first order in h its sign is that of ``E cov_U(‖g‖², ‖g − ḡ‖²)``,
``g = n∇V``, which is positive for a right-skewed two-point law).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from . import Step, identity, is_zero

__all__ = [
    "col_rank",
    "compositions",
    "ewsg_mass",
    "exact_feasible_value",
    "expected_delta",
    "first_order_c1",
    "lp_certificate",
    "lp_vertex_optimum",
    "rref",
    "theorem1_steps",
    "theorem2_steps",
    "theorem3_steps",
    "two_point_c1",
]


# ======================================================================================
# Theorem 1
# ======================================================================================


def lp_vertex_optimum(b: list[Fraction]) -> tuple[Fraction, dict[int, Fraction], tuple]:
    """Exact optimum of (2) in d = 1 over the two-point vertices, with its dual certificate.

    Returns the value, the optimal ``p`` (support ``{i, j}``), and the dual ``(y0, y1)``
    with ``y0 + y1 b_k ≤ b_k²`` for every k and ``y0 = value`` (LP duality: optimal).
    """
    best = None
    for i, j in itertools.permutations(range(len(b)), 2):
        if b[i] > 0 > b[j]:
            pi = -b[j] / (b[i] - b[j])
            val = pi * b[i] ** 2 + (1 - pi) * b[j] ** 2
            if best is None or val < best[0]:
                best = (val, {i: pi, j: 1 - pi}, (-b[i] * b[j], b[i] + b[j]))
    if best is None:
        raise ValueError("(2) needs b of both signs")
    return best


def rref(rows: list[list[Fraction]]) -> tuple[list[list[Fraction]], list[int]]:
    """Reduced row echelon form over the rationals: (nonzero rows, pivot columns)."""
    M = [list(r) for r in rows]
    pivots: list[int] = []
    r = 0
    for col in range(len(M[0]) if M else 0):
        k = next((i for i in range(r, len(M)) if M[i][col] != 0), None)
        if k is None:
            continue
        M[r], M[k] = M[k], M[r]
        inv = 1 / M[r][col]
        M[r] = [v * inv for v in M[r]]
        for i in range(len(M)):
            if i != r and M[i][col] != 0:
                f = M[i][col]
                M[i] = [a - f * b for a, b in zip(M[i], M[r], strict=True)]
        pivots.append(col)
        r += 1
        if r == len(M):
            break
    return M[:r], pivots


def col_rank(A: list[list[Fraction]], cols: list[int]) -> int:
    if not cols:
        return 0
    return len(rref([[row[j] for j in cols] for row in A])[1])


def lp_certificate(bt: np.ndarray, p: np.ndarray, tol: float) -> dict[str, Any]:
    """Exact (rational) optimality certificate for a solution of LP (2) (EWSG Theorem 1).

    Every float64 is a rational, so the LP with data ``b̃`` (as given to the solver) is
    solved exactly from the support ``S = {i : p_i > tol}`` of the solver's ``p``:

    1. the equality system ``[b̃ᵀ; 1ᵀ] p = (0, 1)`` is row-reduced (rank ``r ≤ d + 1``);
    2. ``S`` is a *basic* support iff its columns are linearly independent — then
       ``|S| ≤ r ≤ d + 1``: the vertex argument of the theorem;
    3. ``S`` is extended to a basis ``B`` (``|B| = r``) and ``A_B p_B = e`` is solved
       exactly: the vertex is feasible iff ``p_B ≥ 0``, and has support ``S`` iff
       ``p_B > 0`` on ``S`` and ``= 0`` on ``B ∖ S``;
    4. the duals ``y = A_B^{-T} c_B`` give reduced costs ``c_j − A_jᵀ y``; all ``≥ 0``
       proves the vertex optimal (LP duality), all ``> 0`` off ``B`` proves it the
       *unique* optimum.  Zero reduced costs off ``B`` mark an optimal face.

    Parameters
    ----------
    bt : ndarray, shape (n, d)
        The LP data (the normalised ``b̃`` of :func:`sgmcmc_verify.claims.ewsg.lp2`).
    p : ndarray, shape (n,)
        The solver's solution.
    tol : float
        Nonzero threshold (the check uses :data:`sgmcmc_verify.claims.ewsg.NONZERO_TOL`).

    Returns
    -------
    dict
        ``rank``, ``support`` (list), ``basic``, ``vertex``, ``optimal``, ``unique``,
        ``zero_reduced_costs`` (off the basis), ``value`` (float) and ``value_exact``,
        ``p_exact`` (list of Fraction, all ``n``), ``max_dev`` ``= max|p_exact − p|``.
        Booleans are exact; ``optimal``/``unique`` are sufficient conditions (a degenerate
        vertex whose greedy basis extension is not dual feasible reports ``False``).

    Notes
    -----
    The certificate is about the LP with the rounded data ``b̃``.  For ``n ≥ d + 1``
    generic sets, 0 is interior to the hull of the ``b̃_i`` (uniform weights are all
    positive), so rounding keeps the LP feasible.  For ``n ≤ d`` the ``b_i`` span a proper
    subspace (``Σ b_i = 0``) that rounding leaves, the exact LP is infeasible and every
    flag is ``False``; sparsity is trivial there (``n ≤ d + 1``).
    """
    n, d = bt.shape
    F = [[Fraction(float(v)) for v in row] for row in bt]
    c = [sum((v * v for v in row), Fraction(0)) for row in F]
    aug = [[F[j][k] for j in range(n)] + [Fraction(0)] for k in range(d)]
    aug.append([Fraction(1)] * n + [Fraction(1)])
    R, piv = rref(aug)
    out: dict[str, Any] = {
        "rank": sum(1 for q in piv if q < n),
        "support": [int(j) for j in np.flatnonzero(np.asarray(p) > tol)],
        "basic": False,
        "vertex": False,
        "optimal": False,
        "unique": False,
        "zero_reduced_costs": None,
        "value": math.nan,
        "value_exact": None,
        "p_exact": None,
        "max_dev": math.nan,
    }
    if n in piv:  # a row 0 = 1: the equality system is inconsistent
        return out
    A = [row[:n] for row in R]
    rhs = [row[n] for row in R]
    r = len(A)
    S = out["support"]
    if len(S) > r or col_rank(A, S) < len(S):
        return out
    out["basic"] = True
    B = list(S)
    for j in (j for j in range(n) if j not in set(S)):
        if len(B) == r:
            break
        if col_rank(A, [*B, j]) > len(B):
            B.append(j)
    sol, spiv = rref([[A[i][j] for j in B] + [rhs[i]] for i in range(r)])
    if spiv != list(range(r)):
        return out
    pB = [row[r] for row in sol]
    p_exact = [Fraction(0)] * n
    for j, v in zip(B, pB, strict=True):
        p_exact[j] = v
    on_S = set(S)
    out["vertex"] = all(v > 0 if j in on_S else v == 0 for j, v in zip(B, pB, strict=True))
    out["p_exact"] = p_exact
    out["max_dev"] = max(abs(float(v) - float(q)) for v, q in zip(p_exact, p, strict=True))
    if not out["vertex"]:
        return out
    dual, dpiv = rref([[A[i][j] for i in range(r)] + [c[j]] for j in B])
    y = [row[r] for row in dual]
    rc = [c[j] - sum((A[i][j] * y[i] for i in range(r)), Fraction(0)) for j in range(n)]
    off = [rc[j] for j in range(n) if j not in set(B)]
    value = sum((c[j] * p_exact[j] for j in range(n)), Fraction(0))
    out.update(
        optimal=dpiv == list(range(r)) and all(v >= 0 for v in rc),
        zero_reduced_costs=sum(1 for v in off if v == 0),
        value=float(value),
        value_exact=value,
    )
    out["unique"] = out["optimal"] and all(v > 0 for v in off)
    return out


def exact_feasible_value(bt: np.ndarray, q: list[Fraction]) -> Fraction | None:
    """``Σ q_i ‖b̃_i‖²`` if ``q`` is exactly feasible for LP (2) (else ``None``)."""
    F = [[Fraction(float(v)) for v in row] for row in bt]
    if any(v < 0 for v in q) or sum(q, Fraction(0)) != 1:
        return None
    for k in range(bt.shape[1]):
        if sum((qi * row[k] for qi, row in zip(q, F, strict=True)), Fraction(0)) != 0:
            return None
    return sum(
        (qi * sum((v * v for v in row), Fraction(0)) for qi, row in zip(q, F, strict=True)),
        Fraction(0),
    )


def theorem1_steps() -> list[Step]:
    """Theorem 1 (§4.1): the hypothesis, the LP (2), sparsity of its optimum."""
    nn = 4
    g = sp.symbols(f"g0:{nn}", real=True)  # ∇V_i, one coordinate
    V = sum(g)
    bs = [nn * gi - V for gi in g]
    steps = [
        identity(
            "Σ_i b_i = 0",
            "Theorem 1: b_i = n∇V_i − ∇V",
            sum(bs),
            sp.Integer(0),
            "Σ_i (n∇V_i − Σ_j ∇V_j) = n∇V − n∇V",
        ),
        Step(
            "b_i i.i.d. absolutely continuous",
            "Theorem 1, hypothesis",
            not is_zero(sum(bs)),  # a linear relation leaves no joint density
            "Σ_i b_i = 0 identically: b_n = −Σ_{i<n} b_i, so (b_1, …, b_n) has no joint density "
            "and the b_i are not independent (the coherent reading: the ∇V_i are i.i.d.)",
            {"n": 2, "b_2": "−b_1 for every data set", "P(b_1 + b_2 = 0)": 1},
        ),
    ]
    p = sp.symbols(f"p0:{nn}", nonnegative=True)
    mean = sum(p[i] * bs[i] for i in range(nn))
    trcov = (
        sum(p[i] * (nn * g[i]) ** 2 for i in range(nn))
        - sum(p[i] * nn * g[i] for i in range(nn)) ** 2
    )
    # with Σp = 1 and E b_I = 0: Tr cov(n∇V_I) = E‖b_I‖²
    sub = {p[-1]: 1 - sum(p[:-1])}
    objective = sum(p[i] * bs[i] ** 2 for i in range(nn))
    steps.append(
        identity(
            "Tr cov = E‖b_I‖² on the constraint",
            "(2): objective Tr E[b_I b_Iᵀ] = Tr cov(n∇V_I) when E b_I = 0",
            (trcov - objective).subs(sub),
            (-(mean**2)).subs(sub),
            "Tr cov(n∇V_I) − E‖b_I‖² = −‖E b_I‖² (b_I = n∇V_I − ∇V shifts by a constant), = 0 "
            "on the constraint; the objective is linear in p: (2) is an LP with d + 1 rows",
        )
    )
    steps.append(
        identity(
            "uniform is feasible",
            "§4.1: uniform SG is unbiased",
            sum(bs) / nn,
            sp.Integer(0),
            "E_{p_U} b_I = (1/n)Σ b_i = 0",
        )
    )
    b = [Fraction(5), Fraction(-1), Fraction(-2), Fraction(-2)]
    val, popt, (y0, y1) = lp_vertex_optimum(b)
    dual_ok = all(y0 + y1 * bk <= bk * bk for bk in b) and y0 == val
    uniform = sum(bk * bk for bk in b) / len(b)
    steps.append(
        Step(
            "optimum is sparse (example)",
            "Theorem 1: optimum has ≤ d + 1 non-zeros",
            dual_ok and len(popt) <= 2,
            f"d = 1, b = (5, −1, −2, −2): p* = {dict(popt)} with value {val}, certified by the "
            f"dual (y0, y1) = ({y0}, {y1}); uniform gives {uniform}",
        )
    )
    bt = np.array([[float(v) / 8] for v in b])  # b/8: exact in float64, as lp2 scales
    cert = lp_certificate(bt, np.array([float(popt.get(i, 0)) for i in range(len(b))]), 1e-9)
    steps.append(
        Step(
            "rational vertex certificate",
            "Theorem 1: the optimum is a vertex of (2) (≤ d + 1 = rank non-zeros)",
            bool(
                cert["basic"]
                and cert["vertex"]
                and cert["optimal"]
                and cert["unique"]
                and cert["value_exact"] == val / 64
            ),
            "lp_certificate on the same b: basic support {0, 1}, exact vertex, all reduced "
            "costs ≥ 0 (optimal) and > 0 off the basis (unique), value 5/64 = value/8²",
        )
    )
    # the 'with probability 1' is needed: ties give dense optima
    tie = [Fraction(1), Fraction(-1), Fraction(1), Fraction(-1)]
    tval, _, (t0, t1) = lp_vertex_optimum(tie)
    dense = [Fraction(1, 4)] * 4
    dense_val = sum(q * bk * bk for q, bk in zip(dense, tie, strict=True))
    dense_feasible = sum(q * bk for q, bk in zip(dense, tie, strict=True)) == 0
    steps.append(
        Step(
            "'with probability 1' is needed",
            "Theorem 1: 'with probability 1'",
            dense_feasible and dense_val == tval and all(t0 + t1 * bk <= bk * bk for bk in tie),
            "b = (1, −1, 1, −1): the uniform p (4 > d + 1 non-zeros) is also optimal; ties have "
            "probability 0 under a density",
        )
    )
    return steps


# ======================================================================================
# Theorem 2
# ======================================================================================


def ewsg_mass(a: list[float], quad_range: float = 40.0) -> mpmath.mpf:
    """``∫ Σ_i p_i(x) K_i(x) dx`` in d = 1, x-coordinates (the 'kernel' of Theorem 2's mixture).

    ``K_i(x) = φ(x + n a_i)`` (standard normal density), ``p_i`` from (4).  Equal to 1 iff
    the mixture is a probability density.
    """
    n = len(a)
    A = mpmath.fsum(a)

    def integrand(x):
        w = [mpmath.exp(-((x + A) ** 2) / 2 + (x + n * ai) ** 2 / 2) for ai in a]
        Z = mpmath.fsum(w)
        return mpmath.fsum(w[i] / Z * mpmath.npdf(x + n * a[i]) for i in range(n))

    return mpmath.quad(integrand, [-quad_range, -A, 0, quad_range])


def theorem2_steps() -> list[Step]:
    """Theorem 2 (§4.2): the kernels in x-coordinates, (4), and 'identical kernels'."""
    r, r1, gam, sig, hh = sp.symbols("r r1 gamma sigma h", positive=True)
    nn = 3
    gV = sp.symbols(f"G0:{nn}", real=True)  # ∇V_i(θ_k), one coordinate
    xi = sp.Symbol("xi", real=True)
    x = (r1 - r + hh * gam * r) / (sig * sp.sqrt(hh))
    a = [sp.sqrt(hh) * gi / sig for gi in gV]
    steps = []
    for label, grad, shift in (
        ("SG step, index i: ξ = x + n a_i", nn * gV[0], nn * a[0]),
        ("full-gradient step: ξ = x + Σ a_j", sum(gV), sum(a)),
    ):
        r_next = r - (grad + gam * r) * hh + sig * sp.sqrt(hh) * xi  # §4.2 EM step
        steps.append(
            Step(
                label,
                "§4.2 EM step, solved for ξ",
                is_zero(x.subs(r1, r_next) - (xi - shift)),
                "x(r_{k+1}) = ξ − shift, so the kernel's density in x is φ(x + shift)",
            )
        )
    X = sp.Symbol("x", real=True)
    A = sp.symbols(f"a0:{nn}", real=True)
    S = sum(A)
    w = [sp.exp(-((X + S) ** 2) / 2 + (X + nn * ai) ** 2 / 2) for ai in A]
    Z = sum(w)
    K = [sp.exp(-((X + nn * ai) ** 2) / 2) for ai in A]
    Nfull = sp.exp(-((X + S) ** 2) / 2)
    steps.append(
        Step(
            "p_i K_i = N_full/Ẑ",
            "(4) and Theorem 2",
            all(is_zero(sp.powsimp(sp.expand(w[i] * K[i] - Nfull))) for i in range(nn)),
            "exp(−‖x+Σa‖²/2 + ‖x+na_i‖²/2)·exp(−‖x+na_i‖²/2) = exp(−‖x+Σa‖²/2) for every i",
        )
    )
    mixture = sum(w[i] * K[i] for i in range(nn)) / Z
    steps.append(
        Step(
            "Σ p_i K_i = (n/Ẑ) N_full",
            "Theorem 2",
            is_zero(sp.powsimp(sp.expand(mixture * Z - nn * Nfull))),
            "sum of the previous line over i (n equal terms)",
        )
    )
    a_cx = [0.0, 1.0]
    Zcx = sp.exp(sp.Rational(-1, 2)) + sp.exp(sp.Rational(3, 2))  # (4) at x = 0, a = (0, 1)
    mass = ewsg_mass(a_cx)
    steps.append(
        Step(
            "identical kernels",
            "Theorem 2: P_EWSG(θ_{k+1}, r_{k+1} | θ_k, r_k) = P_EM(…)",
            bool(abs(mass - 1) < mpmath.mpf(10) ** -10),
            "Σ_i p_i K_i = (n/Ẑ(x)) N_full with Ẑ depending on x = x(r_{k+1}): equal to the "
            "full kernel only if Ẑ ≡ n; the mixture's total mass is not 1",
            {
                "n, d": (2, 1),
                "a": a_cx,
                "Ẑ(x = 0)": Zcx,
                "Ẑ(0) (float)": float(Zcx),
                "n": 2,
                "∫ Σ_i p_i K_i dx": float(mass),
            },
        )
    )
    steps.append(
        Step(
            "joint-law reading",
            "Theorem 2, the sense that holds",
            is_zero(sp.powsimp(sp.expand(sum(w) / Z)) - 1),
            "draw r_{k+1} from the full-gradient kernel, then I | r_{k+1} ~ p(x(r_{k+1})): the "
            "r-marginal is the full kernel since Σ_i p_i = 1 — but it needs the full gradient",
        )
    )
    return steps


# ======================================================================================
# Theorem 3
# ======================================================================================


def expected_delta(values: list[Fraction], probs: list[Fraction], n: int, h: float, sigma2: float):
    """``E[Δ]`` exactly over the index and over all ``len(values)^n`` data sets, ``x = 0``.

    ``g_i = n∇V_i`` takes ``values[k]`` with probability ``probs[k]``; ``p_i ∝ exp(h g_i²/(2σ²))``
    (eq. (4) with ``x = 0``, ``a_i = √h∇V_i/σ``); mpmath, 40 digits.
    """
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for combo in itertools.product(range(len(values)), repeat=n):
            prob = mpmath.mpf(1)
            for k in combo:
                prob *= mpmath.mpf(probs[k].numerator) / probs[k].denominator
            g = [mpmath.mpf(values[k].numerator) / values[k].denominator for k in combo]
            w = [mpmath.exp(h * gi**2 / (2 * sigma2)) for gi in g]
            Z = mpmath.fsum(w)
            pe = [wi / Z for wi in w]
            mean_e = mpmath.fsum(pe[i] * g[i] for i in range(n))
            mean_u = mpmath.fsum(g) / n
            tr_e = mpmath.fsum(pe[i] * (g[i] - mean_e) ** 2 for i in range(n))
            tr_u = mpmath.fsum((gi - mean_u) ** 2 for gi in g) / n
            total += prob * (tr_e - tr_u)
        return total


def two_point_c1(q: sp.Expr, n: int = 3) -> sp.Expr:
    """``E cov_U(g², (g − ḡ)²)`` for i.i.d. ``g ∈ {0, 1}``, ``P(g = 1) = q`` (exact, sympy)."""
    total = sp.Integer(0)
    for combo in itertools.product((0, 1), repeat=n):
        prob = sp.Mul(*[q if c else 1 - q for c in combo])
        gbar = sp.Rational(sum(combo), n)
        D = [(c - gbar) ** 2 for c in combo]
        s = [c**2 for c in combo]
        # sp.Rational(sum(s), n): a Python int / int would make the expression a float
        cov = sum(s[i] * D[i] for i in range(n)) / n - sp.Rational(sum(s), n) * (sum(D) / n)
        total += prob * cov
    return sp.factor(total)


def first_order_c1(
    n: int,
    values: tuple[Fraction, ...],
    probs: tuple[Fraction, ...],
    sigma2: Fraction,
) -> tuple[Fraction, Fraction]:
    """``c₁ = lim_{h→0} E[Δ]/h`` for i.i.d. ∇V_i on a finite law, with x = 0 or x̂, exactly.

    With ``x = √h y`` (any ``x = O(√h)``) the exponent of eq. (4) is ``h s_i`` with
    ``s_i = ½‖y + g_i/σ‖²``, ``g_i = n∇V_i``, so ``p_i = 1/n + (h/n)(s_i − s̄) + O(h²)``
    and ``dΔ/dh|₀ = cov_U(s, ‖g − ḡ‖²)`` (the ``‖Σδ_i(g_i − ḡ)‖²`` term is ``O(h²)``).  For
    ``x = 0``, and in expectation for ``x̂`` (``y = γr/σ`` is independent of the data with
    ``E y = 0``), ``c₁ = E[cov_U(‖g‖², ‖g − ḡ‖²)]/(2σ²)``.

    Its sign is not fixed: for a large n it is the sign of the population
    ``cov(g², (g − μ)²) = 2μ·μ₃ + Var((g − μ)²)`` (d = 1; μ the mean, μ₃ the third central
    moment), so a law skewed against its mean (``μ·μ₃ < 0``, e.g. ∇V_i = 4/5 w.p. 9/10 and
    0 w.p. 1/10) gives ``c₁ < 0``, and one skewed with it ``c₁ > 0``.

    Parameters
    ----------
    n : int
        Number of data terms.
    values, probs : tuple of Fraction
        The law of each ∇V_i (d = 1).
    sigma2 : Fraction
        ``σ²`` (``2γ`` at temperature 1).

    Returns
    -------
    by_enumeration, by_moments : Fraction
        The expectation over all compositions in rational arithmetic, and the closed form
        (d = 1, raw moments ``μ_k`` of ``g``, ``S_k = Σ g_i^k``)
        ``E[S₄/n − 2S₁S₃/n² − S₂²/n² + 2S₁²S₂/n³]``.
    """
    if len(values) != len(probs) or sum(probs) != 1 or min(probs) < 0:
        raise ValueError("values and probs must have equal length, probs ≥ 0 summing to 1")
    s2 = Fraction(sigma2)
    vals = [n * Fraction(v) for v in values]
    total = Fraction(0)
    for comp in compositions(n, len(vals)):
        w = Fraction(math.factorial(n), math.prod(math.factorial(k) for k in comp))
        w *= math.prod(Fraction(q) ** k for q, k in zip(probs, comp, strict=True))
        gbar = sum((k * v for k, v in zip(comp, vals, strict=True)), Fraction(0)) / n
        mean_ab = sum(
            (k * v * v * (v - gbar) ** 2 for k, v in zip(comp, vals, strict=True)), Fraction(0)
        )
        mean_a = sum((k * v * v for k, v in zip(comp, vals, strict=True)), Fraction(0))
        mean_b = sum((k * (v - gbar) ** 2 for k, v in zip(comp, vals, strict=True)), Fraction(0))
        total += w * (mean_ab / n - (mean_a / n) * (mean_b / n))
    mu = [
        sum((Fraction(q) * v**k for q, v in zip(probs, vals, strict=True)), Fraction(0))
        for k in range(5)
    ]
    m = n - 1
    closed = (
        mu[4]
        - 2 * (mu[4] + m * mu[1] * mu[3]) / n
        - (mu[4] + m * mu[2] ** 2) / n
        + 2
        * (mu[4] + m * (mu[2] ** 2 + 2 * mu[1] * mu[3]) + m * (n - 2) * mu[1] ** 2 * mu[2])
        / n**2
    )
    return total / (2 * s2), closed / (2 * s2)


def compositions(n: int, k: int):
    """All ``k``-tuples of non-negative integers summing to ``n``."""
    if k == 1:
        yield (n,)
        return
    for a in range(n + 1):
        for rest in compositions(n - a, k - 1):
            yield (a, *rest)


def theorem3_steps() -> list[Step]:
    """Theorem 3: expansion of Δ in h for x = O(√h), and the sign claim E[Δ] < 0."""
    nn = 3
    hh = sp.Symbol("h", positive=True)
    s = sp.symbols(f"s0:{nn}", real=True)
    g = sp.symbols(f"g0:{nn}", real=True)
    w = [sp.exp(hh * si) for si in s]
    Z = sum(w)
    sbar = sum(s) / nn
    p1 = [sp.series(wi / Z, hh, 0, 2).removeO() for wi in w]
    steps = [
        Step(
            "p_i = 1/n + (h/n)(s_i − s̄) + O(h²)",
            "(4) with x = √h y: exponent h·s_i",
            all(is_zero(p1[i] - (sp.Rational(1, nn) + hh / nn * (s[i] - sbar))) for i in range(nn)),
            "s_i = ‖y + g_i/σ‖²/2, g_i = n∇V_i; the common term cancels in Ẑ",
        ),
    ]
    dl = sp.symbols(f"delta0:{nn}", real=True)  # p_i − 1/n, Σ δ_i = 0
    gbar = sum(g) / nn
    pe = [sp.Rational(1, nn) + di for di in dl]
    mean_e = sum(pe[i] * g[i] for i in range(nn))
    tr_e = sum(pe[i] * (g[i] - mean_e) ** 2 for i in range(nn))
    tr_u = sum((gi - gbar) ** 2 for gi in g) / nn
    Dd = [(gi - gbar) ** 2 for gi in g]
    form = (
        sum(dl[i] * Dd[i] for i in range(nn)) - sum(dl[i] * (g[i] - gbar) for i in range(nn)) ** 2
    )
    steps.append(
        identity(
            "Δ = Σδ_iD_i − (Σδ_i(g_i − ḡ))²",
            "Theorem 3: Δ, one coordinate",
            (tr_e - tr_u).subs(dl[-1], -sum(dl[:-1])),
            form.subs(dl[-1], -sum(dl[:-1])),
            "δ_i = p_i − 1/n, D_i = (g_i − ḡ)²; the square term is O(h²)",
        )
    )
    yv, sig = sp.symbols("y sigma", positive=True)
    sy = [(yv + gi / sig) ** 2 / 2 for gi in g]
    cov_lin = sum((yv * g[i] / sig) * Dd[i] for i in range(nn)) / nn - (
        sum(yv * gi / sig for gi in g) / nn
    ) * (sum(Dd) / nn)
    steps.append(
        identity(
            "x̂: the y-linear term averages out",
            "§4.3 x̂ = √hγr/σ, y = γr/σ, E y = 0",
            sp.expand(sum(sy[i] * Dd[i] for i in range(nn)) / nn - (sum(sy) / nn) * (sum(Dd) / nn)),
            sp.expand(
                sum(g[i] ** 2 / (2 * sig**2) * Dd[i] for i in range(nn)) / nn
                - (sum(gi**2 for gi in g) / (2 * sig**2 * nn)) * (sum(Dd) / nn)
                + cov_lin
            ),
            "cov_U(s, D) = cov_U(g², D)/(2σ²) + (y/σ)cov_U(g, D): linear in y, mean 0",
        )
    )
    q = sp.Symbol("q", positive=True)
    qq = Fraction(1, 10)
    c1 = two_point_c1(q)
    steps.append(
        identity(
            "two-point c₁",
            "dE[Δ]/dh at 0, g ∈ {0, 1}, P(1) = q, n = 3, x = 0 (× 2σ²)",
            c1,
            sp.Rational(2, 9) * q * (1 - q) * (1 - 2 * q),
            "enumeration of the 8 data sets",
        )
    )
    three = (Fraction(-1, 5), Fraction(3, 10), Fraction(4, 5))
    enum, closed = first_order_c1(5, three, (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)), 1)
    two_enum, two_closed = first_order_c1(3, (Fraction(0), Fraction(1, 3)), (1 - qq, qq), 1)
    steps.append(
        Step(
            "c₁: enumeration = closed form",
            "dE[Δ]/dh at 0 = E cov_U(g², (g − ḡ)²)/(2σ²), d = 1",
            enum == closed
            and two_enum == two_closed
            and sp.Rational(two_enum.numerator, two_enum.denominator)
            == c1.subs(q, sp.Rational(qq.numerator, qq.denominator)) / 2,
            "over all compositions in rationals, against the raw-moment closed form "
            "E[S₄/n − 2S₁S₃/n² − S₂²/n² + 2S₁²S₂/n³] (three-point law, n = 5) and against "
            "the two-point c₁ above (g = n∇V ∈ {0, 1}, q = 1/10, n = 3, σ = 1)",
        )
    )
    values, probs = [Fraction(0), Fraction(1)], [Fraction(9, 10), Fraction(1, 10)]
    ed = expected_delta(values, probs, 3, 0.01, 1.0)
    steps.append(
        Step(
            "E[Δ] < 0",
            "Theorem 3: 'If x = O(√h), we have E[Δ] < 0'",
            bool(ed < 0),
            "first order: E[Δ] = h·E cov_U(g², (g − ḡ)²)/(2σ²) + O(h²) with the sign of the "
            "skewness of the law of g; q = 1/10 gives c₁ = +0.016/(2σ²) > 0",
            {
                "law of g = n∇V_i": "P(g = 1) = 1/10, P(g = 0) = 9/10",
                "n": 3,
                "x": 0,
                "σ": 1,
                "h": 0.01,
                "R = max|∇V_i|": "1/3",
                "E[Δ]": float(ed),
                "c₁·h": float(c1.subs(q, sp.Rational(1, 10))) / 2 * 0.01,
            },
        )
    )
    return steps
