"""``index.md``: the summary, the claims ledger and one section per paper, in Markdown."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import VERDICTS, ClaimResult
from ._format import compact_json, fmt, key_numbers, measurement_text, table_rows
from .schema import PENDING_STATUSES

__all__ = ["render_markdown"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(rows: list[dict[str, Any]], indent: str) -> list[str]:
    keys = list(rows[0])
    out = [indent + "| " + " | ".join(keys) + " |", indent + "|" + "---|" * len(keys)]
    out += [indent + "| " + " | ".join(_cell(fmt(r[k])) for k in keys) + " |" for r in rows]
    return out


def render_markdown(doc: dict[str, Any], results: Sequence[ClaimResult], papers: list[str]) -> str:
    """The Markdown report of ``doc`` (the ``report.json`` document) and its results."""
    pending = doc["pending"]
    figures = doc["figures"]
    status = "" if doc["status"] == "complete" else f" **Run {doc['status']}.**"
    lines = [
        "# sgmcmc-verify report",
        "",
        f"Profile `{doc['profile']}`, seed {doc['seed']}, claims `{doc['claims_pattern']}`: "
        f"{len(results)} checked, {len(pending)} without a result; "
        f"total {doc['wall_time_s']:.1f} s.{status}",
        "",
        "## Summary",
        "",
        "| paper | " + " | ".join((*VERDICTS, *PENDING_STATUSES)) + " |",
        "|---|" + "---|" * (len(VERDICTS) + len(PENDING_STATUSES)),
    ]
    for p, counts in doc["summary"].items():
        lines.append(f"| {p} | " + " | ".join(str(c) for c in counts.values()) + " |")
    lines += [
        "",
        "## Claims ledger",
        "",
        "| ID | statement | verdict | key numbers | α | time (s) |",
        "|---|---|---|---|---|---|",
    ]
    by_id = {r.claim_id: r for r in results}
    order = [r.claim_id for r in results] + [p["claim_id"] for p in pending]
    pend = {p["claim_id"]: p for p in pending}
    for cid in sorted(order, key=list(INFO).index):
        if cid in by_id:
            r = by_id[cid]
            alpha = "—" if r.alpha is None else f"{r.alpha:g}"
            lines.append(
                f"| [{cid}](#{cid.lower()}) | {_cell(_short(r.statement))} | **{r.verdict}** | "
                f"{_cell(key_numbers(r))} | {alpha} | {r.runtime_s:.2f} |"
            )
        else:
            p = pend[cid]
            lines.append(
                f"| {cid} | {_cell(_short(p['statement']))} | *{p['status']}* | — | — | — |"
            )
    for paper in papers:
        sel = [r for r in results if r.paper == paper]
        lines += ["", f"## {paper}"]
        waiting = [p["claim_id"] for p in pending if p["paper"] == paper]
        if waiting:
            lines += ["", f"Without a result in this run: {', '.join(waiting)}."]
        for r in sel:
            lines += _section(r, [f for f in figures if f["claim_id"] == r.claim_id])
    lines += ["", "## Environment", "", "```", json.dumps(doc["environment"], indent=2), "```", ""]
    return "\n".join(lines)


def _short(text: str, n: int = 110) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _section(r: ClaimResult, figures: list[dict[str, str]]) -> list[str]:
    lines = [
        "",
        f'### {r.claim_id} <a id="{r.claim_id.lower()}"></a>',
        "",
        f"*{r.paper}, {r.location}.* {r.statement}",
        "",
        f"**Verdict: {r.verdict}.** Expected: {r.expectation}",
        "",
    ]
    if r.reading:
        lines += [f"Reading: {r.reading}", ""]
    for p in r.parts:
        lines.append(f"- **{p.name}** — {p.verdict}: {p.expectation}")
        for k, m in p.measured.items():
            rows = table_rows(m.value)
            if rows is not None:
                lines.append(f"  - {k}:" + (f" ({m.note})" if m.note else ""))
                lines += ["", *_table(rows, "    "), ""]
            else:
                lines.append(f"  - {k}: {measurement_text(m)}")
        if p.reading:
            lines.append(f"  - reading: {p.reading}")
        if p.counterexample:
            lines.append(f"  - counterexample: `{compact_json(p.counterexample)}`")
    for f in figures:
        lines += ["", f"![{f['title']}]({f['file']})"]
    if r.traceback:
        lines += ["", "```", r.traceback.rstrip(), "```"]
    lines += [
        "",
        f"Reproduce: `sgmcmc-verify check {r.claim_id} --profile {r.profile} "
        f"--seed {r.seed}` ({r.runtime_s:.2f} s).",
    ]
    return lines
