"""Gradient estimators: exact unbiasedness, equivalences, bookkeeping, input checks."""

import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from sgmcmc_verify import problems
from sgmcmc_verify.access import CA, RA, AccessState
from sgmcmc_verify.estimators import (
    AGLD,
    EWSG,
    SAGA,
    SVRG,
    AGLDState,
    InjectedNoise,
    Minibatch,
    TableSnapshot,
    first_occurrence,
    snapshot_ages,
)
from sgmcmc_verify.registry import make_sampler
from sgmcmc_verify.snapshots import HSAG, PPU, PTU, TMU

EPS = np.finfo(float).eps


def _all_batches(N, n):
    return np.array(list(itertools.product(range(N), repeat=n)))


def _rounding_tol(*arrays, N):
    # Sums of O(N) terms of size <= scale carry rounding error <= N·ε·scale each;
    # a factor 64 covers the handful of such sums in one estimate.
    return 64 * EPS * N * max(np.abs(a).max() for a in arrays)


@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**31))
def test_minibatch_is_unbiased_by_enumeration(N, n, seed):
    prob = problems.gaussian_differing(N, 2, seed=seed % 1000)
    x = np.random.default_rng(seed).standard_normal((1, 2))
    batches = _all_batches(N, n)
    g, _ = Minibatch(n).estimate(prob, np.repeat(x, len(batches), 0), None, batches)
    true = prob.grad(x)[0]
    assert np.abs(g.mean(0) - true).max() <= _rounding_tol(g, true, N=N * n)


@given(st.integers(2, 5), st.integers(1, 3), st.integers(0, 2**31))
def test_agld_ra_is_unbiased_for_any_snapshot(N, n, seed):
    rng = np.random.default_rng(seed)
    prob = problems.gaussian_differing(N, 2, seed=seed % 1000)
    x = rng.standard_normal((1, 2))
    table = prob.all_component_grads(rng.standard_normal((1, 2)))
    batches = _all_batches(N, n)
    B = len(batches)
    tab = np.repeat(table, B, 0)
    state = AGLDState(AccessState(0, 0, None), TableSnapshot(tab, tab.sum(1), None), 0)
    g, _ = AGLD(RA(n), PPU()).estimate(prob, np.repeat(x, B, 0), state, batches)
    true = prob.grad(x)[0]
    assert np.abs(g.mean(0) - true).max() <= _rounding_tol(g, table, true, N=N * n)


@pytest.mark.parametrize("problem_name", ["gaussian-differing-2d", "linear-regression"])
def test_ptu_ra_equals_svrg_ld_and_ppu_ra_equals_saga_ld(problem_name):
    """AGLD Remark 1: SVRG-LD = PTU-RA and SAGA-LD = PPU-RA, under the same randomness."""
    prob = problems.get(problem_name, N=20)
    rng = np.random.default_rng(3)
    theta0 = rng.standard_normal((7, prob.d))
    for agld_name, lit_name in (("ptu-ra", "svrg-ld"), ("ppu-ra", "saga-ld")):
        a = make_sampler(
            agld_name, prob, h=0.01, n=4, **({"D": 5} if agld_name == "ptu-ra" else {})
        )
        b = make_sampler(lit_name, prob, h=0.01, n=4, **({"D": 5} if lit_name == "svrg-ld" else {}))
        sa, sb = a.init(theta0, rng), b.init(theta0, rng)
        for t in range(60):
            rand, sa = a.draw(sa, rng)
            sa, info = a.step(sa, rand)
            sb, _ = b.step(sb, rand)  # the same indices and noise
            # Same algebra, possibly different summation order: each step may differ by
            # the rounding of O(N) sums of gradient terms, times h, accumulated over steps.
            tol = (t + 1) * 0.01 * _rounding_tol(info.grad, N=prob.N)
            np.testing.assert_allclose(sa.theta, sb.theta, rtol=0, atol=tol)


def test_equivalence_test_has_power_against_a_stale_snapshot():
    """A PTU whose epoch differs from SVRG's K separates the trajectories."""
    prob = problems.get("gaussian-differing-2d", N=20)
    rng = np.random.default_rng(3)
    theta0 = rng.standard_normal((7, 2))
    a = make_sampler("ptu-ra", prob, h=0.01, n=4, D=6)
    b = make_sampler("svrg-ld", prob, h=0.01, n=4, D=5)
    sa, sb = a.init(theta0, rng), b.init(theta0, rng)
    diff = 0.0
    for _ in range(20):
        rand, sa = a.draw(sa, rng)
        sa, _ = a.step(sa, rand)
        sb, _ = b.step(sb, rand)
        diff = max(diff, np.abs(sa.theta - sb.theta).max())
    assert diff > 1e-6


@pytest.mark.parametrize(
    ("snapshot", "expected_ages"),
    [
        (PTU(3), [[1] * 6, [2] * 6, [0] * 6]),
        (PPU(), [[1] * 6, [2, 2, 1, 1, 2, 2], [3, 3, 2, 2, 1, 1]]),
        (TMU(3), [[1] * 6, [2, 2, 1, 1, 2, 2], [0] * 6]),
        (HSAG(3, (0, 1, 2)), [[1] * 6, [2, 2, 1, 2, 2, 2], [3, 3, 2, 0, 0, 0]]),
    ],
)
def test_snapshot_ages_follow_strategies_2_to_4(snapshot, expected_ages):
    """Hand-derived ages under CA with N = 6, n = 2, after iterations 0, 1, 2 (Strategies 2-4).

    Partial refreshes evaluate at x^(k), so an entry refreshed in iteration k has
    age 1 when iteration k+1 uses it; total refreshes evaluate at x^(k+1) (age 0).
    """
    prob = problems.gaussian_identical(6, 1)
    est = AGLD(CA(2), snapshot, storage="table")
    rng = np.random.default_rng(0)
    theta = np.zeros((1, 1))
    state = est.init(prob, theta, rng)
    for expected in expected_ages:
        idx, state = est.draw(prob, state, 1, rng)
        g, cache = est.estimate(prob, theta, state, idx)
        new = theta - 0.1 * g
        state = est.update(prob, state, theta, new, idx, cache)
        theta = new
        assert snapshot_ages(state)[0].tolist() == expected


def test_table_total_stays_the_sum_of_the_table():
    prob = problems.gaussian_differing(8, 3, seed=2)
    for snap in (PPU(), TMU(4), HSAG(4, (1, 5))):
        est = AGLD(RA(5), snap, storage="table")
        rng = np.random.default_rng(0)
        theta = rng.standard_normal((4, 3))
        state = est.init(prob, theta, rng)
        for _ in range(30):
            idx, state = est.draw(prob, state, 4, rng)
            g, cache = est.estimate(prob, theta, state, idx)
            new = theta - 0.05 * g + 0.1 * rng.standard_normal(theta.shape)
            state = est.update(prob, state, theta, new, idx, cache)
            theta = new
        np.testing.assert_allclose(state.snap.total, state.snap.table.sum(1), atol=1e-12)


def test_first_occurrence():
    idx = np.array([[3, 1, 3, 3], [0, 1, 2, 1]])
    assert first_occurrence(idx).tolist() == [[True, True, False, False], [True, True, True, False]]


def test_injected_noise_has_covariance_2B_over_h():
    """Sample covariance of ∇Ũ − ∇U against 2B/h: Bartlett/Box M would be overkill here;
    per-entry z-tests at α = 1e-4 total (Bonferroni over 3 entries) with n = 2·10⁵ draws."""
    prob = problems.gaussian_identical(5, 2)
    B = np.array([[1.0, 0.3], [0.3, 0.5]])
    est = InjectedNoise(B, 0.1)
    rng = np.random.default_rng(0)
    theta = np.zeros((200_000, 2))
    rand, _ = est.draw(prob, None, theta.shape[0], rng)
    e = est.estimate(prob, theta, None, rand)[0] - prob.grad(theta)
    target = 2 * B / 0.1
    z_crit = scipy.stats.norm.isf(1e-4 / (2 * 3))
    for i, j in ((0, 0), (0, 1), (1, 1)):
        prod = e[:, i] * e[:, j]
        z = (prod.mean() - target[i, j]) / (prod.std() / np.sqrt(len(prod)))
        assert abs(z) < z_crit


def test_ewsg_ideal_weights_follow_eq_4():
    prob = problems.gaussian_differing(6, 2, seed=4)
    est = EWSG(a_scale=0.3, mode="ideal")
    theta = np.array([[0.2, -0.1]])
    x = np.array([[0.5, 0.1]])
    logp = est.log_weights(prob, theta, x)[0]
    a = 0.3 * prob.all_component_grads(theta)[0]
    raw = -0.5 * np.sum((x[0] + a.sum(0)) ** 2) + 0.5 * np.sum((x[0] + 6 * a) ** 2, axis=1)
    np.testing.assert_allclose(np.exp(logp), np.exp(raw) / np.exp(raw).sum(), rtol=1e-12)


def test_ewsg_index_frequencies_match_weights():
    """Ideal mode and a long MH chain both draw I ~ p (eq. (4)); χ² at α = 1e-4 each."""
    prob = problems.gaussian_differing(6, 2, seed=4)
    theta = np.repeat(np.array([[0.2, -0.1]]), 40_000, 0)
    rng = np.random.default_rng(5)
    p = np.exp(EWSG(a_scale=0.3).log_weights(prob, theta[:1], np.zeros((1, 2)))[0])
    for est in (EWSG(a_scale=0.3, mode="ideal"), EWSG(a_scale=0.3, M=60)):
        rand, _ = est.draw(prob, None, theta.shape[0], rng)
        idx = est.select(prob, theta, rand, np.zeros_like(theta))[:, 0]
        res = scipy.stats.chisquare(np.bincount(idx, minlength=6), p * len(idx))
        assert res.pvalue > 1e-4
    # power: M = 0 is uniform SG, which these weights reject
    est = EWSG(a_scale=0.3, M=0)
    rand, _ = est.draw(prob, None, theta.shape[0], rng)
    idx = est.select(prob, theta, rand, np.zeros_like(theta))[:, 0]
    assert scipy.stats.chisquare(np.bincount(idx, minlength=6), p * len(idx)).pvalue < 1e-4


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Minibatch(0), "n \\(batch size\\) must be >= 1"),
        (lambda: SVRG(2, 0), "K \\(epoch length\\)"),
        (lambda: SAGA(-1), "b \\(batch size\\)"),
        (lambda: EWSG(a_scale=0.0), "a_scale must be finite and > 0"),
        (lambda: EWSG(a_scale=1.0, M=-1), "M \\(index-chain length\\) must be >= 0"),
        (lambda: EWSG(a_scale=1.0, b=2, mode="ideal"), "b = 1"),
        (lambda: InjectedNoise(np.array([[1.0, 2.0], [2.0, 1.0]]), 0.1), "positive semi-definite"),
        (lambda: InjectedNoise(1.0, -0.1), "h must be finite and > 0"),
        (lambda: AGLD(RA(2), PPU(), storage="point"), "only PTU"),
        (lambda: AGLD(RA(2), PPU(), storage="disk"), "unknown snapshot storage"),
    ],
)
def test_invalid_estimator_arguments(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_minibatch_without_replacement_larger_than_N_is_rejected():
    with pytest.raises(ValueError, match="distinct indices"):
        make_sampler("sgld-wor", problems.gaussian_identical(5, 1), h=0.1, n=6).init(
            np.zeros((1, 1)), np.random.default_rng(0)
        )


def test_scalar_storage_needs_a_glm():
    with pytest.raises(ValueError, match="GLMProblem"):
        AGLD(RA(2), PPU(), storage="scalar").init(
            problems.gaussian_identical(5, 1), np.zeros((1, 1)), np.random.default_rng(0)
        )
