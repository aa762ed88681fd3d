"""sgmcmc_verify.driver: which states a run records, and RunResult.to_inference_data."""

from __future__ import annotations

import copy
import sys

import numpy as np
import pytest

import sgmcmc_verify as sv
from sgmcmc_verify.driver import run_sampler
from sgmcmc_verify.registry import make_sampler


@pytest.fixture(scope="module")
def result():
    prob = sv.problems.get("gaussian-identical-1d")
    return sv.run("sghmc-chen", prob, h=0.05, n_steps=40, chains=4, seed=3, record=("theta", "p"))


def test_posterior_holds_every_recorded_observable_and_the_params(result):
    pytest.importorskip("arviz")
    data = result.to_inference_data()
    post = data["posterior"]
    for name in ("theta", "p"):
        assert post[name].dims == ("chain", "draw", f"{name}_dim_0")
        np.testing.assert_array_equal(post[name].values, result.draws[name])
    assert post.attrs["algorithm"] == "sghmc-chen" and post.attrs["seed"] == 3
    assert post.attrs["h"] == 0.05 and post.attrs["chains"] == 4


def test_arviz_diagnostics_read_it(result):
    az = pytest.importorskip("arviz")
    ess = az.ess(result.to_inference_data(), var_names=["theta"])["theta"].values
    # ArviZ recognises the (chain, draw) layout: one finite, positive ESS for the 1-D theta
    assert ess.shape == (1,) and np.isfinite(ess[0]) and ess[0] > 0


def test_moments_only_runs_have_nothing_to_convert():
    prob = sv.problems.get("gaussian-identical-1d")
    res = sv.run("sgld", prob, h=0.05, n_steps=10, chains=2, seed=0, keep="moments")
    with pytest.raises(ValueError, match="no draws were recorded"):
        res.to_inference_data()


def test_without_arviz_the_error_says_how_to_install_it(result, monkeypatch):
    monkeypatch.setitem(sys.modules, "arviz", None)  # import arviz -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'sgmcmc-verify\[arviz\]'"):
        result.to_inference_data()


@pytest.mark.parametrize(("burn_in", "thin"), [(0, 1), (5, 3), (2, 13)])
def test_draw_j_is_the_state_after_burn_in_plus_j_plus_one_thins(burn_in, thin):
    # replayed step by step through the public API (a deep copy per step: steps consume
    # their state), every recordable observable, integer indices too, 2-D, SAGA's table
    prob = sv.problems.get("gaussian-differing-2d")
    n_steps, chains, seed = 41, 5, 11
    s = make_sampler("saga-hmc", prob, h=0.05)
    rec = ("theta", "p", "grad", "kinetic_energy", "indices")
    res = run_sampler(
        s, n_steps=n_steps, chains=chains, seed=seed, burn_in=burn_in, thin=thin, record=rec
    )
    rng = np.random.default_rng(seed)
    state = s.init(np.zeros((chains, prob.d)), rng)
    want: dict[str, list] = {k: [] for k in rec}
    for t in range(n_steps):
        rand, state = s.draw(state, rng)
        state, info = s.step(copy.deepcopy(state), rand)
        if t + 1 > burn_in and (t + 1 - burn_in) % thin == 0:
            want["theta"].append(state.theta.copy())
            want["p"].append(state.p.copy())
            want["grad"].append(info.grad.copy())
            want["kinetic_energy"].append(0.5 * (state.p**2).sum(axis=1))
            want["indices"].append(info.indices.copy())
    assert res.n_kept == (n_steps - burn_in) // thin == len(want["theta"])
    for k in rec:
        got = res.draws[k]
        assert got.shape[:2] == (chains, res.n_kept), k
        assert np.array_equal(got, np.stack(want[k], axis=1)), k
    assert res.draws["indices"].dtype.kind == "i"


def test_a_thin_longer_than_the_kept_steps_is_an_error():
    # it would record nothing (and divide the moments by zero kept draws)
    prob = sv.problems.get("gaussian-differing-2d")
    with pytest.raises(ValueError, match=r"thin \(40\) exceeds the n_steps − burn_in = 39"):
        sv.run("sgld", prob, h=0.1, n_steps=41, burn_in=2, thin=40, chains=3)
