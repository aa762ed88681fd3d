"""The exact law of a step function, read off by probing (sgmcmc_verify.exact.probe).

Specifications: on a Gaussian target the probed maps reproduce the moment equations
written from the papers (independent code) to rounding; a step that is not affine, or
whose state has a counter, is refused with the reason; one call per index draw.
"""

import numpy as np
import pytest

from sgmcmc_verify.exact import probe
from sgmcmc_verify.exact.moments import affine_chain, stationary_moments, transient_moments
from sgmcmc_verify.problems import GaussianQuadratic, gaussian_differing

BASE = gaussian_differing(N=4, d=2, curvature_spread=1.5, seed=1)
PRIOR = GaussianQuadratic(
    BASE.centres + 3.0,
    BASE.precisions,
    prior_precision=np.array([[0.5, 0.2], [0.2, 0.3]]),
    prior_mean=np.array([-1.0, 2.0]),
    name="probe-test",
)


def sgld_step(state, *, h, noise, indices, problem, randomness=None):
    """SGLD, AGLD eq. (4)-(5), written as a user would."""
    th = state["theta"]
    n = indices.shape[1]
    g = problem.prior_grad(th) + problem.N / n * problem.component_grads(th, indices).sum(1)
    return {"theta": th - h * g + np.sqrt(2 * h) * noise}


def baoab_step(state, *, h, noise, indices, problem, randomness=None, gamma=1.3):
    """A literal BAOAB with a cached full gradient (two half kicks, one O step)."""
    th, p, g = state["theta"], state["p"], state["grad"]
    p = p - h / 2 * g
    th = th + h / 2 * p
    c = np.exp(-gamma * h)
    p = c * p + np.sqrt(1 - c * c) * noise
    th = th + h / 2 * p
    g = problem.grad(th)
    return {"theta": th, "p": p - h / 2 * g, "grad": g}


def test_probed_sgld_is_the_moment_equations_law():
    law = probe.index_law(PRIOR.N, 2)
    pc = probe.probe_chain(
        sgld_step, {"theta": np.zeros((1, 2))}, h=0.1, law=law, kwargs={"problem": PRIOR}
    )
    assert pc.calls == len(law) == 16  # one vectorised call per index draw
    got = pc.stationary()
    want = stationary_moments(affine_chain("sgld", PRIOR, h=0.1, n=2))
    assert np.allclose(got.time_mean, want.time_mean, rtol=0, atol=1e-12)
    assert np.allclose(got.time_cov, want.time_cov, rtol=0, atol=1e-12)
    # the transient law from θ_0 = 0 too
    tp = pc.transient([1, 7, 40], np.zeros(2))
    tw = transient_moments(affine_chain("sgld", PRIOR, h=0.1, n=2), [1, 7, 40])
    assert np.allclose(tp.mean, tw.mean, rtol=0, atol=1e-12)
    assert np.allclose(tp.cov, tw.cov, rtol=0, atol=1e-12)


def test_probed_baoab_samples_the_gaussian_target_exactly_in_theta():
    """BAOAB's configurational law is exact on a Gaussian (Leimkuhler & Matthews 2013):
    the probed chain (state θ, p and the gradient cache) gives Cov θ = Λ⁻¹ at h = 0.5."""
    state = {"theta": np.zeros((1, 2)), "p": np.zeros((1, 2)), "grad": np.zeros((1, 2))}
    pc = probe.probe_chain(
        baoab_step, state, h=0.5, law=probe.index_law(PRIOR.N, None), kwargs={"problem": PRIOR}
    )
    assert pc.layout.keys == ("theta", "p", "grad")
    st = pc.stationary()
    assert np.allclose(st.time_mean, PRIOR.exact["mean"].value, rtol=0, atol=1e-12)
    assert np.allclose(st.time_cov, PRIOR.exact["cov"].value, rtol=0, atol=1e-12)


def test_a_thermostat_is_not_affine_and_is_refused():
    def sgnht(state, *, h, noise, indices, problem, randomness=None):
        th, p, xi = state["theta"], state["p"], state["xi"]
        p = p - xi * p * h - problem.grad(th) * h + np.sqrt(2 * h) * noise
        xi = xi + ((p * p).mean(axis=1, keepdims=True) - 1) * h
        return {"theta": th + p * h, "p": p, "xi": xi}

    state = {"theta": np.zeros((1, 2)), "p": np.zeros((1, 2)), "xi": np.ones((1, 1))}
    with pytest.raises(probe.NotAffineError, match="not affine"):
        probe.probe_chain(
            sgnht, state, h=0.1, law=probe.index_law(4, None), kwargs={"problem": PRIOR}
        )


def test_a_counter_in_the_state_is_refused_with_the_reason():
    state = {"theta": np.zeros((1, 2)), "k": np.zeros((1,), dtype=int)}
    with pytest.raises(probe.NotAffineError, match="counter"):
        probe.probe_chain(sgld_step, state, h=0.1, law=probe.index_law(4, 1))


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (lambda s, **k: s["theta"], "expected a state dict"),
        (lambda s, **k: {"theta": s["theta"][:1]}, "chains"),
        (lambda s, **k: {"theta": s["theta"], "extra": s["theta"]}, "added state entries"),
        (lambda s, **k: {"theta": s["theta"] * np.nan}, "NaN"),
    ],
)
def test_a_step_returning_garbage_is_an_error(bad, match):
    with pytest.raises(ValueError, match=match):
        probe.probe_chain(bad, {"theta": np.zeros((1, 2))}, h=0.1, law=probe.index_law(4, 1))


def test_index_law_enumerates_ordered_draws_and_refuses_blowups():
    law = probe.index_law(3, 2)
    assert len(law) == 9 and abs(sum(p for _, p in law) - 1) < 1e-15
    assert len(probe.index_law(4, 2, replace=False)) == 12
    with pytest.raises(ValueError, match="at most"):
        probe.index_law(100, 3)
    with pytest.raises(ValueError, match="positive integer"):
        probe.index_law(4, 0)
