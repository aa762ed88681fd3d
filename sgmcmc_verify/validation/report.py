"""The result objects of :func:`sgmcmc_verify.validation.validate`: one verdict per check."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["VERDICTS", "CheckResult", "ValidationReport"]

#: ``pass``: consistent with the reference at the stated α; ``fail``: rejected;
#: ``error``: the implementation could not be checked (raised, NaN, wrong shape, timeout, ...);
#: ``inconclusive``: too little information to decide (reported, never a rejection).
VERDICTS = ("pass", "fail", "error", "inconclusive")


@dataclass
class CheckResult:
    """One check: a name, a verdict, the numbers behind it and a message to act on."""

    name: str
    verdict: str
    message: str
    numbers: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


@dataclass
class ValidationReport:
    """Every check run against one implementation, in the order run.

    ``verdict`` is ``"error"`` if any check errored, else ``"fail"`` if any failed, else
    ``"pass"`` when at least one check passed.  A report whose checks are all
    ``inconclusive`` (or that has none) is ``"error"``: nothing was judged, and an input the
    harness cannot judge is never a pass.
    """

    algorithm: str
    mode: str
    checks: list[CheckResult] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        verdicts = {c.verdict for c in self.checks}
        if "error" in verdicts:
            return "error"
        if "fail" in verdicts:
            return "fail"
        return "pass" if "pass" in verdicts else "error"

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def failures(self) -> list[CheckResult]:
        return [c for c in self.checks if c.verdict in ("fail", "error")]

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "mode": self.mode,
            "verdict": self.verdict,
            "settings": _jsonable(self.settings),
            "checks": [_jsonable(asdict(c)) for c in self.checks],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=True)

    def to_markdown(self) -> str:
        lines = [
            f"# Validation of `{self.algorithm}` ({self.mode}): **{self.verdict}**",
            "",
            "| check | verdict | message |",
            "|---|---|---|",
        ]
        for c in self.checks:
            msg = c.message.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {c.name} | {c.verdict} | {msg} |")
        return "\n".join(lines) + "\n"

    def summary(self) -> str:
        """One line per failed or errored check (empty string when all pass)."""
        return "\n".join(f"{c.name}: {c.verdict}: {c.message}" for c in self.failures())


def _jsonable(x: Any) -> Any:
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x
