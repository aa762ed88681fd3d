"""Tests of :mod:`sgmcmc_verify.exact.nystrom`: stationary laws of LMC and SGLD in 1-D.

Deterministic checks compare the Nyström solver with closed forms derived here
independently (the linear Gaussian chains), with its own refinements, and with
the first-order bias expansion.  The Monte Carlo checks run the package's real
samplers.

Error budget (size): four tests at α = 1e-5 each — the KS test of the Nyström
sampler, the LMC double-well mean test, the SGLD finite-sum mean test, and the
slow LMC test — so a false alarm in this file has probability ≤ 4e-5.  The
power tests assert a rejection at the same α and spend no budget.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import norm

import sgmcmc_verify as sv
from sgmcmc_verify import registry
from sgmcmc_verify.bugs import HalfNoise
from sgmcmc_verify.exact import nystrom as ny
from sgmcmc_verify.problems import GaussianQuadratic, double_well, gaussian_differing
from sgmcmc_verify.stats import fit_order, ks_test, z_test_mean

ALPHA = 1e-5
H_LADDER = np.array([0.04, 0.02, 0.01, 0.005])


@pytest.fixture(scope="module")
def dw():
    return double_well()


@pytest.fixture(scope="module")
def qsum():
    return ny.quartic_sum()


@pytest.fixture(scope="module")
def quart():
    return ny.quartic()


# -- closed forms, derived here ----------------------------------------------------------


def _linear_chain_moments(A, B, probs, h, kmax=4):
    """Raw moments ``E x^k``, k ≤ kmax, of ``x' = A_S x + B_S + √(2h) ξ`` at stationarity.

    ``S ~ probs`` and ``ξ ~ N(0, 1)`` independent of ``x``.  Expanding
    ``E x'^k = Σ_j C(k, j) E x^j E[A^j Y^{k−j}]`` with ``Y = B + √(2h) ξ`` and
    solving for ``E x^k`` gives the recursion below; it needs ``E A^k < 1``.
    """
    A, B, probs = map(np.asarray, (A, B, probs))
    c = math.sqrt(2 * h)
    gauss = [1, 0, 1, 0, 3, 0, 15]  # E ξ^l

    def e_ay(j, r):
        y = sum(math.comb(r, k) * B ** (r - k) * c**k * gauss[k] for k in range(r + 1))
        return float(probs @ (A**j * y))

    m = [1.0]
    for k in range(1, kmax + 1):
        rhs = sum(math.comb(k, j) * m[j] * e_ay(j, k - j) for j in range(k))
        m.append(rhs / (1 - e_ay(k, 0)))
    return m


def _sgld_gaussian_coefficients(problem, h, n):
    """``A_S, B_S`` for SGLD on quadratic components ``f_i = λ_i (x − c_i)²/2``, every tuple S."""
    lam = problem.precisions[:, 0, 0]
    c = problem.centres[:, 0]
    N = problem.N
    A, B = [], []
    for S in itertools.product(range(N), repeat=n):  # the N^n equally likely tuples
        idx = list(S)
        # g_S(x) = (N/n) Σ_{i∈S} λ_i (x − c_i) = a_S x − b_S
        a_S = N / n * lam[idx].sum()
        b_S = N / n * (lam[idx] * c[idx]).sum()
        A.append(1 - h * a_S)
        B.append(h * b_S)
    return A, B, np.full(len(A), 1.0 / N**n)


def _moments_dict(m):
    return {"x": m[1], "x2": m[2], "x4": m[4]}


# -- the batch law -------------------------------------------------------------------


@pytest.mark.parametrize(("N", "n"), [(3, 1), (3, 2), (2, 3), (4, 3)])
def test_multinomial_batch_law_aggregates_the_tuples(N, n):
    counts_t, p_t = ny.batch_law(N, n, method="tuples")
    counts_m, p_m = ny.batch_law(N, n, method="multinomial")
    assert len(counts_t) == N**n and len(counts_m) == math.comb(N + n - 1, n)
    agg: dict[tuple, float] = {}
    for c, p in zip(counts_t, p_t, strict=True):
        agg[tuple(c)] = agg.get(tuple(c), 0.0) + p
    assert agg.keys() == {tuple(c) for c in counts_m}
    for c, p in zip(counts_m, p_m, strict=True):
        assert agg[tuple(c)] == pytest.approx(p, rel=1e-14)
    assert (counts_m.sum(axis=1) == n).all()
    assert abs(p_m.sum() - 1) < 1e-15


# -- Gaussian sanity: the linear chains in closed form ---------------------------------


@settings(max_examples=8)
@given(
    a=st.floats(0.25, 4.0),
    ha=st.floats(0.01, 1.5),
    mu=st.floats(-2.0, 2.0),
)
def test_lmc_on_a_gaussian_matches_the_closed_form(a, ha, mu):
    """LMC on N(μ, 1/a): E x = μ, Var = 2/(a(2 − ha)), E x⁴ = μ⁴ + 6μ²Var + 3Var² (linear chain)."""
    h = ha / a
    prob = GaussianQuadratic(np.array([[mu]]), np.array([[[a]]]), name="g")
    law = ny.stationary_expectations(prob, h)
    var = 2 / (a * (2 - h * a))
    exact = {"x": mu, "x2": var + mu**2, "x4": mu**4 + 6 * mu**2 * var + 3 * var**2}
    for k, v in exact.items():
        diff = abs(law.moments[k] - v)
        assert diff < 1e-12 * max(1.0, abs(v)), (k, diff)
        assert diff <= law.error[k], (k, diff, law.error[k])  # the error estimate is honest
        assert law.error[k] < 1e-11 * max(1.0, abs(v))


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("h", [0.05, 0.2])
def test_sgld_on_a_gaussian_finite_sum_matches_the_linear_recursion(h, n):
    """State-dependent minibatch noise (differing curvatures, N = 3): exact moment recursion."""
    prob = gaussian_differing(3, 1)
    A, B, p = _sgld_gaussian_coefficients(prob, h, n)
    exact = _moments_dict(_linear_chain_moments(A, B, p, h))
    law = ny.stationary_expectations(prob, h, scheme="sgld", n=n)
    lmc = ny.stationary_expectations(prob, h)
    for k, v in exact.items():
        assert abs(law.moments[k] - v) < 1e-12 * max(1.0, abs(v)), k
        assert abs(law.moments[k] - v) <= law.error[k]
    # and the minibatch noise is visible: SGLD's E x² is not LMC's
    assert abs(law.moments["x2"] - lmc.moments["x2"]) > 1e-3


# -- convergence of the discretisation ------------------------------------------------------


def test_moments_converge_exponentially_as_nodes_double(dw):
    """Double well, h = 0.01, L fixed: the error drops ≥ 100-fold per doubling until round-off.

    Reference: 512 nodes.  Measured: 32 → 64 → 128 → 256 nodes give |ΔE x⁴| ≈
    1.8, 0.10, 3e-9, 1e-14.
    """
    L = ny.stationary_expectations(dw, 0.01).L
    ref = ny._solve(dw, 0.01, "lmc", None, 512, L).moments
    errs = []
    for nodes in (32, 64, 128, 256):
        m = ny._solve(dw, 0.01, "lmc", None, nodes, L).moments
        errs.append(max(abs(m[k] - ref[k]) for k in ny.PHI))
    assert errs[0] > 1e-2  # too few nodes is visibly wrong: the check has teeth
    assert errs[1] < errs[0] / 10 and errs[2] < errs[1] / 1e6
    assert errs[3] < 1e-12


@pytest.mark.parametrize("h", [0.04, 0.005])
def test_error_estimate_is_small_on_the_double_well(dw, h):
    law = ny.stationary_expectations(dw, h)
    assert max(law.error.values()) < 1e-10
    assert law.outside_mass < 1e-14
    assert "Gauss–Legendre" in law.provenance and "GTH" in law.provenance


@pytest.mark.parametrize("h", [0.04, 0.01])
def test_error_estimate_bounds_the_distance_to_a_much_finer_solve(dw, h):
    """Honesty of the error bar: twice the node density on a 1.5× wider domain lands inside it."""
    law = ny.stationary_expectations(dw, h)
    fine = ny._solve(dw, h, "lmc", None, 3 * law.n_nodes, 1.5 * law.L)
    for k in ny.PHI:
        assert abs(law.moments[k] - fine.moments[k]) <= law.error[k], k


@pytest.mark.parametrize(("m", "s"), [(0.0, 1.0), (2.5, 0.5), (-3.5, 0.7), (4.5, 0.3)])
def test_outside_partial_moments_match_quadrature(m, s):
    """The closed-form tail moments E[|Y|^q; |Y| > L] against scipy.integrate.quad (rtol 1e-9)."""
    L = 3.0
    got = ny._outside_moments(L, np.array([m]), s)[:, 0]
    for q in range(5):
        f = lambda y, q=q: abs(y) ** q * norm.pdf(y, m, s)  # noqa: E731
        ref = (
            integrate.quad(f, L, np.inf, epsabs=0)[0] + integrate.quad(f, -np.inf, -L, epsabs=0)[0]
        )
        assert got[q] == pytest.approx(ref, rel=1e-9, abs=1e-300), q


def test_too_narrow_a_domain_is_refused(dw):
    """L = 4 cuts into the left well's tail: the leak check must fire, not return garbage."""
    with pytest.raises(ValueError, match="outside"):
        ny.stationary_expectations(dw, 0.01, L=4.0)


def test_sgld_domain_widens_beyond_the_target_tails(qsum):
    """SGLD's noise grows like |x|³ here: its law is wider than π, so L grows past U's 50 nats."""
    L_target = ny._auto_L(qsum, 50.0)
    law = ny.stationary_expectations(qsum, 0.04, scheme="sgld", n=1)
    assert law.L > L_target and law.outside_mass < 1e-14


def test_bad_arguments_are_rejected(dw):
    with pytest.raises(ValueError, match="one-dimensional"):
        ny.stationary_expectations(gaussian_differing(3, 2), 0.1)
    with pytest.raises(ValueError, match="sgld"):
        ny.stationary_expectations(dw, 0.1, n=1)
    with pytest.raises(ValueError):
        ny.stationary_expectations(dw, -0.1)


# -- the Nyström interpolant and sampler ------------------------------------------------------


def test_interpolant_reproduces_the_nodal_density_and_integrates_to_one(dw):
    """The collocation equation read back: ``π_h(x_i) = Σ_j w_j π_j K(x_j, x_i)``.

    Relative to the peak: at the outermost nodes the interpolant is smaller than
    the nodal value by the mass that jumps out of [−L, L] (up to 2e-11 relative at
    x = −5.0, where the density is 1e-6 of its peak), which GTH keeps at the node.
    """
    law = ny.stationary_expectations(dw, 0.05)
    assert np.abs(law.pdf(law.nodes) - law.density).max() < 1e-13 * law.density.max()
    total = law.cdf(np.array([law.L]))[0] - law.cdf(np.array([-law.L]))[0]
    assert abs(total - 1) < 1e-12


def test_sampler_draws_from_the_interpolant(dw):
    """KS test (α = 1e-5) of 20,000 inverse-CDF draws against the Nyström CDF."""
    law = ny.stationary_expectations(dw, 0.05)
    x = law.sample(20_000, np.random.default_rng(11))
    out = ks_test(x, law.cdf, alpha=ALPHA)
    assert not out.reject, out.description


# -- target moments -------------------------------------------------------------------------


def test_quartic_target_moments_match_the_gamma_closed_form(quart):
    """U = x⁴/4: E x² = 2Γ(3/4)/Γ(1/4); E x⁴ = E[x U'(x)] = 1 (integration by parts)."""
    tm = ny.target_moments(quart)
    assert abs(tm["x"].value) < 1e-16
    assert tm["x2"].value == pytest.approx(2 * math.gamma(0.75) / math.gamma(0.25), rel=1e-15)
    assert tm["x4"].value == pytest.approx(1.0, rel=1e-15)


def test_quartic_sum_satisfies_the_integration_by_parts_identity(qsum):
    """E_π[U'] = 0 and E_π[x U'] = 1 for π ∝ exp(−U) (integration by parts).

    With ``U' = c₁ + 2c₂x + 3c₃x² + 4c₄x³`` the first identity gives ``E x³`` from the
    stored ``E x``, ``E x²``; the second then checks all three stored moments.
    """
    tm = ny.target_moments(qsum)
    c = qsum.coeffs.sum(axis=0)  # U in increasing powers
    m1, m2, m4 = tm["x"].value, tm["x2"].value, tm["x4"].value
    m3 = -(c[1] + 2 * c[2] * m1 + 3 * c[3] * m2) / (4 * c[4])
    lhs = c[1] * m1 + 2 * c[2] * m2 + 3 * c[3] * m3 + 4 * c[4] * m4
    assert lhs == pytest.approx(1.0, abs=1e-14)


def test_quartic_sum_terms_and_gradients(qsum):
    """U and ∇f_i against f_i = (x − c_i)⁴/(4N) + a_i (x − c_i)²/2 written out directly."""
    c, a, N = np.array([-1.0, 0.5, 1.5]), np.array([1.0, 0.5, 2.0]), 3
    x = np.linspace(-2.0, 3.0, 11)[:, None]
    U = ((x - c) ** 4 / (4 * N) + a * (x - c) ** 2 / 2).sum(axis=1)
    np.testing.assert_allclose(qsum.potential(x), U, rtol=1e-13)
    comp = qsum.all_component_grads(x)[:, :, 0]
    np.testing.assert_allclose(comp, (x - c) ** 3 / N + a * (x - c), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(qsum.grad(x)[:, 0], comp.sum(axis=1), rtol=1e-12, atol=1e-13)


# -- bias: first order in h -------------------------------------------------------------------


def _bias_ladder(problem, **kw):
    biases = [ny.stationary_bias(problem, float(h), **kw) for h in H_LADDER]
    return {
        k: (np.array([b[k].value for b in biases]), np.array([b[k].error for b in biases]))
        for k in ny.PHI
    }


@pytest.mark.parametrize(
    ("name", "kw", "max_dev"),
    [
        ("double-well", {}, 0.08),
        ("quartic", {}, 0.06),
        ("quartic-sum", {"scheme": "sgld", "n": 1}, 0.25),
    ],
)
def test_bias_is_first_order_in_h(dw, qsum, quart, name, kw, max_dev):
    """Exact biases at h ∈ {0.04, 0.02, 0.01, 0.005}: log-log slope ≈ 1, and b(h)/h converges.

    Fitted slopes (deterministic; the O(h²) term pulls them above 1):
    double well E x, E x², E x⁴: 1.063, 1.042, 1.050; quartic E x², E x⁴: 1.017, 1.044;
    SGLD (n = 1) on the quartic sum: 1.095, 1.138, 1.225.  The second check is sharper:
    if b = c₁h + c₂h² + O(h³), successive differences of b/h halve with h.
    """
    problem = {"double-well": dw, "quartic": quart, "quartic-sum": qsum}[name]
    for k, (b, err) in _bias_ladder(problem, **kw).items():
        if name == "quartic" and k == "x":
            assert np.all(np.abs(b) <= err + 1e-15)  # symmetric target: zero bias
            continue
        assert np.all(err < 1e-10) and np.all(np.abs(b) > 1e3 * err)
        fit = fit_order(H_LADDER, b, alpha=0.05)
        assert abs(fit.slope - 1) < max_dev, (k, fit.slope)
        d = np.diff(b / H_LADDER)
        ratios = d[:-1] / d[1:]  # → 2; SGLD's E x gives 2.71, 2.34 (larger O(h³) terms)
        assert np.all((ratios > 1.7) & (ratios < 3.0)) and 1.8 < ratios[-1] < 2.5, (k, ratios)


def test_double_well_bias_at_h_001(dw):
    """The reference number for the report: E_h[x²] − E_π[x²] at h = 0.01, LMC."""
    b = ny.stationary_bias(dw, 0.01)["x2"]
    assert b.error < 1e-11
    assert b.value == pytest.approx(-0.0135982949348, abs=1e-12)


# -- Monte Carlo of the real samplers -------------------------------------------------------------


# Double well, LMC at h = 0.05.  The Nyström operator's second eigenvalue there is
# 0.99773: inter-well relaxation takes ≈ 440 steps (22 time units), while the next
# mode (within a well) relaxes in ≈ 12 steps.  Starting from zeros, 400 steps
# would leave e^{-0.9} ≈ 40 % of the initial well imbalance and the test would be
# invalid; a burn-in of ~5000 steps per chain would be needed.  Instead every chain
# starts from an exact draw of π_h (inverse CDF of the Nyström interpolant), so
# under H0 each state is a draw from π_h whatever the burn-in; the 400 steps
# (≈ 33 within-well relaxation times) are for power: they let a wrong kernel move
# the law away from π_h.  One draw per chain: the draws are independent.
DW_H, DW_STEPS = 0.05, 400


def _dw_draws(dw, law, *, chains, bug=False, seed=0):
    sampler = registry.make_sampler("lmc", dw, h=DW_H)
    if bug:
        sampler = dataclasses.replace(sampler, integrator=HalfNoise(sampler.integrator))
    x0 = law.sample(chains, np.random.default_rng(seed))
    res = sv.run_sampler(
        sampler,
        n_steps=DW_STEPS,
        chains=chains,
        seed=seed + 1,
        theta0=x0[:, None],
        burn_in=DW_STEPS - 1,
    )
    th = res.draws["theta"]  # (chains, 1, 1)
    return np.concatenate([th, th**2], axis=-1)  # (chains, 1, 2): x and x²


def _mean_test(obs, expected):
    # Two coordinates, Bonferroni inside z_test_mean (α/2 each); independent chains.
    return z_test_mean(obs, expected, alpha=ALPHA, method="chain_means")


@pytest.fixture(scope="module")
def dw_law(dw):
    return ny.stationary_expectations(dw, DW_H)


@pytest.fixture(scope="module")
def dw_draws(dw, dw_law):
    # 50,000 chains: the target-vs-π_h power test below needs them (z ≈ 6.4 for E x²).
    return _dw_draws(dw, dw_law, chains=50_000, seed=20)


def test_lmc_double_well_matches_nystrom(dw_law, dw_draws):
    out = _mean_test(dw_draws, [dw_law.moments["x"], dw_law.moments["x2"]])
    assert not out.reject, out.description


def test_lmc_double_well_check_catches_a_noise_scale_bug(dw, dw_law):
    """Power: half the noise variance concentrates mass in the deeper (left) well.

    With 20,000 chains, z ≈ −11 for E x and +27 for E x².
    """
    obs = _dw_draws(dw, dw_law, chains=20_000, bug=True, seed=30)
    assert _mean_test(obs, [dw_law.moments["x"], dw_law.moments["x2"]]).reject


def test_lmc_double_well_monte_carlo_resolves_the_discretisation_bias(dw, dw_draws):
    """Power: the same test against the *target* moments rejects (E x² is off by −0.076).

    So at h = 0.05 the comparison must be with π_h, not π.
    """
    tm = ny.target_moments(dw)
    assert _mean_test(dw_draws, [tm["x"].value, tm["x2"].value]).reject


# SGLD (n = 1) on the quartic finite sum at h = 0.04: unimodal, within-mode relaxation
# in a few steps (U'' ≥ 3.5), so 200 steps are ample; chains again start from π_h.
SG_H, SG_CHAINS, SG_STEPS = 0.04, 20_000, 200


@pytest.fixture(scope="module")
def sgld_draws(qsum):
    law = ny.stationary_expectations(qsum, SG_H, scheme="sgld", n=1)
    x0 = law.sample(SG_CHAINS, np.random.default_rng(50))
    res = sv.run(
        "sgld",
        qsum,
        h=SG_H,
        n=1,
        n_steps=SG_STEPS,
        chains=SG_CHAINS,
        seed=51,
        theta0=x0[:, None],
        burn_in=SG_STEPS - 1,
    )
    th = res.draws["theta"]
    return law, np.concatenate([th, th**2], axis=-1)


def test_sgld_finite_sum_matches_nystrom(sgld_draws):
    law, obs = sgld_draws
    out = _mean_test(obs, [law.moments["x"], law.moments["x2"]])
    assert not out.reject, out.description


def test_sgld_check_tells_sgld_from_lmc(qsum, sgld_draws):
    """Power: the minibatch noise's effect (E x² 0.523 vs LMC's 0.364) is resolved."""
    _, obs = sgld_draws
    lmc = ny.stationary_expectations(qsum, SG_H)
    assert _mean_test(obs, [lmc.moments["x"], lmc.moments["x2"]]).reject


@pytest.mark.slow
def test_lmc_double_well_small_step_matches_nystrom(dw):
    """h = 0.01, 100,000 chains, x, x², x⁴ (Bonferroni over 3 inside the test, α = 1e-5).

    Starting from π_h as above; 2000 steps (≈ 20 time units) for power.
    """
    h, chains, steps = 0.01, 100_000, 2000
    law = ny.stationary_expectations(dw, h)
    x0 = law.sample(chains, np.random.default_rng(60))
    res = sv.run(
        "lmc",
        dw,
        h=h,
        n_steps=steps,
        chains=chains,
        seed=61,
        theta0=x0[:, None],
        burn_in=steps - 1,
    )
    th = res.draws["theta"]
    obs = np.concatenate([th, th**2, th**4], axis=-1)
    out = z_test_mean(obs, [law.moments[k] for k in ny.PHI], alpha=ALPHA, method="chain_means")
    assert not out.reject, out.description


# -- transient laws and W2 mixing times (deterministic: exact references, no α spent) ------


def _lmc_gaussian_law(a, mu, h, x0, k):
    """LMC on N(μ, 1/a) from x0: exactly N(m_k, v_k), m_k = μ + r^k (x0 − μ), r = 1 − ha,
    v_k = 2h Σ_{j<k} r^{2j} (a linear recursion with Gaussian noise, derived here)."""
    r = 1 - h * a
    return mu + r**k * (x0 - mu), 2 * h * (1 - r ** (2 * k)) / (1 - r * r)


def test_target_quantile_matches_the_gaussian_ppf():
    """G⁻¹ of N(0.3, 1/2) against scipy's ppf, within the stated interpolation bound."""
    a, mu = 2.0, 0.3
    prob = GaussianQuadratic(np.array([[mu]]), np.array([[[a]]]), name="g")
    q = ny.target_quantile(prob)
    u = np.concatenate(
        [np.logspace(-12, -1, 23), np.linspace(0.1, 0.9, 41), 1 - np.logspace(-1, -9, 17)]
    )
    err = np.abs(q(u) - norm.ppf(u, mu, 1 / math.sqrt(a)))
    assert err.max() <= q.error < 1e-7
    # power: a quantile table of the wrong variance is far outside the bound
    wrong = ny.target_quantile(
        GaussianQuadratic(np.array([[mu]]), np.array([[[1.1 * a]]]), name="w")
    )
    assert np.abs(wrong(u) - norm.ppf(u, mu, 1 / math.sqrt(a))).max() > 100 * q.error


@pytest.mark.parametrize(("a", "mu", "h", "x0"), [(2.0, 0.3, 0.05, 2.5), (0.5, -1.0, 0.2, 3.0)])
def test_transient_lmc_on_a_gaussian_matches_the_exact_k_step_law(a, mu, h, x0):
    """Nyström p_k against N(m_k, v_k): density and CDF to 1e-12, W2 to π to 1e-8.

    W2 between 1-D Gaussians is √((m1 − m2)² + (s1 − s2)²) (closed form), so the
    W2 anchor is independent of the quantile machinery.
    """
    prob = GaussianQuadratic(np.array([[mu]]), np.array([[[a]]]), name="g")
    q = ny.target_quantile(prob)
    laws = ny.TransientLaws(prob, h, x0)
    y = np.linspace(mu - 4, x0 + 1, 201)
    for k in (1, 2, 7, 50, 400):
        m, v = _lmc_gaussian_law(a, mu, h, x0, k)
        assert np.abs(laws.pdf(k, y) - norm.pdf(y, m, math.sqrt(v))).max() < 1e-12, k
        assert np.abs(laws.cdf(k, y) - norm.cdf(y, m, math.sqrt(v))).max() < 1e-12, k
        exact = math.hypot(m - mu, math.sqrt(v) - 1 / math.sqrt(a))
        assert abs(laws.w2(k, q) - exact) < 1e-8, (k, laws.w2(k, q), exact)
        assert abs(laws.mass_defect(k)) < 1e-11
    # power: the noise-scale bug √h (instead of √(2h)) is off by far more than the tolerance
    bug = ny.TransientLaws(prob, h, x0, noise=1 / math.sqrt(2))
    m, v = _lmc_gaussian_law(a, mu, h, x0, 400)
    assert abs(bug.w2(400, q) - math.hypot(m - mu, math.sqrt(v) - 1 / math.sqrt(a))) > 0.1


def test_transient_law_converges_to_the_stationary_solve(dw):
    """After 2^20 steps (≈ 4·10⁴ time units at h = 0.04) the propagated masses are GTH's."""
    h = 0.04
    law = ny.stationary_expectations(dw, h)
    laws = ny.TransientLaws(dw, h, 2.5, nodes=law.n_nodes, L=law.L)
    m = laws.masses(2**20)
    assert np.abs(m / m.sum() - law.weights * law.density).max() < 1e-12
    x2 = float(m @ laws.nodes**2) / m.sum()
    assert abs(x2 - law.moments["x2"]) < 1e-10
    assert np.abs(laws.stationary() - law.weights * law.density).max() < 1e-14


@pytest.mark.parametrize("eps", [0.1, 0.03])
def test_mixing_time_of_lmc_on_a_gaussian_matches_the_closed_form(eps):
    """K(ε) from Nyström equals the K read off the exact Gaussian W2 path (every k)."""
    a, mu, h, x0 = 1.0, 0.0, 0.05, 3.0
    prob = GaussianQuadratic(np.array([[mu]]), np.array([[[a]]]), name="g")
    mt = ny.w2_mixing_time(prob, h, x0, eps, ny.target_quantile(prob))
    ks = np.arange(1, 5000)
    m, v = _lmc_gaussian_law(a, mu, h, x0, ks)
    w = np.hypot(m - mu, np.sqrt(v) - 1 / math.sqrt(a))
    K = int(ks[np.nonzero(w > eps)[0][-1]]) + 1
    assert mt.K == K and mt.K_check == K
    assert mt.w2_before > eps >= mt.w2_at and mt.monotone_after
    assert mt.certified_from >= K and mt.error < 1e-7
    # the stationary W2 of LMC on N(μ, 1/a): |σ_h − σ| with σ_h² = 2/(a(2 − ha))
    assert mt.stationary_w2 == pytest.approx(abs(math.sqrt(2 / (a * (2 - h * a))) - 1), abs=1e-8)


def test_mixing_time_error_estimate_bounds_a_doubled_node_solve(dw):
    """Double well, ε = 0.4, η = ε⁴/2: W2 at K − 1, K within the (3/4-node) error estimate
    of a doubled-node solve; both solves agree on K, and K − 1 is above ε by more than it."""
    eps = 0.4
    h = 0.5 * eps**4
    q = ny.target_quantile(dw)
    mt = ny.w2_mixing_time(dw, h, 2.5, eps, q, check=0.75)
    fine = ny.TransientLaws(dw, h, 2.5, nodes=2 * mt.n_nodes)
    for k, w in ((mt.K - 1, mt.w2_before), (mt.K, mt.w2_at)):
        assert abs(fine.w2(k, q) - w) <= mt.error, k
    assert mt.K_check == mt.K and mt.K_uncertainty < 0.5
    assert mt.w2_before - eps > mt.error and eps - mt.w2_at > mt.error
    # the certificate: W2 stays below ε at later steps
    assert all(fine.w2(k, q) <= eps for k in (mt.K + 1, 2 * mt.K, mt.certified_from + 7))


def test_mixing_time_is_none_for_a_chain_with_the_wrong_noise(dw):
    """Power: noise √η instead of √(2η) targets ∝ exp(−2U): W2(π_η, π) ≈ 1.4 > ε."""
    q = ny.target_quantile(dw)
    mt = ny.w2_mixing_time(dw, 0.5 * 0.4**4, 2.5, 0.4, q, noise=1 / math.sqrt(2))
    assert mt.K is None and mt.stationary_w2 > 1.0


def test_polynomial_sum_without_exact_values_drives_the_same_chain(qsum):
    fast = ny.PolynomialSum1D(qsum.coeffs, name="fast", exact=False)
    assert fast.exact == {}
    t = np.linspace(-2, 2, 9)[:, None]
    assert np.array_equal(fast.all_component_grads(t), qsum.all_component_grads(t))
    assert np.array_equal(fast.potential(t), qsum.potential(t))


def test_transient_bad_arguments_are_rejected(dw):
    with pytest.raises(ValueError, match="one-dimensional"):
        ny.TransientLaws(gaussian_differing(3, 2), 0.1, 0.0)
    with pytest.raises(ValueError, match="leaves"):
        ny.TransientLaws(dw, 0.01, 7.5)
    with pytest.raises(ValueError, match="sgld"):
        ny.TransientLaws(dw, 0.01, 0.0, n=1)
    with pytest.raises(ValueError, match="farther"):
        ny.w2_mixing_time(dw, 0.01, -2.9, 3.0, ny.target_quantile(dw))
