"""``index.md``: the summary, the claims ledger and one section per paper, in Markdown."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..claims.result import VERDICTS, ClaimResult
from ._format import compact_json, fmt, ledger_rows, measurement_text, table_rows
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
    for e in ledger_rows(results, pending):
        cid = e["id"]
        link, status = (
            (f"[{cid}](#{cid.lower()})", f"**{e['status']}**")
            if e["linked"]
            else (cid, f"*{e['status']}*")
        )
        lines.append(
            f"| {link} | {_cell(_short(e['statement']))} | {status} | {_cell(e['numbers'])} | "
            f"{e['alpha']} | {e['time']} |"
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
