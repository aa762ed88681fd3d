"""Exact stationary moments of the discrete chains that are linear in the state.

On a Gaussian target ``U(θ) = ½ (θ − μ)ᵀ Λ (θ − μ)`` with a gradient estimate
``Λ(θ − μ) + e`` whose error ``e`` is zero-mean, independent of the state and of
the past (full gradient: ``e = 0``; uniform minibatch on identical curvatures:
``Cov e = (N²/n) Cov_I ∇f_I``; SGNHT §3's injected noise: ``Cov e = 2B/h``), every
scheme below is an affine recursion in ``z = θ`` or ``z = (θ, p)``:

.. math::

    z_{k+1} = M z_k + c + B_\\xi \\xi_k + G e_k, \\qquad \\xi_k \\sim N(0, I).

Its stationary law (when the spectral radius ``ρ(M) < 1``) has mean ``(I − M)⁻¹ c``
and covariance ``Σ = M Σ Mᵀ + B_ξ B_ξᵀ + G S Gᵀ`` (discrete Lyapunov equation,
``S = Cov e``).  These are the moments of the *discretised* chain, the reference
the Monte Carlo checks compare samplers with, and they differ from the target's
``N(μ, Λ⁻¹)`` by the scheme's bias.

Schemes, each transcribed from its paper (not from :mod:`sgmcmc_verify.integrators`):

``"lmc"`` / ``"sgld"``
    AGLD eq. (3) (eq. (4) for SGLD's gradient):
    ``θ' = θ − h g + √(2h) ξ``.  The two names are the same map; ``"sgld"`` is
    the name to use when ``noise_cov`` is given.
``"psgld"``
    pSGLD with a fixed preconditioner (Li, Chen, Carlson & Carin 2016, AAAI,
    Algorithm 1 with ``G`` constant, so ``Γ = 0``; their ``ε`` is ``2h``):
    ``θ' = θ − h G g + √(2h) G^{1/2} ξ``; ``G`` a positive scalar, diagonal or SPD matrix.
``"uld-em"``
    EWSG eq. (3), σ² = 2γ (T = 1): ``θ' = θ + h r``,
    ``r' = r − (g + γ r) h + σ √h ξ``; θ moves with the *old* momentum.
``"sghmc-euler"``
    SVRHMC eqs. (1)–(2): ``p' = (1 − Dh) p − h g + √(2Dh) ξ``, ``θ' = θ + h p'``
    (semi-implicit: θ moves with the *new* momentum).
``"sghmc-chen"``
    SGNHT eq. (3) discretised as SGNHT Algorithm 1 with ξ held at ``A``:
    ``p' = p − A p h − g h + N(0, 2(A I − B̂) h)``, ``θ' = θ + p' h``.  The map
    ``M`` is that of ``"sghmc-euler"`` with ``D = A``; only the injected noise
    differs.  ``B̂`` is meant to offset the gradient noise ``h e ~ N(0, 2Bh)``,
    i.e. ``Cov e = 2B/h``: with ``B̂ = B`` the total momentum noise is ``2Ah``
    and the stationary law is exactly that of ``"sghmc-euler"`` with ``D = A`` and
    a full gradient.
``"splitting"``
    SVRHMC eqs. (12)–(16), the gradient at ``θ + h/2 p`` (text after eq. (18)).
``"baoa"``
    Leimkuhler & Matthews (2015, *Molecular Dynamics*, p. 271): B(h) A(h/2) O(h) A(h/2),
    ``p₁ = p − h g(θ)``, ``θ₁ = θ + h/2 p₁``, ``p' = e^{−γh} p₁ + √(1 − e^{−2γh}) ξ``,
    ``θ' = θ₁ + h/2 p'``: BAOAB with its two half kicks merged (one gradient per step),
    so its θ-chain *is* BAOAB's (BAOAB's momentum is ``p' − h/2 g(θ')``).
``"obabo"``
    OBABO (Leimkuhler & Matthews 2015, §7) cut after its A step, so that one gradient
    serves both half kicks: ``p₁ = p − h/2 g(θ)``, ``p₂ = e^{−γh} p₁ + √(1 − e^{−2γh}) ξ``
    (the two O(h/2) of consecutive steps are one O(h) in law), ``p' = p₂ − h/2 g(θ)``,
    ``θ' = θ + h p'``.  Its θ-chain has OBABO's law.

Two layers:

* **symbolic, 1-D** (:func:`symbolic_moments`, :func:`moments_1d`): ``Λ = a``,
  additive noise of variance ``s²``; the 2×2 Lyapunov equation solved by sympy,
  the results factored, expanded in ``h`` to ``O(h³)`` and lambdified.  The
  derivations are cached per process (``functools.cache``): the first calls for
  all six schemes take about 1 s together (0.4 s of it the splitting), later
  calls about 1 µs (:attr:`SymbolicMoments.seconds` records each derivation's
  time).
* **numeric, d-D** (:func:`affine_map`, :func:`stationary_moments`,
  :func:`algorithm_moments`): the maps built block-wise from the same equations,
  solved with :func:`scipy.linalg.solve_discrete_lyapunov` in float64.

Closed forms (``x = Dh/2``; ``s² = 0`` unless stated), see ``tests/test_exact_linear.py``:

* LMC/SGLD: ``a Var θ = (2 + h s²)/(2 − h a)`` (DESIGN.md anchor).
* ULD-EM: ``Var θ = (2γ + h s²)(2 − γh + ah²) / (a (γ − ah)(4 − 2γh + ah²))``.
* SGHMC-Euler: ``a Var θ = (2 − Dh)(2D + h s²) / (D (4 − 2Dh − ah²))``; no first-order
  bias in ``θ`` with a full gradient.
* BAOA (BAOAB's θ): ``a Var θ = 1`` at every stable ``h`` with a full gradient
  (Leimkuhler & Matthews 2013, harmonic case).
* OBABO: ``a Var θ = 1/(1 − ah²/4)`` with a full gradient (velocity Verlet's shadow).
* pSGLD (fixed scalar ``G``): ``a Var θ = (2 + G h s²)/(2 − aGh)``; with a full gradient
  ``1/(1 − aGh/2)``, LMC's at step ``Gh``.
* splitting: ``Var θ = h (2D + h s²) / (4 a sinh x)`` and ``Cov(θ, p) = 0`` exactly;
  with a full gradient ``a Var θ = x / sinh x``, whatever ``a``.
* Euler schemes: ``Cov(θ, p) = −h E p²/2`` (ULD-EM) and ``+h E p²/2`` (SGHMC-Euler,
  SGHMC-Chen), exactly: stationarity of ``Var θ`` under ``θ' = θ + h p``.
* SGHMC-Chen with ``s²`` fixed: ``a Var θ → 1 − B̂/A`` as ``h → 0`` (an ``O(1)``
  bias); with ``s² = 2B/h`` (:func:`sghmc_chen_injected_moments`) ``→ 1 + (B − B̂)/A``.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import sympy as sp
from scipy.linalg import solve_discrete_lyapunov

from .. import registry
from .._validation import choice, finite_array, positive
from ..problems.gaussian import GaussianQuadratic

__all__ = [
    "PROVENANCE_NUMERIC",
    "PROVENANCE_SYMBOLIC",
    "QUANTITIES",
    "SCHEMES",
    "SCHEME_CITATIONS",
    "SCHEME_PARAMS",
    "STABILITY_MARGIN",
    "AffineMap",
    "StationaryMoments",
    "SymbolicMoments",
    "affine_map",
    "algorithm_moments",
    "leading_bias",
    "moments_1d",
    "scheme_for",
    "sghmc_chen_injected_moments",
    "stationary_moments",
    "symbolic_moments",
]

PROVENANCE_SYMBOLIC = "sympy, exact"
PROVENANCE_NUMERIC = "discrete Lyapunov solve, float64"

#: A chain counts as unstable when ``ρ(M) > 1 − STABILITY_MARGIN``: on the boundary
#: (e.g. ULD-EM at ``γ = ah``, where ``det M = 1``) rounding can put the computed ρ
#: just below 1 while the Lyapunov equation is singular.
STABILITY_MARGIN = 1e-10

SCHEMES = (
    "lmc",
    "sgld",
    "uld-em",
    "sghmc-euler",
    "sghmc-chen",
    "splitting",
    "baoa",
    "obabo",
    "psgld",
)

#: Parameters of each scheme beyond ``h``, with the registry's defaults.
SCHEME_PARAMS: dict[str, dict[str, float]] = {
    "lmc": {},
    "sgld": {},
    "uld-em": {"gamma": 1.0},
    "sghmc-euler": {"D": 1.0},
    "sghmc-chen": {"A": 1.0, "B_hat": 0.0},
    "splitting": {"D": 1.0},
    "baoa": {"gamma": 1.0},
    "obabo": {"gamma": 1.0},
    "psgld": {"G": 0.5},
}

SCHEME_CITATIONS = {
    "lmc": "AGLD eq. (3)",
    "sgld": "AGLD eqs. (3)-(4)",
    "uld-em": "EWSG eq. (3), sigma^2 = 2 gamma",
    "sghmc-euler": "SVRHMC eqs. (1)-(2)",
    "sghmc-chen": "SGNHT eq. (3), discretised as SGNHT Algorithm 1 with xi = A",
    "splitting": "SVRHMC eqs. (12)-(16)",
    "baoa": "Leimkuhler & Matthews 2015, p. 271: BAOA (BAOAB's theta-chain)",
    "obabo": "Leimkuhler & Matthews 2015, sec. 7: OBABO, cut after A",
    "psgld": "Li et al. 2016 (AAAI), Algorithm 1 with G fixed (Gamma = 0), epsilon = 2h",
}

#: The stationary second moments derived for each scheme (θ − μ and p).
QUANTITIES = ("var_theta", "e_p2", "cov_theta_p")

#: Their values under the target ``N(μ, 1/a) ⊗ N(0, 1)``, the ``h → 0`` reference of the bias.
_TARGET = {"var_theta": lambda a: 1 / a, "e_p2": lambda a: sp.Integer(1), "cov_theta_p": None}


def _momentum(scheme: str) -> bool:
    return scheme not in ("lmc", "sgld", "psgld")


# ---------------------------------------------------------------------------------------------
# Symbolic, 1-D
# ---------------------------------------------------------------------------------------------

_h, _a, _s2 = sp.symbols("h a s2", positive=True)
# B̂ may be 0 (the registry default), so it is only nonnegative.
_PARAM_SYMBOLS = {
    "gamma": sp.Symbol("gamma", positive=True),
    "D": sp.Symbol("D", positive=True),
    "A": sp.Symbol("A", positive=True),
    "B_hat": sp.Symbol("B_hat", nonnegative=True),
    "G": sp.Symbol("G", positive=True),
}
_B = sp.Symbol("B", nonnegative=True)


@dataclass(frozen=True)
class SymbolicMoments:
    """Exact stationary second moments of one scheme on ``U = aθ²/2`` (1-D).

    ``θ`` stands for ``θ − μ`` (the mean is a shift: every scheme here has the
    fixed point ``(μ, 0)``, so ``E θ = μ`` exactly).

    Attributes
    ----------
    scheme : str
    parameters : tuple of sympy.Symbol
        The arguments of the lambdified functions, in order: ``h, a``, then
        ``s2`` (absent for ``"lmc"``), then the scheme's parameters
        (:data:`SCHEME_PARAMS`).
    M, Q : sympy.Matrix
        The one-step map and the total one-step noise covariance
        ``B_ξ B_ξᵀ + s² G Gᵀ``.
    var_theta, e_p2, cov_theta_p : sympy.Expr or None
        ``Var θ``, ``E p²``, ``Cov(θ, p)`` (the last two ``None`` for the
        overdamped schemes).
    series : dict
        ``quantity → (c0, c1, c2)`` with ``quantity = c0 + c1 h + c2 h² + O(h³)``.
    seconds : float
        Wall time of the derivation (Lyapunov solve, factoring, series).
    provenance : str
    """

    scheme: str
    parameters: tuple[sp.Symbol, ...]
    M: sp.Matrix
    Q: sp.Matrix
    var_theta: sp.Expr
    e_p2: sp.Expr | None
    cov_theta_p: sp.Expr | None
    series: dict[str, tuple[sp.Expr, sp.Expr, sp.Expr]]
    seconds: float
    provenance: str = PROVENANCE_SYMBOLIC

    def expr(self, quantity: str) -> sp.Expr:
        """The exact expression of ``quantity`` (one of :data:`QUANTITIES`)."""
        out = getattr(self, choice("quantity", quantity, QUANTITIES))
        if out is None:
            raise ValueError(f"{self.scheme} has no momentum: {quantity} is undefined")
        return out

    def quantities(self) -> tuple[str, ...]:
        """The quantities defined for this scheme."""
        return QUANTITIES if self.e_p2 is not None else ("var_theta",)

    def function(self, quantity: str, modules: str = "numpy") -> Callable[..., Any]:
        """``quantity`` lambdified over :attr:`parameters` (``modules`` as in ``sp.lambdify``)."""
        return _lambdified(self.scheme, quantity, modules)


def _one_step(scheme: str) -> tuple[list[sp.Expr], list[sp.Symbol], list[sp.Expr]]:
    """One step of ``scheme`` on ``U = aθ²/2``, written as in the paper.

    Returns the new state, the old state's symbols, and the variances of the
    noises ``(ξ, e)``: ``ξ`` the injected Gaussian (standard normal, except for
    ``"sghmc-chen"`` where it is the whole ``N(0, 2(A − B̂)h)``), ``e`` the
    gradient error (variance ``s²``), so the gradient estimate is ``g = aθ + e``.
    """
    th, p, xi, e = sp.symbols("theta p xi e", real=True)
    h, a, s2 = _h, _a, _s2

    def g(x):
        return a * x + e

    if scheme in ("lmc", "sgld"):
        return [th - h * g(th) + sp.sqrt(2 * h) * xi], [th], [1, s2]  # AGLD (3)
    if scheme == "psgld":
        G = _PARAM_SYMBOLS["G"]
        # Li et al. Alg. 1, G fixed, Γ = 0: θ + (ε/2) G ∇log π + N(0, εG), ε = 2h
        return [th - h * G * g(th) + sp.sqrt(2 * h * G) * xi], [th], [1, s2]
    if scheme == "uld-em":
        gamma = _PARAM_SYMBOLS["gamma"]
        sigma = sp.sqrt(2 * gamma)  # EWSG §3: σ² = 2γT, T = 1
        r_new = p - (g(th) + gamma * p) * h + sigma * sp.sqrt(h) * xi  # EWSG (3)
        return [th + p * h, r_new], [th, p], [1, s2]
    if scheme == "sghmc-euler":
        D = _PARAM_SYMBOLS["D"]
        p_new = (1 - D * h) * p - h * g(th) + sp.sqrt(2 * D * h) * xi  # SVRHMC (1)
        return [th + h * p_new, p_new], [th, p], [1, s2]  # SVRHMC (2)
    if scheme == "sghmc-chen":
        A, B_hat = _PARAM_SYMBOLS["A"], _PARAM_SYMBOLS["B_hat"]
        # SGNHT Alg. 1 with ξ = A; here ``xi`` carries N(0, 2(A − B̂)h) itself.
        p_new = p - A * p * h - g(th) * h + xi
        return [th + p_new * h, p_new], [th, p], [2 * (A - B_hat) * h, s2]
    if scheme == "splitting":
        # exp(−Dh/2) stays a symbol ``c`` during the solve: sympy does the
        # rational algebra in 0.1 s, but had not finished in minutes with the
        # exponential inside.
        D, c = _PARAM_SYMBOLS["D"], _DECAY
        th1 = th + h / 2 * p  # SVRHMC (12)
        p1 = c * p  # (13)
        p2 = p1 - h * g(th1) + sp.sqrt(2 * D * h) * xi  # (14), gradient at θ^(1)
        p_new = c * p2  # (15)
        return [th1 + h / 2 * p_new, p_new], [th, p], [1, s2]  # (16)
    if scheme in ("baoa", "obabo"):
        # exp(−γh) stays the symbol ``c_γ`` during the solve, as for the splitting.
        c = _DECAY_GAMMA
        if scheme == "baoa":
            p1 = p - h * g(th)  # B(h): BAOAB's two half kicks
            th1 = th + h / 2 * p1  # A(h/2)
            p_new = c * p1 + sp.sqrt(1 - c**2) * xi  # O(h): exact OU flow, T = 1
            return [th1 + h / 2 * p_new, p_new], [th, p], [1, s2]  # A(h/2)
        p1 = p - h / 2 * g(th)  # B(h/2)
        p2 = c * p1 + sp.sqrt(1 - c**2) * xi  # O(h/2) O(h/2) = O(h) in law
        p_new = p2 - h / 2 * g(th)  # B(h/2), the same gradient
        return [th + h * p_new, p_new], [th, p], [1, s2]  # A(h)
    raise ValueError(f"unknown scheme {scheme!r}")


_DECAY = sp.Symbol("c", positive=True)
_DECAY_GAMMA = sp.Symbol("c_gamma", positive=True)


def _lyapunov_2x2(M: sp.Matrix, Q: sp.Matrix) -> sp.Matrix:
    """Solve ``Σ = M Σ Mᵀ + Q`` for symmetric ``Σ`` (1×1 or 2×2): three linear equations."""
    if M.shape == (1, 1):
        return sp.Matrix([[sp.factor(Q[0, 0] / (1 - M[0, 0] ** 2))]])
    v, w, k = sp.symbols("v w k")
    S = sp.Matrix([[v, k], [k, w]])
    R = M * S * M.T + Q - S
    (sol,) = sp.linsolve([R[0, 0], R[0, 1], R[1, 1]], [v, w, k])
    return sp.Matrix([[sol[0], sol[2]], [sol[2], sol[1]]]).applyfunc(sp.factor)


def _series(expr: sp.Expr, terms: int = 3) -> tuple[sp.Expr, ...]:
    """Coefficients ``c_0, …, c_{terms−1}`` of ``expr = Σ c_k h^k + O(h^terms)``.

    ``expr`` is rational in ``h`` apart from ``exp(−Dh/2)`` (splitting), which is
    replaced by its Taylor polynomial of degree ``terms + 4``: the quotients here
    cancel at most two powers of ``h``, so the truncation stays below
    ``h^terms``.  Then a power-series division of numerator by denominator; this
    is 5-10× faster than ``sympy.series`` on these expressions (the finite-difference
    test in ``tests/test_exact_linear.py`` checks it).
    """
    if expr == 0:
        return (sp.Integer(0),) * terms
    degree = terms + 4
    D, gamma = _PARAM_SYMBOLS["D"], _PARAM_SYMBOLS["gamma"]

    def taylor(x):
        return sum(x**k / sp.factorial(k) for k in range(degree + 1))

    expr = expr.subs(
        {sp.exp(-D * _h / 2): taylor(-D * _h / 2), sp.exp(-gamma * _h): taylor(-gamma * _h)}
    )
    num, den = sp.fraction(sp.together(expr))
    p = sp.Poly(sp.expand(num), _h).all_coeffs()[::-1]
    q = sp.Poly(sp.expand(den), _h).all_coeffs()[::-1]
    low_p = next(k for k, v in enumerate(p) if sp.expand(v) != 0)
    low_q = next(k for k, v in enumerate(q) if sp.expand(v) != 0)
    shift = low_p - low_q
    if shift < 0 or low_q > degree - terms:
        raise ValueError("series: a pole at h = 0 or too much cancellation (internal error)")
    p, q = p[low_p:], q[low_q:]
    r: list[sp.Expr] = []
    for k in range(terms - shift):
        pk = p[k] if k < len(p) else 0
        acc = pk - sum(q[j] * r[k - j] for j in range(1, min(k, len(q) - 1) + 1))
        r.append(sp.cancel(acc / q[0]))
    out = [sp.Integer(0)] * shift + [sp.factor(c) for c in r]
    return tuple(out)


@functools.cache
def symbolic_moments(scheme: str) -> SymbolicMoments:
    """Derive the exact stationary moments of ``scheme`` on ``U = aθ²/2`` with sympy.

    The scheme's one-step map on ``(θ, p)`` (AGLD eq. (3); EWSG eq. (3); SVRHMC
    eqs. (1)–(2) and (12)–(16); SGNHT eq. (3) with Algorithm 1) is read off
    as the Jacobian ``M`` in the state and ``G`` in the noises ``(ξ, e)``,
    ``Q = G diag(Var ξ, s²) Gᵀ``, and the discrete Lyapunov equation

    .. math::

        \\Sigma = M \\Sigma M^\\top + Q

    is solved exactly (three linear equations), then factored and expanded in
    ``h`` to ``O(h³)``.  Cached: one derivation per scheme and process.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`.

    Returns
    -------
    SymbolicMoments
        With provenance ``"sympy, exact"``.
    """
    scheme = choice("scheme", scheme, SCHEMES)
    t0 = time.perf_counter()
    new, old, var = _one_step(scheme)
    noise = list(sp.symbols("xi e", real=True))
    z = sp.Matrix(new)
    M = z.jacobian(old)
    G = z.jacobian(noise)
    Q = (G * sp.diag(*var) * G.T).applyfunc(sp.expand)
    if scheme == "lmc":  # full gradient: no e
        Q = Q.subs(_s2, 0)
    S = _lyapunov_2x2(M, Q)
    if scheme == "splitting":
        decay = sp.exp(-_PARAM_SYMBOLS["D"] * _h / 2)
        M, Q, S = (X.subs(_DECAY, decay) for X in (M, Q, S))
    if scheme in ("baoa", "obabo"):
        decay = sp.exp(-_PARAM_SYMBOLS["gamma"] * _h)
        M, Q, S = (X.subs(_DECAY_GAMMA, decay) for X in (M, Q, S))
    exprs = {"var_theta": S[0, 0]}
    if S.shape[0] == 2:
        exprs |= {"e_p2": S[1, 1], "cov_theta_p": S[0, 1]}
    series = {k: _series(v) for k, v in exprs.items()}
    params = (_h, _a) + (() if scheme == "lmc" else (_s2,))
    params += tuple(_PARAM_SYMBOLS[k] for k in SCHEME_PARAMS[scheme])
    return SymbolicMoments(
        scheme=scheme,
        parameters=params,
        M=M,
        Q=Q,
        var_theta=exprs["var_theta"],
        e_p2=exprs.get("e_p2"),
        cov_theta_p=exprs.get("cov_theta_p"),
        series=series,
        seconds=time.perf_counter() - t0,
    )


@functools.cache
def sghmc_chen_injected_moments() -> SymbolicMoments:
    """``"sghmc-chen"`` with SGNHT §3's gradient noise ``h e ~ N(0, 2Bh)``, i.e. ``s² = 2B/h``.

    With ``B`` fixed as ``h → 0`` the gradient noise no longer vanishes: the
    series has the ``O(1)`` bias ``a Var θ → (A − B̂ + B)/A``, which is zero
    exactly when ``B̂ = B`` (then the whole law is that of ``"sghmc-euler"`` with
    ``D = A``).  Parameters of the lambdified functions: ``h, a, A, B_hat, B``.
    """
    base = symbolic_moments("sghmc-chen")
    t0 = time.perf_counter()
    exprs = {q: sp.factor(base.expr(q).subs(_s2, 2 * _B / _h)) for q in QUANTITIES}
    A, B_hat = _PARAM_SYMBOLS["A"], _PARAM_SYMBOLS["B_hat"]
    return SymbolicMoments(
        scheme="sghmc-chen-injected",
        parameters=(_h, _a, A, B_hat, _B),
        M=base.M,
        Q=base.Q.subs(_s2, 2 * _B / _h),
        var_theta=exprs["var_theta"],
        e_p2=exprs["e_p2"],
        cov_theta_p=exprs["cov_theta_p"],
        series={k: _series(v) for k, v in exprs.items()},
        seconds=time.perf_counter() - t0 + base.seconds,
    )


def _moments_object(scheme: str) -> SymbolicMoments:
    if scheme == "sghmc-chen-injected":
        return sghmc_chen_injected_moments()
    return symbolic_moments(scheme)


@functools.cache
def _lambdified(scheme: str, quantity: str, modules: str) -> Callable[..., Any]:
    sm = _moments_object(scheme)
    return sp.lambdify(sm.parameters, sm.expr(quantity), modules=modules)


def leading_bias(
    scheme: str, quantity: str = "var_theta", **values: Any
) -> tuple[int | None, sp.Expr]:
    """The leading term of ``quantity − target`` in powers of ``h``: ``(order, coefficient)``.

    The target is the continuous-time value (``1/a`` for ``Var θ``, ``1`` for
    ``E p²``, ``0`` for ``Cov(θ, p)``).  ``order`` is 0, 1 or 2, or ``None`` when
    the series vanishes through ``h²`` (then the coefficient is 0).

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`, or ``"sghmc-chen-injected"``
        (:func:`sghmc_chen_injected_moments`).
    quantity : str
    **values
        Values substituted for parameters by name before the leading term is
        found, e.g. ``s2=0`` for a full gradient.

    Examples
    --------
    >>> leading_bias("sgld")
    (1, (a + s2)/(2*a))
    >>> leading_bias("sghmc-euler", s2=0)
    (2, 1/4)
    """
    sm = _moments_object(scheme)
    coeffs = list(sm.series[choice("quantity", quantity, sm.quantities())])
    target = _TARGET[quantity]
    if target is not None:
        coeffs[0] = coeffs[0] - target(_a)
    by_name = {str(s): s for s in sm.parameters}
    subs = {by_name[choice("parameter", k, by_name)]: v for k, v in values.items()}
    for k, c in enumerate(coeffs):
        c = sp.factor(sp.sympify(c).subs(subs))
        if c != 0:
            return k, c
    return None, sp.Integer(0)


def moments_1d(scheme: str, *, h: Any, a: Any, s2: Any = 0.0, **params: Any) -> dict[str, Any]:
    """Evaluate the exact 1-D moments of :func:`symbolic_moments` numerically.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`.
    h, a, s2 : float or ndarray
        Step size, curvature ``a`` of ``U = aθ²/2``, gradient-noise variance
        (must be 0 for ``"lmc"``).  Arrays broadcast.
    **params
        The scheme's parameters (:data:`SCHEME_PARAMS`; defaults as there).

    Returns
    -------
    dict
        ``var_theta`` (and ``e_p2``, ``cov_theta_p`` for momentum schemes) and
        ``provenance`` ``"sympy, exact"`` (evaluated in float64).
    """
    scheme = choice("scheme", scheme, SCHEMES)
    vals = _scheme_params(scheme, params)
    if scheme == "lmc" and np.any(np.asarray(s2) != 0):
        raise ValueError("'lmc' has a full gradient (s2 = 0); use 'sgld' for gradient noise")
    sm = symbolic_moments(scheme)
    args = (h, a) + (() if scheme == "lmc" else (s2,)) + tuple(vals.values())
    out: dict[str, Any] = {q: sm.function(q)(*args) for q in sm.quantities()}
    out["provenance"] = PROVENANCE_SYMBOLIC
    return out


def _scheme_params(scheme: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The scheme's parameters with defaults filled in, in :data:`SCHEME_PARAMS` order."""
    known = SCHEME_PARAMS[scheme]
    unknown = set(params) - set(known)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)} for scheme {scheme!r}; "
            f"accepted: {sorted(known) or 'none'}"
        )
    return {k: params.get(k, v) for k, v in known.items()}


# ---------------------------------------------------------------------------------------------
# Numeric, d-D
# ---------------------------------------------------------------------------------------------


class AffineMap(NamedTuple):
    """``z' = M z + c + B ξ`` with ``ξ ~ N(0, I)``.

    ``z = θ`` (overdamped) or ``z = (θ, p)`` stacked; ``B``'s columns are the
    injected noise, followed by the gradient-noise columns ``G S^{1/2}`` when a
    gradient-noise covariance ``S`` is given (only ``B Bᵀ`` is meaningful).
    """

    M: np.ndarray
    c: np.ndarray
    B: np.ndarray


class _Forms:
    """Affine forms in the inputs of one step, as ``(d, width)`` coefficient matrices.

    Inputs, in column order: ``θ``, ``p`` (momentum schemes), the injected
    noise ``ξ``, the gradient error ``e``, and the constant 1 (last column).
    Writing each update as arithmetic on these forms keeps the code next to the
    papers' equations; the map is then read off column by column.
    """

    def __init__(self, d: int, momentum: bool, Lam: np.ndarray, mu: np.ndarray):
        self.d, self.Lam, self.mu = d, Lam, mu
        self.names = ["theta", "p", "xi", "e"] if momentum else ["theta", "xi", "e"]
        self.width = len(self.names) * d + 1

    def block(self, name: str) -> np.ndarray:
        out = np.zeros((self.d, self.width))
        j = self.names.index(name) * self.d
        out[:, j : j + self.d] = np.eye(self.d)
        return out

    def const(self, v: np.ndarray) -> np.ndarray:
        out = np.zeros((self.d, self.width))
        out[:, -1] = v
        return out

    def grad(self, x: np.ndarray) -> np.ndarray:
        """The gradient estimate at the form ``x``: ``Λ(x − μ) + e``."""
        return self.Lam @ x - self.const(self.Lam @ self.mu) + self.block("e")

    def columns(self, name: str) -> slice:
        j = self.names.index(name) * self.d
        return slice(j, j + self.d)


def _sym_root(name: str, S: Any, d: int) -> np.ndarray:
    """Symmetric ``R`` with ``R Rᵀ = S`` for a scalar or (d, d) PSD ``S`` (eigh, own code)."""
    S = np.asarray(S, dtype=np.float64)
    S = np.eye(d) * S if S.ndim == 0 else finite_array(name, S)
    if S.shape != (d, d):
        raise ValueError(f"{name} must be a scalar or a ({d}, {d}) matrix, got shape {S.shape}")
    scale = max(1.0, float(np.abs(S).max()))
    if not np.allclose(S, S.T, rtol=0, atol=1e-12 * scale):
        raise ValueError(f"{name} must be symmetric")
    w, V = np.linalg.eigh((S + S.T) / 2)
    if w.min() < -1e-12 * scale:
        raise ValueError(
            f"{name} must be positive semi-definite (smallest eigenvalue {w.min():.3g})"
        )
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


def affine_map(
    scheme: str,
    h: float,
    Lambda: Any,
    params: Mapping[str, Any] | None = None,
    *,
    mu: Any = None,
    noise_cov: Any = None,
) -> AffineMap:
    """The one-step affine map of ``scheme`` on the Gaussian ``U = ½(θ − μ)ᵀΛ(θ − μ)``.

    Built from the papers' equations (see the module docstring), with the
    gradient estimate ``Λ(θ − μ) + e``:

    .. math::

        z_{k+1} = M z_k + c + B \\xi_k, \\qquad \\xi_k \\sim N(0, I),

    where ``B = [B_ξ, G S^{1/2}]`` when ``noise_cov = S`` is given, else ``B_ξ``.

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`.
    h : float
        Step size, > 0.
    Lambda : float or ndarray (d, d)
        Symmetric precision ``Λ`` (a float means 1-D).
    params : mapping, optional
        Scheme parameters (:data:`SCHEME_PARAMS`): ``gamma`` (uld-em), ``D``
        (sghmc-euler, splitting), ``A`` and ``B_hat`` (sghmc-chen; ``B_hat`` a
        scalar or (d, d), ``A I − B̂ ⪰ 0``).
    mu : ndarray (d,), optional
        Target mean; default 0.
    noise_cov : float or ndarray (d, d), optional
        Covariance ``S`` of the gradient error ``e`` (zero-mean, independent of
        the state and across steps); default none (full gradient).

    Returns
    -------
    AffineMap
        ``(M, c, B)``; ``z = θ`` for ``"lmc"``/``"sgld"``, ``z = (θ, p)`` otherwise.
    """
    scheme = choice("scheme", scheme, SCHEMES)
    h = positive("h", h)
    Lam = np.atleast_2d(np.asarray(Lambda, dtype=np.float64))
    d = Lam.shape[0]
    Lam = finite_array("Lambda", Lam)
    if Lam.shape != (d, d) or not np.allclose(Lam, Lam.T, rtol=0, atol=1e-12 * np.abs(Lam).max()):
        raise ValueError(f"Lambda must be a scalar or a symmetric (d, d) matrix, got {Lam.shape}")
    mu = np.zeros(d) if mu is None else finite_array("mu", np.asarray(mu, dtype=float))
    if mu.shape != (d,):
        raise ValueError(f"mu must have shape ({d},), got {mu.shape}")
    q = _scheme_params(scheme, params or {})
    for k, v in q.items():
        if k not in ("B_hat", "G"):
            positive(k, v)
    S_root = None if noise_cov is None else _sym_root("noise_cov", noise_cov, d)

    f = _Forms(d, _momentum(scheme), Lam, mu)
    th, xi = f.block("theta"), f.block("xi")
    if scheme in ("lmc", "sgld"):
        rows = th - h * f.grad(th) + math.sqrt(2 * h) * xi  # AGLD (3)
    elif scheme == "psgld":
        G = np.asarray(q["G"], dtype=np.float64)
        G = np.diag(G) if G.ndim == 1 else G
        G_root = _sym_root("G", G, d)
        if np.linalg.eigvalsh(G_root).min() <= 0:
            raise ValueError("the preconditioner G must be positive definite")
        G = np.eye(d) * G if G.ndim == 0 else G
        # Li et al. Alg. 1 with G fixed (Γ = 0), ε = 2h: θ' = θ − h G g + √(2h) G^{1/2} ξ
        rows = th - h * (G @ f.grad(th)) + math.sqrt(2 * h) * (G_root @ xi)
    else:
        p = f.block("p")
        if scheme == "uld-em":
            gamma = q["gamma"]
            theta_new = th + p * h  # EWSG (3): θ moves with the old r
            p_new = p - (f.grad(th) + gamma * p) * h + math.sqrt(2 * gamma) * math.sqrt(h) * xi
        elif scheme == "sghmc-euler":
            D = q["D"]
            p_new = (1 - D * h) * p - h * f.grad(th) + math.sqrt(2 * D * h) * xi  # SVRHMC (1)
            theta_new = th + h * p_new  # SVRHMC (2): the new p
        elif scheme == "sghmc-chen":
            A = q["A"]
            B_hat = np.asarray(q["B_hat"], dtype=np.float64)
            B_hat = np.eye(d) * B_hat if B_hat.ndim == 0 else B_hat
            if B_hat.shape != (d, d):
                raise ValueError(f"B_hat must be a scalar or a ({d}, {d}) matrix")
            try:
                R = _sym_root("A·I − B̂", A * np.eye(d) - B_hat, d)
            except ValueError as err:
                raise ValueError(f"sghmc-chen needs A·I − B̂ ⪰ 0: {err}") from None
            # SGNHT eq. (3) / Alg. 1: N(0, 2(A I − B̂) h) = √(2h) R ξ.
            p_new = p - A * p * h - f.grad(th) * h + math.sqrt(2 * h) * (R @ xi)
            theta_new = th + p_new * h
        elif scheme == "splitting":
            D = q["D"]
            decay = math.exp(-D * h / 2)
            th1 = th + h / 2 * p  # SVRHMC (12)
            p1 = decay * p  # (13)
            p2 = p1 - h * f.grad(th1) + math.sqrt(2 * D * h) * xi  # (14): gradient at θ^(1)
            p_new = decay * p2  # (15)
            theta_new = th1 + h / 2 * p_new  # (16)
        elif scheme == "baoa":
            decay = math.exp(-q["gamma"] * h)
            p1 = p - h * f.grad(th)  # B(h)
            th1 = th + h / 2 * p1  # A(h/2)
            p_new = decay * p1 + math.sqrt(1 - decay**2) * xi  # O(h)
            theta_new = th1 + h / 2 * p_new  # A(h/2)
        elif scheme == "obabo":
            decay = math.exp(-q["gamma"] * h)
            g = f.grad(th)
            p_new = decay * (p - h / 2 * g) + math.sqrt(1 - decay**2) * xi - h / 2 * g  # BOB
            theta_new = th + h * p_new  # A(h)
        else:
            raise AssertionError(scheme)
        rows = np.vstack([theta_new, p_new])

    n_state = rows.shape[0]
    M = rows[:, :n_state]
    c = rows[:, -1].copy()
    B = rows[:, f.columns("xi")]
    if S_root is not None:
        B = np.hstack([B, rows[:, f.columns("e")] @ S_root])
    return AffineMap(M.copy(), c, B.copy())


@dataclass(frozen=True)
class StationaryMoments:
    """Stationary mean and covariance of a linear discrete chain.

    Iterating gives ``(mean, cov)``, so ``mean, cov = stationary_moments(...)`` works.

    Attributes
    ----------
    mean : ndarray (n,)
        ``E z`` with ``z = θ`` or ``(θ, p)``.
    cov : ndarray (n, n)
        ``Cov z``.
    scheme : str
    h : float
    params : dict
        Scheme parameters used (defaults filled in).
    spectral_radius : float
        ``ρ(M) < 1``.
    provenance : str
    """

    mean: np.ndarray
    cov: np.ndarray
    scheme: str
    h: float
    params: dict[str, Any] = field(default_factory=dict)
    spectral_radius: float = float("nan")
    provenance: str = PROVENANCE_NUMERIC

    def __iter__(self) -> Iterator[np.ndarray]:
        yield self.mean
        yield self.cov

    @property
    def d(self) -> int:
        return self.mean.shape[0] // (2 if _momentum(self.scheme) else 1)

    @property
    def theta_mean(self) -> np.ndarray:
        return self.mean[: self.d]

    @property
    def theta_cov(self) -> np.ndarray:
        return self.cov[: self.d, : self.d]

    @property
    def p_cov(self) -> np.ndarray:
        """``E p pᵀ`` (the mean of ``p`` is 0)."""
        if not _momentum(self.scheme):
            raise ValueError(f"{self.scheme} has no momentum")
        return self.cov[self.d :, self.d :]

    @property
    def theta_p_cov(self) -> np.ndarray:
        """``Cov(θ, p)``, rows ``θ``, columns ``p``."""
        if not _momentum(self.scheme):
            raise ValueError(f"{self.scheme} has no momentum")
        return self.cov[: self.d, self.d :]


def stationary_moments(
    scheme: str,
    problem: GaussianQuadratic,
    h: float,
    *,
    noise_cov: Any = None,
    **params: Any,
) -> StationaryMoments:
    """Exact stationary mean and covariance of ``scheme`` on a Gaussian target, in float64.

    The covariance solves ``Σ = M Σ Mᵀ + B Bᵀ``
    (:func:`scipy.linalg.solve_discrete_lyapunov`); the mean solves
    ``(I − M) m = c``.  The map comes from :func:`affine_map` with the problem's
    ``Λ`` (``problem.precision``) and ``μ`` (``problem.exact["mean"]``).

    Parameters
    ----------
    scheme : str
        One of :data:`SCHEMES`.
    problem : GaussianQuadratic
    h : float
    noise_cov : float or ndarray (d, d), optional
        Covariance of a state-independent gradient error (see :func:`affine_map`).
    **params
        Scheme parameters (:data:`SCHEME_PARAMS`).

    Returns
    -------
    StationaryMoments
        Provenance ``"discrete Lyapunov solve, float64"``.

    Raises
    ------
    ValueError
        If ``ρ(M) > 1 −`` :data:`STABILITY_MARGIN` (``h`` too large for this
        target: no stationary law), or on bad arguments.
    """
    if not isinstance(problem, GaussianQuadratic):
        raise TypeError(f"problem must be a GaussianQuadratic, got {type(problem).__name__}")
    scheme = choice("scheme", scheme, SCHEMES)
    full = _scheme_params(scheme, params)
    M, c, B = affine_map(
        scheme, h, problem.precision, full, mu=problem.exact["mean"].value, noise_cov=noise_cov
    )
    rho = float(np.abs(np.linalg.eigvals(M)).max())
    if not rho <= 1 - STABILITY_MARGIN:
        raise ValueError(
            f"{scheme} with h={h:g} and {full or 'no parameters'} is unstable on this target: "
            f"the spectral radius of M is {rho:.12g} (>= 1 up to {STABILITY_MARGIN:g}), so there "
            "is no stationary law (reduce h)"
        )
    cov = solve_discrete_lyapunov(M, B @ B.T)
    cov = (cov + cov.T) / 2  # the solver's rounding is not exactly symmetric
    mean = np.linalg.solve(np.eye(M.shape[0]) - M, c)
    return StationaryMoments(mean, cov, scheme, float(h), full, rho)


# ---------------------------------------------------------------------------------------------
# Registry names
# ---------------------------------------------------------------------------------------------

_UNDERDAMPED_SCHEME = {
    "uld-em": "uld-em",
    "sghmc-ewsg": "uld-em",
    "ewsg": "uld-em",
    "sghmc-chen": "sghmc-chen",
    "sghmc-svr": "sghmc-euler",
    "svrg-hmc": "sghmc-euler",
    "saga-hmc": "sghmc-euler",
    "svrg2-hmc": "splitting",
    "saga2-hmc": "splitting",
    "baoa": "baoa",
    "obabo": "obabo",
    # Chen et al. 2014 Alg. 2: sghmc-chen's step between momentum refreshes; the refresh
    # makes the chain periodic, so algorithm_moments takes its law from exact.moments.
    "sghmc-refresh": "sghmc-chen",
}
# Registry parameter → scheme parameter (the registry's names already match).
_PARAM_NAMES = {"uld-em": ("gamma",), "sghmc-euler": ("D",), "splitting": ("D",)}
_PARAM_NAMES |= {"baoa": ("gamma",), "obabo": ("gamma",), "psgld": ("G",)}
_PARAM_NAMES["sghmc-chen"] = ("A", "B_hat")
# Algorithms whose gradient is a with-replacement uniform minibatch, and the
# registry parameter holding its size.
_MINIBATCH_SIZE = {"sgld": "n", "sghmc-ewsg": "b", "sghmc-svr": "b", "sghmc-chen": "n"}
_MINIBATCH_SIZE |= {"baoa": "n", "obabo": "n", "psgld-fixed": "n"}
_FULL_GRADIENT = {"lmc", "uld-em"}


def scheme_for(algorithm: str) -> str:
    """The linear scheme of registry algorithm ``algorithm``.

    Overdamped algorithms are ``"lmc"`` (AGLD eq. (3)), except ``sgld`` and
    ``sgld-wor``, which are ``"sgld"`` (the same map; the name says gradient noise
    is expected), and ``psgld-fixed``, which is ``"psgld"``; ``cv-sgld`` is ``"lmc"``
    (its exact law with ``N > 1`` is in :mod:`sgmcmc_verify.exact.moments`); ``sghmc-refresh``
    is ``"sghmc-chen"`` between its momentum refreshes (a periodic chain).  ULD-EM
    and its stochastic-gradient versions (``sghmc-ewsg``, ``ewsg``) are ``"uld-em"``;
    ``sghmc-svr``, ``svrg-hmc``, ``saga-hmc`` are ``"sghmc-euler"``; ``svrg2-hmc``,
    ``saga2-hmc`` are ``"splitting"``; ``sghmc-chen`` is ``"sghmc-chen"``.

    Raises
    ------
    ValueError
        For unknown names, and for the thermostats (``sgnht*``), whose ``ξ``
        update makes them nonlinear.
    """
    spec = registry.get(algorithm)
    if spec.family == "overdamped":
        if algorithm == "psgld-fixed":
            return "psgld"
        return "sgld" if algorithm in ("sgld", "sgld-wor") else "lmc"
    if algorithm in _UNDERDAMPED_SCHEME:
        return _UNDERDAMPED_SCHEME[algorithm]
    raise ValueError(
        f"{algorithm} ({spec.family}) is not linear in the state: its thermostat ξ multiplies p"
    )


def algorithm_moments(
    algorithm: str, problem: GaussianQuadratic, h: float, **params: Any
) -> StationaryMoments:
    """Exact stationary moments of registry ``algorithm`` on a Gaussian target, when it is linear.

    The gradient error is resolved as follows:

    * full-gradient algorithms (``lmc``, ``uld-em``, ``sghmc-chen`` with
      ``gradient="full"``), and any algorithm on a single data term (``N = 1``,
      where every estimator returns the exact gradient): no error;
    * a with-replacement uniform minibatch (``sgld``, ``sghmc-ewsg``,
      ``sghmc-svr``, ``sghmc-chen`` with ``gradient="minibatch"``) on identical
      curvatures: ``S = (N²/n) Cov_I ∇f_I``
      (:meth:`GaussianQuadratic.minibatch_noise_cov`), state-independent;
    * ``sghmc-chen`` with ``gradient="injected"``: ``S = 2B/h`` (SGNHT §3).

    Anything else (variance-reduced, EWSG or without-replacement estimators with
    ``N > 1``, minibatches on differing curvatures) has an error that depends on
    the state or the past, and raises ``ValueError``.

    Parameters
    ----------
    algorithm : str
        A registry name.
    problem : GaussianQuadratic
    h : float
    **params
        Registry parameters of ``algorithm`` (defaults from the registry).
    """
    spec = registry.get(algorithm)
    scheme = scheme_for(algorithm)
    if not isinstance(problem, GaussianQuadratic):
        raise TypeError(f"problem must be a GaussianQuadratic, got {type(problem).__name__}")
    if algorithm == "sghmc-refresh":
        return _refresh_moments(problem, h, params)
    unknown = set(params) - set(spec.params)
    if unknown:
        raise ValueError(f"unknown parameter(s) {sorted(unknown)} for {algorithm}")

    def value(key: str) -> Any:
        return params.get(key, spec.params[key][0])

    scheme_params = {k: value(k) for k in _PARAM_NAMES.get(scheme, ())}
    noise_cov = None
    gradient = value("gradient") if "gradient" in spec.params else None
    if gradient == "injected":
        noise_cov = 2.0 * np.asarray(value("B"), dtype=np.float64) / positive("h", h)
    elif algorithm in _FULL_GRADIENT or gradient == "full":
        pass
    elif algorithm in _MINIBATCH_SIZE and gradient in (None, "minibatch"):
        if "replace" in spec.params and not value("replace") and problem.N != 1:
            raise ValueError(
                f"{algorithm} with replace=False: a without-replacement minibatch is not "
                "covered (only with replacement, as SVRHMC §2)"
            )
        noise_cov = _minibatch_cov(algorithm, problem, value(_MINIBATCH_SIZE[algorithm]))
    elif problem.N != 1:
        raise ValueError(
            f"{algorithm} on N={problem.N} data terms has a gradient error that depends on the "
            "state or on the past; its chain is not linear (use a problem with N = 1, "
            "or an algorithm with a full or a with-replacement minibatch gradient)"
        )
    return stationary_moments(scheme, problem, h, noise_cov=noise_cov, **scheme_params)


def _refresh_moments(problem: GaussianQuadratic, h: float, params: Mapping[str, Any]):
    """``sghmc-refresh`` (Chen et al. 2014 Alg. 2, a chain of period ``L``): its law at the
    refresh phase, i.e. after a whole number of periods (the moment equations of
    :mod:`sgmcmc_verify.exact.moments`).  ``spectral_radius`` is per step: the period
    map's, to the power ``1/L``."""
    from . import moments

    st = moments.stationary_moments(moments.affine_chain("sghmc-refresh", problem, h=h, **params))
    m = 2 * problem.d
    return StationaryMoments(
        st.state_mean[0, :m],
        st.state_cov[0, :m, :m],
        "sghmc-chen",
        float(h),
        dict(params),
        st.spectral_radius ** (1.0 / st.period),
        f"{moments.PROVENANCE}; sghmc-refresh at the refresh phase (after whole periods)",
    )


def _minibatch_cov(algorithm: str, problem: GaussianQuadratic, n: Any) -> np.ndarray:
    if not problem.identical_curvature and problem.N != 1:
        raise ValueError(
            f"{algorithm}: the minibatch error on differing curvatures depends on θ, "
            "so the chain is not linear; use identical curvatures (gaussian_identical)"
        )
    n = min(10, problem.N) if n is None else int(n)
    # Identical curvatures: the error Λ(c̄ − c̄_S) is the same at every θ, so μ will do.
    return problem.minibatch_noise_cov(problem.exact["mean"].value[None, :], n)[0]
