"""AGLD Requirements 1–2 (§3.1–3.2) and Theorem 1 (§4.1), step by step.

Expected truth values are our reading of the AGLD paper (its proofs are not in the
text; the one-step argument is reconstructed in
:mod:`sgmcmc_verify.proofs.agld_theorem1`).  Counterexamples are rebuilt here by direct
simulation of the index streams and of the LMC mean, independently of the module.
"""

import itertools
import math
from fractions import Fraction

import pytest

from sgmcmc_verify.proofs import agld_theorem1 as pr
from sgmcmc_verify.proofs import by_name

REQUIREMENTS = {
    "CA: C = ⌈N/n⌉": True,
    "RR: C ≤ ⌈2N/n⌉": True,
    "RR: C ≤ 2N/n read literally": False,  # a batch straddles two passes
    "PPU: D = C": True,
}
THEOREM1 = {
    "S_k = [N] gives g = ∇f": True,
    "RA: E[g | F_k] = ∇f(x_k)": True,
    "RA: E x' = E x − ηΛ(E x − μ*)": True,
    "contraction of the coupled gradient step": True,
    "one step: mean": True,
    "one step: variance": True,
    "W2 ≥ |mean difference|": True,
    "K = O(ε⁻²) with η = O(ε²)": False,  # needs log(1/ε)
    "K = O(ε⁻² log(1/ε)) suffices (this case)": True,
}


@pytest.fixture(scope="module")
def steps():
    return {"R": pr.requirement_steps(), "T1": pr.theorem1_steps()}


@pytest.mark.parametrize("key, expected", [("R", REQUIREMENTS), ("T1", THEOREM1)])
def test_each_step_holds_or_fails_as_read(steps, expect_steps, key, expected):
    expect_steps(steps[key], expected)


def _needed_window(stream: list[int], n: int, N: int, first: int) -> int:
    """Largest k − (last batch ≤ k holding i) + 1 over k ≥ first and all indices i."""
    batches = [stream[k * n : (k + 1) * n] for k in range(len(stream) // n)]
    last: dict[int, int] = {}
    need = 0
    for k, batch in enumerate(batches):
        for i in batch:
            last[i] = k
        if k >= first:
            need = max(need, max(k - last[i] + 1 for i in range(N)))
    return need


def test_rr_literal_counterexample_N4_n3():
    """Five passes; index 0 is first in pass 2 (stream position 8, batch 2) and last in
    pass 3 (position 15, batch 5): at iteration 4 it was last seen 3 iterations back,
    so a window of 3 > 2N/n = 8/3 is needed; ⌈8/3⌉ = 3 suffices."""
    passes = [[1, 2, 3, 0], [1, 2, 3, 0], [0, 1, 2, 3], [1, 2, 3, 0], [0, 1, 2, 3]]
    stream = [i for p in passes for i in p]
    need = _needed_window(stream, 3, 4, first=2)
    assert need == 3 and need > 8 / 3 and need <= math.ceil(8 / 3)
    cx = by_name(pr.requirement_steps())["RR: C ≤ 2N/n read literally"].counterexample
    assert cx["N=4, n=3"]["worst C"] == need


def test_ca_window_by_simulation():
    for N, n in [(5, 2), (7, 3), (6, 6), (9, 4)]:
        stream = [j % N for j in range(5 * N)]
        assert _needed_window(stream, n, N, first=math.ceil(N / n)) == math.ceil(N / n)


def test_theorem1_needs_the_log_factor():
    """LMC (= AGLD with n = N) on N(0, 1) from x0 = 1 with η = ε²: |E x_k| = (1 − ε²)^k,
    and W2 ≥ |E x_k|, so W2 ≤ ε needs k ≥ log(1/ε)/(−log(1 − ε²)).  ε²·k_min grows by
    log(10) per decade of ε: no constant C gives k_min ≤ Cε⁻²."""
    kmin = {}
    for e in (1e-2, 1e-3, 1e-4):
        k = math.ceil(math.log(1 / e) / -math.log1p(-(e**2)))
        # one step fewer leaves the mean above ε (log1p: 1 − ε² is not exact in floats)
        assert math.exp((k - 1) * math.log1p(-(e**2))) > e
        kmin[e] = k * e**2
    assert kmin[1e-3] - kmin[1e-2] > 0.99 * math.log(10)
    assert kmin[1e-4] - kmin[1e-3] > 0.99 * math.log(10)


def test_lmc_w2_is_exact_gaussian_w2():
    """lmc_w2 against the Gaussian W2 formula from the k-step law, written out."""
    x0, mu, eta, k = 2.0, 0.5, 0.1, 7
    mean = (1 - eta * mu) ** k * x0
    var = sum(2 * eta * (1 - eta * mu) ** (2 * j) for j in range(k))
    w2 = math.sqrt(mean**2 + (math.sqrt(var) - math.sqrt(1 / mu)) ** 2)
    assert abs(pr.lmc_w2(x0, mu, eta, k) - w2) < 1e-14


def test_windows_agree_with_the_exact_staleness_module():
    """Two derivations of the same worst cases: exact.staleness maximises over the pass
    alignment of the first-to-last gap, proofs.agld_theorem1 over every pair of positions
    (RR) or by simulating the cyclic stream (CA)."""
    from sgmcmc_verify.exact.staleness import ca_worst_staleness, rr_worst_staleness

    for N in range(1, 13):
        for n in range(1, N + 1):
            assert pr.rr_window(N, n) == rr_worst_staleness(N, n), (N, n)
            assert pr.ca_window(N, n) == ca_worst_staleness(N, n), (N, n)


@pytest.mark.parametrize("eps, eta, lam, r", [(0.1, 0.01, 1.0, 1.0), (0.05, 0.2, 0.5, 3.0)])
def test_mean_lower_bound_K_is_tight_for_the_lmc_mean(eps, eta, lam, r):
    """K_LB is the first k with |mean| = r(1 − ηλ)^k ≤ ε, rebuilt by iterating the mean; the
    exact W2 of LMC (``lmc_w2``) exceeds ε one step earlier, as the bound says."""
    m, k = r, 0
    while m > eps:
        m, k = m * (1 - eta * lam), k + 1
    assert pr.mean_lower_bound_K(eps, eta, lam, r) == k
    assert pr.lmc_w2(r, lam, eta, k - 1) > eps
    assert pr.mean_lower_bound_K(2 * r, eta, lam, r) == 0


def _ra_mean_of_estimator(grads, alphas, n: int, scaled: bool) -> Fraction:
    """E over all N^n equally likely RA batches (i.i.d. uniform indices) of (6), exactly."""
    N = len(grads)
    scale = Fraction(N, n) if scaled else Fraction(1)
    total = Fraction(0)
    for batch in itertools.product(range(N), repeat=n):
        total += scale * sum(grads[i] - alphas[i] for i in batch) + sum(alphas)
    return total / N**n


def test_ra_estimator_is_unbiased_by_enumeration():
    """The RA step rebuilt by enumerating every batch of n = 2 indices from N = 3 (with
    replacement), with arbitrary rational gradients and stale snapshots: the N/n-scaled (6)
    averages to Σ∇f_i exactly; read without the N/n (as extracted) it would not."""
    grads = [Fraction(3), Fraction(-1, 2), Fraction(7, 3)]
    alphas = [Fraction(1), Fraction(5), Fraction(-2)]
    assert _ra_mean_of_estimator(grads, alphas, 2, scaled=True) == sum(grads)
    assert _ra_mean_of_estimator(grads, alphas, 2, scaled=False) != sum(grads)
