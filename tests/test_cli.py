"""The command line through subprocess: exit codes, bad input, and a reproducible report."""

import json
import subprocess
import sys

import pytest


def _cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "sgmcmc_verify.cli", *args], capture_output=True, text=True,
        cwd=cwd, timeout=300,
    )  # fmt: skip


def test_list_shows_claims_and_algorithms():
    out = _cli("list")
    assert out.returncode == 0
    assert "AGLD-R1" in out.stdout and "svrg2-hmc" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "NOPE-1"), "no check for NOPE-1"),
        (("check", "AGLD-MEM", "--profile", "slow"), "invalid choice: 'slow'"),
        (("report", "--claims", "ZZZ-*"), "no implemented claim matches"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    out = _cli(*args)
    assert out.returncode == 2
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_check_json_and_exit_code_for_a_refuted_claim():
    ok = _cli("check", "AGLD-MEM", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)[0]["verdict"] == "confirmed"
    bad = _cli("check", "SVRHMC-COR3")
    assert bad.returncode == 1 and "refuted" in bad.stdout


def test_report_is_reproducible_apart_from_timing_and_environment(tmp_path):
    docs = []
    for k in range(2):
        out = _cli("report", "--claims", "AGLD-*", "--out", str(tmp_path / f"r{k}"), "--seed", "3")
        assert out.returncode == 0, out.stderr
        doc = json.loads((tmp_path / f"r{k}" / "report.json").read_text())
        assert (tmp_path / f"r{k}" / "index.md").read_text().startswith("# sgmcmc-verify report")
        for key in ("environment", "wall_time_s"):
            doc.pop(key)
        for c in doc["claims"]:
            c.pop("runtime_s")
        docs.append(doc)
    assert docs[0] == docs[1]
    assert [c["claim_id"] for c in docs[0]["claims"]] == ["AGLD-R1", "AGLD-R2", "AGLD-UNB",
                                                         "AGLD-MEM"]  # fmt: skip
