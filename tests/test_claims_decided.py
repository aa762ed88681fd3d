"""Every verdict comes from a decision builder (issue 12, "Done when").

Two views of the same rule:

* **the code** — no module of :mod:`sgmcmc_verify.claims` other than ``decide`` (the
  builders) and ``result`` (the data types) constructs a :class:`Part`, rewrites a part's
  verdict with ``dataclasses.replace``, or picks a verdict string by a condition;
* **the results** — every claim of the catalogue is in the committed quick and baseline
  reports, and each of their parts carries a rule that ``decide.is_decided`` accepts.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import sgmcmc_verify.claims as claims_pkg
from sgmcmc_verify import claims
from sgmcmc_verify.claims import decide

PKG = Path(claims_pkg.__file__).parent
ROOT = Path(__file__).resolve().parents[1]
#: The only modules that may build a Part: the builders and the data types.
ALLOWED = {"decide.py", "result.py"}
VERDICT_WORDS = {"confirmed", "refuted", "qualified", "not-checkable"}
MODULES = sorted(p for p in PKG.glob("*.py") if p.name not in ALLOWED)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _hand_decisions(tree: ast.AST) -> list[str]:
    """Places in a module's AST where a verdict is built or chosen by hand."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) == "Part":
            found.append(f"line {node.lineno}: Part(...) built by hand")
        if (
            isinstance(node, ast.Call)
            and _name(node.func) == "replace"
            and any(k.arg == "verdict" for k in node.keywords)
        ):
            found.append(f"line {node.lineno}: a verdict rewritten with replace(...)")
        if isinstance(node, ast.IfExp) and any(
            isinstance(b, ast.Constant) and b.value in VERDICT_WORDS
            for b in (node.body, node.orelse)
        ):
            found.append(f"line {node.lineno}: a verdict chosen inline by a condition")
    return found


def test_the_scan_finds_what_it_forbids():
    # the checker itself: each forbidden form is found, a builder call is not
    src = (
        "p = Part('n', 'confirmed', '', {})\n"
        "q = dataclasses.replace(p, verdict='refuted')\n"
        "v = 'confirmed' if ok else 'refuted'\n"
        "r = decide.exact_comparison('n', '', 1.0, 1.0)\n"
    )
    found = _hand_decisions(ast.parse(src))
    assert [f.split(":")[0] for f in found] == ["line 1", "line 2", "line 3"]


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_no_claim_module_decides_by_hand(path):
    found = _hand_decisions(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{path.name}: " + "; ".join(found)


#: Modules held to a stricter form of the rule: no verdict word appears at all, except as
#: a builder's declared ``failed_verdict`` (the SGNHT modules were written to it).
STRICT = ["sgnht", "sgnht_mt", "sgnht_thermostat", "sgnht_double_well", "sgnht_theory",
          "chain_stats"]  # fmt: skip


def _verdict_words(tree: ast.AST) -> list[str]:
    """Verdict strings in a module's AST other than a ``failed_verdict=`` keyword's value."""
    allowed = {
        id(kw.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "failed_verdict"
    }
    return [
        f"line {node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and node.value in VERDICT_WORDS | {"error"}
        and id(node) not in allowed
    ]


def test_the_strict_scan_allows_only_a_declared_failed_verdict():
    src = "v = 'confirmed' if ok else 'refuted'\nq = f(failed_verdict='qualified')\n"
    assert _verdict_words(ast.parse(src)) == ["line 1: 'confirmed'", "line 1: 'refuted'"]


@pytest.mark.parametrize("name", STRICT)
def test_strict_modules_write_no_verdict_word(name):
    path = PKG / f"{name}.py"
    assert _verdict_words(ast.parse(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("report", ["quick", "baseline"])
def test_every_part_of_every_claim_went_through_a_builder(report):
    doc = json.loads((ROOT / "reports" / report / "report.json").read_text(encoding="utf-8"))
    got = {c["claim_id"]: c for c in doc["claims"]}
    assert sorted(got) == sorted(claims.CHECKS), "the report must cover the whole catalogue"
    hand = [
        f"{cid}: {p['name']} (rule {p.get('rule', '')!r})"
        for cid, c in got.items()
        for p in c["parts"]
        if not decide.is_decided(p.get("rule", ""))
    ]
    assert not hand, f"{len(hand)} parts not decided by a builder: " + "; ".join(hand[:10])


@pytest.mark.parametrize("report", ["quick", "baseline"])
def test_every_refuted_part_states_its_regime_correction_and_counterexample(report):
    """Issue 12: a refutation says in which regime it holds, what the corrected statement is,
    and how to reproduce the counterexample (the part's own, or the erratum's command)."""
    doc = json.loads((ROOT / "reports" / report / "report.json").read_text(encoding="utf-8"))
    missing = []
    for c in doc["claims"]:
        for p in c["parts"]:
            if p["verdict"] != "refuted":
                continue
            e = p.get("erratum") or {}
            if not (e.get("regime") and e.get("corrected") and e.get("failing_step")):
                missing.append(f"{c['claim_id']}: {p['name']} (erratum {sorted(e)})")
            elif p.get("counterexample") is None and not e.get("command"):
                missing.append(f"{c['claim_id']}: {p['name']} (no counterexample)")
    assert not missing, missing
