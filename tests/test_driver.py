"""sgmcmc_verify.driver.RunResult.to_inference_data: the draws as an ArviZ object."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import sgmcmc_verify as sv


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
