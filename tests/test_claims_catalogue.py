"""The claims table (issue 12 item 1): one :class:`ClaimSpec` per claim, every view derived.

A spec holds a claim's ID, kind, paper, location, statement, check, expectation and the regime
the paper assumes; ``CATALOGUE``, ``SUBSTITUTES``, ``TOOL_CLAIMS``, ``INFO``, ``REGIMES``,
``EXPECTATIONS`` and ``claims.CHECKS`` are views of that one table, and the errata ledger
prints the paper's regime from it.
"""

import ast
import dataclasses
import html
import re
from pathlib import Path

import pytest

from sgmcmc_verify import claims
from sgmcmc_verify.claims import catalogue
from sgmcmc_verify.claims.catalogue import KINDS, SPECS, ClaimSpec
from sgmcmc_verify.claims.result import ClaimResult, Part
from sgmcmc_verify.report.errata import NO_REGIME, render_errata

CLAIMS_DIR = Path(claims.__file__).parent
CLAIMS_MD = CLAIMS_DIR.parent / "data" / "CLAIMS.md"  # the shipped catalogue

#: Claims whose location names a theorem, lemma, corollary, figure or experiment but whose
#: spec records no regime, each with the reason the paper states none.
NO_REGIME_BY_DESIGN = {
    "EWSG-T2": "Theorem 2 has no hypothesis: it defines p_i by eq. (4) for any x and a_i",
    "SGNHT-MT": "the Main Theorem's hypotheses, (8) and (9), are the statement itself",
    "SGNHT-ALG2": "an identity between Alg. 1 and its §5.2 reparametrisation, for any input",
}


def _catalogue_ids() -> list[str]:
    text = CLAIMS_MD.read_text()
    return re.findall(r"^- ([A-Z][A-Z0-9-]+) ", text[text.index("## Claims") :], re.M)


def test_table_ids_are_the_catalogue_files_then_substitutes_and_tool_claims():
    paper = [s.id for s in SPECS.values() if s.kind == "paper"]
    assert paper == _catalogue_ids()  # same IDs, same order as data/CLAIMS.md
    for sid, spec in SPECS.items():
        assert spec.id == sid and spec.kind in KINDS
        if spec.kind == "substitute":  # CLAIMS.md: a -SUB stands in for a catalogue claim
            base = sid.removesuffix("-SUB")
            assert sid.endswith("-SUB") and SPECS[base].kind == "paper"
            ids = list(SPECS)
            assert ids.index(sid) == ids.index(base) + 1, "a substitute follows its claim"
    kinds = [s.kind for s in SPECS.values()]
    assert kinds.index("tool") > max(i for i, k in enumerate(kinds) if k != "tool")


@pytest.mark.parametrize("claim_id", list(SPECS))
def test_every_spec_has_a_resolvable_check_a_statement_and_an_expectation(claim_id):
    spec = SPECS[claim_id]
    assert spec.statement.strip() and spec.expectation.strip() and spec.location.strip()
    fn = claims.CHECKS[claim_id].resolve()
    assert callable(fn)
    assert (fn.__name__, claims.CHECKS[claim_id].module) == (spec.function, spec.module)


def test_every_view_is_derived_from_the_table():
    def kind(k):
        return {c: s for c, s in SPECS.items() if s.kind == k}

    assert catalogue.CATALOGUE == kind("paper") and claims.CATALOGUE is catalogue.CATALOGUE
    assert catalogue.SUBSTITUTES == kind("substitute")
    assert catalogue.TOOL_CLAIMS == kind("tool")
    assert list(claims.INFO) == list(SPECS) and all(claims.INFO[c] is SPECS[c] for c in SPECS)
    assert claims.EXPECTATIONS == {c: s.expectation for c, s in SPECS.items()}
    assert claims.REGIMES == {c: s.regime for c, s in SPECS.items() if s.regime}
    assert {c: (f.module, f.name) for c, f in claims.CHECKS.items()} == {
        c: (s.module, s.function) for c, s in SPECS.items()
    }
    assert set(claims.SUBMODULES) == {s.module for s in SPECS.values()}


def test_results_carry_the_specs_facts():
    def fn(*, profile, seed):
        return [Part("a", "confirmed", "e", {}, "holds")], {}

    r = claims.run_check("EWSG-T1", fn, profile="quick", seed=0)
    spec = SPECS["EWSG-T1"]
    assert (r.paper, r.location, r.statement, r.expectation) == (
        spec.paper,
        spec.location,
        spec.statement,
        spec.expectation,
    )


def test_a_spec_is_frozen_and_rejects_a_bad_kind_or_an_empty_field():
    spec = SPECS["AGLD-R1"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.regime = "anything"  # type: ignore[misc]
    fields = dict(id="X", kind="paper", paper="P", location="L", statement="S", module="m")
    with pytest.raises(ValueError, match="kind must be one of"):
        ClaimSpec(**{**fields, "kind": "lemma"}, function="f", expectation="E")
    with pytest.raises(ValueError, match="expectation must not be empty"):
        ClaimSpec(**fields, function="f", expectation=" ")


def test_theorems_and_experiments_state_the_papers_regime():
    cited = re.compile(r"Theorem|Lemma|Corollary|Figure|§5|§6")
    bad: list[str] = []
    for cid, spec in SPECS.items():
        # the four papers' own results (the cross-cutting claims are this project's synthesis)
        if spec.kind == "paper" and spec.paper != "cross-cutting" and cited.search(spec.location):
            bad.extend([cid] if bool(spec.regime) == (cid in NO_REGIME_BY_DESIGN) else [])
    assert bad == []


def _regime_text_constants(tree: ast.Module) -> list[str]:
    """Names ``X_REGIME`` assigned a string literal: a claim's regime kept outside the table."""
    return [
        t.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for t in node.targets
        if isinstance(t, ast.Name) and t.id.endswith("_REGIME")
    ]


def _regime_keys(tree: ast.Module) -> set[str]:
    """The claim IDs a module reads as ``REGIMES["ID"]``."""
    return {
        node.slice.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "REGIMES"
        and isinstance(node.slice, ast.Constant)
    }


def test_claim_modules_read_regimes_from_the_table_and_keep_no_regime_text():
    used: set[str] = set()
    for path in sorted(CLAIMS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text())
        used |= _regime_keys(tree)
        if path.name != "catalogue.py":
            assert _regime_text_constants(tree) == [], path.name
    assert used <= set(claims.REGIMES), used - set(claims.REGIMES)
    assert {"EWSG-T1", "EWSG-T3", "SVRHMC-L1", "SVRHMC-COR3"} <= used


def test_the_scan_sees_regime_text_and_table_reads():
    kept = ast.parse('T9_REGIME = (\n    "x fixed; "\n    "y bounded"\n)\nLINEAR_REGIME = 1e-3\n')
    assert _regime_text_constants(kept) == ["T9_REGIME"]  # a number is not regime text
    read = ast.parse('T9_REGIME = REGIMES["EWSG-T9"]\nx = f(REGIMES["AGLD-T9"])\n')
    assert _regime_text_constants(read) == [] and _regime_keys(read) == {"EWSG-T9", "AGLD-T9"}


def _negative(claim_id: str, part_regime: str) -> ClaimResult:
    erratum = {"corrected": "c", "failing_step": "s", "regime": part_regime}
    part = Part("p", "qualified", "e", {}, "fails", erratum=erratum)
    spec = SPECS.get(claim_id)
    paper = spec.paper if spec else "P"
    return ClaimResult(claim_id, paper, "loc", "stmt", "qualified", parts=[part])


def _paper_regime_lines(md: str) -> list[str]:
    prefix = "  - Regime the paper assumes: "
    return [line[len(prefix) :] for line in md.splitlines() if line.startswith(prefix)]


@pytest.mark.parametrize("claim_id", list(SPECS))
def test_every_regime_the_errata_print_as_the_papers_is_the_tables(claim_id):
    md = render_errata([_negative(claim_id, "h = 0.5 only")])
    assert _paper_regime_lines(md) == [" ".join(SPECS[claim_id].regime.split()) or NO_REGIME]
    assert "  - Regime of this part: h = 0.5 only" in md.splitlines()


def test_errata_show_only_what_a_part_adds_to_the_papers_regime():
    table = claims.REGIMES["AGLD-T1"]
    md = render_errata([_negative("AGLD-T1", f"{table}; checked on a 2-D Gaussian")])
    assert _paper_regime_lines(md) == [table]
    assert "  - Regime of this part: checked on a 2-D Gaussian" in md.splitlines()
    same = render_errata([_negative("SVRHMC-L1", claims.REGIMES["SVRHMC-L1"])])
    assert "Regime of this part" not in same  # the part checks the paper's regime itself
    assert _paper_regime_lines(render_errata([_negative("NOT-A-CLAIM", "")])) == [NO_REGIME]
    bare = ClaimResult(
        "SVRHMC-L1", "SVRHMC", "l", "s", "refuted", parts=[Part("p", "refuted", "", {}, "fails")]
    )  # a negative part without an erratum still states the paper's regime
    assert _paper_regime_lines(render_errata([bare])) == [claims.REGIMES["SVRHMC-L1"]]


@pytest.mark.parametrize("claim_id", ["SVRHMC-L1", "SVRHMC-SPLIT"])
def test_the_reports_claim_sections_print_the_tables_regime(claim_id):
    from sgmcmc_verify.report import html_page, markdown

    r = _negative(claim_id, "h = 0.5 only")
    regime = " ".join(SPECS[claim_id].regime.split()) or NO_REGIME
    md = "\n".join(markdown._section(r, []))
    assert f"**Regime the paper assumes:** {markdown.md_text(regime)}" in md
    page = html_page._section(r, [], {})
    assert f"<strong>Regime the paper assumes:</strong> {html.escape(regime)}</p>" in page
