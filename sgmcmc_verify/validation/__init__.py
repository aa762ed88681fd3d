"""Validate other implementations against the references (issue 7).

Entry points:

* :func:`validate` — a sampler function (:class:`SampleFunction`) or a step function
  with the noise passed in (:class:`StepFunction`, ``mode="step"``);
* :func:`compare_steps` — the step-by-step comparison alone;
* :func:`validate_samples`, :func:`load_samples` — draws from files (``.npy``, ``.npz``,
  ``.csv``; never unpickled); :class:`SampleFileError` is the one-line error the CLI
  turns into exit code 2 (:func:`cli_validate_samples`);
* :func:`sgmcmc_verify.validation.power.measure_power` — kill rate on the planted-bug
  catalogue and false-alarm rate on the references.
"""

from __future__ import annotations

from .core import (
    ALPHA,
    ImplementationError,
    SampleFileError,
    SampleFunction,
    StepFunction,
    compare_steps,
    load_samples,
    reference_sample_function,
    validate,
    validate_samples,
)
from .report import CheckResult, ValidationReport

__all__ = [
    "ALPHA",
    "CheckResult",
    "ImplementationError",
    "SampleFileError",
    "SampleFunction",
    "StepFunction",
    "ValidationReport",
    "cli_validate_samples",
    "compare_steps",
    "load_samples",
    "reference_sample_function",
    "validate",
    "validate_samples",
]


def cli_validate_samples(
    paths: dict[float, str], algorithm: str, *, params: dict | None = None, fmt: str = "md"
) -> tuple[int, str]:
    """What ``sgmcmc-verify validate-samples`` does: ``(exit code, text to print)``.

    Exit 0 when every check passes, 1 on a failed or errored check, 2 (with one line) on
    an unreadable file or bad arguments.
    """
    try:
        rep = validate_samples(paths, algorithm, params=params)
    except (SampleFileError, ValueError) as err:
        return 2, f"error: {err}".splitlines()[0]
    text = rep.to_json() if fmt == "json" else rep.to_markdown()
    return (0 if rep.passed else 1), text
