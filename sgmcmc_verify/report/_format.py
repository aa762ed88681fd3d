"""Number formatting and the ledger's key numbers, shared by the Markdown and HTML renderers."""

from __future__ import annotations

import json
import numbers
from collections.abc import Sequence
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import ClaimResult

__all__ = ["fmt", "key_numbers", "ledger_rows", "measurement_text"]


def fmt(value: Any) -> str:
    """A short, deterministic text for a measured value."""
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


def compact_json(obj: Any) -> str:
    return json.dumps(obj, default=str, ensure_ascii=False)


def ledger_rows(
    results: Sequence[ClaimResult], pending: Sequence[dict[str, str]]
) -> list[dict[str, Any]]:
    """The claims ledger in catalogue order, as plain-text fields both renderers format.

    Each row: ``id``, ``linked`` (a result exists, so a section to link to),
    ``statement``, ``status`` (verdict or pending status), ``numbers``, ``alpha``, ``time``.
    """
    by_id = {r.claim_id: r for r in results}
    pend = {p["claim_id"]: p for p in pending}
    rows = []
    for cid in sorted([*by_id, *pend], key=list(INFO).index):
        r = by_id.get(cid)
        if r is None:
            p = pend[cid]
            row = {"statement": p["statement"], "status": p["status"], "numbers": "—"}
            row |= {"alpha": "—", "time": "—"}
        else:
            row = {"statement": r.statement, "status": r.verdict, "numbers": key_numbers(r)}
            row |= {"alpha": "—" if r.alpha is None else f"{r.alpha:g}"}
            row |= {"time": f"{r.runtime_s:.2f}"}
        rows.append({"id": cid, "linked": r is not None, **row})
    return rows
