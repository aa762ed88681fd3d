"""The ``report.json`` document: its version, its environment block and its assembly.

The schema is documented in ``docs/report_schema.md``.  Every timing lives in the one
``timings`` section; everything but ``timings`` and the ``environment`` block is a
deterministic function of the seed, profile and claim selection, byte for byte.
"""

from __future__ import annotations

import dataclasses
import os
import platform
from collections.abc import Sequence
from importlib import metadata
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import VERDICTS, ClaimResult, Measurement, Part

__all__ = [
    "PENDING_STATUSES",
    "SCHEMA_VERSION",
    "STATUSES",
    "VOLATILE_KEYS",
    "build_document",
    "environment",
    "pending_entries",
    "results_from_document",
    "summary",
]

#: Version 2 adds ``status``, ``claims_pattern``, ``summary``, ``pending``, ``figures`` and
#: each claim's ``figure_data``.  Version 3 gathers every timing in ``timings``: the run's
#: ``wall_time_s`` (no longer at the top level) and each claim's wall seconds, which leave
#: the claim objects.
SCHEMA_VERSION = 3

#: The top-level keys that vary between two runs with the same seed, profile, claim
#: selection and jobs count: the timings section and the environment block.
VOLATILE_KEYS = ("timings", "environment")

#: Whether the run finished: ``partial`` while it runs, ``interrupted`` after Ctrl-C.
#: ``complete-with-errors``: every selected claim ran but at least one ended in ``error``
#: (an exception, or a worker that died, e.g. under the out-of-memory killer).
STATUSES = ("complete", "complete-with-errors", "partial", "interrupted")

#: Why a catalogue claim has no result: no check exists yet, ``--claims`` left it out, or
#: the run stopped before it.
PENDING_STATUSES = ("pending", "not-selected", "not-run")

_PACKAGES = ("sgmcmc-verify", "numpy", "scipy", "sympy", "mpmath", "statsmodels", "matplotlib")


def environment(**extra: Any) -> dict[str, Any]:
    """Package versions, Python, platform, CPU and numeric kernels (excluded from
    reproducibility).

    ``cpu``, ``blas`` and ``numpy_simd`` say which machine code did the arithmetic: the
    same seed gives byte-identical numbers on one machine, but two CPUs that take other
    BLAS or SIMD paths can differ in the last bits, and wholly in rounding residues (seen:
    the committed quick report rerun on another CPU had 1,494 of its 17,616 floats differ
    and every claim and part verdict the same).
    """
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
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "blas": _blas_libraries(),
        "numpy_simd": _numpy_simd(),
        "packages": versions,
        **extra,
    }


def _cpu_model() -> str | None:
    """The CPU's model name (``/proc/cpuinfo`` on Linux), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _blas_libraries() -> list[str]:
    """Each BLAS library loaded in this process: its implementation, version and the
    kernel family it runs (``OPENBLAS_CORETYPE`` and the CPU choose it)."""
    from threadpoolctl import threadpool_info

    return sorted(
        {
            f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
            for i in threadpool_info()
            if i.get("user_api") == "blas"
        }
    )


def _numpy_simd() -> list[str] | None:
    """numpy's SIMD dispatch targets enabled on this CPU (what ``numpy.show_runtime()``
    prints), or None where this numpy does not expose them."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return None
    return [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]


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
    """The ``report.json`` document (results in the order given: catalogue order).

    Each result's ``runtime_s`` moves from its claim object to ``timings["claims"]``, so
    that the claims hold only what the seed and profile determine (issue 14).
    """
    claims = []
    runtimes: dict[str, float] = {}
    for r in results:
        d = r.to_dict()
        runtimes[r.claim_id] = d.pop("runtime_s")
        claims.append(d)
    return {
        "schema_version": SCHEMA_VERSION,
        "status": meta.get("status", "complete"),
        "profile": meta["profile"],
        "seed": meta["seed"],
        "claims_pattern": meta.get("claims_pattern", "*"),
        "environment": meta["environment"],
        "timings": {"wall_time_s": meta["wall_time_s"], "claims": runtimes},
        "summary": summary(results, pending),
        "claims": claims,
        "pending": list(pending),
        "figures": list(figures),
    }


def _fields(cls, d: dict[str, Any]) -> dict[str, Any]:
    # the keys the dataclass knows: a later schema may add keys a reader does not use
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in d.items() if k in names}


def results_from_document(doc: dict[str, Any]) -> list[ClaimResult]:
    """The :class:`ClaimResult` objects of a ``report.json`` document (schema 2 or 3).

    Lets a report be re-rendered, or the README's verdict table be generated, from the
    committed JSON without rerunning any claim.  Each claim's seconds come from the
    ``timings`` section (schema 3) when present.
    """
    seconds = doc.get("timings", {}).get("claims", {})
    out = []
    for c in doc["claims"]:
        c = _fields(ClaimResult, c)
        c["parts"] = [
            Part(**{**_fields(Part, p),
                    "measured": {k: Measurement(**m) for k, m in p["measured"].items()}})
            for p in c["parts"]
        ]  # fmt: skip
        c["runtime_s"] = seconds.get(c["claim_id"], c.get("runtime_s", 0.0))
        out.append(ClaimResult(**c))
    return out
