"""The ``report.json`` document: its version, its environment block and its assembly.

The schema is documented in ``docs/report_schema.md``.  Everything but the
``environment`` block, ``wall_time_s`` and each claim's ``runtime_s`` is a
deterministic function of the seed, profile and claim selection.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import VERDICTS, ClaimResult

__all__ = [
    "PENDING_STATUSES",
    "SCHEMA_VERSION",
    "STATUSES",
    "build_document",
    "environment",
    "pending_entries",
    "summary",
]

#: Version 2 adds ``status``, ``claims_pattern``, ``summary``, ``pending``, ``figures`` and
#: each claim's ``figure_data``.
SCHEMA_VERSION = 2

#: Whether the run finished: ``partial`` while it runs, ``interrupted`` after Ctrl-C.
STATUSES = ("complete", "partial", "interrupted")

#: Why a catalogue claim has no result: no check exists yet, ``--claims`` left it out, or
#: the run stopped before it.
PENDING_STATUSES = ("pending", "not-selected", "not-run")

_PACKAGES = ("sgmcmc-verify", "numpy", "scipy", "sympy", "mpmath", "statsmodels", "matplotlib")


def environment(**extra: Any) -> dict[str, Any]:
    """Package versions, Python, platform and CPU count (excluded from reproducibility)."""
    versions = {}
    for p in _PACKAGES:
        try:
            versions[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            versions[p] = None
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "packages": versions,
        **extra,
    }


def pending_entries(
    results: Sequence[ClaimResult], selected: Sequence[str], implemented: Sequence[str]
) -> list[dict[str, str]]:
    """Every catalogue claim without a result, in catalogue order, with why it has none."""
    done = {r.claim_id for r in results}
    out = []
    for cid, info in INFO.items():
        if cid in done:
            continue
        if cid not in implemented:
            status = "pending"
        elif cid not in selected:
            status = "not-selected"
        else:
            status = "not-run"
        out.append(
            {
                "claim_id": cid,
                "paper": info.paper,
                "location": info.location,
                "statement": info.statement,
                "status": status,
            }
        )
    return out


def summary(
    results: Sequence[ClaimResult], pending: Sequence[dict[str, str]]
) -> dict[str, dict[str, int]]:
    """Paper → {verdict or pending status → count}, every key present, papers sorted."""
    papers = sorted({r.paper for r in results} | {p["paper"] for p in pending})
    table = {p: dict.fromkeys((*VERDICTS, *PENDING_STATUSES), 0) for p in papers}
    for r in results:
        table[r.paper][r.verdict] += 1
    for p in pending:
        table[p["paper"]][p["status"]] += 1
    return table


def build_document(
    results: Sequence[ClaimResult],
    meta: dict[str, Any],
    pending: Sequence[dict[str, str]],
    figures: Sequence[dict[str, str]],
) -> dict[str, Any]:
    """The ``report.json`` document (results in the order given: catalogue order)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "status": meta.get("status", "complete"),
        "profile": meta["profile"],
        "seed": meta["seed"],
        "claims_pattern": meta.get("claims_pattern", "*"),
        "environment": meta["environment"],
        "wall_time_s": meta["wall_time_s"],
        "summary": summary(results, pending),
        "claims": [r.to_dict() for r in results],
        "pending": list(pending),
        "figures": list(figures),
    }
