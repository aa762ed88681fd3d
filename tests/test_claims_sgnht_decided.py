"""The SGNHT claim modules write no verdict by hand (issue 12): no ``Part(...)`` call and
no verdict string except a builder's declared ``failed_verdict``; every part comes from a
builder of :mod:`sgmcmc_verify.claims.decide` (checked on the results in each module's
own tests)."""

import ast
import importlib
from pathlib import Path

import pytest

from sgmcmc_verify.claims.result import VERDICTS

MODULES = [
    "sgnht",
    "sgnht_mt",
    "sgnht_thermostat",
    "sgnht_double_well",
    "sgnht_theory",
    "chain_stats",
]


def _hand_verdicts(tree: ast.AST) -> list[str]:
    allowed = {
        id(kw.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "failed_verdict"
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Part":
            out.append(f"Part(...) at line {node.lineno}")
        if isinstance(node, ast.Constant) and node.value in VERDICTS and id(node) not in allowed:
            out.append(f"{node.value!r} at line {node.lineno}")
    return out


@pytest.mark.parametrize("name", MODULES)
def test_no_verdict_is_written_by_hand(name):
    mod = importlib.import_module(f"sgmcmc_verify.claims.{name}")
    assert _hand_verdicts(ast.parse(Path(mod.__file__).read_text(encoding="utf-8"))) == []


def test_the_scan_sees_a_hand_written_verdict():
    src = (
        'p = Part("a", "confirmed" if ok else "refuted", "", {})\nq = f(failed_verdict="qualified")'
    )
    assert _hand_verdicts(ast.parse(src)) == [
        "Part(...) at line 1",
        "'confirmed' at line 1",
        "'refuted' at line 1",
    ]
