"""The claims API: IDs, catalogue, verdict plumbing, JSON, determinism, errors."""

import json
import re
from pathlib import Path

import pytest

from sgmcmc_verify import claims
from sgmcmc_verify.claims.result import ClaimResult, Measurement, Part, combine_verdicts

CLAIMS_MD = Path(claims.__file__).parents[1] / "data" / "CLAIMS.md"  # shipped catalogue
#: The project's catalogue, beside the repository on the development machine only.
SHARED_CLAIMS_MD = Path(__file__).resolve().parents[2] / "shared" / "CLAIMS.md"


def test_ids_and_catalogue():
    assert {"AGLD-R1", "AGLD-R2", "AGLD-UNB", "AGLD-MEM", "EWSG-MH"} <= set(claims.ids())
    assert set(claims.ids()) == set(claims.CHECKS)
    assert len(claims.ids(implemented=False)) == len(claims.INFO) >= len(claims.CATALOGUE) >= 37


def test_catalogue_is_a_verbatim_copy_of_claims_md():
    text = CLAIMS_MD.read_text()
    found = dict(re.findall(r"^- ([A-Z][A-Z0-9-]+) (.*)$", text[text.index("## Claims") :], re.M))
    assert found == {k: v.statement for k, v in claims.CATALOGUE.items()}


def test_shipped_catalogue_is_the_projects():
    if not SHARED_CLAIMS_MD.is_file():
        pytest.skip("shared/CLAIMS.md is not beside the repository (an installed copy)")
    assert CLAIMS_MD.read_text() == SHARED_CLAIMS_MD.read_text()


def test_check_rejects_bad_input(monkeypatch):
    with pytest.raises(ValueError, match="unknown claim ID 'AGLD-R3'"):
        claims.check("AGLD-R3")
    monkeypatch.delitem(claims.CHECKS, "SGNHT-DW")
    with pytest.raises(NotImplementedError, match="no check yet"):
        claims.check("SGNHT-DW")
    with pytest.raises(ValueError, match="unknown profile 'fast'"):
        claims.check("AGLD-MEM", profile="fast")
    with pytest.raises(TypeError, match="seed must be an integer"):
        claims.check("AGLD-MEM", seed="0")


def test_result_is_json_and_deterministic():
    a = claims.check("AGLD-UNB", seed=3).to_dict()
    b = claims.check("AGLD-UNB", seed=3).to_dict()
    for d in (a, b):
        d.pop("runtime_s")
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert a["claim_id"] == "AGLD-UNB" and a["paper"] == "AGLD" and a["params"]["seed"] == 3


def test_a_raising_check_becomes_an_error_verdict():
    def broken(*, profile, seed):
        raise RuntimeError("boom")

    r = claims.run_check("AGLD-R1", broken, profile="quick", seed=0)
    assert r.verdict == "error" and "RuntimeError: boom" in r.traceback


def test_verdicts_combine_worst_first():
    assert combine_verdicts(["confirmed", "qualified"]) == "qualified"
    assert combine_verdicts(["qualified", "refuted", "confirmed"]) == "refuted"
    assert combine_verdicts(["confirmed"]) == "confirmed"
    assert combine_verdicts(["confirmed", "not-checkable"]) == "qualified"
    assert combine_verdicts(["not-checkable", "not-checkable"]) == "not-checkable"
    with pytest.raises(ValueError, match="verdict must be one of"):
        Part("x", "fine", "", {})
    with pytest.raises(ValueError, match="verdict must be one of"):
        ClaimResult("X", "p", "l", "s", "maybe")


def test_refuted_part_carries_its_counterexample():
    def fn(*, profile, seed):
        return [Part("a", "refuted", "e", {"m": Measurement(2.0)}, "fails", {"N": 4})], {}

    r = claims.run_check("AGLD-R1", fn, profile="quick", seed=0)
    assert r.verdict == "refuted" and r.counterexample == {"N": 4} and "a: fails" in r.reading
