"""Stationary laws of discrete overdamped chains in 1-D, by the Nyström method.

The chains
----------
LMC (AGLD eq. (3)) and SGLD with a with-replacement minibatch (AGLD eq. (4)) are
Markov chains on ℝ with Gaussian-mixture transition densities

.. math::

    K(x, y) = \\sum_S p_S\\, \\mathcal N\\bigl(y;\\, x - h\\, g_S(x),\\, 2h\\bigr),
    \\qquad g_S(x) = \\nabla U_0(x) + \\frac N n \\sum_{i \\in S} \\nabla f_i(x),

where ``S`` runs over the ``N^n`` index tuples of a batch (``p_S = N^{-n}``), or
equivalently over the multisets of size ``n`` with multinomial weights; LMC is the
single term ``g = ∇U``.  The stationary density solves the integral equation

.. math::

    \\pi_h(y) = \\int \\pi_h(x)\\, K(x, y)\\, dx.

Discretisation
--------------
Nyström's method (Atkinson, *The Numerical Solution of Integral Equations of the
Second Kind*, CUP 1997, §4.1): replace the integral by an ``n``-point
Gauss–Legendre rule ``(x_j, w_j)`` on ``[−L, L]`` and collocate at the nodes,
``π_i = Σ_j w_j π_j K(x_j, x_i)``.  With ``p_i = w_i π_i`` this says ``p = pP`` for
the node-to-node matrix ``P_ji = w_i K(x_j, x_i)``, a Markov matrix up to the mass
leaving ``[−L, L]``; ``p`` is found by GTH elimination (see :func:`_gth`: accurate
whatever the spectral gap) and normalised by ``Σ_j p_j = 1``; moments are
``E_h[φ] ≈ Σ_j w_j π_j φ(x_j)``.  Because ``K`` is analytic in both arguments, the
quadrature error falls exponentially in ``n·√(2h)/L`` (the kernel width over the
node spacing).  The Nyström interpolant
``π_h(y) = Σ_j w_j π_j K(x_j, y)`` gives the density (and, in closed form, the CDF)
anywhere, which :meth:`StationaryLaw.sample` inverts to draw from ``π_h``.

Truncation and the meaning of "stationary"
------------------------------------------
For potentials growing faster than quadratically (the double well, ``x⁴/4``) the
Euler chain is transient (Roberts & Tweedie 1996, Bernoulli 2(4):341–363): far out,
``x − hU'(x)`` overshoots and the chain escapes to infinity.  It has no stationary
law on ℝ; what a Monte Carlo run sees for any feasible length is the
*quasi-stationary* law of the chain killed on leaving a large interval, which is
what the truncated operator computes.  The mass ``ε`` that ``π_h`` sends outside
``[−L, L]`` per step (``1 −`` the Perron eigenvalue of the killed operator) is
computed in closed form from the Gaussian tails (``outside_mass``), and so is the
share of each ``E|φ|`` it carries (``outside``); both are required to be
negligible (``< 10⁻¹⁴`` by default, relative).  That certifies the truncation, the
quasi-stationary reading (an escape every ``1/ε`` steps), and GTH's convention of
keeping the missing row mass at the node instead of killing it.  When ``L`` is
chosen automatically it starts where ``U`` has risen ``tail_nats`` above its
minimum and widens by 1.25 until the truncation is small enough: the chain's law
has heavier tails than the target (much heavier for SGLD, whose gradient noise
grows with ``|x|``).

Error estimate
--------------
Each solve is repeated with doubled nodes on the same ``[−L, L]`` and with the
same node spacing on ``[−1.25L, 1.25L]``; the reported error of each moment is
the larger of the two differences from the base solve, plus ``n·ε_mach·E|φ|`` for
rounding, plus the part of ``E|φ|`` that one step of the chain carries outside
``[−L, L]`` (closed-form Gaussian partial moments).  Both refinements converge
exponentially, so this bounds the base solve's error with a wide margin when the
differences are at round-off.
The underdamped (θ, p) chain is not covered: see :func:`stationary_expectations`.

Transient laws and W2 mixing times
----------------------------------
:class:`TransientLaws` propagates the law of the chain started at a point
through the same Nyström matrix, ``m_{k+1} = m_k P`` (nodal masses
``m_{k,j} = w_j p_k(x_j)``), with binary powers of ``P`` for large ``k``.
:meth:`TransientLaws.w2` gives ``W2(p_k, π)`` exactly in 1-D from the monotone
optimal map ``G⁻¹∘F_k`` (``F_k`` in closed form from the interpolant, ``G⁻¹`` of
the target tabulated by :func:`target_quantile`), and :func:`w2_mixing_time` the
ε-mixture time of AGLD §2.1, ``K(ε) = min{K : W2(p_k, π) ≤ ε ∀k ≥ K}``, with a
total-variation certificate for "every later ``k``".  Its error estimate
repeats the solve with another node count on the same ``[−L, L]`` (module
default for AGLD-T5: 3/4 or 3/2 of the nodes) and adds the quantile table's
interpolation bound and the normalisation defect.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

import mpmath
import numpy as np
from scipy.special import ndtr, roots_legendre

from .._validation import choice, finite_array, positive, positive_int
from ..problems.base import Exact, Problem
from ..problems.gaussian import GaussianQuadratic

__all__ = [
    "PHI",
    "Bias",
    "MixingTime",
    "PolynomialSum1D",
    "Quantile",
    "StationaryLaw",
    "TransientLaws",
    "batch_law",
    "quartic",
    "quartic_sum",
    "stationary_bias",
    "stationary_expectations",
    "target_moments",
    "target_quantile",
    "w2_mixing_time",
]

#: The test functions: ``"x"`` is ``E[x]``, ``"x2"`` is ``E[x²]``, ``"x4"`` is ``E[x⁴]``.
PHI: dict[str, int] = {"x": 1, "x2": 2, "x4": 4}

#: Node count per unit of ``L/√(2h)`` (half-width over kernel width).  Chosen from
#: the convergence study in tests/test_exact_nystrom.py: at 6 the double-well and
#: quartic moments agree with the doubled-node solve to < 1e-13.
_NODES_PER_WIDTH = 6.0
_MIN_NODES = 64
_WIDEN = 1.25
_MAX_COMPONENTS = 5000


# -- the minibatch law -------------------------------------------------------------


def batch_law(N: int, n: int, *, method: str = "multinomial") -> tuple[np.ndarray, np.ndarray]:
    """The law of a with-replacement batch of size ``n`` from ``N`` indices (AGLD eq. (4)).

    Parameters
    ----------
    N, n : int
        Number of data terms and batch size.
    method : {"multinomial", "tuples"}
        ``"tuples"`` lists the ``N^n`` ordered index tuples, each with probability
        ``N^{-n}``; ``"multinomial"`` lists the ``C(N+n−1, n)`` multisets with
        probability ``n! / (∏_i c_i!) · N^{-n}``.  The estimator depends on the batch
        only through the counts, so both give the same transition kernel.

    Returns
    -------
    counts : int ndarray, shape (M, N)
        ``c_i``, how often index ``i`` is in the batch.
    probs : ndarray, shape (M,)
        Probabilities (exact rationals rounded once to float64); they sum to 1.
    """
    N, n = positive_int("N", N), positive_int("n", n)
    choice("method", method, ("multinomial", "tuples"))
    if method == "tuples":
        tuples = np.array(list(itertools.product(range(N), repeat=n)), dtype=np.int64)
        counts = np.stack([np.bincount(t, minlength=N) for t in tuples])
        return counts, np.full(len(counts), 1.0 / N**n)
    rows, probs = [], []
    for combo in itertools.combinations_with_replacement(range(N), n):
        c = np.bincount(np.array(combo), minlength=N)
        ways = math.factorial(n) // math.prod(math.factorial(int(k)) for k in c)
        rows.append(c)
        probs.append(float(Fraction(ways, N**n)))
    return np.array(rows, dtype=np.int64), np.array(probs)


def _kernel_means(
    problem: Problem, h: float, x: np.ndarray, scheme: str, n: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Mixture means ``x_j − h g_S(x_j)``, shape (nodes, M), and weights ``p_S`` (M,)."""
    theta = x[:, None]
    if scheme == "lmc":
        return (x - h * problem.grad(theta)[:, 0])[:, None], np.ones(1)
    counts, probs = batch_law(problem.N, n)
    comp = problem.all_component_grads(theta)[:, :, 0]  # (nodes, N)
    g = problem.prior_grad(theta)[:, :1] + (problem.N / n) * comp @ counts.T
    return x[:, None] - h * g, probs


# -- the result --------------------------------------------------------------------


@dataclass(frozen=True)
class StationaryLaw:
    """The stationary (quasi-stationary, see the module notes) law of a 1-D chain.

    Attributes
    ----------
    scheme : str
        ``"lmc"`` (AGLD eq. (3)) or ``"sgld"`` (AGLD eq. (4), with replacement).
    h : float
        Step size.
    batch : int or None
        SGLD batch size ``n``.
    moments : dict
        ``E_h[φ]`` for ``φ`` in :data:`PHI` (keys ``"x"``, ``"x2"``, ``"x4"``).
    error : dict
        Estimated absolute error of each moment (see the module notes).
    nodes, weights, density : ndarray, shape (n_nodes,)
        Gauss–Legendre nodes and weights on ``[−L, L]`` and ``π_h`` at the nodes,
        normalised so ``Σ w_j π_j = 1``.
    L : float
        Half-width of the domain.
    outside_mass : float
        Mass ``π_h`` sends outside ``[−L, L]`` in one step (``1 −`` the Perron
        eigenvalue of the killed operator).
    outside : dict
        ``E[|φ(x')|; |x'| > L]`` for ``x' ~ π_h K`` and ``φ`` in :data:`PHI`: what the
        truncation leaves out of each moment (closed-form Gaussian partial moments).
    provenance : str
        How the numbers were obtained, with the error estimate.
    """

    scheme: str
    h: float
    batch: int | None
    moments: dict[str, float]
    error: dict[str, float]
    nodes: np.ndarray
    weights: np.ndarray
    density: np.ndarray
    L: float
    outside_mass: float
    outside: dict[str, float]
    provenance: str
    _means: np.ndarray = field(repr=False)
    _probs: np.ndarray = field(repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly summary: moments, errors, provenance and the discretisation."""
        return {
            "scheme": self.scheme,
            "h": self.h,
            "batch": self.batch,
            "moments": dict(self.moments),
            "error": dict(self.error),
            "L": self.L,
            "n_nodes": self.n_nodes,
            "outside_mass": self.outside_mass,
            "outside": dict(self.outside),
            "provenance": self.provenance,
        }

    def _mixture(self, y: np.ndarray, cdf: bool) -> np.ndarray:
        s = math.sqrt(2.0 * self.h)
        y = np.asarray(y, dtype=np.float64)
        flat = y.reshape(-1)
        mass = self.weights * self.density  # (nodes,)
        out = np.empty(flat.shape)
        for lo in range(0, flat.size, 2048):  # chunks bound the (chunk, nodes, M) temporary
            z = (flat[lo : lo + 2048, None, None] - self._means[None]) / s
            vals = ndtr(z) if cdf else np.exp(-0.5 * z * z) / (s * math.sqrt(2 * math.pi))
            out[lo : lo + 2048] = vals @ self._probs @ mass
        return out.reshape(y.shape)

    def pdf(self, y) -> np.ndarray:
        """Nyström interpolant ``π_h(y) = Σ_j w_j π_j K(x_j, y)``, elementwise."""
        return self._mixture(y, cdf=False)

    def cdf(self, y) -> np.ndarray:
        """``∫_{−∞}^y π_h``: the interpolant integrated in closed form (Gaussian CDFs)."""
        return self._mixture(y, cdf=True)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws from ``π_h`` by inverting :meth:`cdf`.

        A monotone table of the CDF on 4001 points of ``[−L, L]`` gives a starting
        point by linear interpolation; three Newton steps with :meth:`pdf` then
        solve ``F(y) = u`` to round-off wherever the density is not negligible.

        Parameters
        ----------
        size : int
        rng : numpy.random.Generator

        Returns
        -------
        ndarray, shape (size,)
        """
        size = positive_int("size", size)
        grid = np.linspace(-self.L, self.L, 4001)
        F = np.maximum.accumulate(self.cdf(grid))
        u = rng.uniform(F[0], F[-1], size)
        y = np.interp(u, F, grid)
        for _ in range(3):
            f = self.pdf(y)
            step = np.where(f > 1e-12, (self.cdf(y) - u) / np.maximum(f, 1e-300), 0.0)
            y = np.clip(y - step, -self.L, self.L)
        return y


# -- the solver ---------------------------------------------------------------------


def _gth(P: np.ndarray) -> np.ndarray:
    """Stationary vector of a row-stochastic matrix by GTH elimination.

    Grassmann, Taksar & Heyman (Oper. Res. 33(5), 1985): Gaussian elimination on
    ``I − P`` with each pivot recomputed as the sum of the off-diagonal entries of
    its row, so no subtraction occurs.  The result has small *entrywise relative*
    error whatever the spectral gap (O'Cinneide, Numer. Math. 65, 1993), which
    matters here: the double well's slow inter-well mode makes ``1 − λ₂ ≈ 10⁻⁴``,
    and an eigen- or linear solver loses four digits to it (≈ 1e-12 scatter in the
    moments, against ≈ 1e-14 with GTH).  Only off-diagonal entries are read: the
    diagonal is implicitly ``1 − Σ_{i≠j} P_ji``.
    """
    P = P.copy()
    n = len(P)
    for k in range(n - 1, 0, -1):
        s = P[k, :k].sum()
        if not s > 0:
            raise RuntimeError("GTH: a node has no transitions to the rest (kernel too narrow?)")
        P[:k, k] /= s
        P[:k, :k] += np.outer(P[:k, k], P[k, :k])
    p = np.zeros(n)
    p[0] = 1.0
    for k in range(1, n):
        p[k] = p[:k] @ P[:k, k]
    return p / p.sum()


def _nystrom_matrix(problem, h, scheme, batch, n_nodes, L, noise=1.0):
    """Nodes, weights, kernel means, batch weights, kernel width and ``P_ji = w_i K(x_j, x_i)``.

    ``n_nodes`` Gauss–Legendre nodes on ``[−L, L]``; the kernel is the Gaussian
    mixture of the module notes with standard deviation ``s = noise·√(2h)``
    (``noise = 1``: AGLD eqs. (3)-(5); another value is a planted bug).  Row ``j``
    is the law of the next state from node ``j``, column ``i`` the node it lands on.
    """
    # scipy rather than numpy.polynomial.legendre.leggauss: numpy's dense eigensolve
    # is O(n³) and slow under thread contention; scipy's nodes and weights agree
    # with 40-digit ones to 1e-14 relative away from the ends (checked at n = 257).
    t, w = roots_legendre(n_nodes)
    x, w = L * t, L * w
    means, probs = _kernel_means(problem, h, x, scheme, batch)
    s = noise * math.sqrt(2.0 * h)
    P = np.zeros((n_nodes, n_nodes))
    for k, p in enumerate(probs):
        z = (x[None, :] - means[:, k, None]) / s  # z[j, i]: from node j to node i
        P += p * np.exp(-0.5 * z * z)
    P *= w[None, :] / (s * math.sqrt(2 * math.pi))
    return x, w, means, probs, s, P


def _solve(problem, h, scheme, batch, n_nodes, L):
    """One Nyström solve, as a :class:`_Solution`.

    The Nyström matrix ``P_ji = w_i K(x_j, x_i)`` (row: from node ``j``) is a Markov
    matrix on the nodes up to the mass that leaves ``[−L, L]`` and the quadrature
    defect of its row sums; its stationary vector ``p_i`` is ``w_i π_h(x_i)``.
    :func:`_gth` reads only the off-diagonal entries, i.e. the missing row mass is
    kept at the node: a perturbation of the killed (quasi-stationary) operator of
    size ``outside_mass``, which is required to be negligible.
    """
    x, w, means, probs, s, P = _nystrom_matrix(problem, h, scheme, batch, n_nodes, L)
    p = _gth(P)
    v = p / w
    tails = _outside_moments(L, means, s) @ probs  # (5, nodes): E[|x'|^q; |x'| > L | x_j]
    outside = {"mass": float(p @ tails[0])} | {k: float(p @ tails[q]) for k, q in PHI.items()}
    return _Solution(
        moments={k: float(p @ x**q) for k, q in PHI.items()},
        abs_moments={k: float(p @ np.abs(x) ** q) for k, q in PHI.items()},
        density=v,
        nodes=x,
        weights=w,
        outside=outside,
        means=means,
        probs=probs,
        L=L,
    )


class _Solution(NamedTuple):
    moments: dict[str, float]
    abs_moments: dict[str, float]  # E|φ|: the scale of the rounding error
    density: np.ndarray
    nodes: np.ndarray
    weights: np.ndarray
    outside: dict[str, float]
    means: np.ndarray
    probs: np.ndarray
    L: float

    @property
    def truncation(self) -> float:
        """Largest relative truncation: outside mass, or outside part of ``E|φ|`` over ``E|φ|``."""
        rel = [self.outside[k] / max(self.abs_moments[k], 1e-300) for k in PHI]
        return max(self.outside["mass"], *rel)


def _outside_moments(L: float, m: np.ndarray, s: float) -> np.ndarray:
    """``E[|Y|^q; |Y| > L]`` for ``Y ~ N(m, s²)``, ``q = 0..4``, elementwise in ``m``.

    Upper tail ``I_q = E[Y^q; Y > L]`` by the recursion (integration by parts of
    ``(y − m) N(y; m, s²) = −s² ∂_y N``)

    .. math::

        I_0 = \\bar\\Phi\\bigl(\\tfrac{L - m}{s}\\bigr),\\quad
        I_1 = m I_0 + s^2 N(L),\\quad
        I_q = m I_{q-1} + (q-1) s^2 I_{q-2} + s^2 L^{q-1} N(L);

    the lower tail is the upper tail of ``−Y``.  Clipped at 0: for ``m ≪ L`` the
    recursion cancels, but only at the level of the (then negligible) tail itself.
    """

    def upper(mu):
        z = (L - mu) / s
        dens = np.exp(-0.5 * z * z) / (s * math.sqrt(2 * math.pi))
        part = [ndtr(-z), mu * ndtr(-z) + s * s * dens]
        for q in range(2, 5):
            part.append(
                mu * part[q - 1] + (q - 1) * s * s * part[q - 2] + s * s * L ** (q - 1) * dens
            )
        return np.array(part)

    return np.clip(upper(m) + upper(-m), 0.0, None)


def _auto_L(problem: Problem, tail_nats: float) -> float:
    """Smallest ``L`` with ``U(±L') − min U ≥ tail_nats`` for every ``L' ≥ L`` (on a scan).

    Scans ``[−R, R]`` with ``R`` doubling from 4 until the condition holds inside
    the scan; ``U`` is assumed to increase beyond the scanned range.
    """
    R = 4.0
    for _ in range(12):
        t = np.linspace(-R, R, 8001)
        U = problem.potential(t[:, None])
        low = U - U.min() < tail_nats
        if not (low[0] or low[-1]):
            inside = np.flatnonzero(low)
            return float(max(abs(t[inside[0]]), abs(t[inside[-1]])) + 2 * (t[1] - t[0]))
        R *= 2
    raise ValueError(f"U does not rise {tail_nats} nats above its minimum within |x| < {R}")


def stationary_expectations(
    problem: Problem,
    h: float,
    *,
    scheme: str = "lmc",
    n: int | None = None,
    nodes: int | None = None,
    L: float | None = None,
    tail_nats: float = 50.0,
    max_outside: float = 1e-14,
) -> StationaryLaw:
    """``E_h[x]``, ``E_h[x²]``, ``E_h[x⁴]`` under the stationary law of LMC or SGLD, 1-D.

    The chain is AGLD eq. (3) (``scheme="lmc"``: ``x' = x − h∇U(x) + √(2h) ξ``) or
    eq. (4) (``scheme="sgld"``: the gradient replaced by the with-replacement
    minibatch estimator ``∇U_0 + (N/n) Σ_{i∈S} ∇f_i``, as
    :class:`~sgmcmc_verify.estimators.Minibatch`).  Solved by Nyström's method;
    see the module docstring for the discretisation and the error estimate.

    The underdamped chain (ULD-EM, EWSG eq. (3)) is deliberately not offered: its
    one-step kernel is singular in θ (``θ' = θ + hp``), and the two-step kernel's
    θ-width is ``h√(2γh)`` (0.016 at ``h = 0.05``), so a tensor grid needs ~10³ θ-nodes
    by ~10² p-nodes — a dense 10⁵ × 10⁵ operator, not a cheap 1e-6 answer.

    Parameters
    ----------
    problem : Problem
        A one-dimensional problem (``d = 1``).
    h : float
        Step size ``η > 0``.
    scheme : {"lmc", "sgld"}
    n : int, optional
        SGLD batch size; default ``min(10, N)`` as in the registry.  The batch law
        has ``C(N+n−1, n)`` multisets, at most 5000 allowed.
    nodes : int, optional
        Gauss–Legendre nodes; default ``max(64, ⌈6 L/√(2h)⌉)``.
    L : float, optional
        Half-width of the domain.  Default: start from the smallest ``L`` with
        ``U(±L) − min U ≥ tail_nats`` and widen by 1.25 (at most 8 times) until the
        truncation is at most ``max_outside``.
    tail_nats : float
        See ``L``.
    max_outside : float
        Largest acceptable truncation, in the base and the refined solves: the mass
        ``π_h`` sends outside ``[−L, L]`` per step, and the share of each ``E|φ|``
        carried by those jumps (:attr:`StationaryLaw.outside` over ``E|φ|``).

    Returns
    -------
    StationaryLaw

    Raises
    ------
    ValueError
        If ``d ≠ 1``, on bad arguments, or if the truncation exceeds ``max_outside``
        (increase ``L``, or ``h`` is too large for the chain to stay put).
    """
    if problem.d != 1:
        raise ValueError(f"the Nyström solver is one-dimensional; problem has d = {problem.d}")
    h = positive("h", h)
    scheme = choice("scheme", scheme, ("lmc", "sgld"))
    if scheme == "sgld":
        n = positive_int("n", min(10, problem.N) if n is None else n)
        M = math.comb(problem.N + n - 1, n)
        if M > _MAX_COMPONENTS:
            raise ValueError(f"the batch law has {M} multisets (> {_MAX_COMPONENTS})")
    elif n is not None:
        raise ValueError("n (batch size) applies to scheme='sgld' only")
    auto_L = L is None
    L = _auto_L(problem, positive("tail_nats", tail_nats)) if auto_L else positive("L", L)
    if nodes is not None:
        nodes = positive_int("nodes", nodes, minimum=8)
    s = math.sqrt(2.0 * h)
    for _ in range(9):
        n_nodes = nodes or max(_MIN_NODES, math.ceil(_NODES_PER_WIDTH * L / s))
        base = _solve(problem, h, scheme, n, n_nodes, L)
        if base.truncation <= max_outside or not auto_L:
            break
        L *= _WIDEN
    nodes = n_nodes
    doubled = _solve(problem, h, scheme, n, 2 * nodes, L)
    wide = _solve(problem, h, scheme, n, math.ceil(_WIDEN * nodes), _WIDEN * L)
    for sol in (base, doubled, wide):
        if not sol.truncation <= max_outside:
            raise ValueError(
                f"π_h sends {sol.outside['mass']:.3g} of its mass (relative share of "
                f"E|φ|: up to {sol.truncation:.3g}) outside [−{sol.L:.4g}, {sol.L:.4g}] per "
                f"step (> max_outside = {max_outside:g}); increase L or decrease h"
            )
    eps = np.finfo(float).eps
    # Refinement differences, plus a-priori rounding (n terms summed, each with relative
    # error ~eps: n·eps·E|φ|), plus what the truncation leaves out of E|φ|.
    error = {
        k: max(abs(base.moments[k] - doubled.moments[k]), abs(base.moments[k] - wide.moments[k]))
        + nodes * eps * base.abs_moments[k]
        + base.outside[k]
        for k in PHI
    }
    what = "LMC, AGLD eq. (3)" if scheme == "lmc" else f"SGLD, AGLD eq. (4), batch n = {n}"
    provenance = (
        f"Nyström ({what}, h = {h:g}): {nodes} Gauss–Legendre nodes on [−{L:.4g}, {L:.4g}], "
        f"stationary vector by GTH elimination; error estimate max |Δ| against "
        f"{2 * nodes} nodes and against {len(wide.nodes)} nodes on "
        f"[−{wide.L:.4g}, {wide.L:.4g}], plus rounding and truncation: "
        f"≤ {max(error.values()):.2g}; mass leaving [−L, L] per step {base.outside['mass']:.2g}"
    )
    return StationaryLaw(
        scheme=scheme,
        h=h,
        batch=n,
        moments=base.moments,
        error=error,
        nodes=base.nodes,
        weights=base.weights,
        density=base.density,
        L=L,
        outside_mass=base.outside["mass"],
        outside={k: base.outside[k] for k in PHI},
        provenance=provenance,
        _means=base.means,
        _probs=base.probs,
    )


# -- transient laws ------------------------------------------------------------------------


class TransientLaws:
    """The laws ``p_k`` of LMC or SGLD in 1-D after ``k`` steps from a point, by Nyström.

    The chain (AGLD eq. (3) or (4)) starts at ``x_0``; its law after one step is
    the Gaussian mixture ``p_1 = K(x_0, ·)``, and after ``k + 1`` steps

    .. math::

        p_{k+1}(y) = \\int p_k(x) K(x, y)\\, dx
        \\approx \\sum_j m_{k,j} K(x_j, y), \\qquad m_{k,j} = w_j p_k(x_j),

    the Nyström discretisation of the forward (Chapman–Kolmogorov) equation on the
    same Gauss–Legendre nodes and with the same matrix ``P_ji = w_i K(x_j, x_i)``
    as the stationary solve (:func:`stationary_expectations`): the nodal masses
    propagate as ``m_{k+1} = m_k P``, and ``m_{k+j} = m_k P^j`` is evaluated with
    the binary powers ``P^{2^i}`` (computed once, by squaring), so any ``k`` costs
    ``O(n² log k)``.  Each row of ``P`` is rescaled to the kernel's exact mass
    inside ``[−L, L]`` (closed form), so the quadrature's ≈1e-14 row-sum defect
    does not accumulate over ``k`` steps (it would drift the law by ``k·1e-14``).
    ``p_k`` itself is the interpolant ``Σ_j m_{k−1,j} K(x_j, ·)``, a Gaussian
    mixture whose CDF is closed form (:meth:`cdf`).  Mass that leaves ``[−L, L]``
    is lost (the killed chain, as in the module notes); :meth:`mass_defect`
    reports ``1 − Σ_j m_{k,j}``.

    Parameters
    ----------
    problem : Problem
        One-dimensional.
    h : float
        Step size.
    x0 : float
        The starting point; the first step's kernel must lie inside ``[−L, L]``
        (its mean at least ``10 s`` from the ends).
    scheme : {"lmc", "sgld"}
    n : int, optional
        SGLD batch size (as :func:`stationary_expectations`).
    nodes : int, optional
        Default ``max(64, ⌈6 L/s⌉)``, ``s = √(2h)`` the kernel width, as the
        stationary solve.  Fewer do not do: while ``p_k`` is still as narrow as the
        kernel (the first steps from a point), the integrand ``p_k K`` has width
        ``s/√2``; at 4 nodes per width that costs ~1e-8 per step, which the slow
        mode then keeps (seen as ~1e-6 in ``W2`` against doubled nodes).
    L : float, optional
        Default as :func:`stationary_expectations`'s starting ``L`` (``U`` risen
        ``tail_nats`` above its minimum).
    tail_nats : float
    noise : float
        The kernel's standard deviation is ``noise·√(2h)``; ``1`` is AGLD eq. (5),
        any other value is a planted bug (e.g. ``1/√2``: noise ``√h``).

    Notes
    -----
    Error: the quadrature error of one step is exponentially small in
    ``n s/L`` and accumulates at most linearly in ``k``; callers estimate it by
    repeating the computation with doubled nodes (:func:`w2_mixing_time` does).
    Atkinson, *The Numerical Solution of Integral Equations of the Second Kind*
    (CUP 1997), §4.1 for the method.
    """

    def __init__(
        self,
        problem: Problem,
        h: float,
        x0: float,
        *,
        scheme: str = "lmc",
        n: int | None = None,
        nodes: int | None = None,
        L: float | None = None,
        tail_nats: float = 50.0,
        noise: float = 1.0,
    ):
        if problem.d != 1:
            raise ValueError(f"the Nyström solver is one-dimensional; problem has d = {problem.d}")
        self.h = positive("h", h)
        self.scheme = choice("scheme", scheme, ("lmc", "sgld"))
        if self.scheme == "sgld":
            n = positive_int("n", min(10, problem.N) if n is None else n)
            if math.comb(problem.N + n - 1, n) > _MAX_COMPONENTS:
                raise ValueError(f"the batch law has more than {_MAX_COMPONENTS} multisets")
        elif n is not None:
            raise ValueError("n (batch size) applies to scheme='sgld' only")
        self.batch = n
        self.noise = positive("noise", noise)
        auto = L is None
        self.L = _auto_L(problem, positive("tail_nats", tail_nats)) if auto else positive("L", L)
        self.s = self.noise * math.sqrt(2.0 * self.h)
        if nodes is None:
            nodes = max(_MIN_NODES, math.ceil(_NODES_PER_WIDTH * self.L / self.s))
        nodes = positive_int("nodes", nodes, minimum=8)
        x, w, means, probs, s, P = _nystrom_matrix(
            problem, self.h, self.scheme, self.batch, nodes, self.L, self.noise
        )
        # Mass-conserving rows: scale row j to the kernel's exact mass inside [−L, L]
        # (closed form), removing the quadrature's systematic row-sum defect (≈1e-14 per
        # step, which k steps would otherwise accumulate into a k·1e-14 drift).
        inside = (ndtr((self.L - means) / s) - ndtr((-self.L - means) / s)) @ probs
        P *= (inside / P.sum(axis=1))[:, None]
        self.nodes, self.weights, self._means, self._probs, self._P = x, w, means, probs, P
        self.x0 = float(x0)
        first, _ = _kernel_means(problem, self.h, np.array([self.x0]), self.scheme, self.batch)
        self._first_means = first  # (1, M)
        if np.max(np.abs(first)) + 10 * s > self.L:
            raise ValueError(f"x0 = {x0:g}: the first step leaves [−{self.L:.4g}, {self.L:.4g}]")
        z = (x[None, :] - first[0][:, None]) / s  # (M, nodes)
        dens = probs @ np.exp(-0.5 * z * z) / (s * math.sqrt(2 * math.pi))
        self._m1 = w * dens
        self._powers = [P]
        self._done, self._saved = [1], {1: self._m1}  # every computed step, sorted
        self._C: np.ndarray | None = None
        self._stat: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def _power(self, i: int) -> np.ndarray:
        while len(self._powers) <= i:
            A = self._powers[-1]
            self._powers.append(A @ A)
        return self._powers[i]

    def masses(self, k: int) -> np.ndarray:
        """Nodal masses ``m_{k,j} = w_j p_k(x_j)`` of the law after ``k ≥ 1`` steps.

        Starts from the latest step already computed that is not after ``k`` (every
        result is kept), then applies the binary powers of ``P``.
        """
        k = positive_int("k", k)
        i0 = bisect.bisect_right(self._done, k) - 1
        k0 = self._done[i0]
        m = self._saved[k0]
        delta, i = k - k0, 0
        while delta:
            if delta & 1:
                m = m @ self._power(i)
            delta >>= 1
            i += 1
        if k not in self._saved:
            bisect.insort(self._done, k)
            self._saved[k] = m
        return m

    def mass_defect(self, k: int) -> float:
        """``1 − Σ_j m_{k,j}``: mass lost off ``[−L, L]`` plus rounding.

        The rows of the propagation matrix are scaled to the kernel's exact mass
        inside ``[−L, L]``, so no quadrature defect accumulates.
        """
        return float(1.0 - self.masses(k).sum())

    def stationary(self) -> np.ndarray:
        """Nodal masses of the (quasi-)stationary law ``π_h``: GTH on the same ``P``."""
        if self._stat is None:
            self._stat = _gth(self._P)
        return self._stat

    def tv_to_stationary(self, k: int) -> float:
        """``‖p_k − π_h‖_TV ≈ ½ Σ_j |m_{k,j} − w_j π_h(x_j)|`` (the same quadrature).

        Non-increasing in ``k`` for any Markov kernel (data processing), so it
        bounds the distance to ``π_h`` at every later step too.
        """
        return 0.5 * float(np.abs(self.masses(k) - self.stationary()).sum())

    def stationary_w2(self, quantile: Quantile) -> float:
        """``W2(π_h, π)``: as :meth:`w2`, for the law ``π_h = π_h P``."""
        p = self.stationary()
        self._at_nodes(2)  # builds the CDF matrix
        d = self.nodes - quantile(p @ self._C)
        return math.sqrt(max(float((p @ self._P) @ (d * d)), 0.0))

    def _pre(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Mixture weights and means of ``p_k``: ``(m_{k−1} ⊗ p_S, means)``, or the first step."""
        if k == 1:
            return self._probs[None, :], self._first_means
        return self.masses(k - 1)[:, None] * self._probs[None, :], self._means

    def cdf(self, k: int, y) -> np.ndarray:
        """``P(x_k ≤ y)``: the Nyström interpolant of ``p_k`` integrated in closed form."""
        a, mu = self._pre(positive_int("k", k))
        y = np.asarray(y, dtype=np.float64)
        flat = y.reshape(-1)
        out = np.empty(flat.shape)
        for lo in range(0, flat.size, 2048):
            z = (flat[lo : lo + 2048, None, None] - mu[None]) / self.s
            out[lo : lo + 2048] = np.einsum("yjm,jm->y", ndtr(z), a)
        return out.reshape(y.shape)

    def pdf(self, k: int, y) -> np.ndarray:
        """The Nyström interpolant ``p_k(y)``, elementwise."""
        a, mu = self._pre(positive_int("k", k))
        y = np.asarray(y, dtype=np.float64)
        flat = y.reshape(-1)
        out = np.empty(flat.shape)
        c = self.s * math.sqrt(2 * math.pi)
        for lo in range(0, flat.size, 2048):
            z = (flat[lo : lo + 2048, None, None] - mu[None]) / self.s
            out[lo : lo + 2048] = np.einsum("yjm,jm->y", np.exp(-0.5 * z * z), a) / c
        return out.reshape(y.shape)

    def _at_nodes(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``F_k`` at the nodes and the masses ``m_k``, both from ``m_{k−1}``.

        ``F_k(x_i) = Σ_j m_{k−1,j} C_ji`` with ``C_ji = Σ_S p_S Φ((x_i − mean_jS)/s)``
        and ``m_k = m_{k−1} P``; only ``m_{k−1}`` is kept, so that a scan
        ``k, k+B, k+2B, …`` (``B`` a power of two) costs one product with a cached
        power per point.
        """
        if k == 1:
            return self.cdf(1, self.nodes), self._m1
        if self._C is None:
            C = np.zeros_like(self._P)
            for c, p in enumerate(self._probs):
                C += p * ndtr((self.nodes[None, :] - self._means[:, c, None]) / self.s)
            self._C = C
        prev = self.masses(k - 1)
        return prev @ self._C, prev @ self._P

    def w2(self, k: int, quantile: Quantile) -> float:
        """``W2(p_k, π)`` for the target ``π`` with quantile function ``quantile``.

        In 1-D the optimal coupling is monotone, ``T = G^{-1} ∘ F_k``, so

        .. math::

            W_2^2(p_k, \\pi) = \\int_0^1 (F_k^{-1}(u) - G^{-1}(u))^2\\, du
            = \\int (x - G^{-1}(F_k(x)))^2 p_k(x)\\, dx
            \\approx \\sum_j m_{k,j} \\bigl(x_j - G^{-1}(F_k(x_j))\\bigr)^2,

        the Gauss–Legendre rule of the propagation (the integrand is smooth where
        ``p_k`` has mass; mass off ``[−L, L]`` is dropped, see :meth:`mass_defect`).
        ``F_k`` at the nodes is the closed-form CDF of the interpolant.  Errors:
        the propagation's (doubled-node comparison), ``quantile.error`` in the map
        (hence at most that in ``W2``, by the triangle inequality in ``L²(p_k)``),
        and the defect.

        Parameters
        ----------
        k : int
            Steps, ``≥ 1``.
        quantile : Quantile
            ``G^{-1}`` of the target (:func:`target_quantile`).

        Returns
        -------
        float
        """
        F, m = self._at_nodes(positive_int("k", k))
        d = self.nodes - quantile(F)
        return math.sqrt(max(float(m @ (d * d)), 0.0))


@dataclass(frozen=True)
class Quantile:
    """The quantile function ``G^{-1}`` of a 1-D density ``∝ exp(−U)``, tabulated.

    Attributes
    ----------
    grid : ndarray
        Uniform grid on ``[−R, R]``.
    cdf, sf : ndarray
        ``G`` and ``1 − G`` on the grid, each accumulated from its own end (so
        both tails keep their relative accuracy).
    error : float
        Bound on ``|Ĝ^{-1}(u) − G^{-1}(u)|`` where the density exceeds
        ``10^{-16}`` of its maximum: ``Δ² max|U'|/8`` (linear interpolation of ``G``
        between grid points, whose second derivative is ``g' = −U' g``).
    provenance : str
    """

    grid: np.ndarray
    cdf: np.ndarray
    sf: np.ndarray
    error: float
    provenance: str

    def __call__(self, u) -> np.ndarray:
        u = np.asarray(u, dtype=np.float64)
        left = np.interp(u, self.cdf, self.grid)
        right = np.interp(-(1.0 - u), -self.sf, self.grid)  # −sf increases with the grid
        return np.where(u <= 0.5, left, right)


def target_quantile(problem: Problem, *, tail_nats: float = 60.0, cells: int = 2**17) -> Quantile:
    """:class:`Quantile` of the target ``π ∝ exp(−U)`` of a 1-D problem.

    ``G`` is accumulated over ``cells`` equal cells of ``[−R, R]`` (``R`` where
    ``U`` has risen ``tail_nats`` above its minimum, :func:`_auto_L`), each
    integrated by 8-point Gauss–Legendre (error far below rounding for cells of
    width ``~10⁻⁴``), and normalised by the total; the mass beyond ``±R`` is below
    ``e^{−tail_nats}`` relative and ignored.

    Parameters
    ----------
    problem : Problem
        One-dimensional.
    tail_nats : float
    cells : int

    Returns
    -------
    Quantile
    """
    if problem.d != 1:
        raise ValueError(f"target_quantile is one-dimensional; problem has d = {problem.d}")
    cells = positive_int("cells", cells, minimum=16)
    R = _auto_L(problem, positive("tail_nats", tail_nats))
    grid = np.linspace(-R, R, cells + 1)
    t, w = roots_legendre(8)
    half = 0.5 * (grid[1] - grid[0])
    pts = (0.5 * (grid[:-1] + grid[1:]))[:, None] + half * t[None, :]
    U = problem.potential(pts.reshape(-1, 1)).reshape(pts.shape)
    U0 = float(U.min())
    mass = np.exp(-(U - U0)) @ w * half
    total = mass.sum()
    cdf = np.concatenate(([0.0], np.cumsum(mass))) / total
    sf = np.concatenate((np.cumsum(mass[::-1])[::-1], [0.0])) / total
    # strictly monotone tables for np.interp (far tails can underflow to equal values)
    cdf = np.maximum.accumulate(cdf)
    sf = np.minimum.accumulate(sf)
    g = np.exp(-(problem.potential(grid[:, None]) - U0))
    live = g > 1e-16 * g.max()
    dU = np.abs(problem.grad(grid[live][:, None])[:, 0])
    err = float((2 * half) ** 2 * dU.max() / 8)
    return Quantile(
        grid=grid,
        cdf=cdf,
        sf=sf,
        error=err,
        provenance=(
            f"CDF of exp(−U) on [−{R:.4g}, {R:.4g}], {cells} cells × 8-point Gauss–Legendre, "
            f"linear inverse interpolation (error ≤ Δ² max|U'|/8 = {err:.1g})"
        ),
    )


@dataclass(frozen=True)
class MixingTime:
    """``K(ε)`` of a 1-D chain in ``W2`` (:func:`w2_mixing_time`).

    Attributes
    ----------
    K : int or None
        ``min{K : W2(p_k, π) ≤ ε for every k ≥ K}`` (counted from ``k = 1``), or
        ``None`` if ``W2(π_h, π) ≥ ε`` or the certificate was not reached within
        ``max_steps``.
    stationary_w2 : float
        ``W2(π_h, π)`` of the chain's own stationary law.
    certified_from : int or None
        The scan point from which ``W2 ≤ ε`` is certified for every later step.
    eps, h : float
    w2_before, w2_at : float
        ``W2(p_{K−1}, π) > ε ≥ W2(p_K, π)``.
    block : int
        Block length ``B`` of the coarse scan.
    path_k, path_w2 : list
        ``W2`` at the block ends ``B, 2B, …`` (the figure of the path).
    monotone_after : bool
        Whether ``W2`` decreases along 16 equally spaced points of the crossing
        block and every later scan point (what the bisection presumes).
    error : float
        Estimated absolute error of ``W2`` at ``k = K−1, K``: the difference from
        the check solve, plus the quantile table's error, plus the effect of the
        mass defect (``δ·D²/(2 W2)``, ``D = 2L``).
    K_check : int or None
        ``K`` recomputed by the check solve (``None`` if not requested).
    n_check : int or None
        Its node count.
    n_nodes : int
    provenance : str
    """

    K: int | None
    stationary_w2: float
    certified_from: int | None
    eps: float
    h: float
    w2_before: float
    w2_at: float
    block: int
    path_k: list[int]
    path_w2: list[float]
    monotone_after: bool
    error: float
    K_check: int | None
    n_check: int | None
    n_nodes: int
    provenance: str

    @property
    def K_uncertainty(self) -> float:
        """Steps by which ``K`` could move within ``error``: ``error`` over the last step's drop."""
        drop = self.w2_before - self.w2_at
        return self.error / drop if drop > 0 else math.inf


def _crossing(laws: TransientLaws, eps, quantile, block, max_steps):
    """Coarse scan at ``k = 1 + jB`` up to a certificate, then bisection at the crossing.

    The scan stops at the first point ``k*`` with ``W2(π_h, π) + D·√TV_k ≤ ε``
    (``TV_k = ‖p_k − π_h‖_TV``, ``D = 2L``): since ``TV`` cannot increase and
    ``W2² ≤ D²·TV`` on a set of diameter ``D``, ``W2(p_j, π) ≤ ε`` for every
    ``j ≥ k*``.  Returns ``(K, path_k, path_w2, monotone, w2(K−1), w2(K), k*,
    W2(π_h, π))``; ``K = None`` when ``W2(π_h, π) ≥ ε`` (the chain never stays
    within ε) or ``max_steps`` is reached.  ``monotone``: ``W2`` decreases along 16
    equally spaced points of the crossing block and the later scan points up to
    ``k*`` (what the bisection presumes).
    """
    nan = math.nan
    b_inf = laws.stationary_w2(quantile)
    path_k, path_w = [1], [laws.w2(1, quantile)]
    if not b_inf < eps:
        return None, path_k, path_w, False, nan, nan, None, b_inf
    if not path_w[0] > eps:
        raise ValueError("W2(p_1, π) ≤ ε already: choose a start farther from the target")
    diam = 2 * laws.L
    k = last_above = 1  # the last scan point with W2 > ε
    while True:
        k += block
        if k > max_steps:
            return None, path_k, path_w, False, nan, nan, None, b_inf
        w = laws.w2(k, quantile)
        path_k.append(k)
        path_w.append(w)
        if w > eps:
            last_above = k
        elif b_inf + diam * math.sqrt(laws.tv_to_stationary(k)) <= eps:
            break
    lo, hi = last_above, last_above + block  # W2(lo) > ε ≥ W2(hi)
    inner = [laws.w2(kk, quantile) for kk in range(lo, hi + 1, max(1, block // 16))]
    after = inner + [w for kk, w in zip(path_k, path_w, strict=True) if kk > hi]
    monotone = bool(np.all(np.diff(after) <= 0))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if laws.w2(mid, quantile) > eps:
            lo = mid
        else:
            hi = mid
    w_before, w_at = laws.w2(hi - 1, quantile), laws.w2(hi, quantile)
    return hi, path_k, path_w, monotone, w_before, w_at, k, b_inf


def w2_mixing_time(
    problem: Problem,
    h: float,
    x0: float,
    eps: float,
    quantile: Quantile,
    *,
    scheme: str = "lmc",
    n: int | None = None,
    nodes: int | None = None,
    noise: float = 1.0,
    block: int | None = None,
    max_steps: int = 10**7,
    check: float | None = 0.75,
) -> MixingTime:
    """``K(ε) = min{K : W2(p_k, π) ≤ ε ∀k ≥ K}`` for LMC/SGLD in 1-D from ``x_0`` (AGLD §2.1).

    The ε-mixture time of AGLD §2.1, with ``p_k`` from :class:`TransientLaws` and
    ``W2`` exact in 1-D (:meth:`TransientLaws.w2`).  If the chain's own stationary
    law ``π_h`` (GTH on the same matrix) has ``W2(π_h, π) ≥ ε``, ``K = None``: the
    chain does not stay within ``ε``.  Otherwise ``W2`` is evaluated at
    ``k = 1, 1 + B, 1 + 2B, …`` until the certificate
    ``W2(π_h, π) + 2L·√‖p_k − π_h‖_TV ≤ ε`` holds (it then holds for every later
    ``k``: total variation to ``π_h`` never increases, and ``W2² ≤ (2L)²·TV`` on
    ``[−L, L]``); the last crossing of ``ε`` is located by bisection inside the
    block after the last scan point above ``ε``.  ``K`` is exact if ``W2``
    decreases between that block and the certificate point; ``monotone_after``
    records that it does at 16 points of the block and at every later scan point.

    Parameters
    ----------
    problem : Problem
        One-dimensional.
    h, x0, eps : float
    quantile : Quantile
        Of the target ``π`` (:func:`target_quantile`).
    scheme, n, nodes, noise
        As :class:`TransientLaws`.
    block : int, optional
        Default the power of two nearest ``1/h`` (one unit of diffusion time).
    max_steps : int
        Give up (``K = None``) past this many steps.
    check : float or None
        Repeat with ``check`` times the nodes (same ``L``) for the error estimate
        and ``K_check``; ``None`` skips it.  The default ``0.75`` (4.5 nodes per
        kernel width) is cheap and, the Nyström error falling exponentially in the
        node count, its difference from the base solve *over*-estimates the base
        solve's own error (tests/test_exact_nystrom.py checks this against a
        doubled-node solve); ``2`` is the classical doubling, 8× the cost.

    Returns
    -------
    MixingTime
    """
    eps = positive("eps", eps)
    block = block or 2 ** max(0, round(math.log2(1.0 / h)))
    block = positive_int("block", block)
    kw = dict(scheme=scheme, n=n, noise=noise)
    laws = TransientLaws(problem, h, x0, nodes=nodes, **kw)
    K, pk, pw, mono, before, at, k_cert, b_inf = _crossing(laws, eps, quantile, block, max_steps)
    K2, n2 = None, None
    err = math.nan
    if K is not None:
        # A normalisation defect δ changes W2 by at most δ·D²/(2 W2) (D = 2L, the diameter).
        defect = max(abs(laws.mass_defect(k)) for k in (K - 1, K))
        err = quantile.error + defect * (2 * laws.L) ** 2 / (2 * at)
        if check is not None:
            n2 = max(8, round(check * laws.n_nodes))
            other = TransientLaws(problem, h, x0, nodes=n2, L=laws.L, **kw)
            # the scan first: it leaves anchors near K, so W2(K−1), W2(K) need no high powers
            K2, *_ = _crossing(other, eps, quantile, block, max_steps)
            err += max(abs(other.w2(k, quantile) - laws.w2(k, quantile)) for k in (K - 1, K))
    what = "LMC, AGLD eq. (3)" if scheme == "lmc" else f"SGLD, AGLD eq. (4), batch n = {n}"
    prov = (
        f"Nyström propagation ({what}, h = {h:g}, x0 = {x0:g}): {laws.n_nodes} nodes on "
        f"[−{laws.L:.4g}, {laws.L:.4g}], W2 from the monotone map G⁻¹∘F_k; scan every "
        f"{block} steps up to the TV certificate (k = {k_cert}), bisection in the crossing "
        f"block; error estimate (against {n2} nodes, quantile table, mass defect) {err:.2g}"
    )
    return MixingTime(
        K=K,
        stationary_w2=b_inf,
        certified_from=k_cert,
        eps=eps,
        h=h,
        w2_before=before,
        w2_at=at,
        block=block,
        path_k=pk,
        path_w2=pw,
        monotone_after=mono,
        error=err,
        K_check=K2,
        n_check=n2,
        n_nodes=laws.n_nodes,
        provenance=prov,
    )


# -- target moments and bias ---------------------------------------------------------


def target_moments(problem: Problem) -> dict[str, Exact]:
    """``E_π[φ]`` for ``φ`` in :data:`PHI`, from the problem's exact values.

    Uses ``exact["mean"]``, ``exact["second_moment"]`` if present (else
    ``exact["cov"]`` plus the squared mean) and ``exact["fourth_moment"]``; for a
    1-D :class:`GaussianQuadratic`, which has no fourth moment stored,
    ``E x⁴ = μ⁴ + 6μ²σ² + 3σ⁴`` (Gaussian moments).

    Raises
    ------
    ValueError
        If ``d ≠ 1`` or the problem carries no exact fourth moment and is not Gaussian.
    """
    if problem.d != 1:
        raise ValueError(f"target_moments is one-dimensional; problem has d = {problem.d}")
    ex = problem.exact
    mu = float(np.ravel(ex["mean"].value)[0])
    var = float(np.ravel(ex["cov"].value)[0])
    out = {"x": Exact(mu, ex["mean"].provenance)}
    if "second_moment" in ex:
        out["x2"] = ex["second_moment"]
    else:
        out["x2"] = Exact(var + mu * mu, f"{ex['cov'].provenance}; E x² = Var + (E x)²")
    if "fourth_moment" in ex:
        out["x4"] = Exact(float(ex["fourth_moment"].value), ex["fourth_moment"].provenance)
    elif isinstance(problem, GaussianQuadratic):
        out["x4"] = Exact(
            mu**4 + 6 * mu * mu * var + 3 * var * var,
            f"{ex['cov'].provenance}; Gaussian E x⁴ = μ⁴ + 6μ²σ² + 3σ⁴",
        )
    else:
        raise ValueError(f"problem {problem.name!r} has no exact fourth moment")
    return out


@dataclass(frozen=True)
class Bias:
    """``E_h[φ] − E_π[φ]`` with an error bound.

    Attributes
    ----------
    phi : str
        Key of :data:`PHI`.
    value : float
        The bias.
    error : float
        Bound: the Nyström error estimate plus 4 ulps of the reference value (it
        is rounded to float64 from 50 digits and, for ``E x²`` built from
        ``Var + (E x)²``, recombined in float64).
    chain, target : float
        ``E_h[φ]`` and ``E_π[φ]``.
    provenance : str
    """

    phi: str
    value: float
    error: float
    chain: float
    target: float
    provenance: str


def stationary_bias(problem: Problem, h: float, **kwargs: Any) -> dict[str, Bias]:
    """Bias ``E_h[φ] − E_π[φ]`` of the stationary chain for ``φ`` in :data:`PHI`.

    Parameters
    ----------
    problem : Problem
        One-dimensional, with exact target moments (:func:`target_moments`).
    h : float
    **kwargs
        Passed to :func:`stationary_expectations` (``scheme``, ``n``, ``nodes``, ``L``, ...).

    Returns
    -------
    dict of str to Bias
    """
    ref = target_moments(problem)
    law = stationary_expectations(problem, h, **kwargs)
    out = {}
    for k in PHI:
        r = ref[k].value
        out[k] = Bias(
            phi=k,
            value=law.moments[k] - r,
            error=law.error[k] + 4 * math.ulp(r),
            chain=law.moments[k],
            target=r,
            provenance=f"E_h: {law.provenance}. E_π: {ref[k].provenance}",
        )
    return out


# -- one-dimensional polynomial problems ------------------------------------------------


def _poly_moments(coeffs: np.ndarray, dps: int = 50) -> dict[str, mpmath.mpf]:
    """Moments of ``exp(−P)`` for a polynomial ``P`` (increasing powers) by mpmath.quad.

    Tanh–sinh quadrature at ``dps`` digits, split at the real critical points of
    ``P`` (the modes and saddles, where the integrand bends; located in float64,
    since they only serve as break points); the error estimate of each integral
    must be below ``10^{−(dps−10)}`` relative to ``max(|value|, Z)``.
    """
    with mpmath.workdps(dps):
        c = [mpmath.mpf(float(a)) for a in coeffs]  # the float64 coefficients, exactly

        def P(t):
            return mpmath.polyval(c[::-1], t)

        # Break points need not be exact (they only help the quadrature), so float64
        # roots of P' do; a multiple root (x³ for x⁴/4) defeats mpmath.polyroots.
        roots = np.roots((np.arange(1, len(coeffs)) * np.asarray(coeffs)[1:])[::-1])
        real = np.unique(np.round(roots[abs(roots.imag) < 1e-6].real, 8))
        crit = [mpmath.mpf(float(r)) for r in real]
        shift = min(P(r) for r in crit)
        pts = [-mpmath.inf, *crit, mpmath.inf]

        def integral(k, scale):
            val, err = mpmath.quad(lambda t: t**k * mpmath.exp(shift - P(t)), pts, error=True)
            # relative to max(|val|, scale): an odd moment may vanish by symmetry
            if not err < mpmath.mpf(10) ** (10 - dps) * max(abs(val), scale):
                raise RuntimeError(f"mpmath quad error estimate too large: {err}")
            return val

        Z = integral(0, 0)
        return {"log_normaliser": mpmath.log(Z) - shift} | {
            k: integral(p, Z) / Z for k, p in PHI.items()
        }


class PolynomialSum1D(Problem):
    """A 1-D target with polynomial data terms ``f_i(x) = Σ_k a_{ik} x^k`` and a flat prior.

    ``exact`` holds ``"log_normaliser"``, ``"mean"`` (shape (1,)), ``"cov"``
    (shape (1, 1)), ``"var"``, ``"second_moment"`` and ``"fourth_moment"``:
    integrals of ``exp(−U)`` by ``mpmath.quad`` at 50 digits for the float64
    coefficients of ``U`` (then rounded to float64).

    Parameters
    ----------
    coeffs : ndarray, shape (N, degree + 1)
        ``a_{ik}`` in increasing powers; ``U = Σ_i f_i`` must have even degree and
        positive leading coefficient.
    name, citation : str
    exact : bool
        ``False`` skips the 50-digit integrals (≈1 s): ``exact`` is then empty, for
        problems that only drive a chain whose target is known otherwise.
    """

    def __init__(
        self,
        coeffs: Sequence[Sequence[float]],
        *,
        name: str,
        citation: str = "",
        exact: bool = True,
    ):
        a = finite_array("coeffs", np.atleast_2d(np.asarray(coeffs, dtype=np.float64)))
        total = np.trim_zeros(a.sum(axis=0), "b")
        if len(total) < 3 or (len(total) - 1) % 2 or total[-1] <= 0:
            raise ValueError("Σ f_i must have even degree ≥ 2 and a positive leading coefficient")
        self.coeffs = a
        self._dcoeffs = a[:, 1:] * np.arange(1, a.shape[1])
        if not exact:
            super().__init__(name=name, N=a.shape[0], d=1, citation=citation, exact={})
            return
        ex = _poly_moments(a.sum(axis=0))
        prov = "mpmath quad of exp(−U), 50 digits, split at the critical points"
        m1, m2 = float(ex["x"]), float(ex["x2"])
        var = float(ex["x2"] - ex["x"] ** 2)
        super().__init__(
            name=name,
            N=a.shape[0],
            d=1,
            citation=citation,
            exact={
                "log_normaliser": Exact(float(ex["log_normaliser"]), prov + ": log ∫exp(−U)"),
                "mean": Exact(np.array([m1]), prov + ": E x"),
                "cov": Exact(np.array([[var]]), prov + ": Var x"),
                "var": Exact(var, prov + ": Var x = E x² − (E x)²"),
                "second_moment": Exact(m2, prov + ": E x²"),
                "fourth_moment": Exact(float(ex["x4"]), prov + ": E x⁴"),
            },
        )

    @staticmethod
    def _polyval(c: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Horner: ``c`` (..., k) increasing powers, ``t`` broadcast against ``c[..., 0]``."""
        out = np.zeros(np.broadcast_shapes(c.shape[:-1], np.shape(t)))
        for k in range(c.shape[-1] - 1, -1, -1):
            out = out * t + c[..., k]
        return out

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        return self._polyval(self.coeffs.sum(axis=0), theta[:, 0])

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self._polyval(self._dcoeffs[idx], theta[:, :1])[..., None]

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        return self._polyval(self._dcoeffs.sum(axis=0), theta[:, 0])[:, None]


def quartic() -> PolynomialSum1D:
    """``U(x) = x⁴/4``, one data term (``N = 1``); ``E x² = 2Γ(3/4)/Γ(1/4)``, ``E x⁴ = 1``."""
    return PolynomialSum1D([[0.0, 0.0, 0.0, 0.0, 0.25]], name="quartic", citation="U = x⁴/4")


def quartic_sum(
    centres: Sequence[float] = (-1.0, 0.5, 1.5), curvatures: Sequence[float] = (1.0, 0.5, 2.0)
) -> PolynomialSum1D:
    """Finite sum ``f_i = (x − c_i)⁴/(4N) + a_i (x − c_i)²/2``: non-Gaussian, state-dependent noise.

    Parameters
    ----------
    centres : sequence of float
        ``c_i``.
    curvatures : sequence of float
        ``a_i ≥ 0``, same length.
    """
    c = finite_array("centres", np.asarray(centres, dtype=np.float64))
    a = finite_array("curvatures", np.asarray(curvatures, dtype=np.float64))
    if c.ndim != 1 or a.shape != c.shape or np.any(a < 0):
        raise ValueError("centres and curvatures must be 1-D of equal length, curvatures >= 0")
    N = len(c)
    # (x − c)⁴ = x⁴ − 4c x³ + 6c² x² − 4c³ x + c⁴ and (x − c)² = x² − 2c x + c².
    quart = np.stack([c**4, -4 * c**3, 6 * c**2, -4 * c, np.ones(N)], axis=1) / (4 * N)
    quad = a[:, None] * np.stack([c**2, -2 * c, np.ones(N)], axis=1) / 2
    coeffs = quart.copy()
    coeffs[:, :3] += quad
    return PolynomialSum1D(
        coeffs,
        name=f"quartic-sum-{N}",
        citation="f_i = (x − c_i)⁴/(4N) + a_i (x − c_i)²/2 (this module)",
    )
