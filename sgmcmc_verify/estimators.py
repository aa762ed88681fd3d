"""Gradient estimators as values carrying their per-chain state.

Every estimator follows the same four-call protocol (:class:`Estimator`), so
integrators never need to know which one they are given:

``init(problem, theta, rng) -> state``
    Build the per-chain state (snapshot tables, access permutations, ...).
``draw(problem, state, chains, rng) -> (rand, state)``
    Draw this iteration's randomness (indices, uniforms, Gaussian noise).  Kept
    separate so a trajectory can be pinned by passing the same ``rand`` to two
    implementations.
``estimate(problem, theta, state, rand, context=None) -> (grad, cache)``
    The estimate of ``∇U(θ)``, shape ``(chains, d)``, and whatever was computed
    that :meth:`update` may reuse.
``update(problem, state, x, x_next, rand, cache) -> state``
    Bookkeeping after the step: ``x`` is where the gradient was evaluated and
    ``x_next`` where the next one will be (``θ`` for Euler schemes, ``θ + h/2 p``
    for the symmetric splitting); snapshot refreshes "at ``x^{(k+1)}``" use it.

The prior gradient ``∇U_0`` is always evaluated exactly (see
:mod:`sgmcmc_verify.problems.base`).  Estimators holding an ``(chains, N, d)``
table update it in place: the state passed to :meth:`update` is consumed, to
avoid copying O(chains·N·d) numbers every step.  The AGLD tables refreshed at every
batch entry (PPU, TMU), and SAGA on a :class:`GLMProblem`, already write the refreshed
entries during :meth:`estimate`, right after reading them, while the rows are in the
cache (on a GLM block by block); the state is then consumed by the estimate, and
:meth:`update` does the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np
from scipy.special import logsumexp

from ._rowsum import middle_sum
from ._validation import choice, nonnegative, positive, positive_int
from .access import RA, WOR, AccessState, DataAccess
from .problems.base import GLMProblem, Problem
from .snapshots import PTU, SnapshotStrategy

__all__ = [
    "AGLD",
    "EWSG",
    "SAGA",
    "SVRG",
    "ControlVariate",
    "Estimator",
    "FullGradient",
    "InjectedNoise",
    "Minibatch",
    "first_occurrence",
    "snapshot_ages",
    "snapshot_nbytes",
]


class Estimator(Protocol):
    """The protocol every gradient estimator implements (see module docstring)."""

    name: str

    def init(self, problem: Problem, theta: np.ndarray, rng: np.random.Generator) -> Any: ...

    def draw(
        self, problem: Problem, state: Any, chains: int, rng: np.random.Generator
    ) -> tuple[Any, Any]: ...

    def estimate(
        self, problem: Problem, theta: np.ndarray, state: Any, rand: Any, context: Any = None
    ) -> tuple[np.ndarray, Any]: ...

    def update(
        self,
        problem: Problem,
        state: Any,
        theta: np.ndarray,
        theta_new: np.ndarray,
        rand: Any,
        cache: Any,
    ) -> Any: ...

    def chosen_indices(self, rand: Any, cache: Any) -> np.ndarray | None:
        """The data indices this step used, shape (chains, b), or ``None``."""
        ...


def first_occurrence(idx: np.ndarray, N: int | None = None) -> np.ndarray:
    """Mask of the first occurrence of each index in every row of ``idx`` (chains, b).

    With-replacement batches may repeat an index; running sums over a snapshot
    table must count each refreshed entry once.  ``N``, when given, bounds the indices
    (``0 ≤ idx < N``): they are then compared as the narrowest unsigned integers that
    hold them (1.7× faster at 1e4 chains, b = 10, N = 100, measured).
    """
    chains, b = idx.shape
    if b > _PAIRWISE_MAX_B:
        # O(b log b) per row: a stable sort puts the first occurrence first in its run.
        order = np.argsort(idx, axis=1, kind="stable")
        s = np.take_along_axis(idx, order, axis=1)
        first = np.ones((chains, b), dtype=bool)
        first[:, 1:] = s[:, 1:] != s[:, :-1]
        out = np.empty_like(first)
        np.put_along_axis(out, order, first, axis=1)
        return out
    # The b(b−1)/2 comparisons of entry j with entry j − s, contiguous (b − s, chains)
    # blocks for each shift s: cheaper than a (chains, b, b) comparison cube for the small
    # batches used here, and 2 (b − 1) calls instead of b(b − 1) (2–4× faster below 1e3
    # chains, 1.1× at 1e4, measured for b = 10).
    narrow = idx.dtype if N is None else np.min_scalar_type(max(N - 1, 0))
    cols = idx.T.astype(narrow, order="C")
    out = np.ones((b, chains), dtype=bool)
    for s in range(1, b):
        out[s:] &= cols[s:] != cols[:-s]
    # C order: a caller's matmul with this mask takes numpy's BLAS path only then.
    return np.ascontiguousarray(out.T)


#: Batch size above which :func:`first_occurrence` sorts instead of comparing pairs.
_PAIRWISE_MAX_B = 24


def flat_rows(idx: np.ndarray, N: int) -> np.ndarray:
    """Row ``c·N + i`` of the ``(chains·N, d)`` view of a table, for ``i = idx[c, j]``.

    One integer index on the first axis is numpy's fastest gather/scatter path
    (≈ 2–6× ``take_along_axis``/``put_along_axis`` on the 3-d table).
    """
    return idx + N * np.arange(idx.shape[0])[:, None]


def table_rows(table: np.ndarray) -> np.ndarray:
    """The ``(chains·N, ...)`` view of a ``(chains, N, ...)`` table; raises rather than copy.

    Writes go through this view, so it must alias the table (a C-contiguous
    table always can).
    """
    return np.reshape(table, (-1, *table.shape[2:]), copy=False)


def row_items(a: np.ndarray) -> np.ndarray:
    """The rows of ``a`` (shape ``(..., d)``, rows contiguous) as one opaque item each.

    Shape ``a.shape[:-1]``, aliasing ``a``.  A fancy assignment copies such an item in
    one block, where float rows go element by element: 1.3–1.5× faster measured for
    the 80-byte rows of a d = 10 table.  Raises rather than copy.
    """
    return a.view(np.dtype((np.void, a.shape[-1] * a.itemsize)))[..., 0]


def take_rows(items: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``table_rows(t)[rows]``, shape ``(*rows.shape, d)``, from ``row_items(table_rows(t))``.

    A copy, gathered one row per item: 1.3× faster than ``np.take(…, axis=0)`` on the
    float rows, measured for the 80-byte rows of a d = 10 table.
    """
    d = items.itemsize // 8
    return np.take(items, rows).view(np.float64).reshape(*rows.shape, d)


def fill_by_chunks(
    out: np.ndarray,
    make: Callable[[np.ndarray], np.ndarray],
    theta: np.ndarray,
    cols: np.ndarray | None = None,
    block_bytes: int = 2**19,
    then: Callable[[slice], None] | None = None,
    into: bool = False,
) -> None:
    """``out[c] = make(theta[c])`` (or ``out[c, cols]``) by blocks of chains, in place.

    Filling a preallocated table block by block keeps the temporaries of ``make``
    (a gathered ``Z[idx]``, the result before it is copied) at a few blocks of
    ``block_bytes`` of ``out`` (and at most 1/64 of it each) instead of twice the table.
    ``then(sl)``, if given, runs after the block ``sl`` of chains is written, while it is
    still in the cache (a second pass over the table would read it back from memory).
    With ``into`` (and no ``cols``), ``make(theta[sl], out=out[sl])`` is called: it may
    write the block itself and return it, saving the result's temporary and its copy.
    """
    chains = theta.shape[0]
    parts = max(64, -(-out.nbytes // block_bytes))
    step = -(-chains // parts)
    for lo in range(0, chains, step):
        sl = slice(lo, min(lo + step, chains))
        if cols is None:
            dst = out[sl]
            got = make(theta[sl], out=dst) if into else make(theta[sl])
            if got is not dst:
                dst[...] = got
        else:
            out[sl, cols] = make(theta[sl])
        if then is not None:
            then(sl)


#: Bytes of one ``(block, b, d)`` temporary in the blocked SAGA/PPU steps.  Temporaries of
#: the full ``(chains, b, d)`` size (8 MB at 1e4 chains, b = d = 10) are fresh pages from the
#: kernel at every step (glibc hands such blocks back), and their page faults cost more than
#: the arithmetic; blocks this small are reused from the heap and stay in the L2 cache.
#: 128 KB: as fast as 256 KB for SAGA/PPU at 1e4 chains (measured 4–6 % faster), and the
#: block temporaries stay below 1 % of a PPU table's step peak.
STEP_BLOCK_BYTES = 2**17


def chain_blocks(chains: int, bytes_per_chain: int) -> list[slice]:
    """Slices of about :data:`STEP_BLOCK_BYTES` / ``bytes_per_chain`` chains covering ``chains``."""
    step = max(1, STEP_BLOCK_BYTES // max(1, bytes_per_chain))
    return [slice(lo, min(lo + step, chains)) for lo in range(0, chains, step)]


def data_grad_sum(problem: Problem, theta: np.ndarray) -> np.ndarray:
    """``Σ_i ∇f_i(θ) = ∇U(θ) − ∇U_0(θ)``, shape (chains, d): the snapshot gradient of SVRG/PTU.

    Through the problem's full gradient (a closed form where one exists) rather
    than a ``(chains, N, d)`` table of components.
    """
    return problem.grad(theta) - problem.prior_grad(theta)


class _Stateless:
    """Mixin for estimators whose only state is ``None``."""

    def chosen_indices(self, rand, cache):
        return None

    def init(self, problem, theta, rng):
        return None

    def update(self, problem, state, theta, theta_new, rand, cache):
        return state


class _UniformBatch:
    """Mixin: ``b`` (or ``n``) uniform indices per step, with or without replacement.

    Subclasses set :attr:`batch` (the batch size) and ``replace``.
    """

    replace: bool

    @property
    def batch(self) -> int:
        raise NotImplementedError

    @property
    def access(self) -> DataAccess:
        return RA(self.batch) if self.replace else WOR(self.batch)

    def draw(self, problem, state, chains, rng):
        idx, _ = self.access.draw(AccessState(0, 0, None), chains, problem.N, rng)
        return idx, state

    def chosen_indices(self, rand, cache):
        return rand


@dataclass(frozen=True)
class FullGradient(_Stateless):
    """The exact gradient ``∇U(θ)`` (LMC, AGLD eq. (3))."""

    name = "full"

    def draw(self, problem, state, chains, rng):
        return None, state

    def estimate(self, problem, theta, state, rand, context=None):
        return problem.grad(theta), None


@dataclass(frozen=True)
class Minibatch(_UniformBatch, _Stateless):
    """Uniform minibatch ``∇U_0(θ) + (N/n) Σ_{i∈S} ∇f_i(θ)`` (AGLD eq. (4); SVRHMC §2).

    Parameters
    ----------
    n : int
        Batch size.
    replace : bool
        With replacement (RA; the SGLD of AGLD eq. (4)) or without (WOR).
    """

    n: int
    replace: bool = True
    name = "minibatch"

    def __post_init__(self) -> None:
        positive_int("n (batch size)", self.n)

    @property
    def batch(self) -> int:
        return self.n

    def init(self, problem, theta, rng):
        self.access.check(problem.N)
        return None

    def estimate(self, problem, theta, state, rand, context=None):
        g = problem.component_grad_sum(theta, rand)
        return problem.prior_grad(theta) + (problem.N / self.n) * g, None


@dataclass(frozen=True)
class ControlVariate(Minibatch):
    """Minibatch gradient with a control variate at a fixed centre ``θ̂`` (SGLD-CV).

    Baker, Fearnhead, Fox & Nemeth (2019), "Control variates for stochastic gradient
    MCMC", *Statistics and Computing* 29, §3.1 and Algorithm 1 (SGLD-CV):

    .. math::

        \\hat\\nabla U(\\theta) = \\nabla U(\\hat\\theta) + \\frac{N}{n} \\sum_{i \\in S}
        \\bigl(\\nabla f_i(\\theta) - \\nabla f_i(\\hat\\theta)\\bigr),

    ``S`` a uniform minibatch of ``n`` indices (with replacement, as the package's
    SGLD), ``θ̂`` computed once before sampling and never refreshed (unlike SVRG's
    epoch snapshot).  Baker et al. fold the prior into the ``f_i`` (``f_0/N`` each);
    here the prior is evaluated exactly, as by every estimator of the package, which
    gives the same estimate: the prior terms of the sum cancel to ``∇U_0(θ)``.

    Parameters
    ----------
    n : int
        Batch size.
    centre : array_like, shape (d,)
        The fixed centre ``θ̂`` (Baker et al. take a posterior mode found by
        stochastic optimisation).
    replace : bool
        With replacement (default) or without.

    Notes
    -----
    A subclass of :class:`Minibatch`: the same indices and the same (empty) state, so
    everything that drives or probes a memoryless minibatch estimator drives this one.
    ``Σ_i ∇f_i(θ̂)`` is recomputed at each call (the estimator keeps no state); its
    value is constant, so this costs time, not exactness.
    """

    centre: Any = None
    name = "control-variate"

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.centre is None:
            raise ValueError("the control-variate centre θ̂ is required")
        c = np.asarray(self.centre, dtype=np.float64)
        if c.ndim != 1 or not np.all(np.isfinite(c)):
            raise ValueError(f"the centre θ̂ must be a finite vector, got shape {c.shape}")
        object.__setattr__(self, "centre", c)

    def init(self, problem, theta, rng):
        if self.centre.shape != (problem.d,):
            raise ValueError(
                f"the centre θ̂ has shape {self.centre.shape}, the problem has d = {problem.d}"
            )
        return super().init(problem, theta, rng)

    def estimate(self, problem, theta, state, rand, context=None):
        centre = np.broadcast_to(self.centre, theta.shape)
        diff = problem.component_grad_sum(theta, rand) - problem.component_grad_sum(centre, rand)
        full_at_centre = data_grad_sum(problem, centre)  # Σ_i ∇f_i(θ̂): the control variate
        return problem.prior_grad(theta) + full_at_centre + (problem.N / self.n) * diff, None


@dataclass(frozen=True)
class InjectedNoise(_Stateless):
    """``∇U(θ) + N(0, 2B/h)``: the SGNHT §3 model ``∇Ũ h = ∇U h + N(0, 2Bh)``.

    Parameters
    ----------
    B : float or ndarray (d, d)
        Noise covariance parameter (scalar means ``B·I``); must be positive
        semi-definite.
    h : float
        The step size the noise is scaled for.
    """

    B: Any
    h: float
    name = "injected-noise"
    _chol: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        positive("h", self.h)
        B = np.atleast_2d(np.asarray(self.B, dtype=np.float64))
        if B.shape[0] != B.shape[1] or not np.allclose(B, B.T):
            raise ValueError(f"B must be a scalar or a symmetric matrix, got shape {B.shape}")
        w, V = np.linalg.eigh(B)
        if w.min() < -1e-12 * max(1.0, abs(w).max()):
            raise ValueError(
                f"B must be positive semi-definite (smallest eigenvalue {w.min():.3g})"
            )
        root = V * np.sqrt(np.clip(w, 0, None) * 2.0 / self.h)
        object.__setattr__(self, "_chol", root)

    def _root(self, d: int) -> np.ndarray:
        if self._chol.shape[0] == 1 and d > 1:
            return np.eye(d) * self._chol[0, 0]
        if self._chol.shape[0] != d:
            raise ValueError(f"B has dimension {self._chol.shape[0]}, problem has d={d}")
        return self._chol

    def init(self, problem, theta, rng):
        self._root(problem.d)
        return None

    def draw(self, problem, state, chains, rng):
        return rng.standard_normal((chains, problem.d)), state

    def estimate(self, problem, theta, state, rand, context=None):
        return problem.grad(theta) + self._scale(rand), None

    def _scale(self, rand: np.ndarray) -> np.ndarray:
        """``rand @ rootᵀ``, the ``N(0, 2B/h)`` draw, computed without BLAS.

        A ``(chains, d) × (d, d)`` product at 1e4 chains would start OpenBLAS's
        threads every step for a few µs of arithmetic.
        """
        if self._chol.shape[0] == 1:  # B = b·I: the root is a scalar
            return rand * self._chol[0, 0]
        return np.einsum("cj,kj->ck", rand, self._root(rand.shape[1]), optimize=False)


# --------------------------------------------------------------------------------------
# AGLD: Data-Accessing × Snapshot-Updating (AGLD Algorithm 1, eq. (6))
# --------------------------------------------------------------------------------------


class TableSnapshot(NamedTuple):
    """Snapshot as a table of gradients: ``α_i`` for every ``i`` (O(dN) memory per chain).

    ``stamp[c, i]`` is the iteration ``j`` with ``α_i = ∇f_i(x^{(j)})`` (for Requirement 2;
    the narrowest unsigned/signed integer type that holds the iterations so far, see
    :func:`_stamp_room`).
    """

    table: np.ndarray  # (chains, N, d)
    total: np.ndarray  # (chains, d): Σ_i α_i
    stamp: np.ndarray  # (chains, N) uint16, widened to int32, int64 as k grows


class ScalarSnapshot(NamedTuple):
    """Snapshot of a GLM, ``α_i = s_i z_i``: only the scalars ``s_i`` (O(N) per chain)."""

    scalars: np.ndarray  # (chains, N)
    total: np.ndarray  # (chains, d)
    stamp: np.ndarray  # (chains, N) uint16, widened to int32, int64 as k grows


class PointSnapshot(NamedTuple):
    """PTU snapshot: the iterate ``x̃`` and ``Σ_i ∇f_i(x̃)`` (O(d) per chain; AGLD §3.2)."""

    point: np.ndarray  # (chains, d)
    total: np.ndarray  # (chains, d)
    stamp: int


class AGLDState(NamedTuple):
    access: AccessState
    snap: TableSnapshot | ScalarSnapshot | PointSnapshot
    k: int


STORAGES = ("table", "scalar", "point")


@dataclass(frozen=True)
class AGLD:
    """The AGLD aggregated-gradient estimator, AGLD eq. (6) and Algorithm 1.

    .. math::

        g^{(k)} = \\nabla U_0(x^{(k)}) + \\frac{N}{n} \\sum_{i\\in S_k}
        \\bigl(\\nabla f_i(x^{(k)}) - \\alpha_i^{(k)}\\bigr) + \\sum_{i=1}^N \\alpha_i^{(k)}

    with ``S_k`` from the Data-Accessing strategy, ``α_i^{(0)} = ∇f_i(x^{(0)})``
    (Algorithm 1 line 1) and ``α^{(k+1)}`` from the Snapshot-Updating strategy
    (line 5).  ``∇U_0`` is exact (the paper folds it into ``f_i``; see
    :mod:`sgmcmc_verify.problems.base`).

    Parameters
    ----------
    access : DataAccess
        RA, RR or CA (:mod:`sgmcmc_verify.access`).
    snapshot : SnapshotStrategy
        PTU, PPU, TMU or HSAG (:mod:`sgmcmc_verify.snapshots`).
    storage : {"auto", "table", "scalar", "point"}
        ``"point"`` stores ``(x̃, Σ∇f_i(x̃))`` and re-evaluates ``∇f_i(x̃)`` (PTU
        only); ``"scalar"`` stores ``N`` scalars for a :class:`GLMProblem`;
        ``"table"`` the full ``(N, d)`` table.  ``"auto"`` picks ``"point"`` for
        PTU and ``"table"`` otherwise.
    """

    access: DataAccess
    snapshot: SnapshotStrategy
    storage: str = "auto"

    def __post_init__(self) -> None:
        choice("snapshot storage", self.storage, ("auto", *STORAGES))
        if self.storage == "point" and not isinstance(self.snapshot, PTU):
            raise ValueError("point storage holds one iterate: only PTU refreshes all at once")

    @property
    def name(self) -> str:
        return f"{self.snapshot.name}-{self.access.name}"

    @property
    def n(self) -> int:
        return self.access.n

    def resolved_storage(self, problem: Problem) -> str:
        if self.storage == "auto":
            return "point" if isinstance(self.snapshot, PTU) else "table"
        if self.storage == "scalar" and not isinstance(problem, GLMProblem):
            raise ValueError("scalar snapshot storage needs a GLMProblem (∇f_i = s_i z_i)")
        return self.storage

    # -- protocol ---------------------------------------------------------------------
    def init(self, problem, theta, rng):
        chains, N = theta.shape[0], problem.N
        access = self.access.init(chains, N, rng)
        storage = self.resolved_storage(problem)
        if storage == "point":
            return AGLDState(
                access, PointSnapshot(theta.copy(), data_grad_sum(problem, theta), 0), 0
            )
        # α_i^(0) = ∇f_i(x^(0)) (Algorithm 1 line 1), built in place: one table in memory.
        # uint16 stamps: 2.5 % of a d = 10 table (int64 would be 10 %); update widens them
        # before an iteration count could overflow (_stamp_room).
        stamp = np.zeros((chains, N), dtype=_STAMP_TYPES[0])
        if storage == "scalar":
            s = np.empty((chains, N))
            fill_by_chunks(s, _fresh(problem, True, np.arange(N)), theta)
            return AGLDState(access, ScalarSnapshot(s, scalar_sums(s, problem.Z), stamp), 0)
        table = np.empty((chains, N, problem.d))
        total = np.empty((chains, problem.d))

        def sums(sl: slice) -> None:  # Σ_i α_i of the block just written
            total[sl] = column_sums(table[sl])

        fill_by_chunks(table, _fresh(problem, False, np.arange(N)), theta, then=sums, into=True)
        return AGLDState(access, TableSnapshot(table, total, stamp), 0)

    def draw(self, problem, state, chains, rng):
        idx, access = self.access.draw(state.access, chains, problem.N, rng)
        return idx, state._replace(access=access)

    def chosen_indices(self, rand, cache):
        return rand

    def estimate(self, problem, theta, state, rand, context=None):
        """``g^{(k)}`` of eq. (6); the cache keeps ``∇f_i(x^{(k)})`` and ``∇f_i(x^{(k)}) − α_i``."""
        idx, snap = rand, state.snap
        if isinstance(snap, PointSnapshot):
            now = problem.component_grads(theta, idx)
            alpha = problem.component_grads(snap.point, idx)
            rows = None
        elif isinstance(snap, ScalarSnapshot) or isinstance(problem, GLMProblem):
            # (Scalar storage needs a GLM: resolved_storage checks it.)
            return self._glm_estimate(problem, theta, state, idx)
        else:
            return self._table_estimate(problem, theta, state, idx)
        diff = np.subtract(now, alpha, out=alpha)  # α_i is not needed again: reuse its memory
        g = problem.prior_grad(theta) + (problem.N / self.n) * middle_sum(diff)
        return g + snap.total, _AGLDCache(now, diff, None, rows)

    def _table_estimate(self, problem, theta, state, idx):
        """:meth:`estimate` for a gradient table of any problem.

        When every batch entry is refreshed (PPU, TMU), the estimate also does the update,
        as :meth:`_glm_estimate` does: ``α_i ← ∇f_i(x^{(k)})`` and the ages are written
        right after the old entries were read, and the running total moves after the
        estimate has read it; the cache is then empty.  These are :func:`_partial_refresh`'s
        operations on the same arrays, so the same bits.
        """
        snap, N = state.snap, problem.N
        rows = flat_rows(idx, N)
        now = np.ascontiguousarray(problem.component_grads(theta, idx))
        items = row_items(table_rows(snap.table))
        alpha = take_rows(items, rows)
        part = self.snapshot.partial(idx, N)
        write = part is not None and bool(part.all())
        if write:
            # np.put of whole rows as items: 1.7× faster than the fancy assignment of the
            # float rows (measured, 1e3 chains, n = d = 10).  Repeats write the same row.
            np.put(items, rows, row_items(now))
            if snap.stamp is not None:
                table_rows(snap.stamp)[rows] = state.k
        diff = np.subtract(now, alpha, out=alpha)  # α_i is not needed again: reuse its memory
        g = problem.prior_grad(theta) + (N / self.n) * middle_sum(diff)
        g += snap.total
        if not write:
            return g, _AGLDCache(now, diff, None, rows)
        # Σ_i α_i moves by the refreshed entries' changes, each distinct i once.
        dtotal = (first_occurrence(idx, N)[:, None, :].astype(float) @ diff)[:, 0]
        np.add(snap.total, dtotal, out=snap.total)
        return g, _AGLDCache(None, None, None, None, None, True)

    def _glm_estimate(self, problem, theta, state, idx):
        """:meth:`estimate` for a GLM's table or scalars, by blocks of chains.

        When every batch entry is refreshed (PPU, TMU), the blocks also do the update:
        entries, ages and the running total ``Σ_i α_i`` (after the block's estimate has
        read it) are written in place, and the cache is empty.  So no array of size
        ``(chains, n)`` or ``(chains, d)`` but ``g`` is formed or outlives the call: the
        state plus the step's draw, ``g`` and the integrator's temporaries are the step's
        memory peak (issue 13).
        """
        snap, N, chains = state.snap, problem.N, theta.shape[0]
        part = self.snapshot.partial(idx, N)
        write = part is not None and bool(part.all())
        # (part is all True when writing: the first occurrences are the refreshed entries)
        refresh = first_occurrence(idx, N) if write else self._refreshed(problem, idx, part)
        offsets = N * np.arange(chains)[:, None]
        rows = None if write else idx + offsets  # flat_rows, kept for update
        kernel = _scalar_glm_blocks if isinstance(snap, ScalarSnapshot) else _table_glm_blocks
        blocks = kernel(problem, theta, snap, idx, offsets, refresh, state.k if write else None)
        scale = N / self.n
        g = np.empty((chains, problem.d))
        dtotal = None if write or refresh is None else np.empty_like(g)
        s_now = None if write else np.empty((chains, self.n))
        for sl, sums, s in blocks:
            # g = (N/n) Σ_j (∇f_i − α_i) + ∇U_0 + Σ_i α_i, in this order (as the table path).
            # ∇U_0 is a function of each chain's row (the Problem contract; θ/τ² for the GLMs
            # here): the block's rows are the whole call's, and no (chains, d) array is held.
            gb = np.multiply(scale, sums[:, 0], out=g[sl])
            gb += problem.prior_grad(theta[sl])
            gb += snap.total[sl]
            if write:
                snap.total[sl] += sums[:, 1]
            else:
                s_now[sl] = s
                if dtotal is not None:
                    dtotal[sl] = sums[:, 1]
        if write:
            return g, _AGLDCache(None, None, None, None, None, True)
        return g, _AGLDCache(None, None, s_now, rows, dtotal)

    def _refreshed(
        self, problem: Problem, idx: np.ndarray, part: np.ndarray | None
    ) -> np.ndarray | None:
        """Where batch entry ``j`` refreshes a distinct ``α_i`` after this step: bool (chains, n).

        The strategy's partial mask ``part`` (``None`` when it refreshes nothing)
        restricted to the first occurrence of each index: the entries of the running
        total's update.
        """
        if part is None:
            return None
        return first_occurrence(idx, problem.N) & part

    def update(self, problem, state, theta, theta_new, rand, cache):
        idx, k, snap = rand, state.k, state.snap
        part = self.snapshot.partial(idx, problem.N)
        if part is not None:
            snap = _partial_refresh(problem, snap, idx, part, cache, k)
        tot = self.snapshot.total(k, problem.N)
        if tot is not None:
            snap = _total_refresh(problem, snap, theta_new, tot, k + 1)
        # The next iteration writes stamps k + 1 (partial) and k + 2 (total).
        return AGLDState(state.access, _stamp_room(snap, k + 2), k + 1)


class _AGLDCache(NamedTuple):
    """What :meth:`AGLD.estimate` computed that :meth:`AGLD.update` reuses."""

    now: np.ndarray | None  # (chains, n, d): ∇f_i(x^(k)) for the batch (None: see s_now)
    diff: np.ndarray | None  # (chains, n, d): ∇f_i(x^(k)) − α_i (None: see dtotal)
    s_now: np.ndarray | None  # (chains, n): the GLM scalars s_i(x^(k)) (GLM table/scalars)
    rows: np.ndarray | None  # (chains, n): flat_rows of the batch (table/scalar storage)
    dtotal: np.ndarray | None = None  # (chains, d): the running total's change, if known
    written: bool = False  # the estimate already wrote the refreshed entries and their ages


def _glm_block_reads(
    problem: GLMProblem,
    theta: np.ndarray,
    idx: np.ndarray,
    offsets: np.ndarray,
    blocks: list[slice],
) -> Iterator[tuple[slice, np.ndarray, np.ndarray, np.ndarray]]:
    """What both GLM kernels read per block ``sl`` of chains: ``(sl, r, Zi, s)``.

    ``r = idx + offsets`` are the block's :func:`flat_rows`, ``Zi = Z[idx]`` the gathered
    rows (a fresh array the caller may overwrite), ``s = s_i(x)`` the scalars of
    ``∇f_i(x) = s_i(x) z_i`` from :meth:`GLMProblem._scalars`, the documented hook taking
    the gathered rows.
    """
    for sl in blocks:
        i = idx[sl]
        Zi = np.take(problem.Z, i, axis=0)
        yield sl, i + offsets[sl], Zi, problem._scalars(Zi, theta[sl], i)


def _table_glm_blocks(
    problem: GLMProblem,
    theta: np.ndarray,
    snap: TableSnapshot,
    idx: np.ndarray,
    offsets: np.ndarray,
    refresh: np.ndarray | None,
    k: int | None = None,
) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """A gradient table's batch sums for a GLM, block by block of chains (:func:`chain_blocks`).

    Yields ``(sl, sums, s)`` per block ``sl``: ``sums[:, 0]`` is ``Σ_j (∇f_i(x) − α_i)``,
    ``sums[:, 1]`` the same sum over the entries ``j`` where the bool ``refresh`` holds
    (anything without it), shape ``(block, 2, d)``, and ``s`` the scalars ``s_i(x)``,
    ``∇f_i(x) = s_i(x) z_i``, shape ``(block, n)``; both are buffers reused by the next
    block.  ``offsets`` is ``N·c`` for chain ``c``, shape ``(chains, 1)`` (a block's
    :func:`flat_rows` are ``idx + offsets``).  No ``(chains, n, d)`` temporary exists.

    With ``k`` given (every batch entry is refreshed: PPU, TMU), each block also does
    Strategy 3's update ``α_i ← ∇f_i(x^{(k)})`` and sets the entries' iteration stamps to
    ``k`` (when the snapshot keeps them), right after its old entries were read: the
    table's lines are then still in the cache, where a separate pass in
    :meth:`AGLD.update` found them evicted by the other blocks (measured at 1e4 chains,
    30 steps: 0.20 s for that pass, which also re-formed the products; 0.04 s for the
    writes here).  Repeated indices write the same ``∇f_i(x^{(k)})``.
    """
    chains, n = idx.shape
    d = problem.d
    items = row_items(table_rows(snap.table))
    stamps = table_rows(snap.stamp) if k is not None and snap.stamp is not None else None
    blocks = chain_blocks(chains, n * d * 8)
    # Both sums of a block in one (2, n) @ (n, d) product per chain.
    w = np.ones((blocks[0].stop - blocks[0].start, 2, n))
    sums = np.empty((w.shape[0], 2, d))
    for sl, r, Zi, s in _glm_block_reads(problem, theta, idx, offsets, blocks):
        m = r.shape[0]
        diff = take_rows(items, r)
        # s_i z_i with s_i repeated along z_i first: the same products, but a multiply of
        # two contiguous arrays (1.3× faster, measured at the benchmark's blocks) where
        # broadcasting s_i runs numpy's inner loop d elements at a time.
        new = np.multiply(np.repeat(s, d).reshape(Zi.shape), Zi, out=Zi)
        if k is not None:
            # np.put: 10 % faster than the equivalent fancy assignment (measured).
            np.put(items, r, row_items(new))
            if stamps is not None:
                stamps[r] = k  # a scalar: the fancy assignment is 2.8× faster than np.put
        np.subtract(new, diff, out=diff)
        if refresh is not None:
            w[:m, 1] = refresh[sl]
        yield sl, np.matmul(w[:m], diff, out=sums[:m]), s


def _scalar_glm_blocks(
    problem: GLMProblem,
    theta: np.ndarray,
    snap: ScalarSnapshot,
    idx: np.ndarray,
    offsets: np.ndarray,
    refresh: np.ndarray | None,
    k: int | None = None,
) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """:func:`_table_glm_blocks` for the O(N) storage ``α_i = s̃_i z_i`` (AGLD §3.2).

    ``Σ_j (∇f_i(x) − α_i) = Σ_j (s_i(x) − s̃_i) z_i``: one ``(2, n) @ (n, d)`` product per
    chain gives both sums from the gathered ``z_i`` (no ``(chains, n, d)`` array of
    gradients is formed).  With ``k`` given, each block stores ``s̃_i ← s_i(x^{(k)})`` and
    the stamps ``k`` right after reading the old scalars.
    """
    chains, n = idx.shape
    d = problem.d
    flat = table_rows(snap.scalars)
    stamps = table_rows(snap.stamp) if k is not None and snap.stamp is not None else None
    # Twice the chains of the table kernel's blocks (Zi is the only (block, n, d) array
    # here): 4–7 % faster at 1e4 chains, measured.
    blocks = chain_blocks(chains, n * d * 4)
    w = np.empty((blocks[0].stop - blocks[0].start, 2, n))
    sums = np.empty((w.shape[0], 2, d))
    for sl, r, Zi, s in _glm_block_reads(problem, theta, idx, offsets, blocks):
        m = r.shape[0]
        # Fancy indexing of scalars: 1.3× (read) and 2.2× (write) faster than np.take/np.put.
        ds = np.subtract(s, flat[r], out=w[:m, 0])
        if k is not None:
            flat[r] = s
            if stamps is not None:
                stamps[r] = k
        if refresh is None:
            w[:m, 1] = 0.0
        else:
            np.multiply(ds, refresh[sl], out=w[:m, 1])
        yield sl, np.matmul(w[:m], Zi, out=sums[:m]), s


def column_sums(table: np.ndarray) -> np.ndarray:
    """``Σ_i table[c, i]``, shape (chains, d), of a ``(chains, N, d)`` table.

    As one vector–matrix product per chain: 3–4× faster than ``table.sum(axis=1)``
    (a reduction over the middle axis), the same sum to rounding.
    """
    return np.ones(table.shape[1]) @ table


def scalar_sums(scalars: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``Σ_i s_ci z_i``, shape (chains, d): the running total of a GLM's scalar snapshot.

    One ``(1, N) @ (N, d)`` product per chain: ``scalars @ Z`` as one matrix product
    at 1e4 chains starts OpenBLAS's threads, which then spin on the other core for
    ~0.1 s (measured: CPU/wall 1.65 for a whole PPU-RA run with scalar storage).
    """
    return (scalars[:, None, :] @ Z)[:, 0]


def _fresh(problem: Problem, scalar: bool, cols: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """``θ ↦`` the snapshot entries ``i ∈ cols`` at ``θ``: GLM scalars ``s_i`` or ``∇f_i``."""

    def make(theta: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        idx = np.broadcast_to(cols, (theta.shape[0], cols.size))
        if isinstance(problem, GLMProblem):
            # Every chain needs the same rows Z[cols]: a broadcast view, not a gathered copy.
            Zc = problem.Z[cols]
            s = problem._scalars(np.broadcast_to(Zc, (theta.shape[0], *Zc.shape)), theta, idx)
            if scalar:
                return s
            # s_i z_i with s_i repeated along z_i first: the same products as s[..., None] * Zc,
            # as a multiply of contiguous arrays (into fill_by_chunks' block when given):
            # 1.15× faster for the PPU-RA table at 1e4 chains, N = 100, d = 10 (measured).
            rep = np.repeat(s, Zc.shape[1]).reshape(*s.shape, Zc.shape[1])
            return np.multiply(rep, Zc, out=out)
        if scalar:
            return problem.component_scalars(theta, idx)
        return problem.component_grads(theta, idx)

    return make


def _partial_refresh(problem, snap, idx, mask, cache, k):
    """Set ``α_i = ∇f_i(x^{(k)})`` for the masked batch entries (in place).

    Duplicated indices write identical values (same ``i``, same ``x^{(k)}``), so
    the order in which a fancy assignment resolves them does not matter; the
    running total counts each refreshed entry once.
    """
    if isinstance(snap, PointSnapshot):
        raise ValueError("a point snapshot cannot be partially refreshed")
    everywhere = bool(mask.all())
    if cache.written:  # the estimate wrote the entries, ages and total (PPU/TMU)
        return snap
    if cache.dtotal is not None:
        total = snap.total + cache.dtotal
    else:
        once = first_occurrence(idx, problem.N)
        if not everywhere:
            once &= mask
        total = snap.total + (once[:, None, :].astype(float) @ cache.diff)[:, 0]
    rows = cache.rows if everywhere else cache.rows[mask]
    table_rows(snap.stamp)[rows] = k
    if isinstance(snap, ScalarSnapshot):
        table_rows(snap.scalars)[rows] = cache.s_now if everywhere else cache.s_now[mask]
        return ScalarSnapshot(snap.scalars, total, snap.stamp)
    if cache.now is not None:
        new = np.ascontiguousarray(cache.now if everywhere else cache.now[mask])
        # np.put of whole rows as items: 1.7× the float rows' fancy assignment (measured).
        np.put(row_items(table_rows(snap.table)), rows, row_items(new))
    else:
        _write_glm_entries(problem, snap.table, idx, cache, None if everywhere else mask)
    return TableSnapshot(snap.table, total, snap.stamp)


def _write_glm_entries(problem, table, idx, cache, mask) -> None:
    """``α_i ← s_i z_i`` for the batch entries (the masked ones), by blocks of chains.

    The products are the ones :func:`_table_glm_sums` formed, bit for bit.  ``mask``
    ``None`` means all entries (a boolean selection costs 2–5× the write itself).
    """
    chains, n = idx.shape
    rows = row_items(table_rows(table))
    blocks = chain_blocks(chains, n * problem.d * 8)
    buf = np.empty((blocks[0].stop - blocks[0].start, n, problem.d))
    for sl in blocks:
        i, s, r = idx[sl], cache.s_now[sl], cache.rows[sl]
        if mask is None:
            new = np.take(problem.Z, i, axis=0, out=buf[: i.shape[0]])
        else:
            i, s, r = i[mask[sl]], s[mask[sl]], r[mask[sl]]
            new = np.take(problem.Z, i, axis=0)
        # s_i repeated along z_i: the same products as s[..., None] * new, contiguous.
        rep = np.repeat(s, new.shape[-1]).reshape(new.shape)
        rows[r] = row_items(np.multiply(rep, new, out=new))


def _total_refresh(problem, snap, theta_new, mask, k1):
    """Set ``α_i = ∇f_i(x^{(k+1)})`` for the masked entries ``i`` (in place)."""
    if isinstance(snap, PointSnapshot):
        if not mask.all():
            raise ValueError("a point snapshot can only be refreshed as a whole")
        return PointSnapshot(theta_new.copy(), data_grad_sum(problem, theta_new), k1)
    cols = np.flatnonzero(mask)
    snap.stamp[:, cols] = k1
    scalar = isinstance(snap, ScalarSnapshot)
    target = snap.scalars if scalar else snap.table
    # Block by block: no temporary as large as the table (or d times the scalars).
    fill_by_chunks(
        target,
        _fresh(problem, scalar, cols),
        theta_new,
        None if cols.size == problem.N else cols,
        into=True,
    )
    if scalar:
        return ScalarSnapshot(snap.scalars, scalar_sums(snap.scalars, problem.Z), snap.stamp)
    return TableSnapshot(snap.table, column_sums(snap.table), snap.stamp)


#: Stamp types, narrowest first: :func:`_stamp_room` moves to the next before an overflow.
_STAMP_TYPES = (np.uint16, np.int32, np.int64)


def _stamp_room(snap, k: int):
    """``snap`` with stamps of a type that holds iteration ``k`` (widened once if needed).

    Stamps start as uint16: a run of fewer than 65,535 iterations never pays for wider
    ones (the peak memory of a PPU step at 1e4 chains, issue 13).  The widening copy is
    made once per type, exactly (every stored value fits the wider type).
    """
    stamp = getattr(snap, "stamp", None)
    if not isinstance(stamp, np.ndarray) or k <= np.iinfo(stamp.dtype).max:
        return snap
    wider = next(t for t in _STAMP_TYPES if k <= np.iinfo(t).max)
    return snap._replace(stamp=stamp.astype(wider))


def snapshot_ages(state: AGLDState) -> np.ndarray:
    """Age ``k − j`` of every snapshot entry, ``α_i = ∇f_i(x^{(j)})``: shape (chains, N).

    For a point snapshot every entry has the same age.  Used by the Requirement 2
    check (AGLD §3.2).
    """
    snap = state.snap
    if isinstance(snap, PointSnapshot):
        return np.full((snap.total.shape[0], 1), state.k - snap.stamp)
    # int64 ages whatever the stamps' type (a uint16 difference would be uint16).
    return state.k - snap.stamp.astype(np.int64)


def snapshot_nbytes(state: AGLDState) -> int:
    """Bytes of gradient-snapshot storage held per chain (AGLD-MEM).

    Counts the arrays that hold gradient information (table, scalars, point,
    running total); the integer age ``stamp`` is instrumentation for Requirement
    2 and is excluded.
    """
    snap = state.snap
    arrays = [snap.total] + [
        getattr(snap, f) for f in ("table", "scalars", "point") if hasattr(snap, f)
    ]
    chains = snap.total.shape[0]
    return sum(a.nbytes for a in arrays) // chains


# --------------------------------------------------------------------------------------
# SVRG and SAGA exactly as printed in SVRHMC Algorithms 1 and 2
# --------------------------------------------------------------------------------------


class SVRGState(NamedTuple):
    w: np.ndarray  # (chains, d): the epoch snapshot θ_{tK}
    g: np.ndarray  # (chains, d): Σ_i ∇f_i(w)
    k: int  # iterations done


@dataclass(frozen=True)
class SVRG(_UniformBatch):
    """SVRG gradient estimator, SVRHMC Algorithm 1 lines 4–8 (Dubey et al. 2016).

    .. math::

        \\tilde\\nabla_{tK+k} = -\\nabla\\log\\Pr(\\theta_{tK+k})
        + \\frac{n}{b}\\sum_{i\\in I}\\bigl(\\nabla f_i(\\theta_{tK+k}) - \\nabla f_i(w)\\bigr) + g,
        \\quad w = \\theta_{tK},\\; g = \\sum_i \\nabla f_i(w).

    (SVRHMC's ``n`` is our ``N``.)  ``I`` is ``b`` uniform indices; line 7 says
    "index subset ... |I| = b", §2 says with replacement: ``replace`` picks.

    Parameters
    ----------
    b : int
        Minibatch size.
    K : int
        Epoch length (the paper suggests ``K = N/b``).
    replace : bool
    """

    b: int
    K: int
    replace: bool = True
    name = "svrg"

    def __post_init__(self) -> None:
        positive_int("b (batch size)", self.b)
        positive_int("K (epoch length)", self.K)

    @property
    def batch(self) -> int:
        return self.b

    def init(self, problem, theta, rng):
        self.access.check(problem.N)
        return SVRGState(theta.copy(), data_grad_sum(problem, theta), 0)

    def estimate(self, problem, theta, state, rand, context=None):
        diff = problem.component_grads(theta, rand) - problem.component_grads(state.w, rand)
        g = problem.prior_grad(theta) + (problem.N / self.b) * middle_sum(diff)
        return g + state.g, None

    def update(self, problem, state, theta, theta_new, rand, cache):
        k = state.k + 1
        if k % self.K == 0:  # line 3-5: a new epoch starts at θ_{tK}
            return SVRGState(theta_new.copy(), data_grad_sum(problem, theta_new), k)
        return state._replace(k=k)


class SAGAState(NamedTuple):
    alpha: np.ndarray  # (chains, N, d): the points α^i (SVRHMC Alg. 2 line 3)
    g: np.ndarray  # (chains, d): Σ_i ∇f_i(α^i)


@dataclass(frozen=True)
class SAGA(_UniformBatch):
    """SAGA gradient estimator, SVRHMC Algorithm 2 lines 3–11 (Dubey et al. 2016).

    As printed, the table holds *points* ``α^i`` (initialised to ``θ_0``), the
    estimate is

    .. math::

        \\tilde\\nabla_t = -\\nabla\\log\\Pr(\\theta_t)
        + \\frac{n}{b}\\sum_{i\\in I}\\bigl(\\nabla f_i(\\theta_t)
        - \\nabla f_i(\\alpha_t^i)\\bigr) + g,

    and after the step ``α^i ← θ_t`` and ``g ← g + Σ_{i∈I}(∇f_i(α_{t+1}^i) − ∇f_i(α_t^i))``
    for ``i ∈ I`` (lines 10–11).  With a with-replacement batch an index may
    repeat; it is counted once in the update of ``g`` so that ``g = Σ_i ∇f_i(α^i)``
    stays true (line 6 calls ``I`` a set).

    Parameters
    ----------
    b : int
    replace : bool
    """

    b: int
    replace: bool = True
    name = "saga"

    def __post_init__(self) -> None:
        positive_int("b (batch size)", self.b)

    @property
    def batch(self) -> int:
        return self.b

    def init(self, problem, theta, rng):
        self.access.check(problem.N)
        alpha = np.repeat(theta[:, None, :], problem.N, axis=1)
        return SAGAState(alpha, data_grad_sum(problem, theta))

    def estimate(self, problem, theta, state, rand, context=None):
        rows = flat_rows(rand, problem.N)
        once = first_occurrence(rand, problem.N)
        if isinstance(problem, GLMProblem):
            # Lines 7 and 10 in one pass: the table rows are written as they are read.
            diff_sum, dg = _saga_glm_sums(problem, theta, table_rows(state.alpha), rand, rows, once)
            g = np.multiply(problem.N / self.b, diff_sum, out=diff_sum)
            g += problem.prior_grad(theta)  # a + b = b + a: the same sum as below
            g += state.g
            return g, _SAGACache(dg, rows, True)
        chains, b = rand.shape
        now = problem.component_grads(theta, rand)
        # ∇f_i(α^i) (line 7): every (chain, batch entry) has its own point α^i, so the
        # b·chains pairs are evaluated as b·chains one-index "chains" in one call.
        points = np.take(table_rows(state.alpha), rows.reshape(-1), axis=0)
        old = problem.component_grads(points, rand.reshape(-1, 1)).reshape(chains, b, -1)
        diff = np.subtract(now, old, out=old)  # ∇f_i(α^i) is not needed again
        diff_sum = middle_sum(diff)
        dg = (once[:, None, :].astype(float) @ diff)[:, 0]
        g = problem.prior_grad(theta) + (problem.N / self.b) * diff_sum
        return g + state.g, _SAGACache(dg, rows)

    def update(self, problem, state, theta, theta_new, rand, cache):
        # ∇f_i(α_{t+1}^i) = ∇f_i(θ_t) was computed on line 7: g moves by the difference,
        # each distinct i once (the estimate summed it over first occurrences).
        g = state.g + cache.dg
        if cache.written:  # line 10 done by the estimate (GLM path)
            return SAGAState(state.alpha, g)
        # α^i ← θ_t for i ∈ I (line 10); a repeated i writes the same θ_t twice.
        points = row_items(table_rows(state.alpha))
        points[cache.rows] = row_items(np.ascontiguousarray(theta))[:, None]
        return SAGAState(state.alpha, g)


class _SAGACache(NamedTuple):
    """What :meth:`SAGA.estimate` computed that :meth:`SAGA.update` reuses."""

    dg: np.ndarray  # (chains, d): Σ over distinct i ∈ I of ∇f_i(θ_t) − ∇f_i(α_t^i) (line 11)
    rows: np.ndarray  # (chains, b): flat_rows of the batch
    written: bool = False  # the estimate already set α^i ← θ_t (line 10)


def _saga_glm_sums(
    problem: GLMProblem,
    theta: np.ndarray,
    points: np.ndarray,
    idx: np.ndarray,
    rows: np.ndarray,
    once: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """SAGA's two batch sums for a GLM, ``∇f_i = s_i z_i``, and line 10's ``α^i ← θ_t``.

    ``Σ_j (∇f_i(θ) − ∇f_i(α^i)) = Σ_j (s_i(θ) − s_i(α^i)) z_i``: the gathered ``z_i``
    serve both scalars and both sums (one ``(2, b) @ (b, d)`` product per chain), and the
    work goes by blocks of chains (:func:`chain_blocks`), so no ``(chains, b, d)``
    temporary exists.  ``points`` is the ``(chains·N, d)`` view of the table of ``α^i``;
    each block writes ``θ_t`` into its batch rows right after reading them (SVRHMC
    Alg. 2 line 10, done in the estimate: the rows are then still in the cache, where
    a separate pass found them evicted).  Returns the sum over all ``j`` and the sum
    over first occurrences ``once`` (line 11), two contiguous ``(chains, d)`` arrays.
    """
    chains, b = idx.shape
    d = problem.d
    items = row_items(points)
    # α^i ← θ_t copies θ_t's row as one item (row_items); a repeated i writes it twice.
    new = row_items(np.ascontiguousarray(theta))[:, None]
    sums = np.empty((2, chains, d))
    blocks = chain_blocks(chains, b * d * 8)
    w = np.empty((blocks[0].stop - blocks[0].start, 2, b))
    for sl in blocks:
        i, r = idx[sl], rows[sl]
        m = i.shape[0]
        Zi = np.take(problem.Z, i, axis=0)
        # GLMProblem._scalars is the documented hook taking the gathered rows Z[idx].
        s_now = problem._scalars(Zi, theta[sl], i)
        pts = take_rows(items, r)
        items[r] = new[sl]
        # One point per (chain, entry): the pairs as one-index "chains", as in line 7.
        s_old = problem._scalars(Zi.reshape(-1, 1, d), pts.reshape(-1, d), i.reshape(-1, 1))
        ds = np.subtract(s_now, s_old.reshape(i.shape), out=w[:m, 0])
        np.multiply(ds, once[sl], out=w[:m, 1])
        np.matmul(w[:m], Zi, out=sums[:, sl].transpose(1, 0, 2))
    return sums[0], sums[1]


# --------------------------------------------------------------------------------------
# EWSG: exponentially weighted stochastic gradients (EWSG eqs. (4)–(5), Algorithm 1)
# --------------------------------------------------------------------------------------


class EWSGRand(NamedTuple):
    """Randomness of one EWSG index selection.

    ``start`` (chains, b): the initial batch (Alg. 1 "i ← uniformly sampled");
    ``proposals`` (chains, M, b): the uniform proposals; ``u`` (chains, M):
    acceptance uniforms; ``v`` (chains,): the inverse-CDF uniform of the ideal mode.
    """

    start: np.ndarray
    proposals: np.ndarray
    u: np.ndarray
    v: np.ndarray


@dataclass(frozen=True)
class EWSG(_Stateless):
    """EWSG index selection with ideal weights (eq. (4)) or the Metropolis chain (eq. (5)).

    With ``a_i = a_scale·∇f_i(θ)`` and ``x`` the standardised increment of the
    integrator's noise, eq. (4) sets

    .. math::

        p_i \\propto \\exp\\Bigl(-\\tfrac12\\|x + \\textstyle\\sum_j a_j\\|^2
        + \\tfrac12\\|x + N a_i\\|^2\\Bigr)

    and the estimate is ``∇U_0(θ) + N ∇f_I(θ)`` with ``I ~ p``.  For ULD-EM
    (EWSG eq. (3)) ``a_scale = √h/σ``; for overdamped EM ``θ' = θ − h∇U + √(2h)ξ``
    the same derivation (EWSG §4.2, "Sec. F": not in our text) gives
    ``x = (θ' − θ)/√(2h)`` and ``a_scale = √(h/2)``.

    ``mode="mh"`` runs EWSG Algorithm 1: a fresh uniform start ``I`` each
    iteration, then ``M`` Metropolis steps with uniform proposals accepted with
    ``min(1, exp(½‖x + N a_j‖² − ½‖x + N a_i‖²))`` (eq. (5)).  For ``b > 1``
    (EWSG appendix E, not in our text) the chain moves on batches of ``b``
    indices (with replacement), the estimate is ``(N/b) Σ_{i∈I} ∇f_i`` and
    ``N a_i`` becomes ``(N/b) Σ_{i∈I} a_i`` in eq. (5) — the same kernel-matching
    argument applied to the batch estimator.

    ``mode="ideal"`` samples ``I`` exactly from eq. (4) using all ``N`` component
    gradients (``b = 1`` only).

    ``x`` comes from ``x_rule(state)`` when given (the sampler passes its state
    as ``context``), else it is the constant ``x``.

    Parameters
    ----------
    a_scale : float
        ``a_i = a_scale·∇f_i``.
    M : int
        Index-chain length (``M = 0`` is uniform SG).
    b : int
        Batch size.
    mode : {"mh", "ideal"}
    x : float
        The constant used for ``x`` when there is no ``x_rule``.  Default 0, the
        overdamped analogue of the paper's ``x̂ = √h γ r_k/σ`` (the deterministic
        guess ``θ_{k+1} = θ_k``, as ``r_{k+1} = r_k`` there).
    x_rule : callable, optional
        ``x_rule(state) -> (chains, d)``: the §5.1 choices for ULD (see
        :mod:`sgmcmc_verify.registry`).
    """

    a_scale: float
    M: int = 1
    b: int = 1
    mode: str = "mh"
    x: float = 0.0
    x_rule: Any = field(default=None, compare=False)
    name = "ewsg"

    def __post_init__(self) -> None:
        positive("a_scale", self.a_scale)
        positive_int("M (index-chain length)", self.M, minimum=0)
        positive_int("b (batch size)", self.b)
        choice("EWSG mode", self.mode, ("mh", "ideal"))
        nonnegative("|x|", abs(self.x))
        if self.mode == "ideal" and self.b != 1:
            raise ValueError("ideal EWSG weights (eq. (4)) are defined for b = 1")

    def draw(self, problem, state, chains, rng):
        N, M, b = problem.N, self.M, self.b
        rand = EWSGRand(
            start=rng.integers(0, N, (chains, b)),
            proposals=rng.integers(0, N, (chains, M, b)),
            u=rng.random((chains, M)),
            v=rng.random(chains),
        )
        return rand, state

    def _x(self, theta, context):
        if self.x_rule is not None:
            return np.asarray(self.x_rule(context), dtype=np.float64)
        return np.full_like(theta, self.x)

    def log_weights(self, problem: Problem, theta: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Normalised log ``p_i`` of eq. (4), shape (chains, N)."""
        a = self.a_scale * problem.all_component_grads(theta)  # (chains, N, d)
        logw = -0.5 * np.sum((x + middle_sum(a)) ** 2, axis=1)[:, None] + 0.5 * np.sum(
            (x[:, None, :] + problem.N * a) ** 2, axis=2
        )
        return logw - logsumexp(logw, axis=1, keepdims=True)

    def select(self, problem, theta, rand, x) -> np.ndarray:
        """The selected batch, shape (chains, b)."""
        if self.mode == "ideal":
            cdf = np.cumsum(np.exp(self.log_weights(problem, theta, x)), axis=1)
            idx = (cdf < rand.v[:, None] * cdf[:, -1:]).sum(axis=1)
            return np.minimum(idx, problem.N - 1)[:, None]
        cur = rand.start
        cur_e = self._energy(problem, theta, cur, x)
        for m in range(self.M):
            prop = rand.proposals[:, m]
            prop_e = self._energy(problem, theta, prop, x)
            # eq. (5): accept w.p. min(1, exp(E_j − E_i)) with E = ½‖x + (N/b)Σ a‖².
            accept = np.log(rand.u[:, m]) < prop_e - cur_e
            cur = np.where(accept[:, None], prop, cur)
            cur_e = np.where(accept, prop_e, cur_e)
        return cur

    def _energy(self, problem, theta, batch, x):
        s = (problem.N / self.b) * self.a_scale * middle_sum(problem.component_grads(theta, batch))
        return 0.5 * np.sum((x + s) ** 2, axis=1)

    def estimate(self, problem, theta, state, rand, context=None):
        idx = self.select(problem, theta, rand, self._x(theta, context))
        g = middle_sum(problem.component_grads(theta, idx))
        return problem.prior_grad(theta) + (problem.N / self.b) * g, idx

    def chosen_indices(self, rand, cache):
        return cache
