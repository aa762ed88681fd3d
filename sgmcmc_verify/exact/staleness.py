"""Exact laws of data-access staleness (AGLD Requirements 1 and 2).

Definitions used throughout (AGLD §3.1 says "each point ... has been visited at
least once in the past C iterations"):

* the **staleness** of index ``i`` at iteration ``k`` (after ``S_k`` is drawn) is
  ``s_i(k) = k − max{j ≤ k : i ∈ S_j} + 1``, the length of the shortest window of
  iterations ending at ``k`` that contains a visit of ``i`` (``∞`` if none);
* Requirement 1 holds with constant ``C`` if ``max_i s_i(k) ≤ C`` for every
  ``k ≥ C − 1``;
* the **age** of snapshot entry ``i`` at iteration ``k`` is ``k − j`` where
  ``α_i^{(k)} = ∇f_i(x^{(j)})``; Requirement 2 holds with ``D`` if every age is ``≤ D``.

RR and CA read a stream of indices in batches of ``n`` (see
:mod:`sgmcmc_verify.access`); the worst cases below are for that reading.
"""

from __future__ import annotations

import mpmath
import numpy as np

from ..access import AccessState, DataAccess

__all__ = [
    "ca_worst_staleness",
    "coupon_cdf_inclusion_exclusion",
    "coupon_cdf_table",
    "coupon_quantile",
    "max_staleness_pmf",
    "rr_worst_staleness",
    "simulate_max_staleness",
]


def ca_worst_staleness(N: int, n: int) -> int:
    """Largest staleness cyclic access ever produces: ``⌈N/n⌉``.

    Consecutive visits of an index sit ``N`` stream positions apart; the batch
    numbers of positions ``a`` and ``a + N`` differ by at most ``⌈N/n⌉``, with
    equality at ``a ≡ n − 1 (mod n)``, which every index reaches.
    """
    return max((a + N) // n - a // n for a in range(n))


def rr_worst_staleness(N: int, n: int) -> int:
    """Largest staleness random reshuffle can produce (attained with positive probability).

    The longest gap between consecutive visits of an index is from the first
    position of pass ``p`` (stream position ``pN``) to the last position of pass
    ``p+1`` (``(p+2)N − 1``).  The staleness just before the second visit is the
    difference of their batch numbers; maximise over the pass alignment
    ``pN mod n`` (periodic in ``p`` with period ``n``).
    """
    return max((p * N + 2 * N - 1) // n - (p * N) // n for p in range(n))


def coupon_cdf_table(N: int, t_max: int) -> np.ndarray:
    """``F[t] = P(T ≤ t)``, ``t = 0..t_max``, for the coupon-collector time with ``N`` coupons.

    Forward recursion on the number ``c`` of distinct coupons seen: each draw keeps
    ``c`` with probability ``c/N`` and raises it with ``(N − c)/N``.  All terms are
    non-negative, so float64 loses nothing to cancellation (inclusion–exclusion
    does: its terms reach ``C(N, N/2)``); :func:`coupon_cdf_inclusion_exclusion`
    is the independent check.
    """
    c = np.arange(N + 1)
    stay, move = c / N, (N - c) / N
    p = np.zeros(N + 1)
    p[0] = 1.0
    F = np.zeros(t_max + 1)
    F[0] = p[N]
    for t in range(1, t_max + 1):
        p = p * stay + np.concatenate(([0.0], p[:-1] * move[:-1]))
        F[t] = p[N]
    return F


def coupon_cdf_inclusion_exclusion(t: int, N: int) -> float:
    """``P(T ≤ t) = Σ_j (−1)^j C(N, j) (1 − j/N)^t`` in mpmath, with digits to spare."""
    with mpmath.workdps(int(30 + 0.35 * N)):
        total = mpmath.mpf(0)
        for j in range(N + 1):
            total += (-1) ** j * mpmath.binomial(N, j) * (1 - mpmath.mpf(j) / N) ** t
        return float(total)


def coupon_quantile(N: int, n: int, delta: float) -> int:
    """Smallest ``m`` (iterations of ``n`` draws) with ``P(T ≤ nm) ≥ 1 − δ``."""
    m_max = int(np.ceil(N / n * (np.log(N) + np.log(1 / delta) + 5))) + 1
    F = coupon_cdf_table(N, n * m_max)[::n]
    return int(np.argmax(F >= 1 - delta))


def max_staleness_pmf(N: int, n: int, k: int) -> tuple[np.ndarray, float]:
    """Law of ``M_k = max_i s_i(k)`` under random access (``n`` i.i.d. uniform indices).

    ``M_k ≤ m`` iff all ``N`` indices occur among the ``nm`` draws of
    iterations ``k−m+1..k``, so ``P(M_k ≤ m) = P(T ≤ nm)`` for ``m ≤ k + 1``.

    Returns
    -------
    pmf : ndarray, shape (k + 2,)
        ``pmf[m] = P(M_k = m)`` for ``m = 0..k+1`` (``pmf[0] = 0``).
    p_unvisited : float
        ``P(some index not yet visited by iteration k)``.
    """
    cdf = coupon_cdf_table(N, n * (k + 1))[::n]
    pmf = np.diff(cdf, prepend=0.0)
    return pmf, 1.0 - cdf[-1]


def simulate_max_staleness(
    access: DataAccess, N: int, chains: int, n_iter: int, rng: np.random.Generator
) -> np.ndarray:
    """Run ``access`` for ``n_iter`` iterations and return ``max_i s_i(k)`` for every ``k``.

    Returns an int array of shape ``(chains, n_iter)``, with ``-1`` where some
    index has not been visited yet (staleness ``∞``).
    """
    state: AccessState = access.init(chains, N, rng)
    last = np.full((chains, N), -1, dtype=np.int64)
    out = np.empty((chains, n_iter), dtype=np.int64)
    for k in range(n_iter):
        idx, state = access.draw(state, chains, N, rng)
        np.put_along_axis(last, idx, k, axis=1)
        oldest = last.min(axis=1)
        out[:, k] = np.where(oldest < 0, -1, k - oldest + 1)
    return out
