"""Claims as data: each claim ID of ``shared/CLAIMS.md`` → a check returning a ClaimResult.

Every fact about a claim (paper, statement, check, expectation, the paper's regime) is one
:class:`~.catalogue.ClaimSpec` in :data:`SPECS`; ``CHECKS``, ``INFO``, ``EXPECTATIONS`` and
``REGIMES`` are views of that table.

>>> from sgmcmc_verify import claims
>>> r = claims.check("AGLD-R1", profile="quick", seed=0)   # doctest: +SKIP
>>> r.verdict, [(p.name, p.verdict) for p in r.parts]       # doctest: +SKIP

pytest asserts on these results and the report renders the same objects: one
source of truth, two readers.  A check that raises becomes an ``error``
verdict carrying its traceback; it never takes other checks down with it.
"""

from __future__ import annotations

import importlib
import time
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .._validation import choice
from ..parallel import single_blas_thread
from .catalogue import (
    CATALOGUE,
    CHECK_TARGETS,
    EXPECTATIONS,
    INFO,
    REGIMES,
    SPECS,
    ClaimInfo,
    ClaimSpec,
)
from .result import VERDICTS, ClaimResult, Measurement, Part, combine_verdicts

__all__ = [
    "CATALOGUE",
    "CHECKS",
    "EXPECTATIONS",
    "INFO",
    "PROFILES",
    "REGIMES",
    "SPECS",
    "SUBMODULES",
    "VERDICTS",
    "ClaimInfo",
    "ClaimResult",
    "ClaimSpec",
    "LazyCheck",
    "Measurement",
    "Part",
    "check",
    "ids",
    "run_check",
]

PROFILES = ("quick", "full")

CheckFn = Callable[..., tuple[list[Part], dict[str, Any]]]

#: The check modules of this package (those the specs name); each is imported when one of
#: its checks first runs (or on attribute access, ``claims.rates``), because together they
#: pull in sympy, scipy.stats and the samplers (> 1 s), which ``sgmcmc-verify --help`` or
#: ``list`` and ``import sgmcmc_verify.claims`` do not need (issue 13).
SUBMODULES = tuple(sorted({spec.module for spec in SPECS.values()}))


class LazyCheck:
    """A check function named by its module and attribute, imported on first call.

    Calling it is calling the function; :meth:`resolve` returns the function itself.

    Parameters
    ----------
    module : str
        One of :data:`SUBMODULES`.
    name : str
        The check function's name in that module.
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def resolve(self) -> CheckFn:
        """Import the module and return the check function."""
        fn: CheckFn = getattr(importlib.import_module(f".{self.module}", __name__), self.name)
        return fn

    def __call__(self, **kwargs: Any) -> tuple[list[Part], dict[str, Any]]:
        return self.resolve()(**kwargs)

    def __repr__(self) -> str:
        return f"LazyCheck({self.module!r}, {self.name!r})"


def __getattr__(name: str) -> ModuleType:
    """``claims.<module>`` for a check module not imported yet (PEP 562)."""
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Claim ID → check function ``f(*, profile, seed, **implementation) -> (parts, params)``,
#: as a :class:`LazyCheck` (module, function name, from the claim's spec in
#: :data:`~.catalogue.SPECS`) so that no check module is imported until its check runs.
CHECKS: dict[str, CheckFn] = {
    claim_id: LazyCheck(module, name) for claim_id, (module, name) in CHECK_TARGETS.items()
}


def ids(*, implemented: bool = True) -> list[str]:
    """Claim IDs: those with a check (default), or the whole catalogue."""
    return [c for c in INFO if not implemented or c in CHECKS]


def run_check(claim_id: str, fn: CheckFn, *, profile: str, seed: int, **impl: Any) -> ClaimResult:
    """Run ``fn`` and wrap its parts into a :class:`ClaimResult` (errors become verdicts)."""
    info = INFO[claim_id]
    t0 = time.perf_counter()
    try:
        with single_blas_thread():  # the same bits whatever the process's BLAS threads
            parts, params = fn(profile=profile, seed=seed, **impl)
    except Exception:  # a broken check must not lose the others: report it as an error
        return ClaimResult(
            claim_id,
            info.paper,
            info.location,
            info.statement,
            "error",
            expectation=info.expectation,
            seed=seed,
            profile=profile,
            runtime_s=time.perf_counter() - t0,
            traceback=traceback.format_exc(),
        )
    verdict = combine_verdicts([p.verdict for p in parts])
    negative = [p for p in parts if p.verdict in ("refuted", "qualified", "not-checkable")]
    reading = "; ".join(f"{p.name}: {p.reading}" for p in negative if p.reading) or "all parts hold"
    counter = next((p.counterexample for p in parts if p.verdict == "refuted"), None)
    return ClaimResult(
        claim_id,
        info.paper,
        info.location,
        info.statement,
        verdict,
        expectation=info.expectation,
        reading=reading,
        parts=parts,
        counterexample=counter,
        params={"profile": profile, "seed": seed, **params},
        seed=seed,
        profile=profile,
        alpha=params.get("alpha"),
        runtime_s=time.perf_counter() - t0,
    )


def check(claim_id: str, *, profile: str = "quick", seed: int = 0) -> ClaimResult:
    """Check one claim of CLAIMS.md.

    Parameters
    ----------
    claim_id : str
        An ID from :func:`ids`.
    profile : {"quick", "full"}
        ``quick`` runs in seconds; ``full`` uses larger grids and more chains.
    seed : int
        Seed for every random number the check draws.

    Returns
    -------
    ClaimResult
    """
    choice("profile", profile, PROFILES)
    if claim_id in CATALOGUE and claim_id not in CHECKS:
        raise NotImplementedError(f"{claim_id} is in the catalogue but has no check yet")
    choice("claim ID", claim_id, CHECKS)
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    return run_check(claim_id, CHECKS[claim_id], profile=profile, seed=seed)
