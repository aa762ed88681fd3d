"""Size, power and exactness of :mod:`sgmcmc_verify.stats`.

How the statistical assertions here are budgeted
------------------------------------------------
Calibration checks run the test under study at a *nominal* level (0.05 or
0.1, large so that a few thousand replications measure its size), and then
judge the observed rejection count with an exact binomial test at a *meta*
level drawn from ``META``.  Power checks state a claimed power ("rejects with
probability >= 0.8 at this alternative") and fail only if the observed count is
significantly below the claim, again at a meta level from ``META``.  Every
other assertion on random data draws its level from ``META`` too, so the
probability that this module fails by chance with correct code is at most
``META.total`` (union bound).  Hypothesis-driven statistical properties run a
fixed (derandomised) set of ``EXAMPLES`` seeds and split their level over them.

Seeds are fixed, so every run sees the same data; a failure is a finding, not
a reason to rerun.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
import scipy.signal
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from sgmcmc_verify.stats import (
    MAX_RELATIVE_STDERR,
    AlphaBudget,
    OrderFit,
    TestOutcome,
    autocovariance,
    bonferroni,
    check_alpha,
    chisquare_gof,
    ess,
    ess_per_chain,
    fit_order,
    holm,
    ks_test,
    mcse_mean,
    pool_bins,
    variance_test,
    z_test_mean,
)

META = AlphaBudget(1e-2, name="tests/test_stats.py")

#: Meta levels: for each calibration (size, coverage) check, and for each power claim.
META_SIZE = 4e-4
META_POWER = 2e-4

#: Nominal level of the tests whose size is being calibrated.
NOMINAL = 0.05

#: Derandomised hypothesis examples per statistical property.
EXAMPLES = 8
STAT_SETTINGS = settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None)


# --------------------------------------------------------------------------------------
# helpers


def ar1(
    rng: np.random.Generator, rho: float, shape: tuple[int, ...], *, mean: float = 0.0
) -> np.ndarray:
    """Stationary Gaussian AR(1), unit marginal variance, along axis 1 of ``shape``.

    ``x_t = rho x_{t-1} + sqrt(1 - rho^2) e_t`` with ``x_0 ~ N(0, 1)``; the
    integrated autocorrelation time is ``(1 + rho) / (1 - rho)``.
    """
    e = rng.standard_normal(shape)
    e[:, 0] /= np.sqrt(1.0 - rho**2)  # lfilter scales by sqrt(1 - rho^2): x_0 = e_0 ~ N(0, 1)
    return mean + scipy.signal.lfilter([np.sqrt(1.0 - rho**2)], [1.0, -rho], e, axis=1)


def ar1_tau(rho: float) -> float:
    """Integrated autocorrelation time of AR(1): ``(1 + rho) / (1 - rho)``."""
    return (1.0 + rho) / (1.0 - rho)


def ar1_var_of_chain_mean(rho: float, n: int) -> float:
    """Exact ``Var`` of the mean of ``n`` stationary unit-variance AR(1) draws."""
    t = np.arange(1, n)
    return (1.0 + 2.0 * np.sum((1.0 - t / n) * rho**t)) / n


def assert_size(rejections: int, reps: int, nominal: float, meta: float, what: str) -> None:
    """Exact two-sided binomial test that the rejection rate equals ``nominal``."""
    p = scipy.stats.binomtest(rejections, reps, nominal).pvalue
    assert p > meta, (
        f"{what}: {rejections}/{reps} = {rejections / reps:.4f} rejections at nominal "
        f"{nominal}; binomial p = {p:.2e} <= meta level {meta:.1e}"
    )


def assert_power_at_least(
    rejections: int, reps: int, claimed: float, meta: float, what: str
) -> None:
    """One-sided binomial test of the claim ``power >= claimed``."""
    p = scipy.stats.binomtest(rejections, reps, claimed, alternative="less").pvalue
    assert p > meta, (
        f"{what}: {rejections}/{reps} = {rejections / reps:.4f} rejections, significantly "
        f"below the claimed power {claimed} (binomial p = {p:.2e} <= {meta:.1e})"
    )


def replicated_p_values(p_per_coordinate: np.ndarray) -> np.ndarray:
    """Per-replication p-values from a test run with replications as event axis.

    The test functions are vectorised over trailing axes, so ``R`` independent
    replications laid out as ``(chains, draws, R)`` are tested in one call; the
    per-coordinate p-values in ``details`` are then the ``R`` per-replication
    p-values (the Bonferroni combination across them is irrelevant here and is
    tested separately in ``test_z_test_bonferroni_*``).
    """
    return np.asarray(p_per_coordinate).ravel()


# --------------------------------------------------------------------------------------
# ESS: exact special cases and closed forms

# Estimator bias allowed relative to the AR(1) closed form.  Geyer's truncated
# sum is biased at finite n: truncating at the first negative pair keeps the
# positive noise of the lags before it (about -2% ESS for iid chains with
# N = 4000), and centring each chain at its own mean biases every rho_t by
# -O(1/n), which inflates single-chain ESS by O(tau/n) (about +2.5% at
# rho = 0.9, n = 2000 in our runs).  We hold the estimator to 5% on average
# for n >= 50 tau (pooled) and n >= 100 tau (single chain); the statistical
# margin on top of that follows from the alpha below.
ESS_BIAS_ALLOWANCE = 0.05
A_ESS_POOLED = META.take("ESS pooled vs AR(1) closed form", META_SIZE) / EXAMPLES
A_ESS_CHAIN = META.take("ESS per chain vs AR(1) closed form", META_SIZE) / EXAMPLES


def _assert_mean_ratio_near_one(ratio: np.ndarray, alpha: float, what: str) -> None:
    r = ratio.ravel()
    se = r.std(ddof=1) / np.sqrt(r.size)
    margin = ESS_BIAS_ALLOWANCE + scipy.stats.norm.isf(alpha / 2) * se
    assert abs(r.mean() - 1.0) <= margin, (
        f"{what}: mean ESS / closed form = {r.mean():.4f} (se {se:.4f}), allowed 1 ± {margin:.4f}"
    )


@STAT_SETTINGS
@given(rho=st.floats(-0.3, 0.9), seed=st.integers(0, 2**32 - 1))
def test_pooled_ess_matches_ar1_closed_form(rho: float, seed: int) -> None:
    m, n, reps = 4, 1000, 400
    assert n >= 50 * ar1_tau(0.9)
    x = ar1(np.random.default_rng(seed), rho, (m, n, reps))
    ratio = ess(x) / (m * n / ar1_tau(rho))
    _assert_mean_ratio_near_one(ratio, A_ESS_POOLED, f"pooled ESS, rho = {rho:.3f}")


@STAT_SETTINGS
@given(rho=st.floats(-0.3, 0.9), seed=st.integers(0, 2**32 - 1))
def test_per_chain_ess_matches_ar1_closed_form(rho: float, seed: int) -> None:
    m, n, reps = 4, 2000, 100
    assert n >= 100 * ar1_tau(0.9)
    x = ar1(np.random.default_rng(seed), rho, (m, n, reps))
    ratio = ess_per_chain(x) / (n / ar1_tau(rho))
    assert ratio.shape == (m, reps)
    _assert_mean_ratio_near_one(ratio, A_ESS_CHAIN, f"per-chain ESS, rho = {rho:.3f}")


@pytest.mark.parametrize("event", [(), (3,), (2, 5)])
def test_independent_chains_one_draw_have_ess_equal_chains(event: tuple[int, ...]) -> None:
    x = np.random.default_rng(0).standard_normal((700, 1, *event))
    np.testing.assert_array_equal(ess(x), np.full(event, 700.0))
    np.testing.assert_array_equal(ess_per_chain(x), np.ones((700, *event)))
    # The MCSE then is the textbook s / sqrt(m).
    expected = x[:, 0].std(axis=0, ddof=1) / np.sqrt(700)
    np.testing.assert_allclose(mcse_mean(x), expected, rtol=1e-14)  # rounding only
    np.testing.assert_allclose(mcse_mean(x, method="chain_means"), expected, rtol=1e-14)


def test_autocovariance_matches_direct_sum() -> None:
    x = np.random.default_rng(1).standard_normal((3, 50, 2))
    acov = autocovariance(x)
    xc = x - x.mean(axis=1, keepdims=True)
    direct = np.stack([np.sum(xc[:, : 50 - t] * xc[:, t:], axis=1) / 50 for t in range(50)], axis=1)
    np.testing.assert_allclose(acov, direct, rtol=1e-10, atol=1e-13)  # FFT rounding only


@settings(max_examples=30, deadline=None)
@given(
    chains=st.integers(1, 5),
    draws=st.integers(4, 60),
    event=st.lists(st.integers(1, 3), max_size=2).map(tuple),
    scale=st.floats(0.01, 100.0),
    shift=st.floats(-100.0, 100.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_ess_is_vectorised_and_affine_invariant(
    chains: int, draws: int, event: tuple[int, ...], scale: float, shift: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = ar1(rng, 0.3, (chains, draws, *event))
    e = ess(x)
    assert e.shape == event
    flat = x.reshape(chains, draws, -1)
    for j, ej in enumerate(np.ravel(e)):
        assert ess(flat[..., j]) == pytest.approx(ej, rel=1e-12)
    # ESS is a property of the autocorrelation: invariant under x -> a x + b
    # and under relabelling chains (up to rounding).
    np.testing.assert_allclose(ess(scale * x + shift), e, rtol=1e-7)
    np.testing.assert_allclose(ess(x[rng.permutation(chains)]), e, rtol=1e-10)
    total = chains * draws
    assert np.all(e > 0)
    assert np.all(e <= total * max(1.0, np.log10(total)) * (1 + 1e-12))
    per_chain = ess_per_chain(x)
    assert per_chain.shape == (chains, *event)
    for c in range(chains):
        np.testing.assert_allclose(per_chain[c], ess(x[c : c + 1]), rtol=1e-12)


def _ess_reference(x: np.ndarray) -> float:
    """Vehtari et al. (2021) §3.2 with Geyer's initial monotone sequence, as loops."""
    m, n = x.shape
    centred = x - x.mean(axis=1, keepdims=True)
    acov = [
        [float(np.dot(centred[c, : n - t], centred[c, t:])) / n for t in range(n)] for c in range(m)
    ]
    w = sum(acov[c][0] * n / (n - 1) for c in range(m)) / m
    var_plus = w * (n - 1) / n + (np.var(x.mean(axis=1), ddof=1) if m > 1 else 0.0)
    rho = [1.0] + [
        1.0 - (w - sum(acov[c][t] for c in range(m)) / m) / var_plus for t in range(1, n)
    ]
    tau, running_min = -1.0, np.inf
    for k in range(n // 2):
        pair = rho[2 * k] + rho[2 * k + 1]
        if k > 0 and pair <= 0:
            break
        running_min = min(running_min, pair)
        tau += 2.0 * running_min
    total = m * n
    cap = total * max(1.0, np.log10(total))
    return min(total / tau, cap) if tau > 0 else cap


@settings(max_examples=40, deadline=None)
@given(
    chains=st.integers(1, 4),
    draws=st.integers(4, 80),
    rho=st.floats(-0.8, 0.95),
    seed=st.integers(0, 2**32 - 1),
)
def test_ess_matches_literal_reference(chains: int, draws: int, rho: float, seed: int) -> None:
    x = ar1(np.random.default_rng(seed), rho, (chains, draws))
    # FFT against direct sums: agreement to rounding (a truncation decision
    # could flip only if a pair sum were within ~1e-15 of zero).
    assert ess(x) == pytest.approx(_ess_reference(x), rel=1e-9)


def test_ess_edge_cases_and_validation() -> None:
    const = np.ones((4, 100))
    assert np.isnan(ess(const))
    with pytest.raises(ValueError, match="zero variance"):
        z_test_mean(const, 1.0, alpha=0.05)
    with pytest.raises(ValueError, match="draws >= 4"):
        ess(np.zeros((4, 3)))
    with pytest.raises(ValueError, match="chains, draws"):
        ess(np.zeros(10))
    with pytest.raises(ValueError, match="finite"):
        ess(np.array([[0.0, np.nan, 1.0, 2.0]]))
    with pytest.raises(ValueError, match="chains >= 2"):
        mcse_mean(np.zeros((1, 10)), method="chain_means")
    with pytest.raises(ValueError, match="unknown method"):
        mcse_mean(np.zeros((2, 10)), method="batch")


# --------------------------------------------------------------------------------------
# z_test_mean: size and power

Z_CASES = {
    # A few long chains: the ESS-based MCSE is asymptotic; n = 500 >> tau = 3.
    "ess, 4 x 500 AR(1) rho=0.5": ("ess", 4, 500, 0.5),
    # Many short, strongly correlated chains: chain means are exactly normal
    # here, so the t(m-1) test is exact.
    "chain_means, 100 x 20 AR(1) rho=0.9": ("chain_means", 100, 20, 0.9),
    # Many independent chains, one draw each: ESS = chains.
    "ess, 1000 x 1 iid": ("ess", 1000, 1, 0.0),
}
A_Z_SIZE = {k: META.take(f"z size: {k}", META_SIZE) for k in Z_CASES}
A_Z_POWER = {k: META.take(f"z power: {k}", META_POWER) for k in Z_CASES}
A_Z_NAIVE = META.take("size check detects an iid MCSE on AR(1) chains", 1e-4)
Z_REPS = 4000


def _z_replications(
    key: str, seed: int, *, shift_in_se: float = 0.0, reps: int = Z_REPS
) -> np.ndarray:
    """Per-replication p-values of z_test_mean on R independent AR(1) datasets."""
    method, m, n, rho = Z_CASES[key]
    true_se = np.sqrt(ar1_var_of_chain_mean(rho, n) / m)
    rng = np.random.default_rng(seed)
    ps = []
    for _ in range(4):  # chunks keep memory at ~16 MB
        x = ar1(rng, rho, (m, n, reps // 4), mean=1.5)
        out = z_test_mean(x, 1.5 - shift_in_se * true_se, alpha=NOMINAL, method=method)
        ps.append(replicated_p_values(out.details["p_per_coordinate"]))
    return np.concatenate(ps)


@pytest.mark.parametrize("key", list(Z_CASES))
def test_z_test_mean_size(key: str) -> None:
    # With R = 4000 and meta level 4e-4 the check flags a true size outside
    # about 0.05 ± 0.012.
    p = _z_replications(key, seed=20260101)
    assert_size(int(np.sum(p <= NOMINAL)), p.size, NOMINAL, A_Z_SIZE[key], key)


def test_size_check_has_power_against_an_iid_mcse() -> None:
    # The realistic bug: ignoring autocorrelation (treating the 4 x 500 draws
    # as 2000 independent ones).  Its true size is 2 Phi(-1.96 / sqrt(tau)) ~
    # 0.26 at tau = 3; the same binomial check must reject it.
    rng = np.random.default_rng(7)
    x = ar1(rng, 0.5, (4, 500, 2000))
    naive = z_test_mean(x.reshape(2000, 1, 2000), 0.0, alpha=NOMINAL)
    p = replicated_p_values(naive.details["p_per_coordinate"])
    k = int(np.sum(p <= NOMINAL))
    assert scipy.stats.binomtest(k, p.size, NOMINAL).pvalue <= A_Z_NAIVE, k / p.size


@pytest.mark.parametrize("key", list(Z_CASES))
def test_z_test_mean_power_at_three_standard_errors(key: str) -> None:
    # A stationary mean off by 3 true standard errors (a drift bug of that
    # size) is rejected with probability Phi(3 - 1.96) + Phi(-4.96) = 0.85 by an
    # ideal z-test; estimating the MCSE costs a little.  Claim: >= 0.8.
    p = _z_replications(key, seed=20260202, shift_in_se=3.0, reps=1000)
    assert_power_at_least(int(np.sum(p <= NOMINAL)), p.size, 0.8, A_Z_POWER[key], key)


A_Z_FWER = META.take("z Bonferroni FWER over 3 coordinates", META_SIZE)
A_Z_VEC_POWER = META.take("z Bonferroni power, one shifted coordinate", META_POWER)


def _vector_rejections(seed: int, shift_in_se: float, reps: int) -> tuple[int, int]:
    m, n, rho, d = 4, 500, 0.5, 3
    true_se = np.sqrt(ar1_var_of_chain_mean(rho, n) / m)
    expected = np.array([0.0, 0.0, -shift_in_se * true_se])
    rng = np.random.default_rng(seed)
    x = ar1(rng, rho, (m, n, d, reps))
    rejections = sum(z_test_mean(x[..., r], expected, alpha=NOMINAL).reject for r in range(reps))
    return int(rejections), reps


def test_z_test_bonferroni_controls_familywise_error() -> None:
    # Each of 3 independent coordinates is tested at 0.05/3: the family-wise
    # error is 1 - (1 - 0.05/3)^3 = 0.049 <= 0.05.  One-sided check.
    k, reps = _vector_rejections(31, 0.0, 1000)
    p = scipy.stats.binomtest(k, reps, NOMINAL, alternative="greater").pvalue
    assert p > A_Z_FWER, f"family-wise error {k / reps:.4f} significantly above {NOMINAL}"


def test_z_test_bonferroni_power() -> None:
    # One coordinate off by 4 standard errors: ideal power
    # Phi(4 - z_{1 - 0.05/6}) = Phi(1.61) = 0.95.  Claim: >= 0.85.
    k, reps = _vector_rejections(32, 4.0, 500)
    assert_power_at_least(k, reps, 0.85, A_Z_VEC_POWER, "Bonferroni z, 3 coordinates")


def test_z_test_outcome_combines_coordinates_by_bonferroni() -> None:
    x = ar1(np.random.default_rng(3), 0.5, (4, 500, 2, 3))
    out = z_test_mean(x, np.zeros((2, 3)), alpha=0.01)
    p = out.details["p_per_coordinate"]
    assert p.shape == (2, 3)
    assert out.p_value == pytest.approx(min(1.0, 6 * p.min()), rel=1e-12)
    assert out.reject == bool(np.any(p <= 0.01 / 6))
    assert out.statistic == pytest.approx(np.max(np.abs(out.details["z"])), rel=1e-12)
    assert out.threshold == pytest.approx(scipy.stats.norm.isf(0.01 / 12), rel=1e-12)
    assert (out.statistic > out.threshold) == out.reject
    # A reference value's own standard error widens the test.
    wide = z_test_mean(x, 0.0, alpha=0.01, expected_stderr=1.0)
    assert np.all(np.abs(wide.details["z"]) < np.abs(out.details["z"]))
    with pytest.raises(ValueError, match="broadcast"):
        z_test_mean(x, np.zeros(4), alpha=0.01)
    with pytest.raises(ValueError, match="open interval"):
        z_test_mean(x, 0.0, alpha=1.0)


def test_test_outcome_is_frozen_and_not_collected() -> None:
    out = z_test_mean(np.random.default_rng(0).standard_normal((50, 1)), 0.0, alpha=0.1)
    assert isinstance(out, TestOutcome)
    assert type(out.reject) is bool
    assert TestOutcome.__test__ is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.reject = True  # type: ignore[misc]


# --------------------------------------------------------------------------------------
# variance_test

A_VAR_SIZE = {
    k: META.take(f"variance size: {k}", META_SIZE) for k in ("ess, known mean", "ess, grand mean")
}
A_VAR_POWER = META.take("variance power, ess, 15% too large", META_POWER)
A_CHI2_SIZE = META.take("variance size: chi2", META_SIZE)
A_CHI2_POWER = META.take("variance power: chi2 matches exact power", META_SIZE)


@pytest.mark.parametrize("centre", ["ess, known mean", "ess, grand mean"])
def test_variance_test_size(centre: str) -> None:
    # Squares of a Gaussian AR(1) are skewed, so the two tails are unequal
    # (about 0.033 and 0.017 at this size); the two-sided size is close to 0.05.
    rng = np.random.default_rng(41)
    x = ar1(rng, 0.5, (4, 500, 2000), mean=2.0)
    mean = 2.0 if centre == "ess, known mean" else None
    out = variance_test(x, 1.0, alpha=NOMINAL, mean=mean)
    p = replicated_p_values(out.details["p_per_coordinate"])
    assert_size(int(np.sum(p <= NOMINAL)), p.size, NOMINAL, A_VAR_SIZE[centre], centre)


def test_variance_test_power_against_wrong_noise_scale() -> None:
    # Wrong noise scale: stationary variance 15% too large.  Mean of squares
    # has sd sqrt(2 / ESS_y) with ESS_y = N (1 - rho^2) / (1 + rho^2) = 1200,
    # so the shift is 3.7 sd: ideal power 0.96.  Claim: >= 0.8.
    rng = np.random.default_rng(42)
    x = np.sqrt(1.15) * ar1(rng, 0.5, (4, 500, 1000))
    out = variance_test(x, 1.0, alpha=NOMINAL, mean=0.0)
    p = replicated_p_values(out.details["p_per_coordinate"])
    assert_power_at_least(int(np.sum(p <= NOMINAL)), p.size, 0.8, A_VAR_POWER, "variance, ess")


def test_chi2_variance_test_size_and_exact_power() -> None:
    m, reps, inflation = 500, 4000, 1.2
    rng = np.random.default_rng(43)
    x = rng.standard_normal((m, 1, reps))
    p0 = variance_test(x, 1.0, alpha=NOMINAL, mean=0.0, method="chi2").details
    k0 = int(np.sum(p0["p_per_coordinate"] <= NOMINAL))
    assert_size(k0, reps, NOMINAL, A_CHI2_SIZE, "chi2 variance")
    # Under variance 1.2 the statistic is 1.2 chi2_500: exact rejection rate.
    lo, hi = scipy.stats.chi2.ppf(NOMINAL / 2, m), scipy.stats.chi2.isf(NOMINAL / 2, m)
    exact_power = scipy.stats.chi2.sf(hi / inflation, m) + scipy.stats.chi2.cdf(lo / inflation, m)
    out = variance_test(np.sqrt(inflation) * x, 1.0, alpha=NOMINAL, mean=0.0, method="chi2")
    k1 = int(np.sum(out.details["p_per_coordinate"] <= NOMINAL))
    assert_size(k1, reps, exact_power, A_CHI2_POWER, "chi2 variance power")


def test_chi2_variance_test_requires_independent_draws() -> None:
    with pytest.raises(ValueError, match="draws == 1"):
        variance_test(np.zeros((10, 5)), 1.0, alpha=0.05, method="chi2")
    with pytest.raises(ValueError, match="> 0"):
        variance_test(np.ones((10, 5)), 0.0, alpha=0.05)


def test_chi2_variance_outcome_interval() -> None:
    x = np.random.default_rng(44).standard_normal((200, 1, 2))
    out = variance_test(x, [1.0, 1.0], alpha=0.02, method="chi2")
    lo, hi = out.threshold
    assert lo == pytest.approx(scipy.stats.chi2.ppf(0.005, 199), rel=1e-10)
    assert hi == pytest.approx(scipy.stats.chi2.isf(0.005, 199), rel=1e-10)
    assert out.reject == (not lo <= out.statistic <= hi)


# --------------------------------------------------------------------------------------
# chisquare_gof: pooling and calibration


@pytest.mark.parametrize(
    ("expected", "groups"),
    [
        # Both tails pooled up to the first bin that lifts them past 5.
        ([0.5, 1, 3, 10, 20, 10, 3, 1, 0.5], [(0, 4), (4, 5), (5, 9)]),
        # A small interior bin joins the bins after it.
        ([10, 2, 10, 10], [(0, 1), (1, 3), (3, 4)]),
        # A small interior remainder joins the right tail.
        ([10, 10, 2, 10], [(0, 1), (1, 2), (2, 4)]),
        # Nothing to pool.
        ([6, 6, 6], [(0, 1), (1, 2), (2, 3)]),
    ],
)
def test_pool_bins_examples(expected: list[float], groups: list[tuple[int, int]]) -> None:
    e = np.asarray(expected, dtype=float)
    obs = np.arange(e.size, dtype=float)
    obs_p, exp_p, got = pool_bins(obs, e, 5)
    assert got == groups
    np.testing.assert_allclose(exp_p, [e[a:b].sum() for a, b in groups])
    np.testing.assert_allclose(obs_p, [obs[a:b].sum() for a, b in groups])


@settings(max_examples=200, deadline=None)
@given(
    expected=st.lists(st.floats(0.0, 40.0), min_size=2, max_size=30),
    min_expected=st.floats(0.5, 10.0),
)
def test_pool_bins_properties(expected: list[float], min_expected: float) -> None:
    e = np.asarray(expected)
    obs = np.ones_like(e)
    try:
        obs_p, exp_p, groups = pool_bins(obs, e, min_expected)
    except ValueError:
        # Raised only when no split into two bins of >= min_expected exists.
        cum = np.cumsum(e)
        assert not np.any((cum[:-1] >= min_expected) & (cum[-1] - cum[:-1] >= min_expected))
        return
    # Contiguous partition of all bins, every pooled bin large enough, totals kept.
    assert groups[0][0] == 0 and groups[-1][1] == e.size
    assert all(b0 == a1 for (_, b0), (a1, _) in itertools.pairwise(groups))
    assert len(groups) >= 2
    assert np.all(exp_p >= min_expected * (1 - 1e-12))
    assert exp_p.sum() == pytest.approx(e.sum())
    assert obs_p.sum() == obs.sum()
    # The left tail is the shortest prefix reaching min_expected.
    a, b = groups[0]
    assert e[a : b - 1].sum() < min_expected


def _poisson_probs(lam: float, k_max: int) -> np.ndarray:
    p = scipy.stats.poisson(lam).pmf(np.arange(k_max + 1))
    return np.append(p, scipy.stats.poisson(lam).sf(k_max))  # tail bin: sums to 1


A_GOF_SIZE = META.take("chi-square GOF size, Poisson(3), N = 200", META_SIZE)
A_GOF_POWER = META.take("chi-square GOF power, Poisson(3.5) vs Poisson(3)", META_POWER)


def test_chisquare_gof_size() -> None:
    # Asymptotic chi-square with pooled expected counts >= 5: size ~0.05
    # (0.0525 in a 2000-replication pilot).  R = 1500 flags |size - 0.05| > 0.02.
    p = _poisson_probs(3.0, 12)
    counts = np.random.default_rng(51).multinomial(200, p, size=1500)
    k = sum(chisquare_gof(c, p, alpha=NOMINAL).reject for c in counts)
    assert_size(int(k), len(counts), NOMINAL, A_GOF_SIZE, "chi-square GOF")


def test_chisquare_gof_power() -> None:
    # Rate 3.5 instead of 3 (a 17% error in a jump intensity), N = 200:
    # pilot power 0.86.  Claim: >= 0.75.
    p, q = _poisson_probs(3.0, 12), _poisson_probs(3.5, 12)
    counts = np.random.default_rng(52).multinomial(200, q, size=600)
    k = sum(chisquare_gof(c, p, alpha=NOMINAL).reject for c in counts)
    assert_power_at_least(int(k), len(counts), 0.75, A_GOF_POWER, "chi-square GOF")


def test_chisquare_gof_outcome() -> None:
    p = _poisson_probs(2.0, 10)
    counts = np.random.default_rng(53).multinomial(100, p)
    out = chisquare_gof(counts, p, alpha=0.01)
    groups = out.details["groups"]
    ref = scipy.stats.chisquare(out.details["observed"], out.details["expected"])
    assert out.statistic == pytest.approx(ref.statistic)
    assert out.p_value == pytest.approx(ref.pvalue)
    assert out.threshold == pytest.approx(scipy.stats.chi2.isf(0.01, len(groups) - 1))
    assert out.details["df"] == len(groups) - 1
    assert np.all(out.details["expected"] >= 5)


def test_chisquare_gof_impossible_outcome_rejects() -> None:
    out = chisquare_gof([50, 49, 1], [0.5, 0.5, 0.0], alpha=1e-6)
    assert out.reject and out.p_value == 0.0 and out.statistic == np.inf


def test_chisquare_gof_validation() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        chisquare_gof([10, 10], [0.5, 0.4], alpha=0.05)
    with pytest.raises(ValueError, match="non-negative integers"):
        chisquare_gof([10.5, 10], [0.5, 0.5], alpha=0.05)
    with pytest.raises(ValueError, match="cannot form two bins"):
        chisquare_gof([3, 3], [0.5, 0.5], alpha=0.05)
    with pytest.raises(ValueError, match="degrees of freedom"):
        chisquare_gof([30, 30], [0.5, 0.5], alpha=0.05, ddof=1)


# --------------------------------------------------------------------------------------
# ks_test

A_KS_SIZE = META.take("KS size, n = 200", META_SIZE)
A_KS_POWER = META.take("KS power, sd 1.2 vs 1, n = 1000", META_POWER)


def test_ks_test_wraps_scipy() -> None:
    x = np.random.default_rng(61).standard_normal(300)
    ref = scipy.stats.kstest(x, scipy.stats.norm.cdf)
    for cdf in (scipy.stats.norm(), scipy.stats.norm.cdf):
        out = ks_test(x, cdf, alpha=0.05)
        assert out.statistic == ref.statistic and out.p_value == ref.pvalue
    assert out.threshold == pytest.approx(scipy.stats.kstwo.isf(0.05, 300))
    with pytest.raises(ValueError, match="1-d"):
        ks_test(x.reshape(3, 100), scipy.stats.norm(), alpha=0.05)
    with pytest.raises(TypeError, match="callable"):
        ks_test(x, "norm", alpha=0.05)


def test_ks_test_size() -> None:
    # scipy's p-value is exact for n = 200, so the size is 0.05 up to the
    # discreteness of D_n.  R = 500 flags |size - 0.05| > ~0.035 only: a sanity
    # check of the wrapper; the slow test below calibrates properly.
    rng = np.random.default_rng(62)
    k = sum(
        ks_test(rng.standard_normal(200), scipy.stats.norm(), alpha=NOMINAL).reject
        for _ in range(500)
    )
    assert_size(int(k), 500, NOMINAL, A_KS_SIZE, "KS")


A_KS_SIZE_SLOW = META.take("KS size, n = 200, R = 5000 (slow)", META_SIZE)


@pytest.mark.slow
def test_ks_test_size_slow() -> None:
    rng = np.random.default_rng(63)
    k = sum(
        ks_test(rng.standard_normal(200), scipy.stats.norm(), alpha=NOMINAL).reject
        for _ in range(5000)
    )
    assert_size(int(k), 5000, NOMINAL, A_KS_SIZE_SLOW, "KS (slow)")


def test_ks_test_power_against_wrong_noise_scale() -> None:
    # Standard deviation 1.2 instead of 1, n = 1000 independent draws:
    # pilot power 0.97.  Claim: >= 0.85.
    rng = np.random.default_rng(64)
    k = sum(
        ks_test(1.2 * rng.standard_normal(1000), scipy.stats.norm(), alpha=NOMINAL).reject
        for _ in range(200)
    )
    assert_power_at_least(int(k), 200, 0.85, A_KS_POWER, "KS")


# --------------------------------------------------------------------------------------
# multiplicity: Bonferroni, Holm, AlphaBudget


def _holm_by_definition(p: list[float], alpha: float) -> np.ndarray:
    """Holm (1979) step-down, written out literally as the reference."""
    m = len(p)
    reject = np.zeros(m, dtype=bool)
    for step, i in enumerate(sorted(range(m), key=lambda j: p[j])):
        if p[i] > alpha / (m - step):
            break
        reject[i] = True
    return reject


@settings(max_examples=200, deadline=None)
@given(
    p=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40),
    alpha=st.floats(1e-6, 0.5),
)
def test_holm_matches_definition_and_dominates_bonferroni(p: list[float], alpha: float) -> None:
    got = holm(p, alpha)
    np.testing.assert_array_equal(got, _holm_by_definition(p, alpha))
    assert np.all(got[np.asarray(p) <= bonferroni(alpha, len(p))])


@pytest.mark.parametrize(
    "p",
    [
        [0.01, 0.04, 0.03, 0.005],
        [0.001, 0.001, 0.02, 0.5, 0.0125],  # ties, and a value on a Holm boundary
        list(np.random.default_rng(99).uniform(0, 0.05, size=30)),
    ],
)
def test_holm_matches_statsmodels(p: list[float]) -> None:
    np.testing.assert_array_equal(holm(p, 0.05), multipletests(p, alpha=0.05, method="holm")[0])


def test_bonferroni_and_alpha_validation() -> None:
    assert bonferroni(0.05, 5) == pytest.approx(0.01)
    with pytest.raises(ValueError, match=">= 1"):
        bonferroni(0.05, 0)
    for bad in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError):
            check_alpha(bad)
    with pytest.raises(TypeError):
        check_alpha(True)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        holm([0.1, 1.5], 0.05)
    assert holm([], 0.05).shape == (0,)


def test_alpha_budget_ledger() -> None:
    budget = AlphaBudget(0.01, name="unit")
    assert budget.take("a", 0.004) == 0.004
    shares = budget.split(["b", "c", "d"])  # the remaining 0.006, three ways
    assert shares == pytest.approx({"b": 0.002, "c": 0.002, "d": 0.002})
    assert budget.spent == pytest.approx(0.01)
    assert budget.remaining == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match=r"overspent|exhausted"):
        budget.take("e", 1e-6)
    with pytest.raises(ValueError, match="distinct"):
        AlphaBudget(0.01).split(["x", "x"])
    fresh = AlphaBudget(0.01)
    fresh.take("x", 0.001)
    with pytest.raises(ValueError, match="already drew"):
        fresh.take("x", 0.001)
    report = budget.as_dict()
    assert report["name"] == "unit" and len(report["records"]) == 4
    assert [r.label for r in budget.records] == ["a", "b", "c", "d"]


def test_this_module_stays_within_its_budget() -> None:
    assert META.spent <= META.total
    assert len(META.records) >= 20


# --------------------------------------------------------------------------------------
# fit_order

H = 0.2 * 2.0 ** -np.arange(6)


@pytest.mark.parametrize("order", [1, 2, 4])
def test_fit_order_exact_data_recovers_slope(order: int) -> None:
    fit = fit_order(H, 0.7 * H**order, alpha=0.05)
    # Exact data: only floating-point rounding separates slope from order.
    assert abs(fit.slope - order) <= 1e-10
    assert abs(fit.intercept - np.log(0.7)) <= 1e-10
    assert fit.slope_ci is None and fit.method == "exact-lstsq"
    assert "no statistical confidence interval" in fit.note
    with pytest.raises(ValueError, match="no confidence interval"):
        fit.covers(order)


@settings(max_examples=100, deadline=None)
@given(
    order=st.floats(0.25, 5.0),
    log_c=st.floats(-20.0, 20.0),
    sign=st.sampled_from([-1.0, 1.0]),
    h_max=st.floats(1e-4, 1.0),
    n=st.integers(2, 8),
)
def test_fit_order_exact_property(
    order: float, log_c: float, sign: float, h_max: float, n: int
) -> None:
    h = h_max * 0.5 ** np.arange(n)
    fit = fit_order(h, sign * np.exp(log_c) * h**order, alpha=0.05)
    assert abs(fit.slope - order) <= 1e-9
    assert fit.max_abs_residual <= 1e-9


def test_fit_order_exact_data_with_curvature_reports_residual() -> None:
    fit = fit_order(H, H**2 * (1 + 3 * H), alpha=0.05)
    assert 2.0 < fit.slope < 3.0
    assert fit.max_abs_residual > 1e-3


A_FIT_SINGLE = {k: META.take(f"fit_order CI covers order {k}", 1e-4) for k in (1, 2, 4)}
A_FIT_COVERAGE = {
    s: META.take(f"fit_order coverage, {s} scale", META_SIZE) for s in ("known", "estimated")
}
A_FIT_LOF_SIZE = META.take("fit_order lack-of-fit size", META_SIZE)
A_FIT_POWER = META.take("fit_order excludes order 2 when truth is 1.95", META_POWER)
A_FIT_LOF_POWER = META.take("fit_order lack-of-fit detects curvature", META_POWER)
REL_ERR = 0.05


def _noisy(rng: np.random.Generator, order: float, *, curvature: float = 0.0):
    v = 0.7 * H**order * (1.0 + curvature * H)
    return v * (1.0 + REL_ERR * rng.standard_normal(H.size)), REL_ERR * v


@pytest.mark.parametrize("order", [1, 2, 4])
def test_fit_order_noisy_ci_covers_truth(order: int) -> None:
    alpha = A_FIT_SINGLE[order]
    values, stderr = _noisy(np.random.default_rng(70 + order), order)
    fit = fit_order(H, values, stderr, alpha=alpha)
    assert isinstance(fit, OrderFit) and fit.method == "wls-known-scale"
    assert fit.covers(order), fit
    assert fit.slope_ci[1] - fit.slope_ci[0] < 1.0


@pytest.mark.parametrize("scale", ["known", "estimated"])
def test_fit_order_coverage(scale: str) -> None:
    # Relative errors are the same at every h, so the delta-method bias
    # -r^2/2 of log|v| is absorbed by the intercept and the slope CI is
    # nominal.  R = 300, nominal 0.1: flags |miss rate - 0.1| > ~0.06.
    rng = np.random.default_rng(80)
    nominal, reps = 0.1, 300
    misses = lof = 0
    for _ in range(reps):
        fit = fit_order(H, *_noisy(rng, 2.0), alpha=nominal, scale=scale)
        misses += not fit.covers(2.0)
        lof += fit.lack_of_fit_p is not None and fit.lack_of_fit_p <= nominal
    assert_size(misses, reps, nominal, A_FIT_COVERAGE[scale], f"slope CI ({scale})")
    if scale == "known":
        assert_size(lof, reps, nominal, A_FIT_LOF_SIZE, "lack-of-fit test")


def _ideal_lack_of_fit_power(curvature: float, nominal: float) -> float:
    """Power of the lack-of-fit test: its statistic is noncentral chi2_{n-2}."""
    x = np.column_stack([np.ones(H.size), np.log(H)])
    y = np.log(H**2 * (1.0 + curvature * H))
    resid = y - x @ np.linalg.lstsq(x, y, rcond=None)[0]  # equal weights: WLS = OLS
    noncentrality = np.sum(resid**2) / REL_ERR**2
    df = H.size - 2
    return float(scipy.stats.ncx2.sf(scipy.stats.chi2.isf(nominal, df), df, noncentrality))


def test_fit_order_power() -> None:
    # Order 1.95 claimed as 2: slope se = r / sqrt(Sxx) = 0.017 here, so 2 is
    # 2.9 se away; ideal power of the 90% CI to exclude it is 0.89.  Claim 0.8.
    # Curvature (1 + 5h) over h in [0.006, 0.2]: ideal lack-of-fit power 0.95
    # (computed below).  Claim 0.85.
    ideal = _ideal_lack_of_fit_power(5.0, 0.1)
    assert ideal > 0.9
    rng = np.random.default_rng(90)
    reps = 200
    excluded = flagged = 0
    for _ in range(reps):
        excluded += not fit_order(H, *_noisy(rng, 1.95), alpha=0.1).covers(2.0)
        curved = fit_order(H, *_noisy(rng, 2.0, curvature=5.0), alpha=0.1)
        flagged += curved.lack_of_fit_p <= 0.1
    assert_power_at_least(excluded, reps, 0.8, A_FIT_POWER, "order 1.95 vs 2")
    assert_power_at_least(flagged, reps, 0.85, A_FIT_LOF_POWER, "lack of fit")


def test_fit_order_validation() -> None:
    v = H**2
    with pytest.raises(ValueError, match="nonzero"):
        fit_order(H, np.where(H > 0.1, 0.0, v), alpha=0.05)
    with pytest.raises(ValueError, match="relative standard error"):
        fit_order(H, v, (MAX_RELATIVE_STDERR + 0.01) * v, alpha=0.05)
    with pytest.raises(ValueError, match="two distinct"):
        fit_order([0.1, 0.1], [1.0, 2.0], alpha=0.05)
    with pytest.raises(ValueError, match="three points"):
        fit_order(H[:2], v[:2], 0.01 * v[:2], alpha=0.05, scale="estimated")
    with pytest.raises(ValueError, match="equal length"):
        fit_order(H, v[:3], alpha=0.05)
    two = fit_order(H[:2], v[:2], 0.01 * v[:2], alpha=0.05)
    assert two.lack_of_fit_p is None and two.slope_ci is not None


def test_tests_leave_the_callers_draws_untouched():
    # regression: on a 2-D (chains, draws) array the centring ran in place on the caller's
    # array, so z_test_mean compared 0 with the expected mean and always rejected
    from sgmcmc_verify.stats import variance_test, z_test_mean

    x = 1.0 + np.random.default_rng(3).standard_normal((20, 100))
    before = x.copy()
    z = z_test_mean(x, 1.0, alpha=0.01)
    v = variance_test(x, 1.0, alpha=0.01)
    np.testing.assert_array_equal(x, before)
    # the same draws, each a correct N(1, 1) sample: both tests at α = 0.01 accept for this
    # seed (the call order no longer matters: the second test sees the same data)
    assert not z.reject and not v.reject, (z, v)
