"""``index.md``: contents, summary, claims ledger and one section per claim, in Markdown.

Every string that comes from outside this module (claim texts, readings, the
``--claims`` pattern, tracebacks) goes through :func:`md_text` (backslash escapes, one
line), :func:`md_code` (a code span whose backtick fence is longer than any backtick run
inside) or :func:`md_fence` (a fenced block likewise), so no input can end a code span,
open a link, emphasis or HTML tag, or split a table cell (CommonMark 0.31 §2.4, §6.1,
§4.5; GFM tables).  Long parts (readings, parts with their numbers) are folded in
``<details>`` blocks, as in the HTML page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..claims.result import VERDICTS, ClaimResult
from ._format import (
    NO_REGIME,
    anchor,
    fmt,
    grid_rows,
    ledger_rows,
    measurement_text,
    paper_regime,
    timings,
    why,
)
from .schema import PENDING_STATUSES

__all__ = ["md_code", "md_fence", "md_text", "render_markdown"]

# ASCII punctuation that can start or end inline markup (code, emphasis, strikethrough, links,
# HTML, entities, GitHub math) or a table cell; CommonMark lets any of them be
# backslash-escaped, and an escaped one is always literal.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|~$&])")


def md_text(text: Any) -> str:
    """``text`` as literal inline Markdown on one line: specials backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def md_code(text: Any) -> str:
    """``text`` as one code span that no backtick inside can close (CommonMark §6.1).

    The fence is one backtick longer than the longest run inside; a space pads content
    that starts or ends with a backtick (one space each side is stripped on rendering).
    """
    text = " ".join(str(text).split()) or " "
    fence = "`" * (1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    pad = " " if text[0] == "`" or text[-1] == "`" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(text: str) -> list[str]:
    """``text`` as a fenced code block that no line inside can close (CommonMark §4.5)."""
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    return [fence, *text.rstrip("\n").splitlines(), fence]


def _table(rows: list[dict[str, Any]], indent: str = "") -> list[str]:
    keys = list(rows[0])
    out = [
        indent + "| " + " | ".join(md_text(k) for k in keys) + " |",
        indent + "|" + "---|" * len(keys),
    ]
    out += [indent + "| " + " | ".join(md_text(fmt(r[k])) for k in keys) + " |" for r in rows]
    return out


def _flatten(d: dict[str, Any], prefix: str = "") -> list[dict[str, Any]]:
    rows = []
    for k, v in d.items():
        if isinstance(v, dict) and v:
            rows += _flatten(v, f"{prefix}{k}.")
        else:
            rows.append({"key": f"{prefix}{k}", "value": v})
    return rows


def render_markdown(doc: dict[str, Any], results: Sequence[ClaimResult], papers: list[str]) -> str:
    """The Markdown report of ``doc`` (the ``report.json`` document) and its results."""
    pending = doc["pending"]
    figures = doc["figures"]
    status = "" if doc["status"] == "complete" else f" **Run {md_text(doc['status'])}.**"
    lines = [
        "# sgmcmc-verify report",
        "",
        f"Profile {md_code(doc['profile'])}, seed {md_text(doc['seed'])}, claims "
        f"{md_code(doc['claims_pattern'])}: {len(results)} checked, {len(pending)} without a "
        f"result.{status}",
        "",
        "## Contents",
        "",
        *_contents(results, pending, papers),
        "",
        '## Summary <a id="summary"></a>',
        "",
        "| paper | " + " | ".join((*VERDICTS, *PENDING_STATUSES)) + " |",
        "|---|" + "---|" * (len(VERDICTS) + len(PENDING_STATUSES)),
    ]
    for p, counts in doc["summary"].items():
        # by column name: a report.json read back has its keys sorted, not in column order
        cells = " | ".join(str(counts.get(c, 0)) for c in (*VERDICTS, *PENDING_STATUSES))
        lines.append(f"| {md_text(p)} | {cells} |")
    lines += [
        "",
        '## Claims ledger <a id="ledger"></a>',
        "",
        "| ID | verdict | statement | why | key numbers | α |",
        "|---|---|---|---|---|---|",
    ]
    for e in ledger_rows(results, pending):
        cid = md_text(e["id"])
        link, verdict = (
            (f"[{cid}](#{anchor(e['id'])})", f"**{md_text(e['status'])}**")
            if e["linked"]
            else (cid, f"*{md_text(e['status'])}*")
        )
        lines.append(
            f"| {link} | {verdict} | {md_text(_short(e['statement']))} | {md_text(e['why'])} | "
            f"{md_text(e['numbers'])} | {md_text(e['alpha'])} |"
        )
    for paper in papers:
        sel = [r for r in results if r.paper == paper]
        lines += ["", f'## {md_text(paper)} <a id="paper-{anchor(paper)}"></a>']
        waiting = [p["claim_id"] for p in pending if p["paper"] == paper]
        if waiting:
            lines += ["", f"Without a result in this run: {md_text(', '.join(waiting))}."]
        for r in sel:
            lines += _section(r, [f for f in figures if f["claim_id"] == r.claim_id])
    wall, seconds = timings(doc, results)
    lines += ["", '## Timings <a id="timings"></a>', "", f"Total wall time {wall:.1f} s.", ""]
    if seconds:
        lines += _table([{"claim": c, "seconds": f"{s:.2f}"} for c, s in seconds.items()])
    lines += ["", '## Environment <a id="environment"></a>', ""]
    env = _flatten(doc["environment"])
    lines += [*(_table(env) if env else []), ""]
    return "\n".join(lines)


def _contents(
    results: Sequence[ClaimResult], pending: Sequence[dict[str, str]], papers: list[str]
) -> list[str]:
    verdict = {r.claim_id: r.verdict for r in results}
    lines = ["- [Summary](#summary)", "- [Claims ledger](#ledger)"]
    for paper in papers:
        done = [r.claim_id for r in results if r.paper == paper]
        waiting = [p["claim_id"] for p in pending if p["paper"] == paper]
        if not done and not waiting:
            continue
        links = [f"[{md_text(c)}](#{anchor(c)}) ({md_text(verdict[c])})" for c in done]
        if waiting:
            links.append(f"no result: {md_text(', '.join(waiting))}")
        lines.append(f"- [{md_text(paper)}](#paper-{anchor(paper)}): " + "; ".join(links))
    lines += ["- [Timings](#timings)", "- [Environment](#environment)"]
    return lines


def _short(text: str, n: int = 110) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _section(r: ClaimResult, figures: list[dict[str, str]]) -> list[str]:
    lines = [
        "",
        f'### {md_text(r.claim_id)} <a id="{anchor(r.claim_id)}"></a>',
        "",
        f"*{md_text(r.paper)}, {md_text(r.location)}.* {md_text(r.statement)}",
        "",
        f"**Verdict: {md_text(r.verdict)}.** Expected: {md_text(r.expectation)}",
        "",
        f"**Regime the paper assumes:** {md_text(paper_regime(r.claim_id) or NO_REGIME)}",
        "",
        f"**Why:** {md_text(why(r))}",
        "",
    ]
    if not r.parts and r.reading:
        lines += [f"Reading: {md_text(r.reading)}", ""]
    if r.parts:
        # an HTML block: its summary is HTML text, the blank line after it resumes Markdown
        lines += [f"<details><summary>Reading and parts ({len(r.parts)})</summary>", ""]
        for p in r.parts:
            lines.append(f"- **{md_text(p.name)}**: {md_text(p.verdict)}. {md_text(p.expectation)}")
            for k, m in p.measured.items():
                rows = grid_rows(m.value)
                if rows is not None:
                    lines.append(f"  - {md_text(k)}:" + (f" ({md_text(m.note)})" if m.note else ""))
                    lines += ["", *_table(rows, "    "), ""]
                else:
                    lines.append(f"  - {md_text(k)}: {md_text(measurement_text(m))}")
            if p.reading:
                lines.append(f"  - reading: {md_text(p.reading)}")
            if p.counterexample:
                lines.append(f"  - counterexample: {md_text(fmt(p.counterexample))}")
        lines += ["", "</details>"]
    for f in figures:
        lines += ["", f"![{md_text(f['title'])}]({f['file']})"]
    if r.traceback:
        lines += ["", "<details><summary>Traceback</summary>", "", *md_fence(r.traceback)]
        lines += ["", "</details>"]
    lines += [
        "",
        "Reproduce: "
        + md_code(f"sgmcmc-verify check {r.claim_id} --profile {r.profile} --seed {r.seed}")
        + ".",
    ]
    return lines
