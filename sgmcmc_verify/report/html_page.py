"""``index.html``: one self-contained page (inline CSS, figures as base64 PNG data URIs)."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from html import escape
from typing import Any

from ..claims.result import VERDICTS, ClaimResult
from ._format import compact_json, fmt, ledger_rows, measurement_text, table_rows
from .schema import PENDING_STATUSES

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem;color:#222;line-height:1.4;font-size:15px}
h1{margin:.2rem 0}h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:13px}
th,td{border:1px solid #ddd;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.n{text-align:right;font-variant-numeric:tabular-nums}
.v{font-weight:600;padding:.05rem .4rem;border-radius:.3rem;white-space:nowrap}
.confirmed{background:#d7f2dc;color:#145a23}.qualified{background:#fff1c2;color:#6b5200}
.refuted{background:#fbd3d3;color:#7a1010}.not-checkable{background:#e4e4f4;color:#333366}
.error{background:#5a0d0d;color:#fff}.pending,.not-selected,.not-run{background:#eee;color:#666;
font-weight:400;font-style:italic}
.zero{color:#bbb}section.claim{border-left:4px solid #ddd;padding-left:.8rem;margin:1.2rem 0}
pre{background:#f7f7f7;padding:.5rem;overflow-x:auto;font-size:12px}
pre.tb{background:#fff0f0;border:1px solid #e0b0b0}
img{max-width:100%;height:auto;border:1px solid #eee}
.meta{color:#555}.part{margin:.4rem 0 .6rem 0}.stmt{max-width:28rem}
"""


def _v(verdict: str) -> str:
    return f'<span class="v {escape(verdict)}">{escape(verdict)}</span>'


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _table(rows: list[dict[str, Any]]) -> str:
    keys = list(rows[0])
    head = "".join(f"<th>{escape(str(k))}</th>" for k in keys)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(fmt(r[k]))}</td>" for k in keys) + "</tr>" for r in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


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
        f"{len(pending)} without a result; total {doc['wall_time_s']:.1f} s."
        + ("" if doc["status"] == "complete" else f" <strong>Run {escape(doc['status'])}.</strong>")
        + "</p>",
        '<h2 id="summary">Summary</h2>',
        _summary(doc),
        '<h2 id="ledger">Claims ledger</h2>',
        _ledger(results, pending),
    ]
    for paper in papers:
        sel = [r for r in results if r.paper == paper]
        out.append(f'<h2 id="paper-{escape(paper.lower())}">{escape(paper)}</h2>')
        waiting = [p["claim_id"] for p in pending if p["paper"] == paper]
        if waiting:
            out.append(
                f'<p class="meta">Without a result in this run: {escape(", ".join(waiting))}.</p>'
            )
        for r in sel:
            figs = [f for f in doc["figures"] if f["claim_id"] == r.claim_id]
            out.append(_section(r, figs, pngs))
    out += [
        '<h2 id="environment">Environment</h2>',
        f"<pre>{escape(json.dumps(doc['environment'], indent=2))}</pre>",
        "</body></html>",
        "",
    ]
    return "\n".join(out)


def _summary(doc: dict[str, Any]) -> str:
    cols = (*VERDICTS, *PENDING_STATUSES)
    head = "<tr><th>paper</th>" + "".join(f"<th>{_v(c)}</th>" for c in cols) + "<th>total</th>"
    rows = []
    for paper, counts in doc["summary"].items():
        cells = "".join(
            f'<td class="n{"" if counts[c] else " zero"}">{counts[c]}</td>' for c in cols
        )
        rows.append(
            f'<tr><td><a href="#paper-{escape(paper.lower())}">{escape(paper)}</a></td>{cells}'
            f'<td class="n">{sum(counts.values())}</td></tr>'
        )
    return f"<table>{head}</tr>{''.join(rows)}</table>"


def _ledger(results: Sequence[ClaimResult], pending: Sequence[dict[str, str]]) -> str:
    rows = [
        "<tr><th>ID</th><th>statement</th><th>verdict</th><th>key numbers</th><th>α</th>"
        "<th>time (s)</th></tr>"
    ]
    for e in ledger_rows(results, pending):
        cid = escape(e["id"])
        link = f'<a href="#{escape(e["id"].lower())}">{cid}</a>' if e["linked"] else cid
        rows.append(
            f'<tr><td>{link}</td><td class="stmt">{escape(_short(e["statement"]))}</td>'
            f"<td>{_v(e['status'])}</td><td>{escape(e['numbers'])}</td><td>{e['alpha']}</td>"
            f'<td class="n">{e["time"]}</td></tr>'
        )
    return "<table>" + "".join(rows) + "</table>"


def _short(text: str, n: int = 140) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _section(r: ClaimResult, figures: list[dict[str, str]], pngs: dict[str, bytes]) -> str:
    out = [
        f'<section class="claim" id="{escape(r.claim_id.lower())}">',
        f"<h3>{escape(r.claim_id)} {_v(r.verdict)}</h3>",
        f"<p><em>{escape(r.paper)}, {escape(r.location)}.</em> {escape(r.statement)}</p>",
        f"<p><strong>Expected:</strong> {escape(r.expectation)}</p>",
    ]
    if r.reading:
        out.append(f"<p><strong>Reading:</strong> {escape(r.reading)}</p>")
    for p in r.parts:
        out.append(
            f'<div class="part"><strong>{escape(p.name)}</strong> {_v(p.verdict)} '
            f"{escape(p.expectation)}<ul>"
        )
        for k, m in p.measured.items():
            rows = table_rows(m.value)
            if rows is not None:
                note = f" ({escape(m.note)})" if m.note else ""
                out.append(f"<li>{escape(k)}{note}:{_table(rows)}</li>")
            else:
                out.append(f"<li>{escape(k)}: {escape(measurement_text(m))}</li>")
        if p.reading:
            out.append(f"<li>reading: {escape(p.reading)}</li>")
        if p.counterexample:
            out.append(
                f"<li>counterexample: <code>{escape(compact_json(p.counterexample))}</code></li>"
            )
        out.append("</ul></div>")
    for f in figures:
        out.append(
            f'<figure><img src="{_data_uri(pngs[f["file"]])}" alt="{escape(f["title"])}">'
            f'<figcaption>{escape(f["title"])} (<a href="{escape(f["file"])}">PNG</a>)'
            "</figcaption></figure>"
        )
    if r.traceback:
        out.append(f'<p><strong>Traceback</strong></p><pre class="tb">{escape(r.traceback)}</pre>')
    out.append(
        f'<p class="meta">Reproduce: <code>sgmcmc-verify check {escape(r.claim_id)} --profile '
        f"{escape(r.profile)} --seed {r.seed}</code> ({r.runtime_s:.2f} s).</p></section>"
    )
    return "\n".join(out)
