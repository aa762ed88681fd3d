"""The command line through subprocess: exit codes and bad input."""

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
        (("report", "--jobs", "0"), "expected a positive integer, got '0'"),
        (("report", "--jobs", "two"), "expected a positive integer, got 'two'"),
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


# The report's reproducibility (same seed: same report.json apart from timing and environment,
# for --jobs 1 and --jobs 2) is tested in tests/test_report.py.


BUGGY_SGLD = """
import numpy as np

def sample(problem, h, n_steps, n_chains, seed):
    rng = np.random.default_rng(seed)
    th = np.zeros((n_chains, problem.d))
    out = []
    for _ in range(n_steps):
        idx = rng.integers(0, problem.N, (n_chains, 1))
        g = problem.prior_grad(th) + problem.N * problem.component_grads(th, idx).sum(1)
        th = th - h * g + np.sqrt(h) * rng.standard_normal(th.shape)  # bug: sqrt(h)
        out.append(th.copy())
    return np.stack(out, axis=1)
"""


def test_validate_command_finds_a_noise_scale_bug(tmp_path):
    (tmp_path / "mysgld.py").write_text(BUGGY_SGLD)
    out = _cli("validate", "mysgld:sample", "--algorithm", "sgld", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "√h where √(2h) is required" in out.stdout


def test_validate_bad_target_and_malformed_sample_file_exit_2(tmp_path):
    out = _cli("validate", "nosuchmodule:sample", "--algorithm", "sgld", cwd=tmp_path)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    bad = tmp_path / "draws.csv"
    bad.write_text("not,a,valid\nfile\n")
    out = _cli("validate-samples", str(bad), "--algorithm", "sgld", "--h", "0.1")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
