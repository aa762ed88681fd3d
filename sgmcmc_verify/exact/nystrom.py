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
"""

from __future__ import annotations

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
    "PolynomialSum1D",
    "StationaryLaw",
    "batch_law",
    "quartic",
    "quartic_sum",
    "stationary_bias",
    "stationary_expectations",
    "target_moments",
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


def _solve(problem, h, scheme, batch, n_nodes, L):
    """One Nyström solve, as a :class:`_Solution`.

    The Nyström matrix ``P_ji = w_i K(x_j, x_i)`` (row: from node ``j``) is a Markov
    matrix on the nodes up to the mass that leaves ``[−L, L]`` and the quadrature
    defect of its row sums; its stationary vector ``p_i`` is ``w_i π_h(x_i)``.
    :func:`_gth` reads only the off-diagonal entries, i.e. the missing row mass is
    kept at the node: a perturbation of the killed (quasi-stationary) operator of
    size ``outside_mass``, which is required to be negligible.
    """
    # scipy rather than numpy.polynomial.legendre.leggauss: numpy's dense eigensolve
    # is O(n³) and slow under thread contention; scipy's nodes and weights agree
    # with 40-digit ones to 1e-14 relative away from the ends (checked at n = 257).
    t, w = roots_legendre(n_nodes)
    x, w = L * t, L * w
    means, probs = _kernel_means(problem, h, x, scheme, batch)
    s = math.sqrt(2.0 * h)
    P = np.zeros((n_nodes, n_nodes))
    for k, p in enumerate(probs):
        z = (x[None, :] - means[:, k, None]) / s  # z[j, i]: from node j to node i
        P += p * np.exp(-0.5 * z * z)
    P *= w[None, :] / (s * math.sqrt(2 * math.pi))
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
    """

    def __init__(self, coeffs: Sequence[Sequence[float]], *, name: str, citation: str = ""):
        a = finite_array("coeffs", np.atleast_2d(np.asarray(coeffs, dtype=np.float64)))
        total = np.trim_zeros(a.sum(axis=0), "b")
        if len(total) < 3 or (len(total) - 1) % 2 or total[-1] <= 0:
            raise ValueError("Σ f_i must have even degree ≥ 2 and a positive leading coefficient")
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
        self.coeffs = a
        self._dcoeffs = a[:, 1:] * np.arange(1, a.shape[1])

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
