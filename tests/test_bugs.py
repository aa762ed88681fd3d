"""The planted-bug catalogue (sgmcmc_verify.bugs): the issue-11 bugs are real bugs that only a
non-degenerate validation problem exposes, and step mode kills every catalogued bug.

Deterministic: trajectories under shared randomness, no statistical test.
"""

import numpy as np
import pytest

from sgmcmc_verify import bugs, registry, run_sampler
from sgmcmc_verify.problems import GaussianQuadratic
from sgmcmc_verify.validation import targets, validate
from sgmcmc_verify.validation.power import _maker, sampler_step_function

#: Issue-11 bugs and the degenerate setting of the old validation problems under which
#: each has *exactly* no effect: a flat prior, a batch of one, d = 1, unit friction.
DEGENERATE = {
    "sgld/prior-times-N/n": "flat prior",
    "saga-ld/prior-times-N/n": "flat prior",
    "sghmc-svr/prior-dropped": "flat prior",
    "sgld/batch-sum-times-N": "batch of one",
    "sghmc-ewsg/batch-sum-times-N": "batch of one",
    "sgld/batch-of-one": "batch of one",
    "lmc/noise-shared-across-coordinates": "d = 1",
    "uld-em/noise-shared-across-coordinates": "d = 1",
    "uld-em/noise-unit-friction": "unit friction",
    "sghmc-svr/noise-unit-friction": "unit friction",
    "sghmc-chen/noise-unit-friction": "unit friction",
    "svrg-hmc/drift-unit-friction": "unit friction",
    "sghmc-ewsg/drift-unit-friction": "unit friction",
    "baoa/o-step-unit-friction": "unit friction",
    "sgnht/noise-unit-friction": "unit friction",
}


def _degenerate(alg: str, setting: str):
    """The validation problem and parameters with one parameter made degenerate."""
    prob = targets.problem_step()
    params = targets.step_params(alg)
    if setting == "flat prior":
        prob = GaussianQuadratic(prob.centres, prob.precisions)
    elif setting == "batch of one":
        params = {**params, **{k: 1 for k in ("n", "b") if k in params}}
    elif setting == "d = 1":
        prob = targets.problem_p4(d=1)
    elif setting == "unit friction":
        params = {**params, **{k: 1.0 for k in ("gamma", "D", "A") if k in params}}
    return prob, params


def _trajectory(sampler, seed=3):
    res = run_sampler(sampler, n_steps=25, chains=16, seed=seed, record=("theta",))
    return res.draws["theta"]


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_issue11_bugs_are_invisible_in_the_degenerate_setting_and_visible_here(name):
    alg, transform, _ = bugs.CATALOGUE[name]
    prob, params = _degenerate(alg, DEGENERATE[name])
    ok = registry.make_sampler(alg, prob, h=0.1, **params)
    assert np.array_equal(_trajectory(ok), _trajectory(transform(ok))), "visible anyway"
    prob, params = targets.problem_step(), targets.step_params(alg)
    ok = registry.make_sampler(alg, prob, h=0.1, **params)
    assert np.abs(_trajectory(ok) - _trajectory(transform(ok))).max() > 1e-3


def test_the_catalogue_holds_the_issue11_bugs():
    # each name in DEGENERATE is a catalogued bug (the parametrised test above shows what
    # it does); with the chain-sharing and coordinate bugs the catalogue has 55
    assert set(DEGENERATE) <= set(bugs.CATALOGUE)
    assert len(bugs.CATALOGUE) == 55


@pytest.mark.parametrize("name", list(bugs.CATALOGUE))
def test_step_mode_kills_every_catalogued_bug(name):
    """Through the public API: validate(step, alg, mode='step') on the validation problem."""
    alg, transform, _ = bugs.CATALOGUE[name]
    step = sampler_step_function(_maker(alg, transform, targets.step_params(alg)), 0)
    rep = validate(step, alg, mode="step")
    assert rep.verdict == "fail", rep.to_markdown()


@pytest.mark.parametrize("alg", registry.names())
def test_step_mode_passes_every_reference(alg):
    step = sampler_step_function(_maker(alg, lambda s: s, targets.step_params(alg)), 0)
    rep = validate(step, alg, mode="step")
    assert rep.verdict == "pass", rep.to_markdown()
