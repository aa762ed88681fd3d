"""The result object every statistical test in :mod:`sgmcmc_verify.stats` returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = ["TestOutcome"]


@dataclass(frozen=True)
class TestOutcome:
    """Outcome of one hypothesis test at a stated significance level.

    Parameters
    ----------
    statistic
        The test statistic (for multi-coordinate tests, the most extreme
        coordinate's; see ``description``).
    p_value
        The p-value; for multi-coordinate tests it is Bonferroni-adjusted,
        ``min(1, d * min_i p_i)``, so it is compared with ``alpha`` directly.
    alpha
        The significance level (probability of a false rejection) the test was
        run at.  The caller chooses it, typically from an
        :class:`~sgmcmc_verify.stats.AlphaBudget`.
    threshold
        Critical value derived from ``alpha``: the test rejects when
        ``statistic > threshold``; a pair ``(lo, hi)`` means it rejects when
        ``statistic`` falls outside ``[lo, hi]``.
    reject
        ``p_value <= alpha``; this is the decision of record.  It agrees with
        the comparison against ``threshold`` except for rounding at the boundary.
    description
        One line saying what was tested and how, for the report.
    details
        Per-coordinate or auxiliary numbers (ESS, MCSE, pooled bins, ...).
        Excluded from equality and hashing.
    """

    # Not a pytest test class, despite the name.
    __test__: ClassVar[bool] = False

    statistic: float
    p_value: float
    alpha: float
    threshold: float | tuple[float, float]
    reject: bool
    description: str
    details: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.reject, bool):
            object.__setattr__(self, "reject", bool(self.reject))
