"""SVRHMC Appendix B, step by step: Corollary 2 (B.1), Theorem 2 (B.2), Lemma 1 (B.3), Cor. 3.

The expected truth value of every step is our reading of the paper (Li et al., SVRHMC,
§2–§3 and Appendix B), written here by hand; the counterexamples of the failing steps are
re-evaluated below from the paper's formulas in exact rational arithmetic, independently
of :mod:`sgmcmc_verify.proofs.svrhmc_lemma1`.
"""

from fractions import Fraction

import pytest

from sgmcmc_verify.proofs import by_name
from sgmcmc_verify.proofs import svrhmc_lemma1 as pr

# -- expected truth values (our reading) ------------------------------------------------

COROLLARY2 = {
    "line 1 = line 2": True,
    "line 2 = line 3": True,
    "line 3 = line 4": True,
    "line 4 = line 5": True,  # printed twice
    "line 5 = line 6": True,  # with replacement, as B.1 says
    "line 6 ≤ line 7": True,
    "line 7 ≤ line 8": True,
    "∇f = Σ_j ∇f_j": False,  # §2's f carries −log Pr(θ); ∇̃ does not
}

THEOREM2 = {
    "(21) equalities": True,
    "(21) inequality, with replacement": True,
    "(21) inequality, without replacement": True,
    "(22) Cauchy": True,
    "(22) counting": True,
    "E‖p_{t+1}‖² expansion": True,
    "‖(1 − Dh)p − h∇f‖² bound": True,
    "‖∇f‖ ≤ nG": False,  # the prior gradient again
    "rearrangement": True,
    "h²ΣE‖Δ‖² ≤ (L²n²K²h⁴/b)S": True,
    "A = h(2D − D²h − ch³)": True,
    "A ≥ h(D − ch³)": True,
    "B ≤ 2nGh": True,
    "B² + 4AC ≤ 16h²(n²G² + D²d)": True,
    "quadratic root": True,
    "(nG + 2√Q) ≤ 3√Q": True,
    "(23) spot check": True,
    "(24)": True,
    "(25)": True,
}

LEMMA1 = {
    "G² > K²n²L²h²G²": True,
    "h < 1/(nKL)": True,
    "D − a > D − 1/(nKL)³·L²n²K²/b": True,
    "= D − 1/(nKbL)": True,
    "≥ D − 0.1 (nKbL ≥ 10)": True,
    "D − 0.1 ≥ 0.9D": True,
    "R^LD reduction": True,
    "R^HMC reduction": False,  # divides by D² where the denominator is (D − a)²
    "R^HMC reduction, factor restored": True,
    "h²L²d ≤ hL²d/(nKL)": True,
    "= hd·L/(nK)": True,
    "≤ max{1/D², L/(nK)}(…)": True,
    "(9)": False,
    "(9) with the factor restored": True,
    "a·nKbL = (nKLh)³": True,
    "D/(D − a) ≤ nKbL/(nKbL − 1)": True,
    "nKbL ≥ 10 ⇒ factor ≤ (10/9)²": True,
    "D ≥ 1/(L√h) ⇒ 1/D² ≤ L/(nK)": True,
    "(10)": False,
}

COROLLARY3 = {"L/(nK) = bL/n² at K = n/b": True, "(11)": False}

THEOREM4 = {
    "γ = Pr(i ∈ I)": True,
    "Pr(α_t^i = θ_j) = (1 − γ)^{t−j−1}γ": False,  # misses the never-sampled mass
    "Cauchy": True,
    "Σ_k (t−j+k+1)(1−γ)^{t−j+k}γ = (1/γ + t − j)(1−γ)^{t−j}": True,
    "Σ_k (1/γ + k)(1 − γ)^k = (2 − γ)/γ²": True,
    "bound survives the omitted mass": True,
    "γ > b/(2n)": True,
    "8h⁴L²n⁴/b³": True,
    "rearranged, as printed": False,  # + signs
    "(27) denominator D − h³L²n⁴/b³": False,  # drops the 8
    "A ≥ h(D − 8h³L²n⁴/b³)": True,
    "B² + 4AC ≤ 16h²(n²G² + D²d) (B.4)": True,
}


@pytest.mark.parametrize(
    "build, expected",
    [
        (pr.corollary2_steps, COROLLARY2),
        (pr.theorem2_steps, THEOREM2),
        (pr.lemma1_steps, LEMMA1),
        (pr.corollary3_steps, COROLLARY3),
        (pr.theorem4_steps, THEOREM4),
    ],
    ids=["B.1 Corollary 2", "B.2 Theorem 2", "B.3 Lemma 1", "Corollary 3", "B.4 Theorem 4"],
)
def test_each_step_holds_or_fails_as_read(expect_steps, build, expected):
    expect_steps(build(), expected)


# -- the counterexamples, re-evaluated from the paper's formulas --------------------------


def _R_hmc(n, b, K, d, L, G, h, D):  # T·R^HMC, eq. (7) first term
    return (
        (L**2 * n**2 * K**2 * h**2 / b)
        * (n**2 * G**2 + D**2 * d)
        / (D - L**2 * n**2 * K**2 * h**3 / b) ** 2
    )


def _R_ld(n, b, K, d, L, G, h, D):  # T·R^LD, eq. (8) first term
    return n**2 * K**2 * (n**2 * L**2 * h**2 * G**2 + h * d) / b


def _admissible(n, b, K, d, L, G, h, D):
    """Algorithm 1 line 1, the assumption before Lemma 1, (10)'s condition, Cor. 3's K."""
    return (
        D >= 1
        and D * h < 1
        and b <= n
        and n**2 * G**2 > n**2 * K**2 * (n**2 * L**2 * h**2 * G**2 + h * d)
        and D**2 * L**2 * h >= 1  # D ≥ 1/(L√h)
        and K * b == n
    )


POINTS = {
    "nKbL = 10": dict(n=2, b=1, K=2, d=1, L=Fraction(5, 2), G=100, h=Fraction(99, 1000),
                      D=Fraction(1272, 1000)),
    "nKbL = 10001": dict(n=10, b=1, K=10, d=1, L=Fraction(10001, 100), G=10,
                         h=Fraction(100, 10001) ** 2, D=1),
}  # fmt: skip


@pytest.mark.parametrize("label", list(POINTS))
def test_eqs_9_10_11_fail_at_admissible_points_inside_b3_regime(label):
    q = {k: Fraction(v) for k, v in POINTS[label].items()}
    n, b, K, L, D = q["n"], q["b"], q["K"], q["L"], q["D"]
    assert _admissible(**q)
    assert n * K * b * L >= 10  # B.3's "nKbL ≫ 10", at its threshold or far beyond
    lhs, ld = _R_hmc(**q), _R_ld(**q)
    assert lhs > max(1 / D**2, L / (n * K)) * ld  # (9)
    assert lhs > L / (n * K) * ld  # (10)
    assert lhs > b * L / n**2 * ld  # (11)
    # the statement with the dropped factor restored holds at the same point
    a = L**2 * n**2 * K**2 * q["h"] ** 3 / b
    assert lhs <= (D / (D - a)) ** 2 * max(1 / D**2, L / (n * K)) * ld
    # and the violation is within B.3's constant (nKbL/(nKbL − 1))² ≤ (10/9)²
    c = n * K * b * L
    assert lhs / (max(1 / D**2, L / (n * K)) * ld) <= (c / (c - 1)) ** 2 <= Fraction(100, 81)


def test_module_counterexamples_are_these_points():
    steps = by_name(pr.lemma1_steps() + pr.corollary3_steps())
    for eq in ("(9)", "(10)", "(11)"):
        cx = steps[eq].counterexample
        assert set(cx) == set(POINTS)
        for label, row in cx.items():
            q = {k: Fraction(v) for k, v in POINTS[label].items()}
            assert row["T·R^HMC"] == _R_hmc(**q)


def test_reduction_step_counterexample_is_the_dropped_factor():
    """B.3's reduction at POINT_DEEP: the two sides differ by exactly D²/(D − a)²."""
    q = {k: Fraction(v) for k, v in POINTS["nKbL = 10001"].items()}
    n, b, K, d, L, G, h, D = (q[k] for k in ("n", "b", "K", "d", "L", "G", "h", "D"))
    lhs = _R_hmc(**q) * b / (n**2 * K**2)
    reduced = h**2 * L**2 * n**2 * G**2 / D**2 + h**2 * L**2 * d
    a = L**2 * n**2 * K**2 * h**3 / b
    assert lhs > reduced
    assert lhs / reduced == D**2 / (D - a) ** 2
    cx = by_name(pr.lemma1_steps())["R^HMC reduction"].counterexample
    assert Fraction(str(cx["lhs"])) == lhs and Fraction(str(cx["rhs"])) == reduced


def test_prior_counterexample_to_b1_and_b2():
    """n = b = 1, f_1(θ) = Gθ (G-Lipschitz), prior N(0, 1), G = 1, θ = 2."""
    G, theta = 1, 2
    grad_f = G + theta  # ∇(f_1 − log Pr) = G + θ
    sghmc = G  # §2's ∇̃ = (n/b)Σ∇f_i has no prior term
    assert (sghmc - grad_f) ** 2 > G**2  # E‖∇̃ − ∇f‖² = 4 > n²G²/b = 1
    assert abs(grad_f) > G  # ‖∇f‖ = 3 > nG = 1
    steps = by_name(pr.corollary2_steps() + pr.theorem2_steps())
    assert steps["∇f = Σ_j ∇f_j"].counterexample["E‖∇̃ − ∇f‖²"] == (sghmc - grad_f) ** 2
    assert steps["‖∇f‖ ≤ nG"].counterexample["‖∇f(θ)‖"] == grad_f


def test_without_replacement_batches_have_the_finite_population_variance():
    """(21) for Algorithm 1's subset: E = (n²/b)(n − b)/(n − 1)·Var (n = 3, b = 2)."""
    import itertools

    c, n, b = (0, 0, 3), 3, 2
    cbar = Fraction(sum(c), n)
    perms = list(itertools.permutations(range(n), b))
    mse = Fraction(sum((Fraction(n, b) * sum(c[i] for i in t) - sum(c)) ** 2 for t in perms))
    mse /= len(perms)
    var = sum((ci - cbar) ** 2 for ci in c) / n
    assert mse == Fraction(n**2, b) * Fraction(n - b, n - 1) * var
    assert mse <= Fraction(n**2, b) * Fraction(sum(ci**2 for ci in c), n)


def test_b4_alpha_law_counterexample():
    """n = 2, b = 1, t = 2: α_2^1 = θ_0 unless index 1 was drawn at step 1 (both batches
    are enumerated), so Pr(α_2^1 = θ_0) = 1/2, not (1 − γ)γ = 1/4 with γ = 1/2."""
    import itertools

    hits = 0
    runs = list(itertools.product((0, 1), repeat=2))  # the index drawn at steps 0 and 1
    for draws in runs:
        alpha = 0  # α_0 = θ_0 (Algorithm 2, line 3)
        for step, i in enumerate(draws):
            if i == 1:
                alpha = step  # line 10: α_{t+1}^i = θ_t
        hits += alpha == 0
    gamma = Fraction(1, 2)
    assert Fraction(hits, len(runs)) == Fraction(1, 2) != (1 - gamma) * gamma
    cx = by_name(pr.theorem4_steps())["Pr(α_t^i = θ_j) = (1 − γ)^{t−j−1}γ"].counterexample
    assert cx["Pr(α_1^i = θ_0)"] == 1 and cx["(1 − γ)^0·γ"] == 1 - (1 - Fraction(1, 3)) ** 2


def test_b4_quadratic_counterexamples():
    """n = 2, b = 1, G = d = D = 1: at h = 1/10 the printed rearranged line is 6/25 > 0 at S = 0;
    at h = 1/2, L² = 1/8 the leading coefficient 1 − (1 − Dh)² − 8h⁴L²n⁴/b³ = −1/4 while
    (27)'s denominator D − h³L²n⁴/b³ = 3/4."""
    n, b, G, d, D = 2, 1, 1, 1, 1
    h = Fraction(1, 10)
    assert h**2 * n**2 * G**2 + 2 * D * h * d == Fraction(6, 25)
    h, L2 = Fraction(1, 2), Fraction(1, 8)
    assert 1 - (1 - D * h) ** 2 - 8 * h**4 * L2 * n**4 / b**3 == Fraction(-1, 4)
    assert D - h**3 * L2 * n**4 / b**3 == Fraction(3, 4)
    steps = by_name(pr.theorem4_steps())
    assert steps["rearranged, as printed"].counterexample["printed LHS at S = 0"] == Fraction(6, 25)
    cx = steps["(27) denominator D − h³L²n⁴/b³"].counterexample
    assert cx["A"] == Fraction(-1, 4) and cx["D − h³L²n⁴/b³"] == Fraction(3, 4)


@pytest.mark.parametrize("nn, bb", [(2, 1), (3, 2), (4, 2), (3, 3)])
def test_corollary2_without_replacement(nn, bb):
    # the finite-population identity holds symbolically, and agrees with a direct numeric
    # enumeration over ordered b-subsets written here independently of the proof module
    import itertools

    assert pr.corollary2_without_replacement(nn, bb).holds
    a = [Fraction(k * k - 2 * k + 3, k + 1) for k in range(nn)]
    perms = list(itertools.permutations(range(nn), bb))
    lhs = sum((Fraction(nn, bb) * sum(a[i] for i in t) - sum(a)) ** 2 for t in perms) / len(perms)
    var = sum((x - sum(a) / nn) ** 2 for x in a) / nn
    assert lhs == Fraction(nn - bb, nn - 1) * Fraction(nn**2, bb) * var


def test_corollary2_without_replacement_needs_a_subset():
    with pytest.raises(ValueError, match="1 ≤ b ≤ n"):
        pr.corollary2_without_replacement(2, 3)


def test_r_hmc_takes_g_or_its_square():
    # the claim module passes G² (rational where G is not); both forms give the same sides
    pt = dict(pr.POINT_NKBL10)
    with_g2 = {k: v for k, v in pt.items() if k != "G"} | {"G2": pt["G"] ** 2}
    assert pr.r_hmc(with_g2) == pr.r_hmc(pt) and pr.r_ld(with_g2) == pr.r_ld(pt)
    assert pr.in_region(with_g2) == pr.in_region(pt) == []


def test_ratio_steps_hold():
    # the analysis of (9)–(11) the claim check relies on: every fact holds (our reading)
    steps = pr.ratio_steps()
    assert len(steps) == 5 and all(st.holds for st in steps), [st.name for st in steps]
