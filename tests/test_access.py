"""Data-access strategies (AGLD §3.1) and the exact staleness laws behind Requirement 1."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgmcmc_verify.access import CA, RA, RR, WOR, make_access
from sgmcmc_verify.exact.staleness import (
    ca_worst_staleness,
    coupon_cdf_inclusion_exclusion,
    coupon_cdf_table,
    max_staleness_pmf,
    rr_worst_staleness,
    simulate_max_staleness,
)

sizes = st.integers(1, 30).flatmap(lambda N: st.tuples(st.just(N), st.integers(1, N)))


@given(sizes)
def test_ca_staleness_is_exactly_ceil_N_over_n(Nn):
    N, n = Nn
    sim = simulate_max_staleness(CA(n), N, 1, 4 * N + 2 * n, np.random.default_rng(0))
    assert sim[:, N:].max() == math.ceil(N / n) == ca_worst_staleness(N, n)


@given(sizes, st.integers(0, 2**31))
def test_rr_staleness_never_exceeds_exact_worst_case(Nn, seed):
    N, n = Nn
    sim = simulate_max_staleness(RR(n), N, 20, 3 * N + 2 * n, np.random.default_rng(seed))
    assert 0 < sim[:, 2 * N :].max() <= rr_worst_staleness(N, n) <= math.ceil(2 * N / n)


@pytest.mark.parametrize(("N", "n"), [(4, 3), (5, 2), (6, 4), (3, 2)])
def test_rr_worst_case_is_attained(N, n):
    # Attaining it needs index i first in pass p and last in pass p+1 at the worst
    # alignment: probability >= 1/N^2 per index per pass pair, so with 2000 chains
    # over n pass pairs the chance of missing it is below (1 - 1/N^2)^(2000 N) < 1e-40.
    sim = simulate_max_staleness(RR(n), N, 2000, 2 * n * N + 2 * N, np.random.default_rng(1))
    assert sim[:, 2 * N :].max() == rr_worst_staleness(N, n)


def test_rr_literal_2N_over_n_fails_when_n_does_not_divide_N():
    assert rr_worst_staleness(4, 3) == 3 > 8 / 3
    assert rr_worst_staleness(6, 3) == 3 < 2 * 6 / 3  # n | N: 2N/n - 1


@given(sizes, st.integers(0, 2**31))
def test_rr_reads_every_index_once_per_pass(Nn, seed):
    N, n = Nn
    rng = np.random.default_rng(seed)
    acc = RR(n)
    state = acc.init(3, N, rng)
    stream = []
    for _ in range(2 * N):  # 2N batches of n cover 2n full passes
        idx, state = acc.draw(state, 3, N, rng)
        stream.append(idx)
    stream = np.concatenate(stream, axis=1)
    for p in range(stream.shape[1] // N):
        chunk = np.sort(stream[:, p * N : (p + 1) * N], axis=1)
        assert (chunk == np.arange(N)).all()


def test_coupon_table_matches_inclusion_exclusion():
    for N in (1, 2, 7, 30):
        F = coupon_cdf_table(N, 12 * N)
        for t in (N, 2 * N, 5 * N, 12 * N):
            assert F[t] == pytest.approx(
                coupon_cdf_inclusion_exclusion(t, N), rel=1e-12, abs=1e-300
            )
        assert F[N - 1] == 0.0


def test_max_staleness_pmf_is_a_distribution():
    pmf, unvisited = max_staleness_pmf(10, 2, 40)
    assert pmf[0] == 0 and (pmf >= 0).all()
    assert pmf.sum() + unvisited == pytest.approx(1.0, abs=1e-14)


def test_wor_draws_distinct_indices_and_ra_covers_range():
    rng = np.random.default_rng(0)
    idx, _ = WOR(5).draw(WOR(5).init(100, 7, rng), 100, 7, rng)
    assert all(len(set(r)) == 5 for r in idx)
    idx, _ = RA(50).draw(RA(50).init(10, 4, rng), 10, 4, rng)
    assert set(np.unique(idx)) == {0, 1, 2, 3}


def test_invalid_access_arguments():
    with pytest.raises(ValueError, match="n=5 distinct indices but N=3"):
        WOR(5).init(1, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=">= 1"):
        RA(0)
    with pytest.raises(ValueError, match="did you mean 'RR'"):
        make_access("RRR", 2)
