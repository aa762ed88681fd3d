"""pytest plugin (``pytest11`` entry point ``sgmcmc_verify``): a fixture to validate samplers.

In a library's test suite::

    def test_my_sgld(sgmcmc_validate):
        report = sgmcmc_validate(my_sample_function, "sgld")
        assert report.passed, report.summary()

``sgmcmc_validate(impl, algorithm, **kwargs)`` calls
:func:`sgmcmc_verify.validation.validate` (same keyword arguments) and returns its
:class:`~sgmcmc_verify.validation.ValidationReport`.  ``sgmcmc_assert_valid`` does the
same and fails the test with the report's one-line-per-check summary.  The heavy imports
(numpy, scipy, sympy) happen only when a fixture is used.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def sgmcmc_validate():
    """``validate(impl, algorithm, **kwargs) -> ValidationReport`` (deferred import)."""

    def run(impl: Any, algorithm: str, **kwargs: Any):
        from sgmcmc_verify.validation import validate

        return validate(impl, algorithm, **kwargs)

    return run


@pytest.fixture
def sgmcmc_assert_valid(sgmcmc_validate):
    """Like :func:`sgmcmc_validate`, but fails the test unless every check passes."""

    def run(impl: Any, algorithm: str, **kwargs: Any):
        report = sgmcmc_validate(impl, algorithm, **kwargs)
        if not report.passed:
            pytest.fail(
                f"{algorithm} implementation rejected ({report.verdict}):\n{report.summary()}",
                pytrace=False,
            )
        return report

    return run
