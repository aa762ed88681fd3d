"""Units of work inside a check: ``map_units`` runs them here, or on a Dask cluster.

A check whose cost is many independent simulations — one per (step size, seed
block) — hands them to :func:`map_units`.  By default the units run one after the
other in the calling process, exactly as a plain loop would.  Under
``sgmcmc-verify report --scheduler`` each claim runs as a Dask task with
:func:`dask_mapper` installed, so its units become Dask tasks of their own and a
slow claim spreads over every worker of the cluster instead of one (issue 6: "the
work splits into independent (claim, step size, seed-block) units").

Each unit must be a pure function of its item: the seeds travel in the item, so
the results, hence the report, are the same whichever mapper ran them.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = [
    "dask_mapper",
    "map_units",
    "precomputed_mapper",
    "run_units",
    "run_with_units",
    "single_blas_thread",
    "unit_key",
    "unit_mapper",
]

T = TypeVar("T")
R = TypeVar("R")

Mapper = Callable[[Callable[[Any], Any], list[Any]], list[Any]]

_MAPPER: ContextVar[Mapper | None] = ContextVar("sgmcmc_verify_unit_mapper", default=None)


def map_units(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[fn(x) for x in items]``, through the installed mapper if there is one.

    Parameters
    ----------
    fn : callable
        A pure function of one item (picklable by cloudpickle when a cluster runs it).
    items : iterable
        The units; each carries its own seed.

    Returns
    -------
    list
        ``fn(x)`` for every item, in the order of ``items``.
    """
    items = list(items)
    mapper = _MAPPER.get()
    if mapper is None or len(items) < 2:
        return [fn(x) for x in items]
    return list(mapper(fn, items))


@contextmanager
def unit_mapper(mapper: Mapper | None) -> Iterator[None]:
    """Install ``mapper(fn, items) -> list`` for :func:`map_units` calls in this context."""
    token = _MAPPER.set(mapper)
    try:
        yield
    finally:
        _MAPPER.reset(token)


def dask_mapper(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """Submit every unit to the cluster this Dask task runs on, and gather in order.

    ``worker_client`` secedes the calling task from its worker's thread pool while it
    waits, so the units can run on that worker too (no deadlock on small clusters).
    ``pure=False`` gives fresh keys, so a shared scheduler never returns an older run's
    result.
    """
    from distributed import worker_client

    with worker_client() as client:
        one = functools.partial(_single_threaded, fn)  # any cluster: the claim's own BLAS
        return client.gather(client.map(one, items, pure=False))


#: :func:`single_blas_thread` blocks open in this process (all threads), and the limits
#: the outermost one replaced: the limit is process-wide, so it is restored only when the
#: last block closes, whichever thread opened it.
_BLAS_LOCK = threading.Lock()
_BLAS_DEPTH = 0
_BLAS_SAVED: Any = None


@contextmanager
def single_blas_thread() -> Iterator[None]:
    """numpy's BLAS pools limited to one thread inside the block, restored after.

    BLAS limits (OpenBLAS, MKL) are process-wide; OpenMP's (PyTorch's intra-op threads)
    hold in the calling thread only.  Blocks may nest and overlap across threads (two
    ``validate`` calls at once): the limit is set by the first block to open and restored
    by the last to close.  Seen with OpenBLAS 0.3.31: a thread count set from a thread
    other than the main one is ignored once the main thread has set one, so the limit
    holds for work started from the main thread (the CLI, pytest, ``report`` workers).

    A check's numbers must not depend on its process's BLAS threads: a multithreaded
    product splits its sums differently.  LMC on the AGLD mixture (1000 chains,
    ``θ Aᵀ`` with N = 500, d = 10) gives other bits with two OpenBLAS threads than with
    one, so ``report --jobs 1`` on a multi-core machine and ``--jobs 2`` (whose workers run
    one thread) disagreed in the last digits of AGLD-EXP-GMM's full profile.
    :func:`sgmcmc_verify.claims.run_check` and every unit :func:`dask_mapper` sends run
    under it, so the report, ``check`` and the Python API give the same numbers
    whatever the machine's cores and however the work is spread.
    """
    global _BLAS_DEPTH, _BLAS_SAVED
    with _BLAS_LOCK:
        if _BLAS_DEPTH == 0:
            _BLAS_SAVED = _limit_to_one()
        _BLAS_DEPTH += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_DEPTH -= 1
            if _BLAS_DEPTH == 0:
                _BLAS_SAVED.restore_original_limits()
                _BLAS_SAVED = None


def _limit_to_one() -> Any:
    """``threadpool_limits(limits=1)`` (its controller, to restore), without its warning."""
    import warnings

    from threadpoolctl import threadpool_limits

    with warnings.catch_warnings():
        # threadpoolctl warns when two OpenMP runtimes are loaded (e.g. torch's and
        # numpy's): a fact of the user's environment, not of this call, which must not
        # fail a suite running with warnings as errors
        warnings.filterwarnings(
            "ignore", message=".*OpenMP.*loaded at the same time", category=RuntimeWarning
        )
        return threadpool_limits(limits=1)


def _single_threaded(fn: Callable[[T], R], x: T) -> R:
    """``fn(x)`` under :func:`single_blas_thread` (a unit on a Dask worker)."""
    with single_blas_thread():
        return fn(x)


def run_with_units(task: Callable[[Any], Any], arg: Any) -> Any:
    """``task(arg)`` with :func:`dask_mapper` installed: the Dask runner's claim task."""
    with unit_mapper(dask_mapper):
        return task(arg)


def unit_key(fn: Callable[[Any], Any], item: Any) -> str:
    """A text key naming the unit ``fn(item)``: the function (and a partial's bound
    arguments) and the item, by ``repr``.  Units are pure functions of their items, so
    equal keys mean equal results."""
    if isinstance(fn, functools.partial):
        bound = (repr(fn.args), repr(sorted(fn.keywords.items())))
        fn = fn.func
    else:
        bound = ()
    return repr((fn.__module__, fn.__qualname__, *bound, item))


def run_units(units: Sequence[tuple[Callable[[Any], Any], Any]]) -> dict[str, Any]:
    """``{unit_key(fn, x): fn(x)}`` for every ``(fn, x)``: a share of a check's units run
    ahead of the check, in another process (``report --jobs N``)."""
    return {unit_key(fn, x): fn(x) for fn, x in units}


def precomputed_mapper(table: dict[str, Any]) -> Mapper:
    """A mapper that takes each unit's result from ``table`` (filled by :func:`run_units`)
    and runs only the units missing there.  The results are those of a plain loop."""

    def mapper(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
        out = []
        for x in items:
            key = unit_key(fn, x)
            out.append(table[key] if key in table else fn(x))
        return out

    return mapper
