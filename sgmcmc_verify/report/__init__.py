"""The claims ledger as Markdown and JSON (a first cut of the report; no figures yet).

``report.json`` carries ``schema_version``; everything but the ``environment``
block and the ``runtime_s`` fields is a deterministic function of the seed and
profile.
"""

from __future__ import annotations

import json
import os
import platform
from collections import Counter
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from ..claims.result import VERDICTS, ClaimResult

__all__ = ["SCHEMA_VERSION", "environment", "write_report"]

SCHEMA_VERSION = 1
_PACKAGES = ("sgmcmc-verify", "numpy", "scipy", "sympy", "mpmath", "statsmodels", "matplotlib")


def environment() -> dict[str, Any]:
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
    }


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items())
    return str(value)


def _markdown(results: Sequence[ClaimResult], meta: dict[str, Any]) -> str:
    counts = Counter((r.paper, r.verdict) for r in results)
    papers = sorted({r.paper for r in results})
    lines = [
        "# sgmcmc-verify report",
        "",
        f"Profile `{meta['profile']}`, seed {meta['seed']}, {len(results)} claims, "
        f"total {meta['wall_time_s']:.1f} s.",
        "",
        "## Summary",
        "",
        "| paper | " + " | ".join(VERDICTS) + " |",
        "|---|" + "---|" * len(VERDICTS),
    ]
    for p in papers:
        lines.append(f"| {p} | " + " | ".join(str(counts[(p, v)]) for v in VERDICTS) + " |")
    lines += [
        "",
        "## Claims ledger",
        "",
        "| ID | verdict | α | time (s) | reading |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        alpha = "—" if r.alpha is None else f"{r.alpha:g}"
        reading = r.reading.replace("|", "\\|")
        lines.append(
            f"| [{r.claim_id}](#{r.claim_id.lower()}) | **{r.verdict}** | {alpha} | "
            f"{r.runtime_s:.2f} | {reading} |"
        )
    for r in results:
        lines += [
            "",
            f"## {r.claim_id}",
            "",
            f"*{r.paper}, {r.location}.* {r.statement}",
            "",
            f"**Verdict: {r.verdict}.** Expected: {r.expectation}",
            "",
        ]
        for p in r.parts:
            lines.append(f"- **{p.name}** — {p.verdict}: {p.expectation}")
            for k, m in p.measured.items():
                err = "" if m.stderr is None else f" ± {_fmt(m.stderr)}"
                note = f" ({m.note})" if m.note else ""
                lines.append(f"  - {k}: {_fmt(m.value)}{err}{note}")
            if p.reading:
                lines.append(f"  - reading: {p.reading}")
            if p.counterexample:
                lines.append(f"  - counterexample: `{json.dumps(p.counterexample, default=str)}`")
        if r.traceback:
            lines += ["", "```", r.traceback.rstrip(), "```"]
        lines += [
            "",
            f"Reproduce: `sgmcmc-verify check {r.claim_id} --profile {r.profile} "
            f"--seed {r.seed}` ({r.runtime_s:.2f} s).",
        ]
    lines += ["", "## Environment", "", "```", json.dumps(meta["environment"], indent=2), "```", ""]
    return "\n".join(lines)


def write_report(results: Sequence[ClaimResult], out: Path, meta: dict[str, Any]) -> list[Path]:
    """Write ``index.md`` and ``report.json`` to ``out``; return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema_version": SCHEMA_VERSION,
        "profile": meta["profile"],
        "seed": meta["seed"],
        "environment": meta["environment"],
        "wall_time_s": meta["wall_time_s"],
        "claims": [r.to_dict() for r in results],
    }
    paths = [out / "report.json", out / "index.md"]
    paths[0].write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    paths[1].write_text(_markdown(results, meta))
    return paths
