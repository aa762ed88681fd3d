"""The report: JSON structure, rendering of every verdict, figures, links, and reproducibility.

The JSON structure is checked by a small hand-written validator of the schema in
``docs/report_schema.md`` (``jsonschema`` is not a dependency).
"""

import base64
import json
import math
import re
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sgmcmc_verify import claims
from sgmcmc_verify.claims import decide
from sgmcmc_verify.report import SCHEMA_VERSION, environment, write_report
from sgmcmc_verify.report.schema import PENDING_STATUSES, STATUSES, VOLATILE_KEYS

#: The cheap AGLD claims (R1, R2, UNB, MEM): a few seconds in all.
CHEAP = "AGLD-[RUM]*"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The only top-level keys that may differ between two runs with the same seed, profile and
#: claim selection (docs/report_schema.md): the one timings section and the environment block.
VOLATILE = ("timings", "environment")
#: The fields of a part's erratum (its rule is checked by claims.decide.is_decided).
ERRATUM_KEYS = ("corrected", "failing_step", "command", "regime")
#: A key that names a wall-clock timing; allowed only inside ``timings``.
TIMING_KEY = re.compile(r"runtime|wall_time|elapsed|perf_counter|seconds|_time_s$")


# ------------------------------------------------------------------------------------------
# A structural validator of report.json (docs/report_schema.md)
# ------------------------------------------------------------------------------------------

NUMBER = (int, float)
OPT_STR = (str, type(None))


def _check(cond, path, message):
    if not cond:
        raise AssertionError(f"report.json{path}: {message}")


def _keys(obj, path, required, optional=()):
    _check(isinstance(obj, dict), path, f"expected an object, got {type(obj).__name__}")
    missing = set(required) - set(obj)
    extra = set(obj) - set(required) - set(optional)
    _check(not missing, path, f"missing keys {sorted(missing)}")
    _check(not extra, path, f"unexpected keys {sorted(extra)}")
    for k, typ in required.items():
        _check(isinstance(obj[k], typ), f"{path}.{k}", f"expected {typ}, got {obj[k]!r:.60}")


def _finite_or_tagged(value, path):
    # non-finite floats are stored as the strings 'inf', '-inf', 'nan'
    if isinstance(value, float):
        _check(math.isfinite(value), path, f"non-finite float {value!r} not tagged")
        return
    if isinstance(value, dict):
        for k, v in value.items():
            _finite_or_tagged(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite_or_tagged(v, f"{path}[{i}]")


def validate_report(doc):
    """Raise AssertionError naming the first path that breaks the schema."""
    _keys(
        doc,
        "",
        {
            "schema_version": int,
            "status": str,
            "profile": str,
            "seed": int,
            "claims_pattern": str,
            "environment": dict,
            "timings": dict,
            "summary": dict,
            "claims": list,
            "pending": list,
            "figures": list,
        },
    )
    _check(doc["schema_version"] == SCHEMA_VERSION, ".schema_version", "unknown version")
    _check(doc["status"] in STATUSES, ".status", f"not one of {STATUSES}")
    _check(doc["profile"] in claims.PROFILES, ".profile", "unknown profile")
    _keys(
        doc["environment"],
        ".environment",
        {
            "python": str,
            "platform": str,
            "processor": str,
            "cpu": (str, type(None)),
            "cpus": (int, type(None)),
            "blas": list,
            "numpy_simd": (list, type(None)),
        },
        {"packages", "jobs"},
    )
    ids = []
    for i, c in enumerate(doc["claims"]):
        p = f".claims[{i}]"
        _keys(
            c,
            p,
            {
                "claim_id": str,
                "paper": str,
                "location": str,
                "statement": str,
                "verdict": str,
                "expectation": str,
                "reading": str,
                "parts": list,
                "params": dict,
                "seed": int,
                "profile": str,
                "alpha": (*NUMBER, type(None)),
                "traceback": OPT_STR,
                "counterexample": (dict, type(None)),
                "figure_data": dict,
            },
        )
        _check(c["verdict"] in claims.VERDICTS, f"{p}.verdict", "not a verdict")
        _check(c["claim_id"] in claims.INFO, f"{p}.claim_id", "not in the catalogue")
        _check((c["verdict"] == "error") == (c["traceback"] is not None), p, "traceback iff error")
        for j, part in enumerate(c["parts"]):
            q = f"{p}.parts[{j}]"
            _keys(
                part,
                q,
                {"name": str, "verdict": str, "expectation": str, "measured": dict, "reading": str,
                 "counterexample": (dict, type(None))},
                {"rule", "erratum"},
            )  # fmt: skip
            _check(part["verdict"] in claims.VERDICTS, f"{q}.verdict", "not a verdict")
            # written only when set (claims/result.py): a decision rule and an erratum
            rule = part.get("rule", "exact")
            _check(decide.is_decided(rule), f"{q}.rule", f"{rule!r} is no claims.decide rule")
            if "erratum" in part:
                _keys(part["erratum"], f"{q}.erratum", dict.fromkeys(ERRATUM_KEYS, str))
                _check(part["verdict"] in ("refuted", "qualified"), f"{q}.erratum",
                       "an erratum belongs to a refuted or qualified part")  # fmt: skip
            for k, m in part["measured"].items():
                _keys(m, f"{q}.measured[{k!r}]", {"note": str}, {"value", "stderr", "ci"})
                _check("value" in m, f"{q}.measured[{k!r}]", "no value")
                _check(m.get("ci") is None or len(m["ci"]) == 2, f"{q}.measured[{k!r}].ci", "pair")
        for name, fig in c["figure_data"].items():
            _check(isinstance(fig, dict) and isinstance(fig.get("kind"), str),
                   f"{p}.figure_data.{name}", "a figure needs a 'kind'")  # fmt: skip
        _finite_or_tagged(c, p)
        _no_timing_keys(c, p)
        ids.append(c["claim_id"])
    for i, e in enumerate(doc["pending"]):
        p = f".pending[{i}]"
        _keys(e, p, {"claim_id": str, "paper": str, "location": str, "statement": str,
                     "status": str})  # fmt: skip
        _check(e["status"] in PENDING_STATUSES, f"{p}.status", "not a pending status")
        ids.append(e["claim_id"])
    _check(sorted(ids) == sorted(claims.INFO), ".claims+.pending", "not the catalogue")
    order = list(claims.INFO)
    done = [c["claim_id"] for c in doc["claims"]]
    _check(done == sorted(done, key=order.index), ".claims", "not in catalogue order")
    for paper, counts in doc["summary"].items():
        _keys(
            counts, f".summary.{paper}", dict.fromkeys((*claims.VERDICTS, *PENDING_STATUSES), int)
        )
    total = sum(sum(c.values()) for c in doc["summary"].values())
    _check(total == len(claims.INFO), ".summary", "counts do not cover the catalogue")
    for i, f in enumerate(doc["figures"]):
        _keys(f, f".figures[{i}]", {"claim_id": str, "name": str, "title": str, "file": str})
        _check(f["claim_id"] in done, f".figures[{i}]", "figure of a claim without a result")
    timings = doc["timings"]
    _keys(timings, ".timings", {"wall_time_s": NUMBER, "claims": dict})
    _check(sorted(timings["claims"]) == sorted(done), ".timings.claims", "not one per claim result")
    for cid, t in timings["claims"].items():
        _check(isinstance(t, NUMBER) and 0 <= t < math.inf, f".timings.claims.{cid}", "seconds")
    for k in set(doc) - {"timings", "claims"}:
        _no_timing_keys(doc[k], f".{k}")


def _no_timing_keys(value, path):
    # every timing lives in .timings (issue 14): none in params, parts or figure data
    if isinstance(value, dict):
        for k, v in value.items():
            _check(not TIMING_KEY.search(str(k)), f"{path}.{k}", "a timing outside .timings")
            _no_timing_keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _no_timing_keys(v, f"{path}[{i}]")


# ------------------------------------------------------------------------------------------
# Fixtures: the CLI report on the cheap AGLD claims, once with --jobs 1 and once with --jobs 2
# ------------------------------------------------------------------------------------------


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "sgmcmc_verify.cli", *args], capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def cheap_report(tmp_path_factory, jobs: int) -> Path:
    """The CHEAP claims' report (seed 3) written by the CLI with ``--jobs jobs``."""
    d = tmp_path_factory.mktemp(f"reports-jobs{jobs}")
    r = _cli("report", "--claims", CHEAP, "--out", str(d), "--seed", "3", "--jobs", str(jobs))
    assert r.returncode == 0, r.stderr
    assert "elapsed" in r.stderr  # per-claim progress with elapsed time
    return d


@pytest.fixture(scope="session")
def reports(once, tmp_path_factory):
    # shared with test_dask.py, which compares its cluster's report with the jobs-1 one
    return {j: once(f"cheap-report-jobs{j}", lambda j=j: cheap_report(tmp_path_factory, j))
            for j in (1, 2)}  # fmt: skip


def _load(d):
    return json.loads((d / "report.json").read_text())


def _dump(doc):
    # how report.json is written (report/__init__.py): sorted keys, indent 2, UTF-8
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _stable(doc):
    """The document without the volatile top-level keys, and without nothing else."""
    return {k: v for k, v in doc.items() if k not in VOLATILE}


def _stable_bytes(d):
    """report.json's bytes with the volatile top-level keys, and only those, taken out."""
    raw = (d / "report.json").read_bytes()
    doc = json.loads(raw)
    # re-serialising reproduces the file exactly, so comparing the re-serialised documents
    # below compares the files byte for byte outside the keys removed
    assert _dump(doc).encode() == raw
    return _dump(_stable(doc)).encode()


def test_report_json_validates(reports):
    doc = _load(reports[1])
    validate_report(doc)
    assert doc["status"] == "complete" and doc["environment"]["jobs"] == 1
    assert [c["claim_id"] for c in doc["claims"]] == ["AGLD-R1", "AGLD-R2", "AGLD-UNB", "AGLD-MEM"]
    status = {e["claim_id"]: e["status"] for e in doc["pending"]}
    assert status["X-ORDER"] == "not-selected"
    for cid in claims.INFO:
        if cid not in claims.CHECKS:
            assert status[cid] == "pending"


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: d.pop("schema_version"),
        lambda d: d["claims"][0].update(verdict="probably"),
        lambda d: d["pending"].pop(),
        lambda d: d["claims"].reverse(),
        lambda d: d["claims"][0]["parts"][0].pop("measured"),
        lambda d: d["claims"][0]["params"].update(untagged=float("nan")),
    ],
)
def test_validator_rejects_broken_documents(reports, breakage):
    doc = _load(reports[1])
    breakage(doc)
    with pytest.raises(AssertionError, match=r"report\.json"):
        validate_report(doc)


def test_volatile_keys_are_the_documented_ones():
    assert set(VOLATILE_KEYS) == set(VOLATILE)
    doc = (Path(__file__).parents[1] / "docs" / "report_schema.md").read_text()
    assert "| `timings` | object | *volatile*" in doc


def test_report_is_byte_identical_for_any_number_of_jobs_outside_timings(reports):
    docs = [_load(reports[j]) for j in (1, 2)]
    assert docs[1]["environment"]["jobs"] == 2
    assert _stable_bytes(reports[1]) == _stable_bytes(reports[2])


@pytest.fixture(scope="session")
def rates_reports(once, tmp_path_factory):
    # SVRHMC-T2 (claims/rates.py, ~4 s in quick) once carried its wall time in params
    def run():
        base = tmp_path_factory.mktemp("rates")
        out = []
        for run in (1, 2):
            d = base / f"run{run}"
            r = _cli(
                "report", "--claims", "SVRHMC-T2", "--out", str(d), "--seed", "3", "--jobs", "1"
            )
            assert r.returncode == 0, r.stderr
            out.append(d)
        return out

    return once("svrhmc-t2-reports", run)


def test_same_seed_reports_are_byte_identical_outside_timings(rates_reports):
    a, b = rates_reports
    for d in (a, b):
        validate_report(_load(d))  # also: no timing key outside .timings
    assert [c["claim_id"] for c in _load(a)["claims"]] == ["SVRHMC-T2"]
    assert _stable_bytes(a) == _stable_bytes(b)
    # the timings are there, measured: the check ran for a positive time within the run's
    t = _load(a)["timings"]
    assert 0 < t["claims"]["SVRHMC-T2"] <= t["wall_time_s"]


def _png_size(data):
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    crc = struct.unpack(">I", data[29:33])[0]
    assert crc == zlib.crc32(data[12:29])
    assert data[-12:-8] == b"\x00\x00\x00\x00" and data[-8:-4] == b"IEND"
    return struct.unpack(">II", data[16:24])


def test_figures_are_valid_pngs_and_byte_identical_across_runs(reports):
    doc = _load(reports[1])
    files = [f["file"] for f in doc["figures"]]
    assert files == ["figures/agld-r1-ra_staleness.png"]
    for f in files:
        data = [(reports[j] / f).read_bytes() for j in (1, 2)]
        w, h = _png_size(data[0])
        assert w > 300 and h > 200
        assert data[0] == data[1]
        assert b"Software" not in data[0] and b"matplotlib" not in data[0]


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.imgs, self.hrefs, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "img":
            self.imgs.append(a.get("src", ""))
        if tag == "a" and "href" in a:
            self.hrefs.append(a["href"])


def _check_html_refs(d):
    html = (d / "index.html").read_text()
    refs = _Refs()
    refs.feed(html)
    assert refs.imgs, "no figures in the HTML"
    for src in refs.imgs:
        if src.startswith("data:"):
            head, _, payload = src.partition(",")
            assert head == "data:image/png;base64"
            _png_size(base64.b64decode(payload, validate=True))
        else:
            assert (d / src).is_file(), f"broken image {src}"
    for href in refs.hrefs:
        if href.startswith("#"):
            assert href[1:] in refs.ids, f"broken link {href}"
        else:
            assert (d / href).is_file(), f"broken link {href}"
    return html, refs


def test_html_is_self_contained_with_no_broken_references(reports):
    html, refs = _check_html_refs(reports[1])
    assert "<style>" in html and "<link" not in html and "<script" not in html
    for cid in ("AGLD-R1", "AGLD-MEM"):
        assert f'href="#{cid.lower()}"' in html and cid.lower() in refs.ids
    md = (reports[1] / "index.md").read_text()
    assert md.startswith("# sgmcmc-verify report")
    for cid in claims.INFO:  # coverage: claims without a result are listed too
        assert f"| {cid} |" in md or f"| [{cid}](#" in md
        assert f">{cid}<" in html
    assert "![" in md and "(figures/agld-r1-ra_staleness.png)" in md


def _boom(**kwargs):
    raise RuntimeError("the check fell over")


def _meta(**extra):
    return {"profile": "quick", "seed": 0, "environment": environment(), "wall_time_s": 0.5,
            **extra}  # fmt: skip


def test_an_error_verdict_is_rendered_with_its_traceback(tmp_path):
    ok = claims.run_check("AGLD-UNB", lambda **kw: ([], {}), profile="quick", seed=0)
    err = claims.run_check("EWSG-T1", _boom, profile="quick", seed=0)
    assert err.verdict == "error"
    write_report([err, ok], tmp_path, _meta())
    doc = _load(tmp_path)
    validate_report(doc)
    assert [c["claim_id"] for c in doc["claims"]] == ["AGLD-UNB", "EWSG-T1"]
    assert doc["summary"]["EWSG"]["error"] == 1
    html = (tmp_path / "index.html").read_text()
    md = (tmp_path / "index.md").read_text()
    for text in (html, md):
        assert "RuntimeError: the check fell over" in text and "Traceback" in text
        assert "_boom" in text
    assert '<span class="v error">error</span>' in html and '<pre class="tb">' in html
    assert "**error**" in md


def test_every_catalogue_claim_appears_in_the_ledger(tmp_path):
    write_report([], tmp_path, _meta(), figures=False)
    doc = _load(tmp_path)
    validate_report(doc)
    html = (tmp_path / "index.html").read_text()
    md = (tmp_path / "index.md").read_text()
    for cid in claims.INFO:
        assert f"<td>{cid}</td>" in html and f"| {cid} |" in md


def test_ctrl_c_leaves_the_results_so_far_on_disk(tmp_path, monkeypatch, capsys):
    from sgmcmc_verify import cli

    calls = []

    def fake_check(cid, *, profile, seed):
        calls.append(cid)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return claims.run_check(cid, lambda **kw: ([], {}), profile=profile, seed=seed)

    monkeypatch.setattr(claims, "check", fake_check)
    code = cli.main(["report", "--claims", CHEAP, "--out", str(tmp_path), "--jobs", "1"])
    assert code == 130
    doc = _load(tmp_path)
    validate_report(doc)
    assert doc["status"] == "interrupted"
    assert [c["claim_id"] for c in doc["claims"]] == ["AGLD-R1", "AGLD-R2"]
    status = {e["claim_id"]: e["status"] for e in doc["pending"]}
    assert status["AGLD-UNB"] == status["AGLD-MEM"] == "not-run"
    assert "Run interrupted" in (tmp_path / "index.html").read_text()
    assert "interrupted: 2 of 4 claims" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="headless Chromium is not installed")
def test_html_opens_in_headless_chromium(reports, tmp_path):
    shot = tmp_path / "summary.png"
    r = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
         "--window-size=1280,900", (reports[1] / "index.html").as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    _png_size(shot.read_bytes())
