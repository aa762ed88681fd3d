"""The errata ledger (issue 12): per paper, per refuted or qualified claim, the corrected
statement, the failing step and a one-command counterexample, from real ClaimResults."""

import shlex
import subprocess
import sys

import pytest

from sgmcmc_verify.claims import ClaimResult, Measurement, Part, experiments, run_check, svrhmc
from sgmcmc_verify.report.errata import default_command, render_errata


@pytest.fixture(scope="session")
def results(once):
    return once("errata-results", _results)


def _results():
    # two fast claims with errata (exact; and a substitute experiment), one confirmed claim
    cor3 = run_check("SVRHMC-COR3", svrhmc.check_cor3, profile="quick", seed=0)
    tmu = run_check("AGLD-EXP-TMU", experiments.check_agld_exp_tmu, profile="quick", seed=0)
    ok = ClaimResult(
        "AGLD-MEM", "AGLD", "§3.2", "memory", "confirmed",
        parts=[Part("PTU", "confirmed", "", {"bytes": Measurement(8)}, "holds")],
    )  # fmt: skip
    return [cor3, tmu, ok]


def test_ledger_has_a_section_per_paper_and_an_entry_per_negative_claim(results):
    md = render_errata(results)
    assert md.startswith("# Errata ledger\n")
    assert "## SVRHMC" in md and "## AGLD" in md
    assert "### SVRHMC-COR3 (Corollary 3, eq. (11)) — qualified" in md
    assert "### AGLD-EXP-TMU (§6.2, Figure 2) — qualified" in md
    assert "AGLD-MEM" not in md  # confirmed claims are not errata
    # the paper's order of first appearance: SVRHMC (first result) before AGLD
    assert md.index("## SVRHMC") < md.index("## AGLD")


def test_each_negative_part_carries_the_erratum_fields(results):
    md = render_errata(results)
    cor3 = results[0]
    for part in cor3.parts:
        if part.verdict in ("refuted", "qualified"):
            assert f"**{part.name}** — *{part.verdict}*" in md
            assert part.erratum["corrected"].split()[0] in md
    entry = md[md.index("**eq. (11)** —") :]
    entry = entry[: entry.index("\n- **")]
    for field in ("What fails:", "Regime the paper assumes:", "Corrected statement:",
                  "Failing step:", "Counterexample: `"):  # fmt: skip
        assert field in entry, field
    assert "Appendix B.3" in entry and "(n²L/(n²L − 1))²" in entry


def test_the_counterexample_command_runs_and_shows_the_violation(results):
    md = render_errata(results)
    entry = md[md.index("**eq. (11)** —") :]
    cmd = entry[entry.index("Counterexample: `") + len("Counterexample: `") :].split("`")[0]
    argv = shlex.split(cmd)
    assert argv[0] == "python"
    out = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True, check=True)
    nkbl, ratio = map(float, out.stdout.split())
    assert nkbl >= 10 and ratio > 1  # inside B.3's regime, the literal (11) fails


def test_a_negative_part_without_an_erratum_is_listed_not_hidden():
    r = ClaimResult(
        "X-INV", "cross-cutting", "all four papers", "s", "refuted",
        parts=[Part("lmc", "refuted", "", {}, "law differs")], seed=7, profile="full",
    )  # fmt: skip
    md = render_errata([r])
    assert "*none recorded by the check*" in md
    assert "`sgmcmc-verify check X-INV --seed 7 --profile full`" in md
    assert default_command(r) == "sgmcmc-verify check X-INV --seed 7 --profile full"


def test_empty_ledger():
    assert "No claim was refuted or qualified." in render_errata([])
