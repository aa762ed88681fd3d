"""Exact first and second moments of SG-MCMC chains on Gaussian-quadratic targets.

On :class:`~sgmcmc_verify.problems.gaussian.GaussianQuadratic` every component
gradient is affine, ``∇f_i(x) = Λ_i (x − c_i)``, so every gradient estimator of
AGLD (eqs. (4), (6)) and of SVRHMC (Algorithms 1–2, line 8 / line 7) is affine
in the chain's full state

.. math::

    z = (\\theta,\\; p\\ \\text{(HMC only)},\\; y_1, \\dots, y_m),

where the ``y`` are the *points* at which the snapshot entries were taken
(``α_i = ∇f_i(y_{slot(i)})``; for PTU/SVRG all entries share one point, the
epoch snapshot ``w``; for PPU/SAGA every entry has its own, SVRHMC Alg. 2's
``α^i``).  With the index set ``S_k`` and the iteration's phase fixed, one
iteration is an affine map with additive Gaussian noise,

.. math::

    z_{k+1} = M(S_k, k)\\, z_k + c(S_k, k) + B(k)\\, \\xi_k,
    \\qquad \\xi_k \\sim N(0, I_d),

and, with :math:`\\tilde z = (1, z)` and :math:`Q = E[\\tilde z \\tilde z^\\top]`
(which holds the mean and the second moment at once),

.. math::

    Q_{k+1} = \\sum_S p_S\\, \\tilde M_S Q_k \\tilde M_S^\\top + \\tilde B \\tilde B^\\top,
    \\qquad \\tilde M_S = \\begin{pmatrix} 1 & 0 \\\\ c_S & M_S \\end{pmatrix},

an affine map of ``vec Q`` — linear, in fact, once the noise term is written
as ``B̃B̃ᵀ Q[0, 0]`` (``Q[0, 0] = 1``).  The law of the indices is a finite
Markov chain with state ``a``: nothing for RA (``n`` i.i.d. uniform indices) and
WOR (``n`` distinct), the stream position for CA, and for RR the set of indices
already read in the current pass (the next batch is a uniform draw from the
rest, completed from a fresh permutation when the pass ends, as
:mod:`sgmcmc_verify.access` reads the stream).  The pair ``(a_k, z_k)`` is Markov,
so the moments *conditional on the access state*, ``Q_a = E[z̃z̃ᵀ 1{a_k = a}]``,
evolve linearly:

.. math::

    Q'_{a'} = \\sum_{a, S} P(S, a' \\mid a)\\,
    \\bigl(\\tilde M_S Q_a \\tilde M_S^\\top + \\tilde B \\tilde B^\\top Q_a[0, 0]\\bigr).

The law is periodic in ``k``: the snapshot epoch ``D`` (PTU, TMU, HSAG;
SVRHMC's ``K``) and the access (CA returns to position 0 after ``N/gcd(N, n)``
iterations, RR to the start of a pass after ``lcm(N, n)/n``) fix a period
``P`` after which the access state is again the initial one with probability 1.
The map from phase 0 to phase 0 is therefore a plain linear map of ``vec Q``;
the periodic-stationary moments at phase 0 are its fixed point with
``Q[0, 0] = 1``, found by one float64 linear solve, and the other phases follow
by applying the maps from phase 0 to phase ``j`` (summed over access states).
RR is exact: the permutation's law is carried by the access state, not
approximated.

The maps are built from the papers' equations, not by calling the samplers of
:mod:`sgmcmc_verify.estimators` (which the Monte Carlo tests check against these
moments):

* gradients: ``∇U`` (AGLD eq. (3)); minibatch ``(N/n) Σ_{j} ∇f_{s_j}(θ)``
  (AGLD eq. (4)); aggregated ``(N/n) Σ_{j} (∇f_{s_j}(θ) − α_{s_j}) + Σ_i α_i``
  (AGLD eq. (6) = SVRHMC Alg. 1 line 8 and Alg. 2 line 7), the sums over the
  batch counting repeated (with-replacement) indices with multiplicity;
* integrators: ``θ' = θ − h g + √(2h) ξ`` (AGLD eq. (5)); ``p' = (1 − Dh) p −
  h g + √(2Dh) ξ``, ``θ' = θ + h p'`` (SVRHMC Alg. 1 lines 9–10, Alg. 2 lines
  8–9), ``D`` the friction;
* snapshots (AGLD Strategies 2–4; SVRHMC Alg. 1 lines 4–5, Alg. 2 line 10):
  *partial* refresh ``α_i ← ∇f_i(x^{(k)})`` for ``i ∈ S_k`` (PPU, TMU; HSAG on
  its set ``H``), *total* refresh ``α_i ← ∇f_i(x^{(k+1)})`` when
  ``mod(k+1, D) = 0`` (PTU, TMU; HSAG off ``H``), after the partial one (AGLD
  Strategy 4 overwrites everything at the total refresh).  Initially
  ``α_i^{(0)} = ∇f_i(x^{(0)})`` (AGLD Algorithm 1 line 1; SVRHMC Alg. 2 line 3).

Phase convention: "phase ``j``" is the state ``z_k`` for ``k ≡ j (mod P)``, i.e.
after ``k`` iterations and before iteration ``k``.  The driver's draw ``t`` is
the state after ``t + 1`` iterations.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import choice, positive, positive_int
from ..problems.base import Exact, Problem
from ..problems.gaussian import GaussianQuadratic

__all__ = [
    "SUPPORTED",
    "AccessLaw",
    "AffineChain",
    "ChainMoments",
    "StationaryMoments",
    "affine_chain",
    "build_chain",
    "stationary_moments",
    "transient_moments",
]

PROVENANCE = "moment equations, linear solve, float64"

#: Largest number of index sets enumerated from one access state (RA multisets, subsets).
MAX_TRANSITIONS = 100_000

#: Longest period whose phase maps are built (one map of size ``(nz + 1)⁴`` per phase is
#: kept): a longer one (``svrg-ld`` with an epoch ``D`` of millions, issue 11) is refused
#: with that reason instead of running for hours.
MAX_PERIOD = 20_000


# --------------------------------------------------------------------------------------
# The chain as a periodic random affine recursion
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccessLaw:
    """The index sets ``S_k`` as a finite Markov chain on access states (AGLD §3.1).

    Attributes
    ----------
    name : str
        ``"RA"``, ``"WOR"``, ``"RR"``, ``"CA"`` or ``"none"`` (exact gradient).
    initial : hashable
        The access state at ``k = 0``.
    period : int
        After every ``period`` iterations the state is ``initial`` again, surely.
    transitions : callable
        ``transitions(a) -> tuple of (probability, S, a')``: the law of the next
        index multiset ``S`` (a sorted tuple) and state ``a'`` given state ``a``.
    """

    name: str
    initial: Hashable
    period: int
    transitions: Callable[[Hashable], tuple[tuple[float, tuple[int, ...], Hashable], ...]] = field(
        repr=False, compare=False
    )


@dataclass(frozen=True)
class AffineChain:
    """A chain ``z_{k+1} = M(S_k, k) z_k + c(S_k, k) + B(k) ξ_k`` with period ``P``.

    Built by :func:`build_chain` or :func:`affine_chain`; see the module docstring.
    A variant (a planted bug, another refresh rule) is ``dataclasses.replace(chain,
    step=...)`` with a new ``step``.

    Attributes
    ----------
    description : str
        What the chain is and which equations it follows.
    problem : GaussianQuadratic
    h : float
        Step size.
    d : int
        Dimension of ``θ``.
    labels : tuple of str
        Names of the coordinates of ``z``.
    period : int
        ``P``: the law of ``(z_k, S_k)`` depends on ``k`` only through ``k mod P``.
    access : AccessLaw
        The law of the index sets.
    step : callable
        ``step(S, phase) -> (M, c, B)``: the affine map of one iteration at that
        phase with index tuple ``S``.
    momentum : bool
        Whether ``z`` holds a momentum ``p`` (coordinates ``d..2d−1``).
    slots : int
        Number of snapshot points ``y`` in ``z``.
    n : int
        Indices per iteration (0 for the exact gradient).
    epoch : int
        Snapshot epoch ``D`` (``K``) of the total refresh; 1 when there is none.
    """

    description: str
    problem: GaussianQuadratic
    h: float
    d: int
    labels: tuple[str, ...]
    period: int
    access: AccessLaw
    step: Callable[[tuple[int, ...], int], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        repr=False, compare=False
    )
    momentum: bool = False
    slots: int = 0
    n: int = 0
    epoch: int = 1

    @property
    def nz(self) -> int:
        """Dimension of the state ``z``."""
        return len(self.labels)


def _affine_grad(problem: GaussianQuadratic, i: int, col: int, nz: int):
    """``∇f_i`` at the state block starting at column ``col``, as ``(A, b)``: ``A z + b``.

    ``f_i(x) = ½ (x − c_i)ᵀ Λ_i (x − c_i)`` (the definition of the problem), so
    ``∇f_i(x) = Λ_i x − Λ_i c_i``.
    """
    d = problem.d
    A = np.zeros((d, nz))
    A[:, col : col + d] = problem.precisions[i]
    return A, -problem.precisions[i] @ problem.centres[i]


def build_chain(
    problem: Problem,
    *,
    h: float,
    estimator: str,
    access: str | None = None,
    n: int | None = None,
    partial: Sequence[int] = (),
    total: Sequence[int] = (),
    epoch: int | None = None,
    integrator: str = "overdamped",
    friction: float = 1.0,
    centre: Any = None,
    preconditioner: Any = None,
    noise_estimate: Any = 0.0,
    injected: Any = None,
    refresh: int | None = None,
    description: str = "",
) -> AffineChain:
    """Build the affine recursion of a chain from the papers' equations.

    Parameters
    ----------
    problem : GaussianQuadratic
        Its Gaussian prior ``U_0`` (flat by default) enters every estimate exactly.
    h : float
        Step size.
    estimator : {"full", "minibatch", "aggregated", "control-variate"}
        ``∇U`` (AGLD eq. (3)), the uniform minibatch (AGLD eq. (4)), the
        aggregated estimator of AGLD eq. (6) (= SVRHMC Alg. 1 line 8, Alg. 2 line 7),
        or the control variate at the fixed ``centre`` θ̂ (Baker et al. 2019 §3.1,
        Algorithm 1): ``∇U(θ̂) + (N/n) Σ_{i∈S} (∇f_i(θ) − ∇f_i(θ̂))``.  Its centre is
        a constant, not a state coordinate: the chain has period 1 (the access's).
    access : {"RA", "WOR", "RR", "CA"}
        Data access (AGLD §3.1; WOR: ``n`` distinct uniform indices).  Not used
        with ``"full"``.
    n : int
        Indices per iteration.
    partial : sequence of int
        Snapshot entries refreshed at ``x^{(k)}`` when ``i ∈ S_k`` (AGLD
        Strategies 3, 4; SVRHMC Alg. 2 line 10).
    total : sequence of int
        Snapshot entries refreshed at ``x^{(k+1)}`` when ``mod(k+1, epoch) = 0``
        (AGLD Strategies 2, 4; SVRHMC Alg. 1 lines 4–5).
    epoch : int
        ``D`` of AGLD, ``K`` of SVRHMC; required when ``total`` is not empty.
    integrator : {"overdamped", "sghmc-euler", "sghmc-chen"}
        AGLD eq. (5); SVRHMC Alg. 1 lines 9–10 (friction ``D``, ``Dh < 1``); or SGHMC as
        SGNHT Algorithm 1 with ``ξ = A`` (SGNHT eq. (3)): ``p' = (1 − Ah) p − h g +
        √(2h) R ξ``, ``θ' = θ + h p'``, ``R Rᵀ = A I − B̂``.
    friction : float
        SVRHMC's ``D`` or SGHMC's ``A`` (momentum integrators only).
    noise_estimate : float or array_like (d, d)
        SGHMC's ``B̂`` (``"sghmc-chen"`` only); ``A I − B̂`` must be PSD.
    injected : float or array_like (d, d), optional
        With the ``"full"`` estimator: SGNHT §3's injected gradient noise
        ``∇U + N(0, 2B/h)`` of covariance parameter ``B`` (extra noise columns).
    refresh : int, optional
        ``L``: at phases ``k ≡ 0 (mod L)`` the momentum is redrawn, ``p' = ξ``,
        ``θ' = θ + h p'`` (Chen, Fox & Guestrin 2014, Algorithm 2, observed as
        :class:`~sgmcmc_verify.integrators.SGHMCRefresh`); the period becomes a
        multiple of ``L``.
    centre : array_like (d,), optional
        θ̂ of the ``"control-variate"`` estimator (required there, refused elsewhere).
    preconditioner : float or array_like, optional
        A fixed SPD ``G`` (scalar, diagonal vector or (d, d) matrix) for the
        ``"overdamped"`` integrator: ``x' = x − h G g + √(2h) L ξ`` with ``L Lᵀ = G``
        (Li et al. 2016, Algorithm 1 with ``G`` fixed, ``ε = 2h``).  Default ``I``.
    description : str

    Returns
    -------
    AffineChain

    Raises
    ------
    ValueError
        On an unsupported problem, a snapshot entry that is never refreshed, an
        RR/CA/WOR batch larger than ``N``, or more than :data:`MAX_TRANSITIONS`
        index sets to enumerate.
    """
    if not isinstance(problem, GaussianQuadratic):
        raise ValueError(f"exact moments need a GaussianQuadratic problem, got {problem.name}")
    if type(problem).prior_grad is not GaussianQuadratic.prior_grad:
        raise ValueError(
            "exact moments know GaussianQuadratic's Gaussian prior only; "
            f"{type(problem).__name__} overrides prior_grad"
        )
    h = positive("h", h)
    estimator = choice(
        "estimator", estimator, ("full", "minibatch", "aggregated", "control-variate")
    )
    integrator = choice("integrator", integrator, ("overdamped", "sghmc-euler", "sghmc-chen"))
    N, d = problem.N, problem.d
    if integrator == "sghmc-euler":
        friction = positive("friction", friction)
        if friction * h >= 1:
            raise ValueError(f"SVRHMC Algorithms 1-2 require Dh < 1, got D·h = {friction * h:g}")
    if integrator == "sghmc-chen":
        friction = positive("friction", friction)
    if refresh is not None:
        if integrator == "overdamped":
            raise ValueError("a momentum refresh needs a momentum integrator")
        refresh = positive_int("refresh", refresh)
    if injected is not None and (estimator != "full" or integrator == "overdamped"):
        raise ValueError(
            "injected gradient noise goes with the full gradient of a momentum integrator "
            "(SGNHT §3)"
        )
    if estimator == "full":
        access, n = None, 0
        partial, total = (), ()
    else:
        access = choice("access", access, ("RA", "WOR", "RR", "CA"))
        n = positive_int("n", n)
        if access != "RA" and n > N:
            raise ValueError(f"{access} draws n={n} distinct indices but N={N}")
    if (centre is None) != (estimator != "control-variate"):
        raise ValueError("a centre is required by, and only by, the control-variate estimator")
    if centre is not None:
        centre = np.asarray(centre, dtype=np.float64)
        if centre.shape != (d,) or not np.all(np.isfinite(centre)):
            raise ValueError(f"centre must be a finite vector of shape ({d},)")
    if preconditioner is None:
        G, G_root = np.eye(d), np.eye(d)
    else:
        if integrator != "overdamped":
            raise ValueError("a preconditioner applies to the overdamped integrator only")
        G = np.asarray(preconditioner, dtype=np.float64)
        G = np.eye(d) * G if G.ndim == 0 else (np.diag(G) if G.ndim == 1 else G)
        if G.shape != (d, d) or not np.allclose(G, G.T, rtol=0, atol=1e-12 * abs(G).max()):
            raise ValueError(f"the preconditioner must be symmetric ({d}, {d}), got {G.shape}")
        # Cholesky: any L with L Lᵀ = G gives the law (and fails unless G is SPD).
        try:
            G_root = np.linalg.cholesky(G)
        except np.linalg.LinAlgError:
            raise ValueError("the preconditioner G must be positive definite") from None
    part = frozenset(int(i) for i in partial)
    tot = frozenset(int(i) for i in total)
    if estimator != "aggregated":
        if part or tot:
            raise ValueError("only the aggregated estimator keeps a snapshot")
    else:
        if not part | tot >= set(range(N)) or max(part | tot) >= N or min(part | tot) < 0:
            # An entry refreshed by neither rule keeps α_i = ∇f_i(x^(0)) forever: the
            # chain then has no stationary law independent of x^(0).
            raise ValueError("every snapshot entry 0..N-1 must be in partial or total")
    if tot:
        epoch = positive_int("epoch", epoch)
    else:
        epoch = 1

    # Slots: every entry refreshed when visited has its own point; the entries
    # refreshed only all together at x^(k+1) (PTU, HSAG off H) start equal (at
    # x^(0)) and stay equal, so they share one point (SVRG's w).
    slot_of: dict[int, int] = {}
    if estimator == "aggregated":
        for i in sorted(part):
            slot_of[i] = len(slot_of)
        shared = [i for i in range(N) if i not in part]
        if shared:
            s = len(set(slot_of.values()))
            for i in shared:
                slot_of[i] = s
    n_slots = len(set(slot_of.values()))
    mom = integrator in ("sghmc-euler", "sghmc-chen")
    noise_root = math.sqrt(2 * friction * h) * np.eye(d)  # SVRHMC: √(2Dh) ξ
    if integrator == "sghmc-chen":
        noise_root = math.sqrt(2 * h) * _psd_root("A·I − B̂", friction, noise_estimate, d)
    inj_root = None
    if injected is not None:
        # SGNHT §3: ∇Ũ h = ∇U h + N(0, 2Bh), so the gradient carries √(2B/h)·ζ
        inj_root = math.sqrt(2 / h) * _psd_root("B", 0.0, -np.asarray(injected, float), d)
    col_theta = 0
    col_p = d if mom else None
    col_slot0 = (2 if mom else 1) * d
    nz = col_slot0 + n_slots * d
    labels = [f"theta[{a}]" for a in range(d)]
    if mom:
        labels += [f"p[{a}]" for a in range(d)]
    labels += [f"y{s}[{a}]" for s in range(n_slots) for a in range(d)]

    grads = {}  # (i, column) -> (A, b), memoised: the same few forms recur

    def grad(i: int, col: int):
        if (i, col) not in grads:
            grads[i, col] = _affine_grad(problem, i, col, nz)
        return grads[i, col]

    def slot_col(i: int) -> int:
        return col_slot0 + slot_of[i] * d

    # The Gaussian prior U_0 (zero for a flat one) is evaluated exactly by every estimator
    # (SVRHMC §2): ∇U_0(θ) = Λ_0 θ − Λ_0 μ_0.
    L0, m0 = problem.prior_precision, problem.prior_mean

    def estimate(S: tuple[int, ...]):
        """The gradient estimate as ``A z + b`` (AGLD eqs. (3), (4), (6)), prior included."""
        A, b = np.zeros((d, nz)), -L0 @ m0
        A[:, col_theta : col_theta + d] = L0
        if estimator == "full":
            for i in range(N):
                Ai, bi = grad(i, col_theta)
                A, b = A + Ai, b + bi
            return A, b
        w = N / n
        if estimator == "control-variate":
            # Baker et al. §3.1: ∇U(θ̂) + (N/n) Σ_{i∈S} (∇f_i(θ) − ∇f_i(θ̂)), the prior exact;
            # ∇f_i(θ̂) = Λ_i (θ̂ − c_i) is a constant.
            for i in range(N):
                b = b + problem.precisions[i] @ (centre - problem.centres[i])
            for i in S:
                Ai, bi = grad(i, col_theta)
                b_hat = problem.precisions[i] @ (centre - problem.centres[i])
                A, b = A + w * Ai, b + w * (bi - b_hat)
            return A, b
        for i in S:  # with multiplicity: eq. (4)/(6) sum over the drawn batch
            Ai, bi = grad(i, col_theta)
            A, b = A + w * Ai, b + w * bi
            if estimator == "aggregated":
                Ai, bi = grad(i, slot_col(i))
                A, b = A - w * Ai, b - w * bi
        if estimator == "aggregated":
            for i in range(N):
                Ai, bi = grad(i, slot_col(i))
                A, b = A + Ai, b + bi
        return A, b

    eye_d = np.eye(d)
    width = d if inj_root is None else 2 * d

    def step(S: tuple[int, ...], phase: int):
        A, b = estimate(S)
        M = np.eye(nz)
        c = np.zeros(nz)
        B = np.zeros((nz, width))
        th = slice(col_theta, col_theta + d)
        if not mom:
            # AGLD eq. (5): x' = x − h g + √(2h) ξ; with Li et al.'s fixed G (ε = 2h):
            # x' = x − h G g + √(2h) L ξ, L Lᵀ = G (G = L = I without a preconditioner).
            M[th] -= h * G @ A
            c[th] = -h * G @ b
            B[th, :d] = math.sqrt(2 * h) * G_root
        elif refresh is not None and phase % refresh == 0:
            # Chen et al. 2014 Alg. 2: p ~ N(0, I) afresh, then θ_1 = θ_0 + h p (no gradient)
            ps = slice(col_p, col_p + d)
            M[ps] = 0.0
            B[ps, :d] = eye_d
            B[th, :d] = h * eye_d
        else:
            # SVRHMC Alg. 1 lines 9-10: p' = (1 − Dh) p − h g + √(2Dh) ξ; θ' = θ + h p'
            # (SGNHT Alg. 1 with ξ = A: the same with √(2h) R ξ, R Rᵀ = A I − B̂).
            ps = slice(col_p, col_p + d)
            p_row = np.zeros((d, nz))
            p_row[:, ps] = (1 - friction * h) * eye_d
            p_row -= h * A
            M[ps] = p_row
            c[ps] = -h * b
            B[ps, :d] = noise_root
            if inj_root is not None:
                B[ps, d:] = -h * inj_root
            M[th] = M[th] + h * p_row
            c[th] = h * c[ps]
            B[th] = h * B[ps]
        # Partial refresh at x^(k) (the old θ): y_slot(i) ← θ_k for i ∈ S_k ∩ partial.
        for i in set(S) & part:
            rows = slice(slot_col(i), slot_col(i) + d)
            M[rows] = 0.0
            M[rows, th] = eye_d
            c[rows] = 0.0
            B[rows] = 0.0
        # Total refresh at x^(k+1) after the partial one: the new θ row, noise included.
        if tot and (phase + 1) % epoch == 0:
            for s in sorted({slot_of[i] for i in tot}):
                rows = slice(col_slot0 + s * d, col_slot0 + (s + 1) * d)
                M[rows] = M[th]
                c[rows] = c[th]
                B[rows] = B[th]
        return M, c, B

    law = _access_law(access, N, n)
    period = math.lcm(law.period, epoch, refresh or 1)
    return AffineChain(
        description=description or f"{estimator} / {access} / {integrator}",
        problem=problem,
        h=h,
        d=d,
        labels=tuple(labels),
        period=period,
        access=law,
        step=step,
        momentum=mom,
        slots=n_slots,
        n=n,
        epoch=epoch,
    )


def _psd_root(name: str, a: float, S: Any, d: int) -> np.ndarray:
    """Symmetric ``R``, ``R Rᵀ = a I − S`` (``S`` scalar or (d, d)); ``ValueError`` if not PSD."""
    S = np.asarray(S, dtype=np.float64)
    X = a * np.eye(d) - (S * np.eye(d) if S.ndim == 0 else S)
    if X.shape != (d, d) or not np.allclose(X, X.T, rtol=0, atol=1e-12 * max(1.0, abs(X).max())):
        raise ValueError(f"{name} must be a scalar or a symmetric ({d}, {d}) matrix")
    w, V = np.linalg.eigh((X + X.T) / 2)
    if w.min() < -1e-12 * max(1.0, abs(w).max()):
        raise ValueError(
            f"{name} must be positive semi-definite (smallest eigenvalue {w.min():.3g})"
        )
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


def _count(name: str, k: int) -> None:
    if k > MAX_TRANSITIONS:
        raise ValueError(f"{name}: {k} index sets to enumerate (more than {MAX_TRANSITIONS})")


def _merge(items) -> tuple[tuple[float, tuple[int, ...], Hashable], ...]:
    """Sum the probabilities of equal ``(S, a')``; ``S`` as a sorted tuple (a multiset)."""
    acc: dict[tuple[tuple[int, ...], Hashable], float] = {}
    for p, S, a in items:
        key = (tuple(sorted(S)), a)
        acc[key] = acc.get(key, 0.0) + p
    return tuple((p, S, a) for (S, a), p in acc.items())


def _access_law(access: str | None, N: int, n: int) -> AccessLaw:
    """The Markov chain of the index sets of AGLD §3.1 (and the stream reading of access.py)."""
    if access is None:
        return AccessLaw("none", None, 1, lambda a: ((1.0, (), None),))
    if access == "RA":
        # n i.i.d. uniform indices: multisets with their multinomial probabilities
        # (the estimators depend on the batch only as a multiset).  Enumerated when
        # first needed, so that building a chain stays cheap.
        @functools.cache
        def ra(a):
            _count("RA", math.comb(N + n - 1, n))
            law = []
            for S in itertools.combinations_with_replacement(range(N), n):
                ways = math.factorial(n)
                for m in np.bincount(S, minlength=N):
                    ways //= math.factorial(int(m))
                law.append((ways / N**n, S, None))
            return tuple(law)

        return AccessLaw("RA", None, 1, ra)
    if access == "WOR":

        @functools.cache
        def wor(a):
            _count("WOR", math.comb(N, n))
            p = 1.0 / math.comb(N, n)
            return tuple((p, S, None) for S in itertools.combinations(range(N), n))

        return AccessLaw("WOR", None, 1, wor)
    if access == "CA":
        # S_k = {kn, ..., kn + n − 1} mod N; the state is the stream position kn mod N,
        # back at 0 after N / gcd(N, n) iterations.
        def ca(pos):
            return ((1.0, tuple(sorted((pos + j) % N for j in range(n))), (pos + n) % N),)

        return AccessLaw("CA", 0, N // math.gcd(N, n), ca)

    # RR: the state is the set of indices read in the current pass (its size is the
    # position).  The next batch is a uniform subset of the unread ones; a batch that
    # reaches the end of the pass is completed by the first indices of a fresh,
    # independent permutation, i.e. by a uniform subset of [N] of the missing size.
    @functools.cache
    def rr(used: frozenset):
        rest = [i for i in range(N) if i not in used]
        t = min(n, len(rest))
        _count("RR", math.comb(len(rest), t))
        firsts = list(itertools.combinations(rest, t))
        out = []
        if t < len(rest):
            for A in firsts:
                out.append((1.0 / len(firsts), A, used | frozenset(A)))
        else:
            seconds = list(itertools.combinations(range(N), n - t))
            _count("RR", len(firsts) * len(seconds))
            for A in firsts:
                for B in seconds:
                    out.append((1.0 / (len(firsts) * len(seconds)), A + B, frozenset(B)))
        return _merge(out)

    return AccessLaw("RR", frozenset(), math.lcm(N, n) // n, rr)


# --------------------------------------------------------------------------------------
# Moment maps
# --------------------------------------------------------------------------------------


def _augmented(M, c, B):
    """``M̃ = [[1, 0], [c, M]]`` and ``B̃ = [[0], [B]]`` acting on ``z̃ = (1, z)``."""
    nz = M.shape[0]
    Mt = np.zeros((nz + 1, nz + 1))
    Mt[0, 0] = 1.0
    Mt[1:, 0] = c
    Mt[1:, 1:] = M
    Bt = np.zeros((nz + 1, B.shape[1]))
    Bt[1:] = B
    return Mt, Bt


def _phase_maps(chain: AffineChain) -> list[np.ndarray]:
    """Linear maps of ``vec Q`` from phase 0 to phases ``0..P`` (the last: one period).

    Propagates, per access state ``a``, the map ``X_a`` from ``Q_0`` to
    ``E[z̃z̃ᵀ 1{a_k = a}]`` and sums over ``a``.  Row-major ``vec``, so
    ``vec(M̃ Q M̃ᵀ) = (M̃ ⊗ M̃) vec Q``; the noise enters as
    ``vec(B̃B̃ᵀ) · Q[0, 0]``, i.e. the rank-one ``vec(B̃B̃ᵀ) e_0ᵀ``.
    """
    if chain.period > MAX_PERIOD:
        hint = (
            "; a snapshot that is never refreshed is cv-sgld (a fixed centre, period 1)"
            if chain.epoch > MAX_PERIOD
            else ""
        )
        raise ValueError(
            f"{chain.description}: period {chain.period} (more than {MAX_PERIOD}): the exact "
            f"moment equations build one map per phase{hint}"
        )
    m = chain.nz + 1
    size = m * m
    e0 = np.zeros(size)
    e0[0] = 1.0
    law = chain.access

    def one(S, phase):
        Mt, Bt = _augmented(*chain.step(S, phase))
        return np.kron(Mt, Mt) + np.outer((Bt @ Bt.T).ravel(), e0)

    X: dict[Hashable, np.ndarray] = {law.initial: np.eye(size)}
    out = [np.eye(size)]
    for k in range(chain.period):
        # Average the one-step maps over S for each pair (a, a') first: one product each.
        avg: dict[tuple[Hashable, Hashable], np.ndarray] = {}
        for a in X:
            for p, S, a2 in law.transitions(a):
                if (a, a2) not in avg:
                    avg[a, a2] = np.zeros((size, size))
                avg[a, a2] += p * one(S, k)
        new: dict[Hashable, np.ndarray] = {}
        for (a, a2), K in avg.items():
            new[a2] = new[a2] + K @ X[a] if a2 in new else K @ X[a]
        X = new
        out.append(sum(X.values()))
    if set(X) != {law.initial}:  # the period must bring the access back to its start
        raise AssertionError(f"access law {law.name} is not periodic with period {chain.period}")
    return out


def _split(chain: AffineChain, q: np.ndarray):
    """Mean and covariance of ``z`` from ``vec Q``."""
    m = chain.nz + 1
    Q = q.reshape(m, m)
    Q = 0.5 * (Q + Q.T)  # rounding can break the exact symmetry
    mean = Q[1:, 0].copy()
    cov = Q[1:, 1:] - np.outer(mean, mean)
    return mean, 0.5 * (cov + cov.T)


@dataclass(frozen=True)
class ChainMoments:
    """Means and covariances of the full state ``z`` at a list of iterations or phases.

    Attributes
    ----------
    at : ndarray of int
        The iterations (transient) or phases (stationary) the rows refer to.
    state_mean : ndarray, shape (len(at), nz)
    state_cov : ndarray, shape (len(at), nz, nz)
    labels : tuple of str
        Names of the coordinates of ``z``.
    d : int
    provenance : str
    """

    at: np.ndarray
    state_mean: np.ndarray
    state_cov: np.ndarray
    labels: tuple[str, ...]
    d: int
    provenance: str

    @property
    def mean(self) -> np.ndarray:
        """``E θ`` at each entry of ``at``: shape (len(at), d)."""
        return self.state_mean[:, : self.d]

    @property
    def cov(self) -> np.ndarray:
        """``Cov θ`` at each entry of ``at``: shape (len(at), d, d)."""
        return self.state_cov[:, : self.d, : self.d]


@dataclass(frozen=True)
class StationaryMoments(ChainMoments):
    """Periodic-stationary moments of ``θ`` (and of the whole state) at every phase.

    Attributes
    ----------
    period : int
        ``P``; ``at = 0..P−1``.
    time_mean : ndarray, shape (d,)
        ``(1/P) Σ_j E θ_j``: the limit of the time average of ``θ_k``.
    time_cov : ndarray, shape (d, d)
        ``(1/P) Σ_j E θ_jθ_jᵀ − time_mean time_meanᵀ``: what the covariance of the
        pooled draws of one long run converges to.
    spectral_radius : float
        Of the period's moment map (without the constant); below 1 for a stationary law.
    description : str
        The chain.
    """

    period: int = 1
    time_mean: np.ndarray = field(default_factory=lambda: np.zeros(0))
    time_cov: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    spectral_radius: float = 0.0
    description: str = ""

    def exact(self) -> dict[str, Exact]:
        """The reference values with their provenance, as :class:`Exact`."""
        src = f"{self.provenance}; {self.description}"
        return {
            "phase_mean": Exact(self.mean, f"{src}; periodic-stationary E θ at phases 0..P-1"),
            "phase_cov": Exact(self.cov, f"{src}; periodic-stationary Cov θ at phases 0..P-1"),
            "time_mean": Exact(self.time_mean, f"{src}; average of E θ over one period"),
            "time_cov": Exact(self.time_cov, f"{src}; covariance of θ pooled over one period"),
        }


def _symmetric_radius(K: np.ndarray) -> float:
    """Spectral radius of the moment map on the symmetric matrices, ``Q[0, 0]`` held at 1.

    ``K`` acts on ``vec Q`` (row-major) for ``Q = E[z̃ z̃ᵀ]`` of size ``n × n`` and maps
    symmetric matrices to symmetric ones; second moments live there, so stationarity is
    decided on that subspace, of dimension n(n+1)/2 instead of n²: an eigenvalue problem
    about 8× cheaper (it dominated exact laws of chains with snapshot tables).  The map
    Q ↦ E[M̃ Q M̃ᵀ] is positive (it preserves the cone of positive semidefinite matrices),
    so its spectral radius is attained at a symmetric eigenvector (Krein–Rutman) and
    equals the radius on all of vec Q (``tests/test_exact_moments.py`` checks both).
    """
    n = math.isqrt(K.shape[0])
    iu, ju = np.triu_indices(n)
    upper = iu * n + ju
    lower = ju * n + iu
    rows = K[upper]
    Ks = rows[:, upper] + rows[:, lower]
    diag = iu == ju
    Ks[:, diag] = rows[:, upper[diag]]  # a diagonal entry is one coordinate, not two
    # drop Q[0, 0] (first in this order): it is held at 1
    return float(np.max(np.abs(np.linalg.eigvals(Ks[1:, 1:]))))


def stationary_moments(chain: AffineChain) -> StationaryMoments:
    """Periodic-stationary mean and covariance of the chain at every phase.

    Solves ``vec Q_0 = K_P vec Q_0`` with ``Q_0[0, 0] = 1`` (float64, one linear
    solve), ``K_P`` the moment map over one period (see the module docstring),
    then applies the maps from phase 0 to phases ``1..P−1``.

    Parameters
    ----------
    chain : AffineChain

    Returns
    -------
    StationaryMoments

    Raises
    ------
    ValueError
        If the period map has spectral radius ``≥ 1`` (no stationary second
        moments: the step size is too large for this chain).
    """
    maps = _phase_maps(chain)
    K = maps[-1]
    size = K.shape[0]
    # Q[0, 0] = 1 is invariant (the first row of M̃ is e_0ᵀ, that of B̃ zero); the rest
    # solves (I − K_rr) q_r = K_r0.
    Krr = K[1:, 1:]
    rho = _symmetric_radius(K)
    if not rho < 1.0:
        raise ValueError(
            f"{chain.description}: the moment map has spectral radius {rho:.6g} >= 1, "
            "so the second moments have no stationary value (step size too large)"
        )
    q0 = np.empty(size)
    q0[0] = 1.0
    q0[1:] = np.linalg.solve(np.eye(size - 1) - Krr, K[1:, 0])
    qs = [Phi @ q0 for Phi in maps[:-1]]
    means, covs = zip(*(_split(chain, qq) for qq in qs), strict=True)
    state_mean, state_cov = np.array(means), np.array(covs)
    d = chain.d
    tm = state_mean[:, :d].mean(axis=0)
    second = state_cov[:, :d, :d] + np.einsum("pi,pj->pij", state_mean[:, :d], state_mean[:, :d])
    tc = second.mean(axis=0) - np.outer(tm, tm)
    return StationaryMoments(
        at=np.arange(chain.period),
        state_mean=state_mean,
        state_cov=state_cov,
        labels=chain.labels,
        d=d,
        provenance=PROVENANCE,
        period=chain.period,
        time_mean=tm,
        time_cov=0.5 * (tc + tc.T),
        spectral_radius=rho,
        description=chain.description,
    )


def transient_moments(
    chain: AffineChain,
    steps: Sequence[int],
    *,
    theta0: Any = None,
    p0: str = "zeros",
    z0: Any = None,
) -> ChainMoments:
    """Exact mean and covariance of the state after each of ``steps`` iterations.

    Starts from the deterministic ``θ_0`` with every snapshot point at ``θ_0``
    (AGLD Algorithm 1 line 1; SVRHMC Alg. 1 line 4, Alg. 2 line 3).

    Parameters
    ----------
    chain : AffineChain
    steps : sequence of int >= 0
        Iteration counts (the driver's draw ``t`` is after ``t + 1`` iterations).
    theta0 : array_like, shape (d,), optional
        Default zeros (as :func:`sgmcmc_verify.run`).
    p0 : {"zeros", "normal"}
        Initial momentum (HMC only): zero, or standard normal independent of θ_0.
    z0 : array_like, shape (nz,), optional
        The whole deterministic initial state (overrides ``theta0`` and ``p0``); for
        chains whose state is not laid out as θ, p, snapshot points (e.g. probed ones,
        :mod:`sgmcmc_verify.exact.probe`).

    Returns
    -------
    ChainMoments
        Provenance: forward iteration of the moment equations, float64.
    """
    steps_arr = np.array([positive_int("step", s, minimum=0) for s in steps], dtype=int)
    choice("p0", p0, ("zeros", "normal"))
    d, nz = chain.d, chain.nz
    given = z0 is not None
    if given:
        z0 = np.asarray(z0, dtype=np.float64)
        if z0.shape != (nz,) or not np.all(np.isfinite(z0)):
            raise ValueError(f"z0 must be a finite array of shape ({nz},), got {z0.shape}")
    else:
        th0 = np.zeros(d) if theta0 is None else np.asarray(theta0, dtype=np.float64)
        if th0.shape != (d,):
            raise ValueError(f"theta0 must have shape ({d},), got {th0.shape}")
        z0 = np.zeros(nz)
        z0[:d] = th0
        first_slot = 2 * d if chain.momentum else d
        for s in range(chain.slots):
            z0[first_slot + s * d : first_slot + (s + 1) * d] = th0
    zt = np.concatenate(([1.0], z0))
    Q = np.outer(zt, zt)
    if chain.momentum and p0 == "normal" and not given:
        Q[1 + d : 1 + 2 * d, 1 + d : 1 + 2 * d] += np.eye(d)
    maps = _phase_maps(chain)
    P = chain.period
    out: dict[int, np.ndarray] = {}
    q, k = Q.ravel(), 0
    # At every multiple of P the access state is its initial one surely, so the
    # moments after cP + j iterations are Φ_j Φ_P^c q_0.
    for s in sorted({int(s) for s in steps_arr}):
        while k + P <= s:
            q, k = maps[-1] @ q, k + P
        out[s] = maps[s - k] @ q
    means, covs = zip(*(_split(chain, out[int(s)]) for s in steps_arr), strict=True)
    return ChainMoments(
        at=steps_arr,
        state_mean=np.array(means),
        state_cov=np.array(covs),
        labels=chain.labels,
        d=d,
        provenance="moment equations iterated forward from θ_0, float64",
    )


# --------------------------------------------------------------------------------------
# Registry names
# --------------------------------------------------------------------------------------

_AGLD = {f"{s}-{a}" for s in ("ptu", "ppu", "tmu", "hsag") for a in ("ra", "rr", "ca")}

#: Registry names :func:`affine_chain` knows, with the equations it builds them from.
SUPPORTED: dict[str, str] = {
    "lmc": "AGLD eqs. (3), (5)",
    "sgld": "AGLD eqs. (4), (5), RA",
    "sgld-wor": "AGLD eqs. (4), (5), n distinct indices",
    **{
        name: (
            "AGLD Algorithm 1, eqs. (5)-(6); "
            + {
                "ptu": "Strategy 2 (PTU)",
                "ppu": "Strategy 3 (PPU)",
                "tmu": "Strategy 4 (TMU)",
                "hsag": "HSAG (Reddi et al. 2015)",
            }[name.split("-")[0]]
            + f"; {name.split('-')[1].upper()} (§3.1)"
        )
        for name in sorted(_AGLD)
    },
    "svrg-ld": "AGLD eqs. (5)-(6) with Strategy 2 (PTU) and RA: SVRG-LD",
    "cv-sgld": "Baker et al. 2019 §3.1, Algorithm 1 (SGLD-CV): a fixed centre, RA",
    "psgld-fixed": "Li et al. 2016 Algorithm 1 with G fixed (ε = 2h), minibatch RA",
    "sghmc-refresh": "Chen, Fox & Guestrin 2014 Algorithm 2 (M = I), momentum redrawn every L",
    "saga-ld": "AGLD eqs. (5)-(6) with Strategy 3 (PPU) and RA: SAGA-LD",
    "sghmc-svr": "SVRHMC eqs. (1)-(2): SGHMC with a uniform minibatch",
    "svrg-hmc": "SVRHMC Algorithm 1",
    "saga-hmc": "SVRHMC Algorithm 2",
}

_ACCEPTED = {
    "lmc": set(),
    "sgld": {"n"},
    "sgld-wor": {"n"},
    "svrg-ld": {"n", "D", "replace"},
    "cv-sgld": {"n", "centre"},
    "psgld-fixed": {"n", "G"},
    "sghmc-refresh": {"n", "A", "B_hat", "L", "gradient", "B", "p0"},
    "saga-ld": {"n", "replace"},
    "sghmc-svr": {"b", "D", "replace", "p0"},
    "svrg-hmc": {"b", "K", "D", "replace", "p0"},
    "saga-hmc": {"b", "D", "replace", "p0"},
}


def affine_chain(name: str, problem: Problem, *, h: float, **params: Any) -> AffineChain:
    """The affine recursion of registry algorithm ``name`` with registry-style parameters.

    Parameter names and defaults follow :mod:`sgmcmc_verify.registry` (restated
    here, not imported, so that a change there is caught by the tests): AGLD's
    ``n`` (batch, default ``min(10, N)``) and ``D`` (epoch, default ``⌈N/n⌉``),
    HSAG's ``saga_set`` (default the first ``N // 2`` indices); SVRHMC's ``b``
    (batch), ``K`` (epoch, default ``⌈N/b⌉``) and ``D`` (friction, default 1);
    ``replace`` (default True: RA, else WOR); cv-SGLD's ``centre`` (default the
    Gaussian's mode, its mean) and pSGLD's fixed ``G`` (default 0.5).  ``storage`` and ``p0`` are
    accepted and do not change the recursion (``p0`` matters only for
    :func:`transient_moments`).

    Parameters
    ----------
    name : str
        One of :data:`SUPPORTED`.
    problem : GaussianQuadratic
    h : float
    **params

    Returns
    -------
    AffineChain
    """
    name = choice("algorithm with exact moments", name, SUPPORTED)
    if name in _ACCEPTED:
        accepted = _ACCEPTED[name]
    else:  # the AGLD grid: registry parameters n, D (not for PPU), saga_set (HSAG), storage
        accepted = {"n", "storage"} | ({"D"} if not name.startswith("ppu") else set())
        accepted |= {"saga_set"} if name.startswith("hsag") else set()
    unknown = set(params) - accepted
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)} for {name}; accepted: {sorted(accepted)}"
        )
    N = problem.N
    desc = f"{name} ({SUPPORTED[name]}), h={h:g}"
    if name == "lmc":
        return build_chain(problem, h=h, estimator="full", description=desc)
    every = tuple(range(N))
    if name in ("sghmc-svr", "svrg-hmc", "saga-hmc"):
        b = int(params.get("b", min(10, N)))
        access = "RA" if params.get("replace", True) else "WOR"
        common = dict(
            h=h,
            access=access,
            n=b,
            integrator="sghmc-euler",
            friction=float(params.get("D", 1.0)),
        )
        desc += f", b={b}, friction D={common['friction']:g}, {access}"
        if name == "sghmc-svr":
            return build_chain(problem, estimator="minibatch", description=desc, **common)
        if name == "svrg-hmc":
            K = int(params.get("K", math.ceil(N / b)))
            return build_chain(
                problem,
                estimator="aggregated",
                total=every,
                epoch=K,
                description=desc + f", K={K}",
                **common,
            )
        return build_chain(
            problem, estimator="aggregated", partial=every, description=desc, **common
        )
    n = int(params.get("n", min(10, N)))
    if name == "sghmc-refresh":
        A, B_hat, L = float(params.get("A", 1.0)), params.get("B_hat", 0.0), params.get("L", 10)
        kind = choice(
            "gradient", params.get("gradient", "minibatch"), ("minibatch", "full", "injected")
        )
        common = dict(h=h, integrator="sghmc-chen", friction=A, noise_estimate=B_hat, refresh=L)
        desc += f", A={A:g}, B_hat={np.asarray(B_hat).tolist()}, L={L}, gradient {kind}"
        if kind == "minibatch":
            n = int(params.get("n", min(10, N)))
            return build_chain(
                problem, estimator="minibatch", access="RA", n=n, description=desc + f", n={n}",
                **common,
            )  # fmt: skip
        injected = params.get("B", 1.0) if kind == "injected" else None
        return build_chain(problem, estimator="full", injected=injected, description=desc, **common)
    if name == "cv-sgld":
        centre = params.get("centre")
        centre = problem.exact["mean"].value if centre is None else centre
        return build_chain(
            problem,
            h=h,
            estimator="control-variate",
            access="RA",
            n=n,
            centre=centre,
            description=desc + f", n={n}, centre={np.round(np.asarray(centre), 6).tolist()}",
        )
    if name == "psgld-fixed":
        G = params.get("G", 0.5)
        return build_chain(
            problem,
            h=h,
            estimator="minibatch",
            access="RA",
            n=n,
            preconditioner=G,
            description=desc + f", n={n}, G={np.asarray(G).tolist()}",
        )
    if name in ("sgld", "sgld-wor"):
        access = "RA" if name == "sgld" else "WOR"
        return build_chain(
            problem,
            h=h,
            estimator="minibatch",
            access=access,
            n=n,
            description=desc + f", n={n}",
        )
    if name in ("svrg-ld", "saga-ld"):
        access = "RA" if params.get("replace", True) else "WOR"
        snap, acc = ("ptu" if name == "svrg-ld" else "ppu"), access
    else:
        snap, acc = name.split("-")
        acc = acc.upper()
    D = int(params.get("D", math.ceil(N / n)))
    if snap == "ptu":
        kw = dict(total=every, epoch=D)
    elif snap == "ppu":
        kw = dict(partial=every)
    elif snap == "tmu":
        kw = dict(partial=every, total=every, epoch=D)
    else:
        H = params.get("saga_set")
        H = tuple(range(N // 2)) if H is None else tuple(int(i) for i in H)
        kw = dict(partial=H, total=tuple(i for i in range(N) if i not in H), epoch=D)
    extra = f", n={n}" + (f", D={D}" if "epoch" in kw else "") + (f", {acc}")
    return build_chain(
        problem, h=h, estimator="aggregated", access=acc, n=n, description=desc + extra, **kw
    )
