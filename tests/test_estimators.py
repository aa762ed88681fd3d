"""Gradient estimators: exact unbiasedness, equivalences, bookkeeping, input checks."""

import copy
import itertools

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from sgmcmc_verify import bugs, estimators, problems
from sgmcmc_verify.access import CA, RA, RR, AccessState
from sgmcmc_verify.estimators import (
    AGLD,
    EWSG,
    SAGA,
    SVRG,
    AGLDState,
    InjectedNoise,
    Minibatch,
    TableSnapshot,
    fill_by_chunks,
    first_occurrence,
    flat_rows,
    row_items,
    snapshot_ages,
    table_rows,
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


@pytest.mark.parametrize("storage", ["table", "scalar"])
@pytest.mark.parametrize("snapshot", [PPU(), TMU(2)])
def test_stamps_start_as_uint16_and_widen_exactly_before_65535(storage, snapshot):
    """Ages stay exact across the uint16 → int32 widening of the stamps (issue 13 memory).

    The state is put at iteration 65,531 with every stamp 65,530.  By Strategy 3 an
    entry of the batch of iteration ``k`` is stamped ``k``, and by Strategy 4 every entry
    is stamped ``k + 1`` when ``(k + 1) % D = 0``; the expected stamps follow these two
    rules by hand, and the ages are ``k + 1`` minus them.
    """
    prob = problems.linear_regression_synthetic(4, 2, seed=0)
    est = AGLD(CA(2), snapshot, storage=storage)
    rng = np.random.default_rng(0)
    theta = np.zeros((1, 2))
    state = est.init(prob, theta, rng)
    assert state.snap.stamp.dtype == np.uint16
    k0 = 65_531
    expected = [k0 - 1] * 4
    stamp = np.array([expected], dtype=np.uint16)
    state = state._replace(k=k0, snap=state.snap._replace(stamp=stamp))
    for k in range(k0, k0 + 8):
        idx, state = est.draw(prob, state, 1, rng)
        _, cache = est.estimate(prob, theta, state, idx)
        state = est.update(prob, state, theta, theta, idx, cache)
        for i in idx[0]:
            expected[i] = k
        if isinstance(snapshot, TMU) and (k + 1) % snapshot.D == 0:
            expected = [k + 1] * 4
        assert snapshot_ages(state)[0].tolist() == [k + 1 - j for j in expected], k
        # room for the next iteration's stamps k + 1 and k + 2 (a total refresh)
        assert np.iinfo(state.snap.stamp.dtype).max >= k + 2
    assert state.snap.stamp.dtype == np.int32


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


# --------------------------------------------------------------------------------------
# The vectorised SAGA/PPU tables against per-chain loops written from the papers
# --------------------------------------------------------------------------------------


def _quadratic_with_prior(N=6, d=2, seed=7):
    """f_i(θ) = ½(θ − c_i)ᵀΛ_i(θ − c_i) and a Gaussian prior (so ∇U_0 ≠ 0 is exercised)."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((N, d))
    q = rng.standard_normal((N, d, d))
    P = q @ np.swapaxes(q, 1, 2) / N + 0.1 * np.eye(d)
    L0 = np.array([[0.5, 0.1], [0.1, 0.3]])[:d, :d]
    m0 = np.full(d, 0.2)
    prob = problems.GaussianQuadratic(c, P, prior_precision=L0, prior_mean=m0)

    def grad_f(i, th):  # ∇f_i(θ) = Λ_i(θ − c_i), from the definition, one datum
        return P[i] @ (th - c[i])

    return prob, grad_f, lambda th: L0 @ (th - m0)


def _regression(N=6, d=2):
    """Linear regression (a GLM): ∇f_i(θ) = (z_iᵀθ − y_i) z_i / σ², prior N(0, τ² I)."""
    prob = problems.linear_regression_synthetic(N, d, seed=3)

    def grad_f(i, th):
        z = prob.Z[i]
        return (z @ th - prob.y[i]) / prob.sigma2 * z

    return prob, grad_f, lambda th: th / prob.tau2


def _steps(sampler, state, rng, steps):
    """``steps`` draws and steps of a sampler from ``state``; returns the final state."""
    for _ in range(steps):
        rand, state = sampler.draw(state, rng)
        state, _ = sampler.step(state, rand)
    return state


def _drive(est, prob, chains, steps, seed, h=0.05):
    """Run the estimator's protocol (draw, estimate, overdamped EM step, update).

    Returns ``θ^(0)`` and, per step ``k``, ``(θ^(k), θ^(k+1), indices, g^(k), state)``
    with a copy of the state after the update (the estimators update tables in place).
    """
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal((chains, prob.d))
    state = est.init(prob, theta, rng)
    theta0, out = theta, []
    for _ in range(steps):
        idx, state = est.draw(prob, state, chains, rng)
        g, cache = est.estimate(prob, theta, state, idx)
        new = theta - h * g + np.sqrt(2 * h) * rng.standard_normal(theta.shape)
        state = est.update(prob, state, theta, new, idx, cache)
        out.append((theta, new, idx, g, copy.deepcopy(state)))
        theta = new
    return theta0, out


def _tol(scale, N, n, steps):
    """Rounding bound for comparing two summation orders of the same float64 sums.

    An estimate is ``∇U_0 + (N/n)·Σ_{j≤n}(…) + Σ_{i≤N} α_i`` and the running total
    behind the last term has absorbed ``≤ n`` terms per step: ``m = N + n(steps + 1)``
    terms of size ``≤ (N/n + 1)·scale``, so each order is within ``m·ε·(N/n + 1)·scale``
    of the exact sum (Higham's γ_m); 4 covers the two orders and the prior term.
    """
    return 4 * (N + n * (steps + 1)) * EPS * (N / n + 1) * scale


@pytest.mark.parametrize(
    ("make_est", "kind", "on_h"),
    [
        # AGLD eq. (6) with Strategy 3 (PPU): α_i ← ∇f_i(x^(k)) for i ∈ S_k
        (lambda: AGLD(RA(4), PPU(), storage="table"), "quadratic", None),
        (lambda: AGLD(RA(4), PPU(), storage="table"), "regression", None),
        (lambda: AGLD(RA(4), PPU(), storage="scalar"), "regression", None),
        (lambda: AGLD(RR(4), PPU(), storage="table"), "quadratic", None),
        # Strategy 4 (TMU): PPU, and every D = 3 iterations all α_i ← ∇f_i(x^(k+1))
        (lambda: AGLD(RA(4), TMU(3), storage="table"), "quadratic", None),
        (lambda: AGLD(RA(4), TMU(3), storage="table"), "regression", None),
        # HSAG: i ∈ H = {0, 1} as PPU; the others ← ∇f_i(x^(k+1)) every D = 3
        (lambda: AGLD(RA(4), HSAG(3, (0, 1)), storage="table"), "quadratic", {0, 1}),
        (lambda: AGLD(RA(4), HSAG(3, (0, 1)), storage="table"), "regression", {0, 1}),
        (lambda: AGLD(RA(4), HSAG(3, (0, 1)), storage="scalar"), "regression", {0, 1}),
    ],
)
@pytest.mark.parametrize("block_bytes", [None, 128], ids=["default-blocks", "2-chain-blocks"])
def test_agld_table_matches_a_per_chain_loop_of_eq_6(
    make_est, kind, on_h, block_bytes, monkeypatch
):
    """Every estimate g^(k), snapshot entry and age equals a per-chain loop of AGLD eq. (6).

    The loop keeps one chain's ``α_i`` in a Python list, sums ``Σ_i α_i`` afresh at every
    step (no running total), evaluates ``∇f_i`` from the problem's definition and
    refreshes ``α_i`` as Strategy 3, Strategy 4 or HSAG say.  It sees the indices and
    iterates of the vectorised run.  Batches of 4 out of N = 6 drawn with replacement
    repeat indices, and the test checks that they did: the running total must count a
    repeated entry once, and the last assertion shows the tolerance would catch a
    total that counted it twice.  With ``block_bytes = 128`` the GLM steps go by blocks
    of two chains (:func:`~sgmcmc_verify.estimators.chain_blocks`), the last one short.
    """
    if block_bytes is not None:
        monkeypatch.setattr(estimators, "STEP_BLOCK_BYTES", block_bytes)
    prob, grad_f, prior = _quadratic_with_prior() if kind == "quadratic" else _regression()
    est = make_est()
    chains, steps, N, n = 5, 25, prob.N, 4
    D = getattr(est.snapshot, "D", None)
    partial = (lambda i: True) if on_h is None else (lambda i: i in on_h)
    theta0, run = _drive(est, prob, chains, steps, seed=11)
    alpha = [[grad_f(i, theta0[c]) for i in range(N)] for c in range(chains)]
    born = [[0] * N for _ in range(chains)]  # α_i = ∇f_i(x^(born))
    scale = max(np.abs(a).max() for row in alpha for a in row)
    repeats, errors, twice_minus_once = 0, [], []
    for k, (theta, theta_next, idx, g, state) in enumerate(run):
        for c in range(chains):
            batch = [int(i) for i in idx[c]]
            repeats += len(batch) - len(set(batch))
            now = {i: grad_f(i, theta[c]) for i in batch}
            scale = max(scale, *(np.abs(v).max() for v in now.values()))
            ref = prior(theta[c]) + (N / n) * sum(now[i] - alpha[c][i] for i in batch)
            errors.append(np.abs(g[c] - (ref + sum(alpha[c]))).max())
            twice = sum(now[i] - alpha[c][i] for i in batch if partial(i))
            once = sum(now[i] - alpha[c][i] for i in set(batch) if partial(i))
            twice_minus_once.append(np.abs(np.asarray(twice - once)).max())
            for i in filter(partial, set(batch)):  # partial refresh, at x^(k)
                alpha[c][i], born[c][i] = now[i], k
            if D is not None and (k + 1) % D == 0:  # total refresh, at x^(k+1)
                for i in range(N):
                    if on_h is None or i not in on_h:
                        alpha[c][i], born[c][i] = grad_f(i, theta_next[c]), k + 1
        snap = state.snap
        table = snap.scalars[..., None] * prob.Z if hasattr(snap, "scalars") else snap.table
        assert np.abs(table - np.array(alpha)).max() <= _tol(scale, N, n, k)
        assert snapshot_ages(state).tolist() == [[k + 1 - b for b in row] for row in born]
    tol = _tol(scale, N, n, steps)
    assert repeats > 0
    assert max(errors) <= tol
    assert max(twice_minus_once) > 10 * tol


@pytest.mark.parametrize(
    ("kind", "replace"), [("quadratic", True), ("regression", True), ("quadratic", False)]
)
@pytest.mark.parametrize("block_bytes", [None, 128], ids=["default-blocks", "2-chain-blocks"])
def test_saga_matches_a_per_chain_loop_of_svrhmc_algorithm_2(
    kind, replace, block_bytes, monkeypatch
):
    """SAGA as printed in SVRHMC Algorithm 2, one chain at a time.

    Line 3: ``α^i = θ_0``; line 7: ``∇̃ = ∇U_0(θ_t) + (N/b)Σ_{i∈I}(∇f_i(θ_t) −
    ∇f_i(α^i)) + g`` with ``g = Σ_i ∇f_i(α^i)`` (summed afresh here, from the points);
    line 10: ``α^i ← θ_t`` for ``i ∈ I``.  The points must equal the loop's exactly
    (they are copies of iterates); the estimate and the running ``g`` within the
    rounding bound of :func:`_tol`.  ``block_bytes = 128``: GLM blocks of two chains.
    """
    if block_bytes is not None:
        monkeypatch.setattr(estimators, "STEP_BLOCK_BYTES", block_bytes)
    prob, grad_f, prior = _quadratic_with_prior() if kind == "quadratic" else _regression()
    chains, steps, N, b = 5, 25, prob.N, 4
    theta0, run = _drive(SAGA(b, replace=replace), prob, chains, steps, seed=5)
    points = [[theta0[c].copy() for _ in range(N)] for c in range(chains)]
    scale = max(np.abs(grad_f(i, theta0[c])).max() for c in range(chains) for i in range(N))
    repeats, errors = 0, []
    for theta, _next, idx, g, state in run:
        for c in range(chains):
            batch = [int(i) for i in idx[c]]
            repeats += len(batch) - len(set(batch))
            g_sum = sum(grad_f(i, points[c][i]) for i in range(N))
            terms = [grad_f(i, theta[c]) - grad_f(i, points[c][i]) for i in batch]
            scale = max(scale, *(np.abs(t).max() for t in terms))
            errors.append(np.abs(g[c] - (prior(theta[c]) + (N / b) * sum(terms) + g_sum)).max())
            for i in batch:
                points[c][i] = theta[c].copy()
            g_after = sum(grad_f(i, points[c][i]) for i in range(N))
            errors.append(np.abs(state.g[c] - g_after).max())
        assert np.array_equal(state.alpha, np.array(points))
    assert (repeats > 0) == replace
    assert max(errors) <= _tol(scale, N, b, steps)


def test_first_occurrence_both_paths_match_the_definition():
    """Pairwise comparisons (b ≤ 24) and the sorting path (b > 24) against a list-based loop."""
    rng = np.random.default_rng(2)
    for b, N in ((1, 3), (4, 3), (10, 100), (24, 5), (25, 5), (60, 40)):
        idx = rng.integers(0, N, (50, b))
        ref = [[i not in row[:j].tolist() for j, i in enumerate(row)] for row in idx]
        got = first_occurrence(idx)
        assert got.tolist() == ref
        assert got.flags.c_contiguous
        assert first_occurrence(idx, N).tolist() == ref


@pytest.mark.parametrize("N", [1, 2, 256, 257, 65536, 65537, 2**32 + 1])
def test_first_occurrence_with_a_bound_compares_indices_exactly(N):
    """With ``N``, indices are compared in the narrowest unsigned type holding ``N − 1``: the
    largest ones (``N − 1`` with ``N − 1 − 256`` and 0 beside it, which wrap onto each other in
    a type one size too narrow) must still differ, and repeats still be found."""
    hi, lo = N - 1, max(N - 1 - 256, 0)
    idx = np.array([[hi, 0, lo, hi, 0], [0, lo, lo, hi, 0]], dtype=np.int64)
    ref = [[i not in row[:j].tolist() for j, i in enumerate(row)] for row in idx]
    got = first_occurrence(idx, N)
    assert got.tolist() == ref
    assert got.flags.c_contiguous


@pytest.mark.parametrize("name", ["ppu-ra", "tmu-ra"])
def test_tables_of_any_problem_refresh_in_the_estimate_and_a_lost_refresh_freezes_them(name):
    """PPU/TMU on a non-GLM problem: the estimate itself sets ``α_i = ∇f_i(x^{(k)})`` for the
    batch, their ages to ``k`` and ``Σ_i α_i`` to the table's sum; the planted bug that
    loses the refresh then leaves the table equal to the initial one, bit for bit."""
    prob = problems.gaussian_differing(N=6, d=3, seed=0)
    # TMU's total refresh every D = 10 steps, not the default ⌈N/n⌉ = 2: no step below has one
    correct = make_sampler(name, prob, h=1e-2, n=4, **({"D": 10} if name == "tmu-ra" else {}))
    rng = np.random.default_rng(2)
    state = correct.init(rng.standard_normal((5, 3)), rng)
    state = _steps(correct, state, rng, 2)
    rand, state = correct.draw(state, rng)
    est, idx, k = state.est, rand.est, state.est.k
    x = correct.integrator.eval_point(state)
    correct.estimator.estimate(prob, x, est, idx)
    snap = est.snap
    now = prob.component_grads(x, idx)
    for c, j in np.ndindex(*idx.shape):
        np.testing.assert_array_equal(snap.table[c, idx[c, j]], now[c, j])
        assert snap.stamp[c, idx[c, j]] == k
    scale = np.abs(snap.table).max()
    assert np.abs(snap.total - snap.table.sum(axis=1)).max() <= 64 * EPS * prob.N * scale
    for sampler, frozen in ((correct, False), (bugs.snapshot_never_refreshed(correct), True)):
        rng = np.random.default_rng(1)
        state = sampler.init(rng.standard_normal((5, 3)), rng)
        start = state.est.snap.table.copy()
        state = _steps(sampler, state, rng, 2)
        assert np.array_equal(state.est.snap.table, start) is frozen


def test_chain_blocks_cover_the_chains_once_in_order(monkeypatch):
    """Blocks of ``STEP_BLOCK_BYTES // bytes_per_chain`` chains (at least one), the last short."""
    monkeypatch.setattr(estimators, "STEP_BLOCK_BYTES", 100)
    assert estimators.chain_blocks(7, 30) == [slice(0, 3), slice(3, 6), slice(6, 7)]
    assert estimators.chain_blocks(2, 1000) == [slice(0, 1), slice(1, 2)]


def test_row_items_alias_the_rows():
    """A write through the item view lands in the float table; a copy would lose it."""
    tab = np.zeros((2, 3, 4))
    row_items(table_rows(tab))[[1, 5]] = row_items(np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]]))
    assert tab[0, 1].tolist() == [1, 2, 3, 4] and tab[1, 2].tolist() == [5, 6, 7, 8]
    assert tab.sum() == 36
    with pytest.raises(ValueError):
        row_items(np.zeros((4, 3)).T)


def test_table_rows_is_a_view_or_refuses():
    """Snapshot writes go through the flat view: a copy would lose them silently."""
    tab = np.zeros((3, 4, 2))
    table_rows(tab)[flat_rows(np.array([[1], [0], [3]]), 4)] = 1.0
    assert tab.sum(axis=(1, 2)).tolist() == [2.0, 2.0, 2.0]
    assert tab[0, 1].tolist() == [1.0, 1.0] and tab[2, 3].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        table_rows(np.zeros((4, 3, 2)).transpose(1, 0, 2))


@pytest.mark.parametrize("B", [0.7, np.array([[1.0, 0.3], [0.3, 0.5]])])
def test_injected_noise_is_a_root_of_2b_over_h_times_the_draw(B):
    """The noise added is ``r ↦ r Rᵀ`` with ``R Rᵀ = 2B/h`` (SGNHT §3), computed without BLAS.

    ``Rᵀ`` is recovered from two draws (``E = r Rᵀ`` with ``r`` 2×2 and invertible) and
    ``R Rᵀ`` compared with ``2B/h``, whichever root the code picks.  Tolerance: a
    handful of roundings on O(10) entries of a well-conditioned 2×2 solve, 1e-12.
    """
    h = 0.1
    est = InjectedNoise(B, h)
    prob = problems.gaussian_identical(5, 2)
    est.init(prob, np.zeros((1, 2)), np.random.default_rng(0))
    r = np.random.default_rng(1).standard_normal((2, 2))
    E = est.estimate(prob, np.zeros((2, 2)), None, r)[0] - prob.grad(np.zeros((2, 2)))
    Rt = np.linalg.solve(r, E)  # E = r Rᵀ
    target = 2 * (B * np.eye(2) if np.ndim(B) == 0 else B) / h
    np.testing.assert_allclose(Rt.T @ Rt, target, rtol=1e-12, atol=1e-12 * np.abs(target).max())


def test_fill_by_chunks_fills_every_chain_and_only_the_given_columns():
    """Block filling (130 chains in blocks of 3) equals the one-shot table, column subsets too."""
    prob = problems.gaussian_differing(7, 2, seed=1)
    theta = np.random.default_rng(0).standard_normal((130, 2))
    full = prob.all_component_grads(theta)
    out = np.full((130, 7, 2), np.nan)
    fill_by_chunks(out, prob.all_component_grads, theta)
    np.testing.assert_array_equal(out, full)
    cols = np.array([1, 4])
    part = np.zeros((130, 7, 2))
    fill_by_chunks(
        part, lambda t: prob.component_grads(t, np.broadcast_to(cols, (t.shape[0], 2))), theta, cols
    )
    np.testing.assert_array_equal(part[:, cols], full[:, cols])
    assert not part[:, [0, 2, 3, 5, 6]].any()


def test_fill_by_chunks_into_lets_make_write_the_block_or_copies_what_it_returns():
    """With ``into``, the GLM table's entries written in place by ``_fresh`` are the products
    ``s_i z_i`` of ``∇f_i`` bit for bit, and a ``make`` returning a fresh array is copied."""
    prob = problems.linear_regression_synthetic(7, 3, seed=1)
    theta = np.random.default_rng(0).standard_normal((130, 3))
    want = prob.all_component_grads(theta)
    fresh = estimators._fresh(prob, False, np.arange(7))
    makes = (fresh, lambda t, out: prob.all_component_grads(t))
    for make in makes:
        out = np.full((130, 7, 3), np.nan)
        fill_by_chunks(out, make, theta, block_bytes=3 * 7 * 3 * 8, into=True)
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(
    ("name", "bug"),
    [("saga-ld", bugs.saga_table_frozen), ("ppu-ra", bugs.snapshot_never_refreshed)],
)
def test_glm_tables_refresh_in_the_estimate_and_a_lost_refresh_still_freezes_them(name, bug):
    """On a GLM the SAGA and PPU estimates write the refreshed entries themselves.

    A planted bug that loses the refresh must then freeze the table all the same: after
    5 steps it equals the initial table bit for bit, where the correct sampler's differs.
    """
    prob = problems.linear_regression_synthetic(20, 3, seed=0)
    correct = make_sampler(name, prob, h=1e-3, n=4)
    for sampler, frozen in ((correct, False), (bug(correct), True)):
        rng = np.random.default_rng(1)
        state = sampler.init(rng.standard_normal((50, 3)), rng)
        start = (state.est.alpha if name == "saga-ld" else state.est.snap.table).copy()
        state = _steps(sampler, state, rng, 5)
        # the final state's table (an implementation may replace the array, not write it)
        table = state.est.alpha if name == "saga-ld" else state.est.snap.table
        assert np.array_equal(table, start) is frozen


@pytest.mark.parametrize("name", ["ppu-ra", "tmu-ra"])
def test_a_never_refreshed_snapshot_runs_past_the_uint16_stamps(name):
    """The planted bug keeps the stamps' type wide enough for the iterations its (copied)
    estimate writes: past k = 65,535 it runs on instead of raising OverflowError."""
    prob = problems.linear_regression_synthetic(12, 3, seed=0)
    sampler = bugs.snapshot_never_refreshed(make_sampler(name, prob, h=1e-3, n=4))
    rng = np.random.default_rng(0)
    state = sampler.init(np.zeros((3, 3)), rng)
    state = state._replace(est=state.est._replace(k=65_533))
    state = _steps(sampler, state, rng, 4)  # iterations 65,533 … 65,536
    assert state.est.k == 65_537 and np.all(np.isfinite(state.theta))


@pytest.mark.parametrize("alg", ["saga-ld", "ppu-ra", "hsag-ra", "saga-hmc"])
@pytest.mark.parametrize("glm", [False, True])
def test_a_step_consumes_its_state_and_replays_from_a_copy(alg, glm):
    """Sampler.step's documented contract: a table estimator updates its state in place,
    so a step replayed from a deep copy of the state (same randomness) gives the same
    θ bit for bit, and one replayed from the consumed state does not (the table moved)."""
    prob = (
        problems.linear_regression_synthetic(12, 3, seed=1)
        if glm
        else problems.gaussian_differing(N=6, d=3, seed=0)
    )
    s = make_sampler(alg, prob, h=1e-2, **({"b": 2} if alg == "saga-hmc" else {"n": 2}))
    rng = np.random.default_rng(3)
    state = s.init(np.zeros((4, 3)), rng)
    state = _steps(s, state, rng, 3)
    rand, state = s.draw(state, rng)
    kept = copy.deepcopy(state)
    first, _ = s.step(state, rand)
    again, _ = s.step(copy.deepcopy(kept), rand)
    np.testing.assert_array_equal(again.theta, first.theta)
    consumed, _ = s.step(state, rand)
    assert not np.array_equal(consumed.theta, first.theta)
