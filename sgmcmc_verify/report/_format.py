"""Text shared by the Markdown and HTML renderers: numbers, the ledger rows and each claim's
one-line "why".
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Sequence
from typing import Any

from ..claims.catalogue import INFO, SPECS
from ..claims.result import ClaimResult

__all__ = [
    "NO_REGIME",
    "anchor",
    "clip",
    "fmt",
    "grid_rows",
    "key_numbers",
    "ledger_rows",
    "measurement_text",
    "paper_regime",
    "table_rows",
    "timings",
    "why",
]

#: Printed for a claim whose spec records no regime: it is judged on its statement as printed.
NO_REGIME = "none beyond the statement (judged as printed)"


def paper_regime(claim_id: str) -> str:
    """The regime the paper assumes for ``claim_id``, read from its spec (issue 12).

    ``""`` for a claim whose spec records none, or an ID the table does not know (a report
    read back from an older document).
    """
    spec = SPECS.get(claim_id)
    return " ".join(spec.regime.split()) if spec is not None else ""


#: Length of a ledger "why" line, in characters (one line of a wide cell, two of a narrow one).
WHY_CHARS = 160

#: The part verdicts that decide each claim verdict (``combine_verdicts``): a claim is
#: refuted by its refuted parts, qualified by its qualified and not-checkable parts.
_DECISIVE = {
    "refuted": ("refuted",),
    "qualified": ("qualified", "not-checkable"),
    "not-checkable": ("not-checkable",),
    "error": ("error",),
}

# A sentence ends at '.', '!' or '?' followed by white space and a capital or an opening
# bracket; '0.278', 'i.i.d. with' and 'eq. (4)' do not end one.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")


def fmt(value: Any) -> str:
    """A short, deterministic text for a measured value (no JSON: dicts as ``k: v``)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {fmt(v)}" for k, v in value.items())
    if isinstance(value, list | tuple) and value and isinstance(value[0], dict):
        return f"table of {len(value)} rows"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    return str(value)


def measurement_text(m: Any) -> str:
    """``value ± stderr [ci] (note)``."""
    text = fmt(m.value)
    if m.stderr is not None:
        text += f" ± {fmt(m.stderr)}"
    if m.ci is not None:
        text += f" [{fmt(m.ci[0])}, {fmt(m.ci[1])}]"
    if m.note:
        text += f" ({m.note})"
    return text


def _scalar(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def key_numbers(r: ClaimResult, limit: int = 3) -> str:
    """Up to ``limit`` scalar measurements, those with an uncertainty first."""
    found = []
    labels = [k for p in r.parts for k in p.measured]
    for p in r.parts:
        for k, m in p.measured.items():
            if _scalar(m.value):
                has_unc = m.stderr is not None or m.ci is not None
                label = k if labels.count(k) == 1 else f"{p.name}: {k}"  # repeated across parts
                found.append((not has_unc, f"{label} = {fmt(m.value)}" + (
                    f" ± {fmt(m.stderr)}" if m.stderr is not None else "")))  # fmt: skip
    found.sort(key=lambda t: t[0])  # stable: keeps part order within each group
    return "; ".join(t for _, t in found[:limit])


def table_rows(value: Any) -> list[dict[str, Any]] | None:
    """``value`` as table rows when it is a list of dicts with the same keys."""
    if isinstance(value, list | tuple) and value and all(isinstance(v, dict) for v in value):
        keys = list(value[0])
        if all(list(v) == keys for v in value):
            return list(value)
    return None


def grid_rows(value: Any) -> list[dict[str, Any]] | None:
    """``value`` as the rows of one table, when it has that shape, else ``None``.

    A list of records (dicts; missing keys left empty) gives one row per record; a mapping
    of mappings (``{n: {h: value}}``) one row per outer key, its first column ``""`` the key.
    """
    rows = table_rows(value)
    if rows is not None:
        return rows
    if isinstance(value, list | tuple) and value and all(isinstance(x, dict) for x in value):
        keys = list(dict.fromkeys(k for x in value for k in x))
        return [{k: x.get(k) for k in keys} for x in value]
    if isinstance(value, dict) and value and all(isinstance(x, dict) and x for x in value.values()):
        keys = list(dict.fromkeys(k for x in value.values() for k in x))
        return [{"": k, **{c: x.get(c) for c in keys}} for k, x in value.items()]
    return None


def clip(text: str, n: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``n`` characters (with '…')."""
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    cut = text[: n - 1]
    space = cut.rfind(" ")
    if space > n // 2:  # a word boundary not too far back; else cut inside the word
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def anchor(name: str) -> str:
    """The id of a claim's or a paper's section: lower case; anything but letters, digits and
    '-' becomes '-' (the same in both renderers, so links carry over)."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower())


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def why(r: ClaimResult, n: int = WHY_CHARS) -> str:
    """One line saying why ``r`` has its verdict, from what the result already carries.

    A confirmed claim: how many parts hold.  Otherwise the first part whose verdict
    decides the claim's (its name and the first sentence of its reading, or its
    expectation when it has no reading), with a count of the other deciding parts; an
    error: the last line of its traceback.  Without parts, the reading's first sentence.
    """
    if r.verdict == "error" and r.traceback:
        lines = [s for s in r.traceback.strip().splitlines() if s.strip()]
        return clip(lines[-1] if lines else "error", n)
    if r.verdict == "confirmed":
        k = len(r.parts)
        return f"all {k} parts hold" if k > 1 else "the claim holds as stated"
    deciding = [p for p in r.parts if p.verdict in _DECISIVE.get(r.verdict, ())]
    if not deciding:
        return clip(_first_sentence(r.reading) or r.verdict, n)
    p = deciding[0]
    text = f"{p.name}: {_first_sentence(p.reading) or p.expectation}"
    more = len(deciding) - 1
    suffix = f" (+{more} more {r.verdict} part{'s' if more > 1 else ''})" if more else ""
    return clip(text, n - len(suffix)) + suffix


def timings(doc: dict[str, Any], results: Sequence[ClaimResult]) -> tuple[float, dict[str, float]]:
    """The run's wall time and each claim's seconds: from ``doc["timings"]`` (schema 3) when
    present, else from the top-level ``wall_time_s`` and the results (schema 2)."""
    t = doc.get("timings") or {}
    wall = float(t.get("wall_time_s", doc.get("wall_time_s", 0.0)))
    claims = t.get("claims") or {r.claim_id: r.runtime_s for r in results}
    return wall, {cid: float(s) for cid, s in claims.items()}


def ledger_rows(
    results: Sequence[ClaimResult], pending: Sequence[dict[str, str]]
) -> list[dict[str, Any]]:
    """The claims ledger in catalogue order, as plain-text fields both renderers format.

    Each row: ``id``, ``linked`` (a result exists, so a section to link to),
    ``statement``, ``status`` (verdict or pending status), ``why``, ``numbers``,
    ``alpha``, ``time``.
    """
    by_id = {r.claim_id: r for r in results}
    pend = {p["claim_id"]: p for p in pending}
    rows = []
    for cid in sorted([*by_id, *pend], key=list(INFO).index):
        r = by_id.get(cid)
        if r is None:
            p = pend[cid]
            row = {"statement": p["statement"], "status": p["status"], "why": "—"}
            row |= {"numbers": "—", "alpha": "—", "time": "—"}
        else:
            row = {"statement": r.statement, "status": r.verdict, "why": why(r)}
            row |= {"numbers": key_numbers(r) or "—"}
            row |= {"alpha": "—" if r.alpha is None else f"{r.alpha:g}"}
            row |= {"time": f"{r.runtime_s:.2f}"}
        rows.append({"id": cid, "linked": r is not None, **row})
    return rows
