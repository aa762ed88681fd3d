"""AGLD-T1..T5: verdicts of the theorem checks, W2 code against closed forms, and power:
each check turns negative on a broken sampler or a wrong construction."""

import math

import numpy as np
import pytest
import scipy.linalg
from scipy.special import ndtr

from sgmcmc_verify.claims import agld_theory as T
from sgmcmc_verify.exact import moments as em


def test_gaussian_w2_closed_forms():
    rng = np.random.default_rng(0)
    # 1-D: W2² = (m1 − m2)² + (s1 − s2)².
    assert T.gaussian_w2([1.0], [[4.0]], [0.0], [[1.0]]) == pytest.approx(math.sqrt(2.0))
    # Commuting covariances: Σ (√a_i − √b_i)² plus the mean term.
    a, b = np.array([1.0, 9.0]), np.array([4.0, 1.0])
    want = math.sqrt(1.0 + np.sum((np.sqrt(a) - np.sqrt(b)) ** 2))
    assert T.gaussian_w2([1, 0], np.diag(a), [0, 0], np.diag(b)) == pytest.approx(want)
    # General: against scipy.linalg.sqrtm, and symmetric.
    A, B = rng.standard_normal((2, 3, 3))
    C1, C2 = A @ A.T + np.eye(3), B @ B.T + 0.1 * np.eye(3)
    m1, m2 = rng.standard_normal((2, 3))
    S2 = np.real(scipy.linalg.sqrtm(C2))
    ref = (
        np.sum((m1 - m2) ** 2)
        + np.trace(C1 + C2)
        - 2 * np.trace(np.real(scipy.linalg.sqrtm(S2 @ C1 @ S2)))
    )
    assert T.gaussian_w2(m1, C1, m2, C2) == pytest.approx(math.sqrt(ref), rel=1e-9)
    assert T.gaussian_w2(m2, C2, m1, C1) == pytest.approx(math.sqrt(ref), rel=1e-9)
    assert T.gaussian_w2(m1, C1, m1, C1) == pytest.approx(0.0, abs=1e-6)


def test_w2_1d_against_gaussian_closed_form():
    x = np.linspace(-12, 12, 40001)
    F, G = ndtr((x - 0.5) / 1.0), ndtr((x + 0.2) / 2.0)
    assert T.w2_1d(x, F, G) == pytest.approx(math.hypot(0.7, 1.0), rel=1e-6)
    assert T.w2_1d(x, F, F) == pytest.approx(0.0, abs=1e-12)


def test_gelbrich_is_a_lower_bound_for_a_mixture():
    # Two-point mixture of 1-D Gaussians vs N(0, 1): W2 exact by quantiles ≥ Gelbrich.
    x = np.linspace(-12, 12, 40001)
    F = 0.5 * ndtr((x - 1.5) / 0.5) + 0.5 * ndtr((x + 1.5) / 0.5)
    exact = T.w2_1d(x, F, ndtr(x))
    gel = T.gaussian_w2([0.0], [[0.25 + 2.25]], [0.0], [[1.0]])
    assert gel <= exact + 1e-9 and exact > 1.2 * gel


def test_t1_verdicts_and_power():
    parts, _ = T.check_t1()
    by = {p.name: p for p in parts}
    assert by["stationary bias: lmc"].verdict == "confirmed"
    assert by["stationary bias: lmc"].measured["local slope (two smallest η)"].value > 0.95
    assert by["stationary bias: svrg-ld"].verdict == "not-checkable"  # lower bound only
    assert by["mixing time: lmc"].verdict == "qualified"  # K = Θ(ε⁻² log 1/ε)
    assert by["mixing time: lmc"].measured["fitted exponent of K in ε"].value < -2.2

    # Power: a forgotten N/n weight (gradient × n/N) leaves an O(1) bias → refuted.
    def broken(p, h):
        return T.scaled_gradient(em.affine_chain("svrg-ld", p, h=h, n=2), 0.5)

    parts, _ = T.check_t1(chains={"svrg-ld×0.5": broken}, mixing_chains={"svrg-ld×0.5": broken})
    assert all(p.verdict == "refuted" for p in parts)


def test_t2_verdicts():
    parts, _ = T.check_t2()
    by = {p.name: p for p in parts}
    assert by["stationary bias: lmc"].verdict == "confirmed"
    assert by["mixing time: lmc"].verdict == "confirmed"
    assert -1.6 < by["mixing time: lmc"].measured["fitted exponent of K in ε"].value < -1.2
    assert by["mixing time: saga-ld"].verdict == "not-checkable"


def test_t3_verdicts():
    parts, _ = T.check_t3()
    by = {p.name: p for p in parts}
    assert by["kappa and d dependence"].verdict == "confirmed"
    assert by["kappa and d dependence"].measured["exponent in kappa via mu"].value == (
        pytest.approx(1.5, abs=0.02)
    )
    assert by["epsilon dependence"].verdict == "qualified"
    assert by["N dependence (reading of κ)"].verdict == "qualified"


def test_t4_verdicts_and_power():
    parts, _ = T.check_t4()
    assert all(p.verdict == "confirmed" for p in parts)
    # Power: λ = 4ε/(Ûd²) (ε instead of ε²) is too strong a regulariser for small ε.
    parts, _ = T.check_t4(lam_rule=lambda e, U, d: 400 * e / (U * d * d))
    assert any(p.verdict == "refuted" for p in parts)


def test_t5_verdicts_and_power():
    parts, _ = T.check_t5()
    by = {p.name: p for p in parts}
    assert by["stationary bias (LMC = AGLD with N = 1)"].verdict == "confirmed"
    assert by["mixing time K(ε)"].verdict == "not-checkable"
    parts, _ = T.check_t5(chain_problem=T.wrong_double_well(0.8))
    assert parts[0].verdict == "refuted"
