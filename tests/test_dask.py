"""``report --scheduler``: the claims run on a Dask cluster give the same report as ``--jobs 1``."""

import json

import pytest

pytest.importorskip("distributed")

from test_report import CHEAP, _cli, _load, _stable, cheap_report, validate_report

from sgmcmc_verify import cli
from sgmcmc_verify.report.dask_runner import run_on_dask


def test_report_on_a_local_cluster_matches_jobs_1(tmp_path, once, tmp_path_factory):
    # the CLI runs in a subprocess, so distributed's shutdown warnings cannot reach pytest;
    # the --jobs 1 report is test_report.py's (the same command, computed once a session)
    jobs1 = once("cheap-report-jobs1", lambda: cheap_report(tmp_path_factory, 1))
    d = tmp_path / "dask"
    r = _cli("report", "--claims", CHEAP, "--out", str(d), "--seed", "3", "--scheduler", "local")
    assert r.returncode == 0, r.stderr
    assert "elapsed" in r.stderr
    a, b = _load(jobs1), _load(d)
    validate_report(b)
    assert b["status"] == "complete"
    assert [c["claim_id"] for c in b["claims"]] == ["AGLD-R1", "AGLD-R2", "AGLD-UNB", "AGLD-MEM"]
    assert _stable(a) == _stable(b)
    assert json.dumps(_stable(a), indent=2) == json.dumps(_stable(b), indent=2)


# This one starts a LocalCluster in the pytest process; with distributed 2026.8 it shuts
# down without warnings, so filterwarnings = error needs no exception here.
def test_a_failed_task_is_reported_through_on_failure():
    # int("AGLD-R1") raises ValueError on the worker: a picklable builtin that fails
    seen = []
    run_on_dask("local", ["AGLD-R1"], int, seen.append, lambda cid, exc: (cid, type(exc).__name__))
    assert seen == [("AGLD-R1", "ValueError")]


def test_scheduler_excludes_jobs(capsys):
    code = cli.main(["report", "--scheduler", "local", "--jobs", "2", "--claims", CHEAP])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler and --jobs > 1" in err


def test_missing_distributed_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code = cli.main(["report", "--scheduler", "local", "--out", str(tmp_path / "r")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'sgmcmc-verify[dask]'" in err
    assert not (tmp_path / "r").exists()


def test_the_units_of_a_claim_run_as_dask_tasks_of_their_own():
    # each unit reports the key of the Dask task it ran in: fresh keys, none the claim's own
    from sgmcmc_verify.parallel import map_units

    def claim(cid):
        from distributed.worker import thread_state

        units = map_units(
            lambda x: (x, __import__("distributed").worker.thread_state.key), range(5)
        )
        return thread_state.key, units

    seen = []
    run_on_dask("local", ["X"], claim, seen.append, lambda cid, exc: exc)
    ((claim_key, units),) = seen
    assert [u[0] for u in units] == list(range(5))  # in order
    keys = {u[1] for u in units}
    assert len(keys) == 5 and claim_key not in keys


def test_seed_blocks_on_dask_give_the_serial_numbers():
    # the SGNHT checks' (step size, seed block) units: 4 blocks of 250 chains
    import numpy as np

    from sgmcmc_verify.claims.sgnht_thermostat import _run_batches
    from sgmcmc_verify.problems import double_well
    from sgmcmc_verify.registry import make_sampler

    def run(cid=None):
        return _run_batches(
            make_sampler, "sgnht", double_well(), h=0.05, theta0=np.zeros((1000, 1)),
            t_total=2.0, thin=1, batch=250, seed=7, tags=(1, 2), record=("theta", "xi"),
            reduce=lambda res: {"xi": res.draws["xi"][:, -1], "th": res.draws["theta"][:, -1]},
            A=1.0, B=0.5, gradient="injected",
        )  # fmt: skip

    serial = run()
    seen = []
    run_on_dask("local", ["SGNHT-THERMAL"], run, seen.append, lambda cid, exc: exc)
    (dist,) = seen
    assert set(dist) == {"xi", "th"} and dist["xi"].shape[0] == 1000
    for k in serial:
        np.testing.assert_array_equal(dist[k], serial[k])


def test_an_unreachable_scheduler_is_one_line_before_any_task():
    from sgmcmc_verify.report.dask_runner import DaskUnavailableError

    seen = []
    # port 1 on the loopback: nothing listens there, so the connection is refused at once
    with pytest.raises(DaskUnavailableError, match=r"^--scheduler 'tcp://127.0.0.1:1': cannot "):
        run_on_dask("tcp://127.0.0.1:1", ["AGLD-R1"], int, seen.append, None, connect_timeout=0.5)
    assert seen == []


def test_unreachable_scheduler_through_the_cli_is_exit_2(monkeypatch, capsys, tmp_path):
    from sgmcmc_verify.report import dask_runner

    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT", 0.5)
    code = cli.main(["report", "--scheduler", "tcp://127.0.0.1:1", "--claims", CHEAP,
                     "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot connect" in err and "Traceback" not in err
