"""``index.html``: one self-contained page (inline CSS, figures as base64 PNG data URIs).

The page is built for reading top-down: a table of contents linking every claim, the
summary, the claims ledger with a one-line "why" per claim, then one section per claim
whose long parts (reading, parts with their numbers, figures, traceback) are folded in
``<details>`` elements.  No script, no raw JSON: every number is in a table.  Verdict
colours follow the Okabe–Ito palette (blue/orange/vermillion, safe for the common
colour-vision deficiencies) and every coloured mark also carries its verdict as text.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence
from html import escape
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import VERDICTS, ClaimResult, Part
from ._format import (
    NO_REGIME,
    anchor,
    clip,
    fmt,
    grid_rows,
    ledger_rows,
    paper_regime,
    timings,
    why,
)
from .schema import PENDING_STATUSES

__all__ = ["render_html"]

#: Readings up to this many characters are shown as they are; longer ones are folded.
SHORT_READING = 240

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem;color:#222;line-height:1.45;font-size:15px;
overflow-wrap:break-word}
h1{margin:.2rem 0}h2{border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}
h3{margin:.2rem 0 .4rem 0}
table{border-collapse:collapse;margin:.4rem 0;font-size:13px;max-width:100%}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top;
overflow-wrap:break-word}
table.ledger{width:100%;min-width:54rem}
table.ledger td:nth-child(1),table.ledger td:nth-child(2),
table.ledger td:nth-child(6){white-space:nowrap}
table.ledger td:nth-child(3){width:28%}table.ledger td:nth-child(4){width:35%}
table.ledger td:nth-child(5){width:25%;font-size:12px}
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}
td.kv{font-weight:600;background:#fafafa}
.scroll{overflow-x:auto;max-width:100%}
.v{font-weight:600;padding:.05rem .4rem;border-radius:.3rem;white-space:nowrap}
.confirmed{background:#d4e8f7;color:#003f66}.qualified{background:#fbe3b0;color:#5c3d00}
.refuted{background:#f6cfb8;color:#6e2600}.not-checkable{background:#ead8e4;color:#5b1f45}
.error{background:#222;color:#fff}.pending,.not-selected,.not-run{background:#eee;color:#555;
font-weight:400;font-style:italic}
.zero{color:#aaa}
nav.toc{background:#f7f7f7;border:1px solid #ddd;padding:.4rem 1rem;margin:1rem 0}
nav.toc h2{margin:.3rem 0;border:0;font-size:1.1rem}
nav.toc ol{margin:.2rem 0;padding-left:1.3rem}nav.toc li{margin:.25rem 0}
nav.toc a.v{text-decoration:none;display:inline-block;margin:.1rem .1rem}
nav.toc span.v{display:inline-block;margin:.1rem .1rem}
section.claim{border-left:4px solid #ccc;padding-left:.8rem;margin:1.6rem 0}
section.claim.confirmed,section.claim.qualified,section.claim.refuted,
section.claim.not-checkable,section.claim.error{background:none;color:inherit}
section.claim.confirmed{border-left-color:#0072b2}section.claim.qualified{border-left-color:#e69f00}
section.claim.refuted{border-left-color:#d55e00}section.claim.not-checkable{border-left-color:#cc79a7}
section.claim.error{border-left-color:#000}
a.top{font-size:12px;font-weight:400;margin-left:.5rem}
details{margin:.35rem 0}summary{cursor:pointer;color:#333}
details>div,details>p,details>table,details>figure{margin-left:1.1rem}
details.part{border-top:1px solid #eee;padding-top:.2rem}
p.why{margin:.3rem 0}
pre{background:#f7f7f7;padding:.5rem;overflow-x:auto;font-size:12px;max-width:100%}
pre.tb{background:#fff3ee;border:1px solid #e0b8a8}
code{overflow-wrap:anywhere}
figure{margin:.5rem 0}img{max-width:100%;height:auto;border:1px solid #eee}
.meta{color:#555}
"""

#: A text mark beside each colour, so that no verdict is told by colour alone.
_MARK = {
    "confirmed": "✓",
    "qualified": "≈",
    "refuted": "✗",
    "not-checkable": "?",
    "error": "!",
}


def _v(verdict: str) -> str:
    return f'<span class="v {escape(verdict)}">{escape(verdict)}</span>'


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _png_size(png: bytes) -> tuple[int, int] | None:
    """(width, height) from the PNG's IHDR chunk, so the page reserves the space up front."""
    if len(png) >= 24 and png[12:16] == b"IHDR":
        w, h = struct.unpack(">II", png[16:24])
        return int(w), int(h)
    return None


# ------------------------------------------------------------------------------------------
# Values as tables
# ------------------------------------------------------------------------------------------


def _value(v: Any, depth: int = 0) -> str:
    """A measured value as HTML: a table for records or a mapping, else text (never JSON)."""
    if depth < 3:
        rows = grid_rows(v)
        if rows is not None:
            return _records(rows, depth)
        if isinstance(v, dict) and v:
            return _mapping(v, depth)
    return escape(fmt(v))


def _records(rows: list[dict[str, Any]], depth: int = 0) -> str:
    keys = list(rows[0])
    head = "".join(f"<th>{escape(str(k))}</th>" for k in keys)
    body = "".join("<tr>" + "".join(_cell(r[k], depth) for k in keys) + "</tr>" for r in rows)
    return f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'


def _mapping(d: dict[str, Any], depth: int = 0) -> str:
    body = "".join(
        f'<tr><td class="kv">{escape(str(k))}</td>{_cell(v, depth)}</tr>' for k, v in d.items()
    )
    return f'<div class="scroll"><table>{body}</table></div>'


def _cell(v: Any, depth: int) -> str:
    numeric = isinstance(v, int | float) and not isinstance(v, bool)
    cls = ' class="n"' if numeric else ""
    return f"<td{cls}>{_value(v, depth + 1)}</td>"


# ------------------------------------------------------------------------------------------
# The page
# ------------------------------------------------------------------------------------------


def render_html(
    doc: dict[str, Any],
    results: Sequence[ClaimResult],
    papers: list[str],
    pngs: dict[str, bytes],
) -> str:
    """The HTML report; ``pngs`` maps each figure's ``file`` to its bytes (embedded inline)."""
    pending = doc["pending"]
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>sgmcmc-verify report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>sgmcmc-verify report</h1>",
        f'<p class="meta">Profile <code>{escape(doc["profile"])}</code>, seed {doc["seed"]}, '
        f"claims <code>{escape(doc['claims_pattern'])}</code>: {len(results)} checked, "
        f"{len(pending)} without a result."
        + ("" if doc["status"] == "complete" else f" <strong>Run {escape(doc['status'])}.</strong>")
        + "</p>",
        _contents(results, pending, papers),
        '<h2 id="summary">Summary</h2>',
        _summary(doc),
        '<h2 id="ledger">Claims ledger</h2>',
        '<p class="meta">One row per catalogue claim; <em>why</em> names the part that decides '
        "the verdict. Click an ID for the claim's section.</p>",
        _ledger(results, pending),
    ]
    for paper in papers:
        sel = [r for r in results if r.paper == paper]
        out.append(f'<h2 id="paper-{anchor(paper)}">{escape(paper)}</h2>')
        waiting = [p["claim_id"] for p in pending if p["paper"] == paper]
        if waiting:
            out.append(
                f'<p class="meta">Without a result in this run: {escape(", ".join(waiting))}.</p>'
            )
        for r in sel:
            figs = [f for f in doc["figures"] if f["claim_id"] == r.claim_id]
            out.append(_section(r, figs, pngs))
    out += [
        _timings(doc, results),
        '<section class="volatile" id="environment"><h2>Environment</h2>',
        "<details><summary>Python, platform and package versions</summary>",
        _value(doc["environment"]),
        "</details></section>",
        "</body></html>",
        "",
    ]
    return "\n".join(out)


def _contents(
    results: Sequence[ClaimResult], pending: Sequence[dict[str, str]], papers: list[str]
) -> str:
    """The table of contents: the fixed sections, then every claim by paper."""
    by_paper: dict[str, list[str]] = {}
    verdict = {r.claim_id: r.verdict for r in results}
    status = {p["claim_id"]: p["status"] for p in pending}
    for r in results:
        by_paper.setdefault(r.paper, []).append(r.claim_id)
    for p in pending:
        by_paper.setdefault(p["paper"], []).append(p["claim_id"])
    items = [
        '<li><a href="#summary">Summary</a></li>',
        '<li><a href="#ledger">Claims ledger</a></li>',
    ]
    for paper in papers:
        ids = by_paper.get(paper, [])
        if not ids:
            continue
        links = []
        for cid in sorted(ids, key=list(INFO).index):
            if cid in verdict:
                v = verdict[cid]
                links.append(
                    f'<a class="v {escape(v)}" href="#{anchor(cid)}" title="{escape(v)}">'
                    f"{escape(cid)} {_MARK.get(v, '')}</a>"
                )
            else:
                s = escape(status[cid])
                links.append(f'<span class="v {s}" title="{s}">{escape(cid)}</span>')
        items.append(
            f'<li><a href="#paper-{anchor(paper)}">{escape(paper)}</a>: '
            + " ".join(links)
            + "</li>"
        )
    items.append('<li><a href="#timings">Timings</a></li>')
    items.append('<li><a href="#environment">Environment</a></li>')
    legend = " ".join(f'<span class="v {v}">{_MARK[v]} {v}</span>' for v in VERDICTS)
    return (
        '<nav class="toc" id="contents"><h2>Contents</h2><ol>'
        + "".join(items)
        + f'</ol><p class="meta">Marks: {legend}; grey: no result in this run.</p></nav>'
    )


def _timings(doc: dict[str, Any], results: Sequence[ClaimResult]) -> str:
    """Every timing of the page, in one section: the only part that changes between two
    runs with the same seed, profile and claims (with the environment block)."""
    wall, claims = timings(doc, results)
    rows = "".join(
        f'<tr><td>{escape(cid)}</td><td class="n">{s:.2f}</td></tr>' for cid, s in claims.items()
    )
    return (
        f'<section class="volatile" id="timings"><h2>Timings</h2><p>Total wall time '
        f"{wall:.1f} s.</p><details><summary>Seconds per claim</summary><table>"
        f"<tr><th>claim</th><th>seconds</th></tr>{rows}</table></details></section>"
    )


def _summary(doc: dict[str, Any]) -> str:
    cols = (*VERDICTS, *PENDING_STATUSES)
    head = "<tr><th>paper</th>" + "".join(f"<th>{_v(c)}</th>" for c in cols) + "<th>total</th>"
    rows = []
    for paper, counts in doc["summary"].items():
        cells = "".join(
            f'<td class="n{"" if counts[c] else " zero"}">{counts[c]}</td>' for c in cols
        )
        rows.append(
            f'<tr><td><a href="#paper-{anchor(paper)}">{escape(paper)}</a></td>{cells}'
            f'<td class="n">{sum(counts.values())}</td></tr>'
        )
    return f'<div class="scroll"><table>{head}</tr>{"".join(rows)}</table></div>'


def _ledger(results: Sequence[ClaimResult], pending: Sequence[dict[str, str]]) -> str:
    rows = [
        "<tr><th>ID</th><th>verdict</th><th>statement</th><th>why</th><th>key numbers</th>"
        "<th>α</th></tr>"
    ]
    for e in ledger_rows(results, pending):
        cid = escape(e["id"])
        link = f'<a href="#{anchor(e["id"])}">{cid}</a>' if e["linked"] else cid
        rows.append(
            f"<tr><td>{link}</td><td>{_v(e['status'])}</td>"
            f"<td>{escape(clip(e['statement'], 140))}</td><td>{escape(e['why'])}</td>"
            f"<td>{escape(e['numbers'])}</td><td>{e['alpha']}</td></tr>"
        )
    return '<div class="scroll"><table class="ledger">' + "".join(rows) + "</table></div>"


def _counts(parts: Sequence[Part]) -> str:
    n = {v: sum(p.verdict == v for p in parts) for v in VERDICTS}
    return ", ".join(f"{k} {v}" for v, k in n.items() if k)


def _part(p: Part) -> str:
    """One part, folded: its verdict and expectation on the summary line, numbers inside."""
    out = [
        f'<details class="part"{"" if p.verdict == "confirmed" else " open"}><summary>'
        f"<strong>{escape(p.name)}</strong> {_v(p.verdict)} {escape(p.expectation)}</summary>"
    ]
    scalars, tables = [], []
    for k, m in p.measured.items():
        if grid_rows(m.value) is not None:
            tables.append((k, m))
        else:
            scalars.append((k, m))
    if scalars:
        cols = [("± s.e.", any(m.stderr is not None for _, m in scalars))]
        cols.append(("CI", any(m.ci is not None for _, m in scalars)))
        cols.append(("note", any(m.note for _, m in scalars)))
        head = "<tr><th>measured</th><th>value</th>" + "".join(
            f"<th>{c}</th>" for c, shown in cols if shown
        )
        rows = [head + "</tr>"]
        for k, m in scalars:
            extra = {
                "± s.e.": "" if m.stderr is None else escape(fmt(m.stderr)),
                "CI": "" if m.ci is None else escape(f"[{fmt(m.ci[0])}, {fmt(m.ci[1])}]"),
                "note": escape(m.note),
            }
            rows.append(
                f'<tr><td class="kv">{escape(k)}</td>{_cell(m.value, 0)}'
                + "".join(f"<td>{extra[c]}</td>" for c, shown in cols if shown)
                + "</tr>"
            )
        out.append(f'<div class="scroll"><table>{"".join(rows)}</table></div>')
    for k, m in tables:
        note = f" ({escape(m.note)})" if m.note else ""
        out.append(f"<div><p>{escape(k)}{note}:</p>{_value(m.value)}</div>")
    if p.reading:
        out.append(f"<p><strong>Reading:</strong> {escape(p.reading)}</p>")
    if p.counterexample:
        out.append(f"<div><p><strong>Counterexample:</strong></p>{_value(p.counterexample)}</div>")
    out.append("</details>")
    return "\n".join(out)


def _reading(r: ClaimResult) -> str:
    """The reading: one item per part that is not confirmed (the claim's ``reading`` joins
    exactly these), or the claim's own reading when it has no parts; folded when long."""
    items = [(p.name, p.verdict, p.reading) for p in r.parts if p.verdict != "confirmed"]
    items = [i for i in items if i[2]]
    if not r.parts and r.reading:
        body, size = f"<p>{escape(r.reading)}</p>", len(r.reading)
    elif items:
        body = (
            "<ul>"
            + "".join(
                f"<li><strong>{escape(n)}</strong> {_v(v)} {escape(t)}</li>" for n, v, t in items
            )
            + "</ul>"
        )
        size = sum(len(n) + len(t) for n, _, t in items)
    else:
        return ""  # every part confirmed: the "why" line says so
    if size <= SHORT_READING:
        return f'<div class="reading"><strong>Reading:</strong>{body}</div>'
    what = f"{len(items)} part{'s' if len(items) > 1 else ''} not confirmed" if items else ""
    return (
        f"<details><summary><strong>Reading</strong> ({what or f'{size} characters'})"
        f"</summary>{body}</details>"
    )


def _section(r: ClaimResult, figures: list[dict[str, str]], pngs: dict[str, bytes]) -> str:
    out = [
        f'<section class="claim {escape(r.verdict)}" id="{anchor(r.claim_id)}">',
        f'<h3>{escape(r.claim_id)} {_v(r.verdict)} <a class="top" href="#contents">'
        "↑ contents</a></h3>",
        f"<p><em>{escape(r.paper)}, {escape(r.location)}.</em> {escape(r.statement)}</p>",
        f"<p><strong>Expected:</strong> {escape(r.expectation)}</p>",
        "<p><strong>Regime the paper assumes:</strong> "
        f"{escape(paper_regime(r.claim_id) or NO_REGIME)}</p>",
        f'<p class="why"><strong>Why:</strong> {escape(why(r))}</p>',
    ]
    out.append(_reading(r))
    if r.parts:
        out.append(
            f"<details><summary><strong>Parts</strong> ({len(r.parts)}: {_counts(r.parts)}) "
            "with their numbers</summary>"
        )
        out += [_part(p) for p in r.parts]
        out.append("</details>")
    if r.counterexample:
        out.append(
            "<details><summary><strong>Counterexample</strong></summary>"
            f"{_value(r.counterexample)}</details>"
        )
    if figures:
        titles = "; ".join(f["title"] for f in figures)
        out.append(
            f"<details><summary><strong>Figures</strong> ({len(figures)}): "
            f"{escape(titles)}</summary>"
        )
        for f in figures:
            png = pngs[f["file"]]
            size = _png_size(png)
            dims = f' width="{size[0]}" height="{size[1]}"' if size else ""
            out.append(
                f'<figure><img src="{_data_uri(png)}"{dims} alt="{escape(f["title"])}">'
                f'<figcaption>{escape(f["title"])} (<a href="{escape(f["file"])}">PNG</a>)'
                "</figcaption></figure>"
            )
        out.append("</details>")
    if r.traceback:
        out.append(
            "<details><summary><strong>Traceback</strong></summary>"
            f'<pre class="tb">{escape(r.traceback)}</pre></details>'
        )
    out.append(
        f'<p class="meta">Reproduce: <code>sgmcmc-verify check {escape(r.claim_id)} --profile '
        f"{escape(r.profile)} --seed {r.seed}</code>.</p></section>"
    )
    return "\n".join(out)
