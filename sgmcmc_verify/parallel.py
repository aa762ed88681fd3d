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

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["dask_mapper", "map_units", "run_with_units", "unit_mapper"]

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
        return client.gather(client.map(fn, items, pure=False))


def run_with_units(task: Callable[[Any], Any], arg: Any) -> Any:
    """``task(arg)`` with :func:`dask_mapper` installed: the Dask runner's claim task."""
    with unit_mapper(dask_mapper):
        return task(arg)
