"""The command line: exit codes, one-line errors for bad input, signals, dead workers.

Most tests call ``cli.main`` in this process (capsys); the ones about interpreters
(imports, broken pipes, SIGTERM) run ``python -m sgmcmc_verify.cli`` in a subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import sgmcmc_verify
from sgmcmc_verify import claims, cli

CHEAP = "AGLD-[RUM]*"  # AGLD-R1, AGLD-R2, AGLD-UNB, AGLD-MEM

#: Cases of issue 11 that validation/core.py does not handle yet: sampler mode without
#: --algorithm (a ValueError today: exit 2) and zero-variance draws (a ValueError instead
#: of a fail).  strict: each fails as soon as it passes, so the marker is removed then.


def _cli(*args, cwd=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "sgmcmc_verify.cli", *args], capture_output=True, text=True,
        cwd=cwd, timeout=300, **kw,
    )  # fmt: skip


def _main(capsys, *args) -> tuple[int, str, str]:
    try:
        code = cli.main([str(a) for a in args])
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    out = capsys.readouterr()
    return code, out.out, out.err


def _one_line_error(code: int, err: str, fragment: str) -> None:
    assert code == 2, err
    assert err.startswith("sgmcmc-verify: error: ") and err.count("\n") == 1, err
    assert fragment in err, err
    assert "Traceback" not in err


def _fake_check(verdicts: dict[str, str]):
    """``claims.check`` replaced by instant checks with the given verdicts (default confirmed)."""

    def check(cid, *, profile, seed):
        verdict = verdicts.get(cid, "confirmed")
        if verdict == "error":
            fn = lambda **kw: (_ for _ in ()).throw(RuntimeError("fell over"))  # noqa: E731
        else:
            fn = lambda **kw: ([claims.Part("p", verdict, "e", {})], {})  # noqa: E731
        return claims.run_check(cid, fn, profile=profile, seed=seed)

    return check


# -- help, version, list ---------------------------------------------------------------


def test_version_is_the_package_version():
    out = _cli("--version")
    assert (
        out.returncode == 0 and out.stdout.strip() == f"sgmcmc-verify {sgmcmc_verify.__version__}"
    )


def test_help_documents_exit_codes_profile_and_seed_without_heavy_imports():
    probe = textwrap.dedent(
        """
        import sys
        from sgmcmc_verify import cli
        for argv in (["--help"], ["report", "--help"], ["validate", "--help"]):
            try:
                cli.main(argv)
            except SystemExit as e:
                assert e.code == 0
        heavy = sorted({m.split(".")[0] for m in sys.modules} & {"sympy", "matplotlib", "scipy"})
        print("HEAVY", heavy)
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stdout
    for fragment in ("exit codes:", "130", "--profile", "--seed", "--fail-on", "--param"):
        assert fragment in out.stdout


def test_profiles_spelled_in_the_cli_are_the_checks_and_the_harness():
    from sgmcmc_verify.validation import core

    assert cli.PROFILES == claims.PROFILES == tuple(core.PROFILES)


def test_list_shows_claims_and_algorithms(capsys):
    code, out, _ = _main(capsys, "list")
    assert code == 0
    assert "AGLD-R1" in out and "svrg2-hmc" in out


def test_list_json(capsys):
    code, out, _ = _main(capsys, "list", "--json")
    doc = json.loads(out)
    assert code == 0
    assert [c["id"] for c in doc["claims"]] == list(claims.INFO)
    assert {c["id"] for c in doc["claims"] if c["implemented"]} == set(claims.CHECKS)
    assert "sgld" in {a["name"] for a in doc["algorithms"]}


def test_list_catalogue_prints_the_shipped_claims_md(capsys):
    code, out, _ = _main(capsys, "list", "--catalogue")
    assert code == 0
    for cid in claims.INFO:
        if cid in claims.CATALOGUE:
            assert cid in out


@pytest.mark.parametrize("args", [("list",), ("--help",), ("list", "--json")])
def test_a_reader_that_leaves_early_is_not_a_traceback(args):
    # the read end is closed before the child writes: every write meets EPIPE
    with subprocess.Popen(
        [sys.executable, "-m", "sgmcmc_verify.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0
    assert err == b""


# -- bad input: one line, exit 2 -------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "NOPE-1"), "no check for NOPE-1"),
        (("check", "AGLD-MEM", "--profile", "slow"), "invalid choice: 'slow'"),
        (("check", "AGLD-R2", "--seed", "-1"), "seeds must be non-negative integers, got '-1'"),
        (("check", "AGLD-R2", "--seed", "1.5"), "seeds must be non-negative integers"),
        (("report", "--claims", "ZZZ-*"), "no implemented claim matches"),
        (("report", "--jobs", "0"), "expected a positive integer, got '0'"),
        (("report", "--jobs", "two"), "expected a positive integer, got 'two'"),
        (("report", "--seed", "-3"), "seeds must be non-negative integers"),
        (("report", "--fail-on", "sometimes"), "invalid choice: 'sometimes'"),
        (("report", "--scheduler", "not a url"), "expected 'local' or an address like"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    code, _, err = _main(capsys, *args)
    _one_line_error(code, err, message)


@pytest.mark.parametrize(
    ("out", "fragment"),
    [("file", "exists and is not a directory"), ("/proc/x", "not writable")],
)
def test_report_out_is_checked_before_any_claim_runs(tmp_path, monkeypatch, capsys, out, fragment):
    ran = []
    monkeypatch.setattr(claims, "check", lambda cid, **kw: ran.append(cid))
    if out == "file":
        out = tmp_path / "report.json"
        out.write_text("{}")
    code, _, err = _main(capsys, "report", "--claims", CHEAP, "--out", out, "--jobs", "1")
    _one_line_error(code, err, fragment)
    assert ran == []


# -- report: exit codes, dead workers, signals, atomic writes ------------------------


@pytest.mark.parametrize(
    ("fail_on", "verdicts", "code"),
    [
        ("error", {}, 0),
        ("error", {"AGLD-R2": "refuted"}, 0),
        ("error", {"AGLD-R2": "error"}, 1),
        ("refuted", {"AGLD-R2": "refuted"}, 1),
        ("never", {"AGLD-R2": "error"}, 0),
    ],
)
def test_report_exit_code_follows_fail_on(tmp_path, monkeypatch, capsys, fail_on, verdicts, code):
    monkeypatch.setattr(claims, "check", _fake_check(verdicts))
    got, _, err = _main(
        capsys, "report", "--claims", CHEAP, "--out", tmp_path, "--jobs", "1", "--fail-on", fail_on
    )
    assert got == code, err
    doc = json.loads((tmp_path / "report.json").read_text())
    # the status says when a claim errored (issue 14 item 2), whatever --fail-on decides
    errored = "error" in verdicts.values()
    assert doc["status"] == ("complete-with-errors" if errored else "complete")
    assert {c["claim_id"]: c["verdict"] for c in doc["claims"]}["AGLD-R2"] == verdicts.get(
        "AGLD-R2", "confirmed"
    )
    if code:
        assert "AGLD-R2" in err.splitlines()[-1] and f"--fail-on {fail_on}" in err


# the workers are forked: when an earlier test has loaded JAX (the blackjax peers tests in
# the same process), JAX warns at fork that its threads may deadlock a forked child; these
# workers never touch JAX, so the warning is about a case this test does not exercise
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_a_dead_worker_is_an_error_for_its_claim_only(monkeypatch):
    # AGLD-R2's worker is killed as the OOM killer would (SIGKILL); the others finish
    real = _fake_check({})

    def check(cid, *, profile, seed):
        if cid == "AGLD-R2":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(cid, profile=profile, seed=seed)

    monkeypatch.setattr(claims, "check", check)
    got = []
    args = SimpleNamespace(jobs=2, profile="quick", seed=0)
    cli._run_processes(["AGLD-R1", "AGLD-R2", "AGLD-UNB", "AGLD-MEM"], args, got.append)
    verdicts = {r.claim_id: r.verdict for r in got}
    assert verdicts == {
        "AGLD-R1": "confirmed", "AGLD-R2": "error", "AGLD-UNB": "confirmed",
        "AGLD-MEM": "confirmed",
    }  # fmt: skip
    dead = next(r for r in got if r.claim_id == "AGLD-R2")
    assert dead.reading == (
        "the worker process running this claim died: killed by SIGKILL "
        "(e.g. the out-of-memory killer)"
    )


def _square(x: int) -> tuple[int, int]:
    """A unit: its value and the process that computed it."""
    if x == 13 and os.environ.get("SGMCMC_TEST_KILL_UNIT"):
        os.kill(os.getpid(), signal.SIGKILL)
    return x * x, os.getpid()


def _unit_claim(monkeypatch, n: int = 20) -> None:
    """AGLD-R1 made a claim of n units (cli._UNIT_SOURCES) that reports what it mapped."""
    from sgmcmc_verify.parallel import map_units

    monkeypatch.setitem(cli._UNIT_SOURCES, "AGLD-R1",
                        lambda *, profile, seed: [(_square, x) for x in range(n)])  # fmt: skip
    real = _fake_check({})

    def check(cid, *, profile, seed):
        if cid != "AGLD-R1":
            return real(cid, profile=profile, seed=seed)
        vals = map_units(_square, range(n))
        here = sum(pid == os.getpid() for _, pid in vals)
        reading = f"{[v for v, _ in vals]} {here}"
        return claims.run_check(
            cid, lambda **kw: ([claims.Part("p", "confirmed", "e", {}, reading)], {}),
            profile=profile, seed=seed,
        )  # fmt: skip

    monkeypatch.setattr(claims, "check", check)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_a_claim_with_units_spreads_them_over_the_jobs(monkeypatch):
    """A claim of cli._UNIT_SOURCES has its units run in worker tasks of their own (20
    units, 6 per task: 4 tasks), then runs with their results: the same values as a plain
    loop, none computed again in the claim's process; the other claims run as before."""
    _unit_claim(monkeypatch)
    got = []
    args = SimpleNamespace(jobs=2, profile="quick", seed=0)
    cli._run_processes(["AGLD-R1", "AGLD-R2"], args, got.append)
    res = {r.claim_id: r for r in got}
    assert res["AGLD-R2"].verdict == "confirmed"
    assert res["AGLD-R1"].parts[0].reading == f"{[x * x for x in range(20)]} 0"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")
def test_a_dead_unit_worker_is_an_error_for_its_claim_only(monkeypatch):
    _unit_claim(monkeypatch)
    monkeypatch.setenv("SGMCMC_TEST_KILL_UNIT", "1")  # unit 13's worker is SIGKILLed
    got = []
    args = SimpleNamespace(jobs=2, profile="quick", seed=0)
    cli._run_processes(["AGLD-R1", "AGLD-R2"], args, got.append)
    res = {r.claim_id: r for r in got}
    assert res["AGLD-R2"].verdict == "confirmed" and res["AGLD-R1"].verdict == "error"
    assert res["AGLD-R1"].reading == (
        "a worker process running units of this claim died: killed by SIGKILL "
        "(e.g. the out-of-memory killer)"
    )


SLOW_REPORT = """
import os, sys, time
from sgmcmc_verify import claims, cli

real = claims.check

def check(cid, *, profile, seed):
    with open(os.path.join(sys.argv[2], cid + ".pid"), "w") as fh:
        fh.write(str(os.getpid()))
    if cid != "AGLD-R1":
        time.sleep(600)  # a claim that would hold the run for ten minutes
    return claims.run_check(cid, lambda **kw: ([], {}), profile=profile, seed=seed)

claims.check = check
sys.exit(cli.main(["report", "--claims", "AGLD-R[12]", "--out", sys.argv[1], "--jobs", "2"]))
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not running: read its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_stops_the_workers_and_keeps_what_is_done(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text(SLOW_REPORT)
    out, pids = tmp_path / "out", tmp_path / "pids"
    pids.mkdir()
    proc = subprocess.Popen(
        [sys.executable, str(script), str(out), str(pids)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # wait (counting polls, at most 120 s) until AGLD-R1 is written and AGLD-R2 runs
    for _ in range(1200):
        if (out / "report.json").exists() and (pids / "AGLD-R2.pid").exists():
            break
        time.sleep(0.1)
    worker = int((pids / "AGLD-R2.pid").read_text())
    assert _alive(worker)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "interrupted: 1 of 2 claims written" in err and "Traceback" not in err
    doc = json.loads((out / "report.json").read_text())
    assert doc["status"] == "interrupted"
    assert [c["claim_id"] for c in doc["claims"]] == ["AGLD-R1"]
    for _ in range(100):
        if not _alive(worker):
            break
        time.sleep(0.1)
    assert not _alive(worker)


def test_check_interrupted_prints_the_finished_verdicts(monkeypatch, capsys):
    real = _fake_check({})

    def check(cid, *, profile, seed):
        if cid == "AGLD-UNB":
            raise KeyboardInterrupt
        return real(cid, profile=profile, seed=seed)

    monkeypatch.setattr(claims, "check", check)
    code, out, err = _main(capsys, "check", "AGLD-R1", "AGLD-R2", "AGLD-UNB")
    assert code == 130
    assert out.startswith("AGLD-R1: confirmed") and "AGLD-R2: confirmed" in out
    assert "interrupted: 2 of 3 claims finished" in err


def test_signals_during_the_final_write_are_held_and_reported():
    # a second Ctrl-C (or SIGTERM) while the last report is written must not cut it short;
    # afterwards the handlers in force before the block are back (SIGINT is ignored, not
    # default_int_handler, when pytest itself was started in the background)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with cli._deferred_signals() as got:
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        written = True  # reached: neither signal interrupted the block
    assert written and got == [signal.SIGINT, signal.SIGTERM]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_report_writes_never_follow_a_planted_symlink_nor_leave_temporaries(tmp_path, capsys):
    from sgmcmc_verify.report import _write

    victim = tmp_path / "victim"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.json.tmp").symlink_to(victim)  # the name the old writer used
    _write(out / "report.json", b"{}")
    _write(out / "report.json", b'{"a": 1}')
    assert victim.read_text() == "precious"
    assert (out / "report.json").read_text() == '{"a": 1}'
    assert sorted(p.name for p in out.iterdir()) == ["report.json", "report.json.tmp"]
    mask = os.umask(0)
    os.umask(mask)
    assert (out / "report.json").stat().st_mode & 0o777 == 0o666 & ~mask


def test_concurrent_report_writes_never_show_half_a_file(tmp_path):
    # two writers (two runs with the same --out) and a reader: every read is one whole file
    import threading

    from sgmcmc_verify.report import _write

    path = tmp_path / "report.json"
    payloads = (b"a" * 200_000, b"b" * 300_000)
    _write(path, payloads[0])
    stop = threading.Event()

    def writer(data: bytes) -> None:
        while not stop.is_set():
            _write(path, data)

    threads = [threading.Thread(target=writer, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    try:
        seen = {path.read_bytes() in payloads for _ in range(2000)}
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert seen == {True}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporaries left


def test_check_json_and_exit_code_for_a_refuted_claim(monkeypatch, capsys):
    monkeypatch.setattr(claims, "check", _fake_check({"AGLD-R2": "refuted"}))
    code, out, _ = _main(capsys, "check", "AGLD-R1", "--json")
    assert code == 0 and json.loads(out)[0]["verdict"] == "confirmed"
    code, out, _ = _main(capsys, "check", "AGLD-R2")
    assert code == 1 and "AGLD-R2: refuted" in out


# -- validate, validate-samples --------------------------------------------------------


BUGGY_SGLD = """
import numpy as np

from sgmcmc_verify.validation import targets


def sample(problem, h, n_steps, n_chains, seed):
    rng = np.random.default_rng(seed)
    n = targets.STEP_BATCH
    th = np.zeros((n_chains, problem.d))
    out = []
    for _ in range(n_steps):
        idx = rng.integers(0, problem.N, (n_chains, n))
        g = problem.prior_grad(th) + problem.N / n * problem.component_grads(th, idx).sum(1)
        th = th - h * g + np.sqrt(h) * rng.standard_normal(th.shape)  # bug: sqrt(h)
        out.append(th.copy())
    return np.stack(out, axis=1)
"""


def test_validate_command_rejects_a_noise_scale_bug_with_a_diagnosis(tmp_path):
    (tmp_path / "mysgld.py").write_text(BUGGY_SGLD)
    out = _cli("validate", "mysgld:sample", "--algorithm", "sgld", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "(sampler): **fail**" in out.stdout and "| diagnosis | inconclusive |" in out.stdout


def test_validate_imports_a_file_path(tmp_path, capsys):
    (tmp_path / "mysgld.py").write_text(BUGGY_SGLD)
    target = f"{tmp_path / 'mysgld.py'}:nosuch"
    code, _, err = _main(capsys, "validate", target, "--algorithm", "sgld")
    _one_line_error(code, err, "the module has no 'nosuch'")


@pytest.mark.parametrize(
    ("target", "source", "fragment"),
    [
        ("nosuchmodule:sample", None, "cannot import 'nosuchmodule:sample': ModuleNotFoundError"),
        ("boom:sample", "raise RuntimeError('at import')", "RuntimeError: at import"),
        ("broken:sample", "def (:", "SyntaxError"),
        ("const:sample", "sample = 3", "'sample' is not callable"),
        ("nocolon", None, "expected MODULE:FUNCTION"),
    ],
)
def test_validate_bad_targets_exit_2(tmp_path, monkeypatch, capsys, target, source, fragment):
    if source is not None:
        (tmp_path / f"{target.split(':')[0]}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    code, _, err = _main(capsys, "validate", target, "--algorithm", "sgld")
    _one_line_error(code, err, fragment)


@pytest.fixture
def zeros_module(tmp_path, monkeypatch):
    (tmp_path / "zeros.py").write_text(
        "import numpy as np\n"
        "def sample(problem, h, n_steps, n_chains, seed):\n"
        "    return np.zeros((n_chains, n_steps, problem.d))\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "zeros", raising=False)
    return "zeros:sample"


# The garbage of issue 11 through `validate`: bad input is exit 2 with one line.
@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (("--h", "0"), "--h: step size h = 0.0 is not a positive finite number"),
        (("--h", "-0.1"), "--h: step size h = -0.1 is not a positive finite number"),
        (("--h", "nan"), "--h: step size h = nan is not a positive finite number"),
        (("--h", "inf"), "--h: step size h = inf is not a positive finite number"),
        (("--h", "0.1", "0.1"), "--h: duplicate step sizes in [0.1, 0.1]"),
        (("--h", "abc"), "argument --h: invalid float value: 'abc'"),
        (("--param", "n=-3"), "n (batch size) must be >= 1, got -3"),
        (("--param", "bogus=1"), "unknown parameter(s) ['bogus'] for sgld"),
        (("--param", "novalue"), "--param expects KEY=VALUE"),
        (("--param", "n=1", "--param", "n=2"), "--param n is given twice"),
        (("--timeout", "0"), "expected a positive number of seconds"),
        (("--algorithm", "nosuch"), "nosuch"),
    ],
)
def test_validate_garbage_is_exit_2(zeros_module, capsys, extra, fragment):
    args = [] if "--algorithm" in extra else ["--algorithm", "sgld"]
    code, _, err = _main(capsys, "validate", zeros_module, *args, *extra)
    _one_line_error(code, err, fragment)


def test_validate_without_algorithm_runs_reference_free(zeros_module, capsys):
    # all-zero draws are not the target's law: a reference-free validation must not pass
    code, out, err = _main(capsys, "validate", zeros_module, "--json")
    assert code == 1, err
    assert json.loads(out)["verdict"] in ("fail", "error")


STEPS = """
import numpy as np


def _grad(problem, th, idx):
    data = problem.component_grads(th, idx).sum(1)
    return problem.prior_grad(th) + problem.N / idx.shape[1] * data


def sgld(state, *, h, noise, indices, problem, randomness=None):
    th = state["theta"]
    return {"theta": th - h * _grad(problem, th, indices) + np.sqrt(2 * h) * noise}


def half_noise(state, *, h, noise, indices, problem, randomness=None):
    th = state["theta"]
    return {"theta": th - h * _grad(problem, th, indices) + np.sqrt(h) * noise}


def explicit_sghmc(state, *, h, noise, indices, problem, randomness=None):
    th, p = state["theta"], state["p"]
    g = _grad(problem, th, indices)
    return {"theta": th + h * p, "p": p - h * g - h * p + np.sqrt(2 * h) * noise}
"""


@pytest.mark.parametrize(
    ("function", "extra", "code", "fragment"),
    [
        ("sgld", (), 0, "consistent: the exact stationary law of θ converges"),
        ("half_noise", (), 1, "noise √h·ξ where √(2h)·ξ is required"),
        # --state and --unit-mass reach validate(): the law judged is that of (θ, p)
        (
            "explicit_sghmc",
            ("--state", "theta", "p", "--unit-mass"),
            0,
            "exact stationary law of (θ, p)",
        ),
    ],
)
def test_validate_a_step_without_a_reference(tmp_path, capsys, function, extra, code, fragment):
    # the exact law of the user's step by probing (issue 11 items 1-2), from the command line
    (tmp_path / "steps.py").write_text(STEPS)
    target = f"{tmp_path / 'steps.py'}:{function}"
    got, out, err = _main(capsys, "validate", target, "--mode", "step", *extra)
    assert got == code, (out, err)
    assert fragment in out


def test_a_step_function_that_raises_is_a_one_line_error_verdict(tmp_path, capsys):
    (tmp_path / "steps.py").write_text("def step(state, h):\n    return state\n")
    code, out, err = _main(
        capsys, "validate", f"{tmp_path / 'steps.py'}:step", "--mode", "step", "--json"
    )
    # the step raised: an error verdict in the report (exit 1), never a traceback
    assert code == 1 and "Traceback" not in err + out
    rep = json.loads(out)
    assert rep["verdict"] == "error"
    assert "raised TypeError: step() got an" in rep["checks"][0]["message"]


def test_step_options_need_step_mode(zeros_module, capsys):
    code, _, err = _main(capsys, "validate", zeros_module, "--state", "theta", "p")
    _one_line_error(code, err, "--state needs --mode step")


def test_param_values_are_python_literals():
    assert cli._param("n=3") == ("n", 3)
    assert cli._param("D=[1, 2.5]") == ("D", [1, 2.5])
    assert cli._param("scheme=ra") == ("scheme", "ra")
    assert cli._param(" b = 'x' ") == ("b", "x")


@pytest.fixture
def zeros_npy(tmp_path):
    path = tmp_path / "zeros.npy"
    np.save(path, np.zeros((20, 400, 1)))
    return path


# The garbage of issue 11 through `validate-samples`.
@pytest.mark.parametrize(
    ("h", "fragment"),
    [
        (("0",), "--h: step size h = 0.0 is not a positive finite number"),
        (("-0.2",), "--h: step size h = -0.2 is not a positive finite number"),
        (("nan",), "--h: step size h = nan is not a positive finite number"),
        (("inf",), "--h: step size h = inf is not a positive finite number"),
        (("=-inf",), "--h: step size h = -inf is not a positive finite number"),
        (("0.2", "0.1"), "give one --h per FILE (1 files, 2 step sizes)"),
    ],
)
def test_validate_samples_garbage_h_is_exit_2(zeros_npy, capsys, h, fragment):
    hs = ("--h" + h[0],) if h[0].startswith("=") else ("--h", *h)  # --h=-inf: not an option
    code, _, err = _main(capsys, "validate-samples", zeros_npy, "--algorithm", "sgld", *hs)
    _one_line_error(code, err, fragment)


def test_validate_samples_duplicate_h_no_longer_drops_a_file(zeros_npy, capsys):
    code, _, err = _main(
        capsys, "validate-samples", zeros_npy, zeros_npy, "--algorithm", "sgld", "--h", "0.1", "0.1"
    )
    _one_line_error(code, err, "--h: duplicate step sizes in [0.1, 0.1]")


def test_validate_samples_huge_h_does_not_pass(zeros_npy, capsys):
    code, out, err = _main(
        capsys, "validate-samples", zeros_npy, "--algorithm", "sgld", "--h", "1e300"
    )
    assert code in (1, 2), (out, err)
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1


def test_validate_samples_zeros_fail(tmp_path, zeros_npy, capsys):
    # all-zero draws of the validation problem's d = 2 at a valid h are not SGLD's law:
    # identical chains, an error verdict and exit 1 (never a pass)
    path = tmp_path / "zeros2.npy"
    np.save(path, np.zeros((20, 400, 2)))
    code, out, err = _main(
        capsys, "validate-samples", path, "--algorithm", "sgld", "--h", "0.1", "--json"
    )
    assert code == 1, err
    assert json.loads(out)["verdict"] in ("fail", "error")
    # draws of another dimension are from another target: bad input, exit 2, one line
    code, _, err = _main(capsys, "validate-samples", zeros_npy, "--algorithm", "sgld", "--h", "0.1")
    _one_line_error(code, err, "validation problem has d = 2")


def _sgld_from_the_exported_problem(doc: dict, h: float, chains: int, steps: int, noise: float):
    """SGLD written only from `sgmcmc-verify problem sgld` output, as another language would."""
    p = doc["problem"]
    c, P = np.array(p["centres"]), np.array(p["precisions"])
    L0, m0 = np.array(p["prior_precision"]), np.array(p["prior_mean"])
    n, N = doc["params"]["n"], p["N"]
    rng = np.random.default_rng(11)
    th = np.zeros((chains, p["d"]))
    out = np.empty((chains, steps, p["d"]))
    for t in range(steps):
        idx = rng.integers(0, N, (chains, n))  # uniform, with replacement (the citation)
        data = np.einsum("cbij,cbj->ci", P[idx], th[:, None, :] - c[idx])
        g = (th - m0) @ L0 + N / n * data
        th = th - h * g + noise * np.sqrt(h) * rng.standard_normal(th.shape)
        out[:, t] = th
    return out


@pytest.mark.parametrize(("noise", "code"), [(np.sqrt(2), 0), (1.0, 1)], ids=["sgld", "half"])
def test_files_written_from_the_exported_problem_validate(tmp_path, capsys, noise, code):
    # the route of another language: export the problem, simulate, write .npy, validate.
    # The correct SGLD passes unless a false alarm (probability <= alpha = 0.01, the
    # harness's default; the seed is fixed, so the outcome is too); the half noise fails.
    assert _main(capsys, "problem", "sgld", "--export", tmp_path / "p.json")[0] == 0
    doc = json.loads((tmp_path / "p.json").read_text())
    files, hs = [], []
    for h in doc["step_sizes"]:
        steps = doc["recommended"]["steps"][f"{h:g}"]
        path = tmp_path / f"h{h:g}.npy"
        np.save(path, _sgld_from_the_exported_problem(doc, h, 500, steps, noise))
        files.append(path)
        hs.append(str(h))
    got, out, err = _main(capsys, "validate-samples", *files, "--algorithm", "sgld", "--h", *hs)
    assert got == code, (out, err)


def test_problem_export_refuses_bad_input(tmp_path, capsys):
    code, _, err = _main(capsys, "problem", "sgld", "--param", "n=-3")
    _one_line_error(code, err, "n (batch size) must be >= 1, got -3")
    code, _, err = _main(capsys, "problem", "sgld", "--export", tmp_path / "p.txt")
    _one_line_error(code, err, "the file must end in .json or .npz")
    code, _, err = _main(capsys, "problem", "sgld", "--export", "/proc/x/p.json")
    _one_line_error(code, err, "--export /proc/x/p.json: No such file or directory")


def test_problem_npz_export_holds_the_arrays_without_pickles(tmp_path, capsys):
    assert _main(capsys, "problem", "sghmc-svr", "--export", tmp_path / "p.npz")[0] == 0
    with np.load(tmp_path / "p.npz", allow_pickle=False) as z:
        doc = json.loads(str(z["document"]))
        assert z["centres"].shape == (doc["problem"]["N"], doc["problem"]["d"])
        assert np.array_equal(z["step_sizes"], doc["step_sizes"])
    assert doc["initial_state"] == {"theta": [0.0, 0.0], "p": [0.0, 0.0]}


def test_validate_samples_malformed_file_exit_2(tmp_path, capsys):
    bad = tmp_path / "draws.csv"
    bad.write_text("not,a,valid\nfile\n")
    code, _, err = _main(capsys, "validate-samples", bad, "--algorithm", "sgld", "--h", "0.1")
    _one_line_error(code, err, "draws.csv: the CSV header must start with 'chain,draw,'")


def test_claims_are_scheduled_longest_first_from_the_previous_report_of_that_profile(tmp_path):
    """The order only changes when each claim starts (results are sorted by the catalogue):
    the per-claim seconds of a report of the same profile in --out, else no preference."""
    import argparse

    doc = {"profile": "quick", "timings": {"claims": {"A": 1.0, "B": 5.0}}}
    (tmp_path / "report.json").write_text(json.dumps(doc))
    quick = argparse.Namespace(out=tmp_path, profile="quick")
    assert cli._previous_costs(quick) == {"A": 1.0, "B": 5.0}
    assert cli._previous_costs(argparse.Namespace(out=tmp_path, profile="full")) == {}
    (tmp_path / "report.json").write_text("{not json")
    assert cli._previous_costs(quick) == {}
    assert cli._previous_costs(argparse.Namespace(out=tmp_path / "none", profile="quick")) == {}


def test_report_workers_get_one_blas_thread():
    """``report --jobs N`` limits numpy's BLAS pool to one thread before forking its N
    single-core workers (a count, not a time: the pool sizes threadpoolctl reads back)."""
    code = (
        "import numpy, threadpoolctl\n"
        "from sgmcmc_verify.cli import one_blas_thread\n"
        "one_blas_thread()\n"
        "print([i['num_threads'] for i in threadpoolctl.threadpool_info()])\n"
    )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout  # fmt: skip
    sizes = json.loads(out)
    assert sizes and all(n == 1 for n in sizes), sizes  # numpy's BLAS was found and limited


def test_report_with_workers_limits_blas_before_forking(tmp_path, monkeypatch):
    """``report --jobs 2`` calls one_blas_thread once, in the parent, before its workers
    start; ``--jobs 1`` (claims in this process, BLAS free to use both cores) does not."""
    calls = []
    monkeypatch.setattr(cli, "one_blas_thread", lambda: calls.append(os.getpid()))
    assert (
        cli.main(["report", "--claims", "AGLD-MEM", "--jobs", "2", "--out", str(tmp_path / "a")])
        == 0
    )
    assert calls == [os.getpid()]
    assert (
        cli.main(["report", "--claims", "AGLD-MEM", "--jobs", "1", "--out", str(tmp_path / "b")])
        == 0
    )
    assert calls == [os.getpid()]
