"""Shared test settings.

Hypothesis runs with a fixed derandomised profile so the default suite is
reproducible (same examples every run) and bounded in time.  :func:`once` computes an
expensive deterministic fixture (a claim run, a report) once per test session.
"""

import fcntl
import os
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    derandomize=True,
    deadline=None,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")


#: Test modules whose tests take seconds each (peer libraries, child processes, claim runs),
#: by measured duration (`pytest --durations`).  Run first: pytest-xdist's worksteal
#: scheduler splits the collection in contiguous halves and steals from the end of a queue,
#: so long tests collected last (``test_validate_*`` sort last) ran at the end, one worker
#: busy while the other idled.  An ordering hint only: a stale entry costs time, not
#: correctness, and the default order is kept within each group.
LONG_FIRST = (
    "test_validate_posteriors.py",
    "test_claims_experiments.py",
    "test_validate_isolated.py",
    "test_validate_blackjax.py",
    "test_validate.py",
    "test_dask.py",
    "test_report_figures.py",
    "test_claims_cross.py",
    "test_smoke_stationary.py",
    "test_report.py",
)


def pytest_collection_modifyitems(items):
    """Move the tests of :data:`LONG_FIRST` modules to the front, in that order (stable)."""
    rank = {name: i for i, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONG_FIRST)))


def pytest_configure(config):
    """Each pytest-xdist worker is one of ``-n`` single-core processes: one BLAS thread each.

    As for ``report --jobs N`` (:func:`sgmcmc_verify.cli.one_blas_thread`): two workers
    each with a two-thread OpenBLAS pool oversubscribe two cores with busy-waiting threads.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import numpy  # noqa: F401  (the pool to limit is the BLAS numpy loads)

        from sgmcmc_verify.cli import one_blas_thread

        one_blas_thread()


@pytest.fixture(scope="session")
def once(request, tmp_path_factory) -> Callable[[str, Callable[[], Any]], Any]:
    """``once(key, compute)``: ``compute()`` run once per test session, whatever the workers.

    A module-scoped fixture ran once per *visit* of a worker to its module: pytest-xdist's
    worksteal scheduler interleaves modules, so the quick CHEAP reports of test_report.py
    ran three times in one session, and a claim run shared by tests on both workers ran on
    each.  The first worker to ask computes the value under a file lock and pickles it to
    the session's shared temporary directory; the others wait for the lock and read it.
    ``compute`` must be deterministic (a fixed seed), so that what a test sees is the same
    whichever worker computed it; its value must pickle, and no test may modify it (every
    test of the session shares it).  Without xdist it is a plain per-session memo.
    """
    workerinput = getattr(request.config, "workerinput", None)
    if workerinput is not None:
        # one directory per xdist run, named by its id: the workers' basetemps are siblings
        # under the session's root, and the id keeps any other run's values apart
        root = tmp_path_factory.getbasetemp().parent / f"computed-once-{workerinput['testrunuid']}"
    else:
        root = tmp_path_factory.getbasetemp() / "computed-once"
    root.mkdir(exist_ok=True)
    memo: dict[str, Any] = {}

    def get(key: str, compute: Callable[[], Any]) -> Any:
        if key not in memo:
            path = root / f"{key}.pickle"
            with open(root / f"{key}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if path.exists():
                    value = pickle.loads(path.read_bytes())
                else:
                    value = compute()
                    part = path.with_suffix(".part")
                    part.write_bytes(pickle.dumps(value))
                    part.replace(path)
            memo[key] = value
        return memo[key]

    return get
