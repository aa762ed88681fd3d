"""Run the report's claim checks on a Dask distributed cluster (``report --scheduler``).

Each claim is one task, and it runs with :func:`sgmcmc_verify.parallel.dask_mapper`
installed: the (step size, seed block) units a check hands to
:func:`~sgmcmc_verify.parallel.map_units` become tasks of their own, so a slow claim
spreads over the cluster.  Every unit carries its own seed, so the report is the same
as with ``--jobs 1``.

``distributed`` is an optional dependency (``pip install 'sgmcmc-verify[dask]'``) and is
imported only when a scheduler is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..parallel import run_with_units

#: The ``--scheduler`` value that starts a local cluster instead of connecting to one.
LOCAL = "local"
#: Seconds to wait for a scheduler before giving up (``distributed`` waits 30 by default).
CONNECT_TIMEOUT = 10.0


class DaskUnavailableError(RuntimeError):
    """``distributed`` is not installed, or the scheduler cannot be reached (one line)."""


def require() -> None:
    """Raise :class:`DaskUnavailableError` (one-line message) if ``distributed`` is missing."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise DaskUnavailableError(
            "--scheduler needs the 'distributed' package: pip install 'sgmcmc-verify[dask]'"
        ) from None


def run_on_dask(
    address: str,
    ids: Sequence[str],
    task: Callable[[str], Any],
    on_result: Callable[[Any], None],
    on_failure: Callable[[str, BaseException], Any],
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> None:
    """Submit ``task(cid)`` for every claim ID and call ``on_result`` as each finishes.

    ``address`` is a scheduler address (``tcp://127.0.0.1:8786``) or ``"local"``, which
    starts ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)`` for the
    duration of the run.  ``task`` must be picklable (a module-level function).  A task
    that raises, or whose worker dies, is passed to ``on_failure(cid, exc)``, whose
    return value is reported in its place.  On any exception (Ctrl-C included) the
    outstanding tasks are cancelled and the client (and local cluster) closed.

    Raises :class:`DaskUnavailableError` (one line), before any task is submitted, when
    ``distributed`` is missing or no scheduler answers at ``address`` within
    ``connect_timeout`` seconds.
    """
    require()
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if address == LOCAL:
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=connect_timeout)
        except (OSError, ValueError, TypeError) as err:  # refused, timed out, bad address
            detail = str(err).strip().splitlines()[0] if str(err).strip() else ""
            raise DaskUnavailableError(
                f"--scheduler {address!r}: cannot connect ({type(err).__name__}: {detail})"
            ) from None
    try:
        # pure=False: fresh keys, so a shared scheduler never hands back an older run's result
        futures = {client.submit(run_with_units, task, cid, pure=False): cid for cid in ids}
        try:
            for fut in as_completed(futures):
                try:
                    r = fut.result()
                except Exception as exc:  # a failed task loses only its own claim
                    r = on_failure(futures[fut], exc)
                on_result(r)
        except BaseException:
            client.cancel(list(futures))
            raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
