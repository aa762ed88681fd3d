"""Claims as data: the :class:`ClaimResult` that pytest asserts on and the report renders."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

__all__ = ["VERDICTS", "ClaimResult", "Measurement", "Part", "combine_verdicts"]

#: The verdicts a check may return (CLAIMS.md).
VERDICTS = ("confirmed", "qualified", "refuted", "not-checkable", "error")


@dataclass(frozen=True)
class Measurement:
    """A measured number with its uncertainty.

    ``stderr`` is ``None`` for values that are exact up to rounding (enumeration,
    closed forms); ``ci`` is an optional (low, high) confidence interval at the
    check's stated α.
    """

    value: Any
    stderr: Any = None
    ci: tuple[float, float] | None = None
    note: str = ""


@dataclass(frozen=True)
class Part:
    """One sub-statement of a claim (e.g. 'CA: C = ⌈N/n⌉') with its own verdict.

    ``rule`` names the :mod:`~sgmcmc_verify.claims.decide` builder that decided the
    verdict ("" for a part built by hand); ``erratum`` is the corrected statement,
    the failing step of the paper and a one-command counterexample
    (:class:`~sgmcmc_verify.claims.decide.Erratum` as a dict) of a refuted or
    qualified part.  Both are additive to the report.json schema.
    """

    name: str
    verdict: str
    expectation: str
    measured: dict[str, Measurement]
    reading: str = ""
    counterexample: dict[str, Any] | None = None
    rule: str = ""
    erratum: dict[str, str] | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


def combine_verdicts(verdicts: list[str]) -> str:
    """The claim's verdict from its parts.

    ``error`` and ``refuted`` win (one refuted part refutes the claim as written).
    A claim whose parts could *all* not be checked is ``not-checkable``; one where
    some parts were checked and others could not be, or where a part holds only
    in a narrower reading, is ``qualified`` — confirmed only as far as it was
    checked.  Otherwise ``confirmed``.
    """
    for v in ("error", "refuted"):
        if v in verdicts:
            return v
    if verdicts and all(v == "not-checkable" for v in verdicts):
        return "not-checkable"
    if "qualified" in verdicts or "not-checkable" in verdicts:
        return "qualified"
    return "confirmed"


@dataclass
class ClaimResult:
    """The outcome of checking one claim of ``shared/CLAIMS.md``.

    Attributes
    ----------
    claim_id, paper, location, statement : str
        Which claim, where the paper makes it, and what it says.
    verdict : str
        One of :data:`VERDICTS`.
    expectation : str
        What the claim predicts, in measurable terms.
    reading : str
        How the verdict follows from the measurements; for ``qualified`` the
        narrower reading that holds, for ``refuted`` what fails.
    parts : list of Part
        Sub-statements with their own verdicts and numbers.
    counterexample : dict or None
        Parameters, seed and numbers that contradict the claim (``refuted``).
    params : dict
        Everything needed to reproduce the check (profile, seed, sizes, α).
    seed : int
    profile : str
    alpha : float or None
        The check's total false-alarm budget (``None`` when it uses no statistics).
    runtime_s : float
        Wall-clock seconds.
    traceback : str or None
        The formatted traceback of an ``error`` verdict.
    figure_data : dict
        Figure name → every number needed to draw it (the report's figures read
        only this; see ``docs/report_schema.md``).  Empty when the claim has no figure.
    """

    claim_id: str
    paper: str
    location: str
    statement: str
    verdict: str
    expectation: str = ""
    reading: str = ""
    parts: list[Part] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    profile: str = "quick"
    alpha: float | None = None
    runtime_s: float = 0.0
    traceback: str | None = None
    figure_data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        # A check returns ``(parts, params)``; its figure data travels in
        # ``params["figure_data"]`` and is lifted out here, so params stays what reproduces it.
        if "figure_data" in self.params:
            self.params = dict(self.params)
            self.figure_data = {**self.params.pop("figure_data"), **self.figure_data}

    def part(self, name: str) -> Part:
        """The part called ``name``."""
        for p in self.parts:
            if p.name == name:
                return p
        raise KeyError(
            f"{self.claim_id} has no part {name!r}; parts: {[p.name for p in self.parts]}"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (numpy values converted, non-finite floats as strings).

        A part's ``rule`` and ``erratum`` appear only when set, so results of checks
        that do not use the decision layer serialise exactly as before (additive schema).
        """
        d = asdict(self)
        for part in d["parts"]:
            for key, default in (("rule", ""), ("erratum", None)):
                if part.get(key) == default:
                    part.pop(key)
        return _jsonable(d)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, np.generic):
        return _jsonable(obj.item())
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    return obj
