"""Shared test settings.

Hypothesis runs with a fixed derandomised profile so the default suite is
reproducible (same examples every run) and bounded in time.
"""

import os

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
