"""EWSG-MH: the verdicts of the real index chain, and power: each part turns negative on a
deliberately broken implementation of eq. (5) / Algorithm 1."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import logsumexp

from sgmcmc_verify.claims import decide, ewsg, run_check
from sgmcmc_verify.estimators import EWSG
from sgmcmc_verify.problems import gaussian_differing


@pytest.fixture(scope="module")
def mh():
    return run_check("EWSG-MH", ewsg.check_mh, profile="quick", seed=0)


def test_mh_verdicts(mh):
    for name in ("kernel = eq. (5)", "stationarity", "law after M steps", "mixing against M"):
        assert mh.part(name).verdict == "confirmed", name
    assert mh.part("b = 2 (reconstruction)").verdict == "confirmed"
    # Algorithm 1 restarts the chain uniformly: at M = 1 the index is far from p at h = 5e-2
    part = mh.part("index follows p at M = 1")
    assert part.verdict == "qualified"
    assert part.measured["TV(u P, p) at h = 5e-2 (median)"].value > 0.1
    assert mh.verdict == "qualified"
    assert mh.alpha == ewsg.ALPHA


def test_mh_every_part_through_a_decision_builder(mh):
    """Issue 12: each part's verdict comes from decide.*; the χ² part states its power, and
    the qualified part carries an erratum."""
    assert all(decide.is_decided(p.rule) for p in mh.parts), [p.rule for p in mh.parts]
    law = mh.part("law after M steps")
    assert law.rule == "statistical"
    # 20 000 chains: every index law at TV ≥ 0.03 from u P^M is detected with power 0.9
    assert law.measured["MDE (power 0.9)"].value <= ewsg.MEANINGFUL_TV
    assert mh.part("index follows p at M = 1").erratum is not None


def test_mh_mixing_numbers_are_monotone_in_M_and_h(mh):
    tv = mh.part("mixing against M").measured["TV(u P^M, p), median over states"].value
    for h in ewsg.STEP_SIZES:
        row = [tv[h][m] for m in ewsg.CHAIN_LENGTHS]
        assert all(a >= b - 1e-15 for a, b in itertools.pairwise(row)), h
    # larger h, larger N a_i, more concentrated p: slower from the uniform start
    assert tv[1e-1][1] > tv[5e-2][1] > tv[1e-2][1] > tv[1e-3][1]


class InvertedRatio(EWSG):
    """Planted bug: acceptance min(1, exp(E_i − E_j)), the eq. (5) ratio upside down."""

    def _energy(self, problem, theta, batch, x):
        return -super()._energy(problem, theta, batch, x)


class AlwaysMoves(EWSG):
    """Planted bug: select() ignores the acceptance test and takes every proposal."""

    def select(self, problem, theta, rand, x):
        return rand.start if self.M == 0 else rand.proposals[:, -1]


class ForgotN(EWSG):
    """Planted bug: energy ½‖x + a_i‖² (the factor N of eq. (5) dropped)."""

    def _energy(self, problem, theta, batch, x):
        s = self.a_scale / self.b * problem.component_grads(theta, batch).sum(axis=1)
        return 0.5 * np.sum((x + s) ** 2, axis=1)


class BatchScaledByN(EWSG):
    """Planted bug (b > 1 only): batch energy with N Σ a_i instead of (N/b) Σ a_i."""

    def _energy(self, problem, theta, batch, x):
        s = problem.N * self.a_scale * problem.component_grads(theta, batch).sum(axis=1)
        return 0.5 * np.sum((x + s) ** 2, axis=1)


class SkewedStart(EWSG):
    """Planted bug: Algorithm 1's initial index is never N − 1 (draw() not uniform)."""

    def draw(self, problem, state, chains, rng):
        rand, state = super().draw(problem, state, chains, rng)
        return rand._replace(start=np.minimum(rand.start, problem.N - 2)), state


class ReversedOnReject(EWSG):
    """Planted bug (b > 1 only): a rejected batch comes back in reverse order — the moves
    are right (so are the acceptance probabilities), the returned state is not."""

    def select(self, problem, theta, rand, x):
        out = np.asarray(super().select(problem, theta, rand, x))
        if self.b == 1:
            return out
        stay = np.all(out == np.asarray(rand.start), axis=1)
        out = out.copy()
        out[stay] = out[stay, ::-1]
        return out


def _verdicts(estimator):
    parts, _ = ewsg.check_mh(profile="quick", seed=0, estimator=estimator)
    return {p.name: p.verdict for p in parts}


@pytest.mark.parametrize("broken", [InvertedRatio, AlwaysMoves, ForgotN])
def test_mh_refutes_a_broken_acceptance_rule(broken):
    v = _verdicts(broken)
    assert v["kernel = eq. (5)"] == "refuted"
    assert v["stationarity"] == "refuted"
    assert v["law after M steps"] == "refuted"


def test_mh_b2_part_refutes_a_wrong_batch_scale_and_only_it():
    v = _verdicts(BatchScaledByN)
    assert v["b = 2 (reconstruction)"] == "refuted"
    # for b = 1, N and N/b coincide: the b = 1 parts must not be fooled into failing
    assert v["kernel = eq. (5)"] == v["stationarity"] == v["law after M steps"] == "confirmed"


def test_mh_b2_part_refutes_a_wrong_returned_state():
    """Only the check that select() returns the start or the proposal sees this bug."""
    parts, _ = ewsg.check_mh(profile="quick", seed=0, estimator=ReversedOnReject)
    b2 = next(p for p in parts if p.name == "b = 2 (reconstruction)")
    assert b2.verdict == "refuted"
    assert b2.measured["max kernel error / tol"].value <= 1  # the acceptance itself is right


def test_mh_chi2_part_catches_a_non_uniform_start():
    # the one-step kernel is right, so only the law of draw() + select() can see this bug
    v = _verdicts(SkewedStart)
    assert v["kernel = eq. (5)"] == v["stationarity"] == "confirmed"
    assert v["law after M steps"] == "refuted"


@given(arrays(np.float64, st.integers(1, 8), elements=st.floats(-40, 40)))
def test_mh_matrix_is_stochastic_and_reversible_for_exp_energy(E):
    P = ewsg.mh_matrix(E)
    pi = np.exp(E - logsumexp(E))
    tol = 64 * np.finfo(float).eps * len(E) * (1 + np.abs(E).max() + np.abs(np.log(pi)).max())
    assert np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=tol)
    flow = pi[:, None] * P
    assert np.abs(flow - flow.T).max() <= tol


def test_implemented_kernel_matches_the_derived_matrix_for_b2():
    prob = gaussian_differing(4, 2, seed=2)
    states = ewsg.batch_states(4, 2)
    theta, x = np.array([0.3, -0.8]), np.array([0.5, 1.0])
    rng = np.random.default_rng(0)
    impl = ewsg.implemented_kernel(EWSG(0.4, b=2), prob, theta, x, states, rng)
    P = ewsg.mh_matrix(ewsg.energies(prob, theta, x, 0.4, states))
    assert impl["threshold_violations"] == impl["bad_outputs"] == 0
    np.testing.assert_allclose(impl["P"], P, rtol=1e-12, atol=1e-15)


def test_mixing_of_a_uniform_target_is_immediate():
    N = 6
    mix = ewsg.mixing(np.full((N, N), 1.0 / N), np.full(N, 1.0 / N))
    assert mix["M_mixed"] == 0 and mix["tv"][1] < 1e-15  # one rounding of Σ 1/N
    assert mix["gap"] == pytest.approx(1.0)


@pytest.mark.slow
def test_mh_full_profile_verdicts():
    r = run_check("EWSG-MH", ewsg.check_mh, profile="full", seed=1)
    assert r.verdict == "qualified"
    assert r.part("stationarity").verdict == "confirmed"
    assert r.part("law after M steps").verdict == "confirmed"
    assert r.part("index follows p at M = 1").verdict == "qualified"
