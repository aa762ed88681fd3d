"""Error-rate budgets across families of tests: Bonferroni, Holm, and a ledger.

A suite of statistical checks each run at level ``α_i`` makes at least one
false alarm with probability at most ``Σ α_i`` (the union bound, whatever the
dependence between the tests).  :class:`AlphaBudget` hands out the ``α_i``
from a stated total and records them so the report can show the budget.

The budget here is fixed in advance (non-sequential).  Sequential budgets, which
let a check stop early once its verdict is clear while keeping the overall error
rate, are described by Gandy & Scott (2020); this module does not implement them.

References
----------
.. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
   Scandinavian Journal of Statistics 6(2):65-70, 1979.
.. [2] A. Gandy, M. Scott, "Unit testing for MCMC and other Monte Carlo
   methods", arXiv:2001.06465, 2020.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import positive_int

__all__ = ["AlphaBudget", "AlphaSpend", "bonferroni", "check_alpha", "holm"]

# Relative slack when comparing spent against total, so that splitting a total
# into n equal floating-point shares never trips the overspend check.
_ROUNDING_SLACK = 1e-12


def check_alpha(alpha: float, *, name: str = "alpha") -> float:
    """Return ``float(alpha)`` if ``0 < alpha < 1``, else raise.

    Raises
    ------
    TypeError
        If ``alpha`` is not a real number.
    ValueError
        If ``alpha`` is not in the open interval (0, 1).
    """
    if isinstance(alpha, bool):
        raise TypeError(f"{name} must be a real number in (0, 1), got {alpha!r}")
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number in (0, 1), got {alpha!r}") from None
    if not 0.0 < a < 1.0:
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {alpha!r}")
    return a


def bonferroni(alpha_total: float, m: int) -> float:
    """Per-test level ``alpha_total / m`` for ``m`` tests.

    Rejecting each hypothesis at this level makes the probability of any false
    rejection at most ``alpha_total``, under any dependence (union bound).

    Parameters
    ----------
    alpha_total : float in (0, 1)
    m : int >= 1

    Returns
    -------
    float
    """
    a = check_alpha(alpha_total, name="alpha_total")
    m = positive_int("m", m)
    return a / m


def holm(p_values: Sequence[float] | np.ndarray, alpha_total: float) -> np.ndarray:
    """Holm's step-down procedure: which hypotheses to reject.

    Sort the ``m`` p-values, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`; reject
    :math:`H_{(1)}, \\dots, H_{(j-1)}` where ``j`` is the first index with
    :math:`p_{(j)} > \\alpha / (m - j + 1)` (Holm 1979).  The family-wise
    error rate is at most ``alpha_total`` under any dependence, and Holm rejects
    everything Bonferroni rejects, and possibly more.

    Parameters
    ----------
    p_values : 1-d array_like of floats in [0, 1]
    alpha_total : float in (0, 1)

    Returns
    -------
    ndarray of bool, same length as ``p_values``, in the input order
    """
    a = check_alpha(alpha_total, name="alpha_total")
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p_values must be 1-d, got shape {p.shape}")
    if p.size and not np.all((p >= 0) & (p <= 1)):
        raise ValueError("p_values must lie in [0, 1] (and not be NaN)")
    m = p.size
    order = np.argsort(p, kind="stable")
    ok = p[order] <= a / (m - np.arange(m))
    # Step-down: stop at the first failure.
    reject_sorted = np.logical_and.accumulate(ok) if m else ok
    reject = np.empty(m, dtype=bool)
    reject[order] = reject_sorted
    return reject


@dataclass(frozen=True)
class AlphaSpend:
    """One entry of an :class:`AlphaBudget`: a labelled significance level."""

    label: str
    alpha: float
    note: str = ""


class AlphaBudget:
    """A ledger that hands out per-test significance levels from a total.

    By the union bound, if every test drawn from the budget is run at the level
    it was given, the probability of at least one false rejection among them is
    at most ``total``.  A label can be spent only once: a check that fails is
    not re-run on fresh data under the same budget.

    Parameters
    ----------
    total : float in (0, 1)
        Family-wise error rate for everything drawn from this budget.
    name : str, optional
        Shown in :meth:`as_dict`, e.g. ``"test_stats.py"`` or ``"AGLD claims"``.

    Examples
    --------
    >>> budget = AlphaBudget(1e-3, name="suite")
    >>> budget.take("mean of SGLD on N(0,1)", 2e-4)
    0.0002
    >>> shares = budget.split(["coordinate 1", "coordinate 2"], 4e-4)
    >>> shares["coordinate 1"]
    0.0002
    >>> round(budget.remaining, 12)
    0.0004
    """

    def __init__(self, total: float, *, name: str = "") -> None:
        self._total = check_alpha(total, name="total")
        self._name = str(name)
        self._records: list[AlphaSpend] = []

    @property
    def total(self) -> float:
        """The family-wise error rate this budget guarantees."""
        return self._total

    @property
    def name(self) -> str:
        return self._name

    @property
    def spent(self) -> float:
        """Sum of the levels handed out so far."""
        return float(sum(r.alpha for r in self._records))

    @property
    def remaining(self) -> float:
        """``total - spent`` (never negative)."""
        return max(0.0, self._total - self.spent)

    @property
    def records(self) -> tuple[AlphaSpend, ...]:
        """Every level handed out, in order."""
        return tuple(self._records)

    def take(self, label: str, alpha: float, *, note: str = "") -> float:
        """Spend ``alpha`` on the test ``label`` and return it.

        Raises
        ------
        ValueError
            If ``label`` was already spent, or if ``alpha`` exceeds what remains.
        """
        a = check_alpha(alpha)
        self._check_label(label)
        if self.spent + a > self._total * (1.0 + _ROUNDING_SLACK):
            raise ValueError(
                f"alpha budget {self._name!r} overspent: asked {a:g} for {label!r}, "
                f"only {self.remaining:g} of {self._total:g} remains"
            )
        self._records.append(AlphaSpend(str(label), a, str(note)))
        return a

    def split(
        self, labels: Sequence[str], alpha: float | None = None, *, note: str = ""
    ) -> dict[str, float]:
        """Split ``alpha`` (default: all that remains) equally over ``labels``.

        This is :func:`bonferroni` with the shares recorded.

        Returns
        -------
        dict mapping each label to its level
        """
        labels = [str(lab) for lab in labels]
        if not labels:
            raise ValueError("split needs at least one label")
        if len(set(labels)) != len(labels):
            raise ValueError("split labels must be distinct")
        for lab in labels:
            self._check_label(lab)
        a = self.remaining if alpha is None else check_alpha(alpha)
        if a <= 0:
            raise ValueError(f"alpha budget {self._name!r} is exhausted")
        share = bonferroni(a, len(labels))
        return {lab: self.take(lab, share, note=note) for lab in labels}

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly summary for the report."""
        return {
            "name": self._name,
            "total": self._total,
            "spent": self.spent,
            "remaining": self.remaining,
            "records": [
                {"label": r.label, "alpha": r.alpha, "note": r.note} for r in self._records
            ],
        }

    def _check_label(self, label: str) -> None:
        if any(r.label == str(label) for r in self._records):
            raise ValueError(
                f"{label!r} already drew from this budget; a test is run once at its level"
            )

    def __repr__(self) -> str:
        return (
            f"AlphaBudget(total={self._total:g}, spent={self.spent:g}, "
            f"tests={len(self._records)}, name={self._name!r})"
        )
