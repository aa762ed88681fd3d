"""The issue-11 references without a paper of their own in the catalogue: cv-SGLD, pSGLD (fixed G).

For each: (a) its exact law equals an independent derivation, (b) the law probed from the
registry's implementation equals the exact law, (c) ``validate(..., mode="step")`` passes
an independently written step and fails a planted bug in the new parameter, on the
validation problem (:func:`sgmcmc_verify.validation.targets.problem_step`: d = 2, a
prior, N = 4, a batch of two).  Everything here is exact (sympy or float64 linear
algebra): no Monte Carlo, no α.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from sgmcmc_verify import integrators as integ
from sgmcmc_verify import registry
from sgmcmc_verify.estimators import ControlVariate
from sgmcmc_verify.exact import linear, moments, probe
from sgmcmc_verify.problems import GaussianQuadratic, gaussian_differing, gaussian_identical
from sgmcmc_verify.validation import targets, validate
from sgmcmc_verify.validation.probing import sampler_step
from sgmcmc_verify.validation.targets import problem_step

#: A correlated SPD preconditioner for d = 2 (not diagonal, not a multiple of I).
G2 = ((0.8, 0.3), (0.3, 0.5))


def _sym_root(G):
    w, V = np.linalg.eigh(np.asarray(G, dtype=float))
    return (V * np.sqrt(w)) @ V.T


# --------------------------------------------------------------------------------------
# cv-SGLD (Baker, Fearnhead, Fox & Nemeth 2019, §3.1, Algorithm 1)
# --------------------------------------------------------------------------------------


def test_cv_sgld_exact_law_equals_a_sympy_derivation():
    """1-D, N = 2 terms with curvatures a_i, a prior, a centre θ̂ off the mode, n = 1.

    Written out by hand: ĝ(θ) = a_0(θ − m_0) + Σ_i a_i(θ̂ − c_i) + N a_I (θ − θ̂), so
    θ' = α_I θ + k_I + √(2h) ξ with I uniform; the stationary m = E θ and s = E θ² solve
    m = E[α]m + E[k] and s = E[α²]s + 2E[αk]m + E[k²] + 2h (exact rationals).
    """
    a = [sp.Rational(3, 2), sp.Rational(1, 2)]
    c = [sp.Rational(1, 3), sp.Rational(-2, 1)]
    a0, m0, centre, h = sp.Rational(1, 4), sp.Rational(1, 1), sp.Rational(7, 5), sp.Rational(1, 5)
    N = 2
    const = a0 * m0 - sum(ai * (centre - ci) for ai, ci in zip(a, c, strict=True))
    alphas = [1 - h * a0 - h * N * ai for ai in a]
    ks = [h * const + h * N * ai * centre for ai in a]
    E = lambda xs: sum(xs) / N  # noqa: E731 - uniform index
    m = E(ks) / (1 - E(alphas))
    s = 2 * E([al * k for al, k in zip(alphas, ks, strict=True)]) * m + E([k**2 for k in ks])
    s = (s + 2 * h) / (1 - E([al**2 for al in alphas]))
    var = s - m**2

    prob = GaussianQuadratic(
        np.array([[float(x)] for x in c]),
        np.array([[[float(x)]] for x in a]),
        prior_precision=[[float(a0)]],
        prior_mean=[float(m0)],
        name="cv-1d",
    )
    chain = moments.affine_chain("cv-sgld", prob, h=float(h), n=1, centre=[float(centre)])
    st = moments.stationary_moments(chain)
    assert st.period == 1  # a fixed centre: no epoch, no periodic phase maps
    assert st.time_mean[0] == pytest.approx(float(m), rel=1e-13)
    assert st.time_cov[0, 0] == pytest.approx(float(var), rel=1e-12)
    # The estimator is unbiased, so the mean is the target's whatever θ̂ (Baker et al. §3.1)
    assert float(m) == pytest.approx(float(prob.exact["mean"].value[0]), rel=1e-14)


def test_cv_sgld_with_identical_curvatures_is_lmc_for_any_centre():
    """Λ_i = Λ for all i: ĝ(θ) = ∇U(θ) exactly (Σ_i Λ(θ̂ − c_i) + NΛ(θ − θ̂) = Σ_i Λ(θ − c_i))."""
    prob = gaussian_identical(N=4, d=2, precision=np.array([[1.5, 0.4], [0.4, 0.7]]), seed=2)
    h = 0.2
    cv = moments.stationary_moments(
        moments.affine_chain("cv-sgld", prob, h=h, n=2, centre=[5.0, -3.0])
    )
    lmc = moments.stationary_moments(moments.affine_chain("lmc", prob, h=h))
    np.testing.assert_allclose(cv.time_mean, lmc.time_mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cv.time_cov, lmc.time_cov, rtol=1e-12)


def test_cv_sgld_estimator_is_unbiased_by_enumeration():
    """Average of the registry estimator over all N^n ordered batches equals ∇U(θ)."""
    prob = problem_step()
    est = ControlVariate(2, centre=np.array([0.5, 1.0]))
    theta = np.array([[0.3, -1.2]])
    law = probe.index_law(prob.N, 2)
    avg = sum(p * est.estimate(prob, theta, None, np.array([S]))[0] for S, p in law)
    np.testing.assert_allclose(avg, prob.grad(theta), rtol=1e-13, atol=1e-13)


def test_cv_sgld_exact_law_has_no_epoch_to_enumerate():
    """Unlike svrg-ld with a huge epoch D (P = D phase maps), the fixed centre has period 1:
    the stationary solve builds one map per index multiset (a count, not seconds)."""
    prob = problem_step()
    chain = moments.affine_chain("cv-sgld", prob, h=0.1, n=2)
    calls = []

    def counting(S, phase, step=chain.step):
        calls.append((S, phase))
        return step(S, phase)

    import dataclasses

    moments.stationary_moments(dataclasses.replace(chain, step=counting))
    assert chain.period == 1 and len(calls) == math.comb(prob.N + 2 - 1, 2)


@pytest.mark.parametrize(
    ("name", "params"),
    [("cv-sgld", {"n": 2}), ("cv-sgld", {"n": 2, "centre": (1.0, 2.5)}), ("psgld-fixed", {"n": 2}),
     ("psgld-fixed", {"n": 2, "G": G2}), ("psgld-fixed", {"n": 2, "G": (0.7, 1.6)})],
)  # fmt: skip
def test_probed_law_of_the_implementation_equals_the_exact_law(name, params):
    """The registry's step, probed (exact/probe.py), against the moment equations."""
    prob = problem_step()
    for h in (0.2, 0.05):
        step, state, law, noise_dim = sampler_step(name, prob, h=h, **params)
        pc = probe.probe_chain(
            step, state, h=h, law=law, noise_dim=noise_dim, kwargs={"problem": prob}
        )
        got = pc.stationary()
        want = moments.stationary_moments(moments.affine_chain(name, prob, h=h, **params))
        np.testing.assert_allclose(got.time_mean, want.time_mean, rtol=0, atol=1e-10)
        np.testing.assert_allclose(got.time_cov, want.time_cov, rtol=0, atol=1e-10)
        # and the transient law from θ_0 = 0 at a few steps
        tp = pc.transient([1, 5, 40], np.zeros(prob.d))
        tm = moments.transient_moments(moments.affine_chain(name, prob, h=h, **params), [1, 5, 40])
        np.testing.assert_allclose(tp.state_mean, tm.state_mean, rtol=0, atol=1e-10)
        np.testing.assert_allclose(tp.state_cov, tm.state_cov, rtol=0, atol=1e-10)


def _cv_step(state, *, h, noise, indices, problem, randomness=None, refresh=False, at_mode=False):
    """cv-SGLD written from Baker et al. §3.1 with the problem's arrays (not the package's
    estimator): ĝ = Λ_0(θ − m_0) + Σ_i Λ_i(θ̂ − c_i) + (N/n) Σ_j Λ_{s_j}(θ − θ̂), θ̂ the
    centre the harness passes (off the mode).  Planted bugs: ``refresh=True`` — the centre
    follows the chain (θ̂ ← θ every step); ``at_mode=True`` — the given centre is ignored
    and the mode used (the registry's default, which a centre at the mode would hide)."""
    th = state["theta"]
    L, c = problem.precisions, problem.centres
    N, n = problem.N, indices.shape[1]
    centre = np.broadcast_to(targets.step_params("cv-sgld")["centre"], th.shape)
    if at_mode:
        centre = np.broadcast_to(problem.exact["mean"].value, th.shape)
    if refresh:
        centre = th
    g = (th - problem.prior_mean) @ problem.prior_precision
    g = g + np.einsum("nij,cnj->ci", L, centre[:, None, :] - c[None])
    g = g + (N / n) * np.einsum("cbij,cbj->ci", L[indices], (th - centre)[:, None, :])
    return {"theta": th - h * g + math.sqrt(2 * h) * noise}


def test_validate_step_mode_passes_cv_sgld_and_fails_a_refreshed_centre():
    ok = validate(_cv_step, algorithm="cv-sgld", mode="step", timeout=None)
    assert ok.verdict == "pass", [(c.name, c.verdict, c.message) for c in ok.checks]
    assert {c.name for c in ok.checks} >= {"step-by-step comparison", "exact law of cv-sgld"}
    bad = validate(
        lambda s, **k: _cv_step(s, refresh=True, **k), algorithm="cv-sgld", mode="step",
        timeout=None,
    )  # fmt: skip
    verdicts = {c.name: c.verdict for c in bad.checks}
    assert bad.verdict == "fail"
    assert verdicts["step-by-step comparison"] == "fail"
    # θ̂ = θ makes ĝ the full gradient: the exact law is LMC's, not cv-SGLD's
    assert verdicts["exact law of cv-sgld"] == "fail"
    law = next(c for c in bad.checks if c.name == "exact law of cv-sgld")
    assert "`lmc`" in law.message
    mode = validate(
        lambda s, **k: _cv_step(s, at_mode=True, **k), algorithm="cv-sgld", mode="step",
        timeout=None,
    )  # fmt: skip
    assert mode.verdict == "fail", [(c.name, c.verdict, c.message) for c in mode.checks]


def test_cv_sgld_needs_a_centre_off_gaussian_problems():
    from sgmcmc_verify import problems

    prob = problems.get("double-well")
    with pytest.raises(ValueError, match="centre"):
        registry.make_sampler("cv-sgld", prob, h=0.1, n=1)
    s = registry.make_sampler("cv-sgld", prob, h=0.1, n=1, centre=np.zeros(prob.d))
    assert isinstance(s.estimator, ControlVariate)
    with pytest.raises(ValueError, match="shape"):
        registry.make_sampler("cv-sgld", problem_step(), h=0.1, centre=[1.0]).init(
            np.zeros((2, 2)), np.random.default_rng(0)
        )


# --------------------------------------------------------------------------------------
# pSGLD with a fixed preconditioner (Li, Chen, Carlson & Carin 2016, Algorithm 1)
# --------------------------------------------------------------------------------------


def test_psgld_closed_form_by_hand():
    """1-D, scalar G, gradient aθ + e (Var e = s²): u' = (1 − aGh)u − hG e + √(2hG) ξ, so
    Var = (h²G²s² + 2hG)/(1 − (1 − aGh)²) = (2 + Ghs²)/(a(2 − aGh)); bias Gh(a + s²)/(2a)."""
    sm = linear.symbolic_moments("psgld")
    sym = {str(s): s for s in sm.parameters}
    a, h, s2, G = sym["a"], sym["h"], sym["s2"], sym["G"]
    by_hand = (h**2 * G**2 * s2 + 2 * h * G) / (1 - (1 - a * G * h) ** 2)
    assert sp.simplify(sm.var_theta - by_hand) == 0
    assert sp.simplify(sm.var_theta - (2 + G * h * s2) / (a * (2 - a * G * h))) == 0
    order, coef = linear.leading_bias("psgld")
    assert order == 1 and sp.simplify(coef - G * (a + s2) / (2 * a)) == 0


@pytest.mark.parametrize("G", [G2, (0.7, 1.6)])
def test_psgld_exact_law_is_sgld_in_whitened_coordinates(G):
    """Independent derivation: with G = L Lᵀ (Cholesky) and θ = Lφ, pSGLD in θ is SGLD in φ
    on the target with Λ_i → LᵀΛ_iL, c_i → L⁻¹c_i (prior likewise): ∇_φ U = Lᵀ∇_θ U and
    L⁻¹G^{1/2}ξ ~ N(0, I).  So the exact law is L (SGLD law on the transformed target)."""
    prob = gaussian_differing(N=4, d=2, curvature_spread=1.5, seed=1)
    prob = GaussianQuadratic(
        prob.centres + 2.0, prob.precisions, prior_precision=[[0.5, 0.2], [0.2, 0.3]],
        prior_mean=[-1.0, 2.0], name="p",
    )  # fmt: skip
    Gm = np.asarray(G, dtype=float)
    Gm = np.diag(Gm) if Gm.ndim == 1 else Gm
    L = np.linalg.cholesky(Gm)
    Li = np.linalg.inv(L)
    white = GaussianQuadratic(
        prob.centres @ Li.T,
        np.einsum("ji,njk,kl->nil", L, prob.precisions, L),
        prior_precision=L.T @ prob.prior_precision @ L,
        prior_mean=Li @ prob.prior_mean,
        name="whitened",
    )
    h = 0.15
    ps = moments.stationary_moments(moments.affine_chain("psgld-fixed", prob, h=h, n=2, G=G))
    sg = moments.stationary_moments(moments.affine_chain("sgld", white, h=h, n=2))
    np.testing.assert_allclose(ps.time_mean, L @ sg.time_mean, rtol=0, atol=1e-11)
    np.testing.assert_allclose(ps.time_cov, L @ sg.time_cov @ L.T, rtol=0, atol=1e-11)
    # Full gradient (N = 1 data term): the numeric scheme of exact/linear.py agrees too
    one = GaussianQuadratic(prob.centres[:1], prob.precisions[:1] * 4, name="one")
    lin = linear.algorithm_moments("psgld-fixed", one, h, G=G)
    mom = moments.stationary_moments(moments.affine_chain("psgld-fixed", one, h=h, n=1, G=G))
    np.testing.assert_allclose(lin.theta_cov, mom.time_cov, rtol=1e-11)


def test_psgld_with_scalar_g_is_the_euler_step_at_step_gh():
    """θ − hG g + √(2hG) ξ is AGLD eq. (5) at step Gh, noise for noise."""
    rng = np.random.default_rng(5)
    th, g, xi = (rng.standard_normal((6, 3)) for _ in range(3))
    a = integ.PreconditionedEM(0.2, G=0.35).advance(integ.OverdampedState(th), g, xi).theta
    b = integ.OverdampedEM(0.2 * 0.35).advance(integ.OverdampedState(th), g, xi).theta
    np.testing.assert_allclose(a, b, rtol=1e-15, atol=1e-15)
    # a diagonal G is the per-coordinate step h·G_j (Li et al.'s diagonal form)
    c = integ.PreconditionedEM(0.2, G=(0.35, 1.0, 2.0)).advance(integ.OverdampedState(th), g, xi)
    for j, gj in enumerate((0.35, 1.0, 2.0)):
        want = th[:, j] - 0.2 * gj * g[:, j] + math.sqrt(2 * 0.2 * gj) * xi[:, j]
        np.testing.assert_allclose(c.theta[:, j], want, rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize(
    ("G", "match"),
    [(-1.0, "finite and > 0"), (((1.0, 2.0), (2.0, 1.0)), "positive definite"),
     (((1.0, 0.5), (0.0, 1.0)), "symmetric"), ((1.0, 0.0), "positive definite")],
)  # fmt: skip
def test_psgld_rejects_a_preconditioner_that_is_not_spd(G, match):
    with pytest.raises(ValueError, match=match):
        registry.make_sampler("psgld-fixed", problem_step(), h=0.1, G=G).init(
            np.zeros((1, 2)),
            np.random.default_rng(0),
        )


def test_psgld_rejects_a_preconditioner_of_another_dimension():
    s = registry.make_sampler("psgld-fixed", problem_step(), h=0.1, G=np.eye(3))
    with pytest.raises(ValueError, match="d = 2"):
        s.init(np.zeros((1, 2)), np.random.default_rng(0))


def _psgld_step(state, *, h, noise, indices, problem, randomness=None, bug=None):
    """pSGLD with fixed G from Li et al. Alg. 1 (ε = 2h), the minibatch written out.
    Planted bugs: ``"twice"`` (G² in the drift), ``"no-root"`` (G, not G^{1/2}, on ξ)."""
    th = state["theta"]
    L, c = problem.precisions, problem.centres
    N, n = problem.N, indices.shape[1]
    g = (th - problem.prior_mean) @ problem.prior_precision
    g = g + (N / n) * np.einsum("cbij,cbj->ci", L[indices], th[:, None, :] - c[indices])
    G = np.array(G2)
    drift = G @ G if bug == "twice" else G
    root = G if bug == "no-root" else _sym_root(G)
    return {"theta": th - h * g @ drift + math.sqrt(2 * h) * noise @ root}


def test_validate_step_mode_passes_psgld_and_fails_two_preconditioner_bugs():
    params = {"G": G2}
    ok = validate(_psgld_step, algorithm="psgld-fixed", mode="step", params=params, timeout=None)
    assert ok.verdict == "pass", [(c.name, c.verdict, c.message) for c in ok.checks]
    assert "exact law of psgld-fixed" in {c.name for c in ok.checks}
    for bug in ("twice", "no-root"):
        bad = validate(
            lambda s, bug=bug, **k: _psgld_step(s, bug=bug, **k), algorithm="psgld-fixed",
            mode="step", params=params, timeout=None,
        )  # fmt: skip
        verdicts = {c.name: c.verdict for c in bad.checks}
        assert bad.verdict == "fail", bug
        assert verdicts["exact law of psgld-fixed"] == "fail", bug
        # both bugs break π's invariance, not only the discretisation
        assert verdicts["consistency (exact, h → 0)"] == "fail", bug


# --------------------------------------------------------------------------------------
# SGHMC with a momentum refresh every L steps (Chen, Fox & Guestrin 2014, Algorithm 2)
# --------------------------------------------------------------------------------------


def _refresh_maps_by_hand(a, h, A, mu):
    """1-D, full gradient aθ: the two maps of Algorithm 2 observed as (θ_{i+1}, r_i).

    Refresh: p' = ξ, θ' = θ + hξ.  Inner: p' = (1 − Ah)p − ha(θ − μ) + √(2Ah) ξ, θ' = θ + hp'.
    Returns ``[(M, c, b)]`` for the refresh and the inner step (b the noise column).
    """
    ref = (np.array([[1.0, 0.0], [0.0, 0.0]]), np.zeros(2), np.array([h, 1.0]))
    Mp = np.array([-h * a, 1 - A * h])
    M = np.vstack([np.array([1.0, 0.0]) + h * Mp, Mp])
    c = np.array([h * h * a * mu, h * a * mu])
    b = math.sqrt(2 * A * h) * np.array([h, 1.0])
    return ref, (M, c, b)


@pytest.mark.parametrize("L", [2, 3, 7])
def test_sghmc_refresh_exact_law_equals_the_composed_period_map(L):
    """Independent derivation: compose the L maps of one period by hand (float64), solve
    the period's Lyapunov equation for phase 0, then push it through the phases."""
    from scipy.linalg import solve_discrete_lyapunov

    a, h, A, mu = 1.3, 0.2, 1.5, 0.7
    prob = GaussianQuadratic(np.array([[mu]]), np.array([[[a]]]), name="one")
    ref, inner = _refresh_maps_by_hand(a, h, A, mu)
    maps = [ref] + [inner] * (L - 1)
    Phi, c, Q = np.eye(2), np.zeros(2), np.zeros((2, 2))
    for M, cc, b in maps:
        Phi, c, Q = M @ Phi, M @ c + cc, M @ Q @ M.T + np.outer(b, b)
    st = moments.stationary_moments(
        moments.affine_chain("sghmc-refresh", prob, h=h, A=A, L=L, gradient="full")
    )
    assert st.period == L
    m = np.linalg.solve(np.eye(2) - Phi, c)
    S = solve_discrete_lyapunov(Phi, Q)
    for j, (M, cc, b) in enumerate(maps):
        np.testing.assert_allclose(st.state_mean[j], m, rtol=0, atol=1e-12)
        np.testing.assert_allclose(st.state_cov[j], S, rtol=1e-11, atol=1e-13)
        m, S = M @ m + cc, M @ S @ M.T + np.outer(b, b)
    # after the refresh step p is a fresh N(0, 1): Var p = 1, Cov(θ, p) = h, exactly
    assert st.state_cov[1 % L][1, 1] == pytest.approx(1.0, rel=1e-13)
    assert st.state_cov[1 % L][0, 1] == pytest.approx(h, rel=1e-13)


def test_sghmc_refresh_every_step_has_no_stationary_law():
    """L = 1: p is redrawn every step, θ is a random walk (Φ has eigenvalue 1)."""
    prob = problem_step()
    with pytest.raises(ValueError, match="spectral radius"):
        moments.stationary_moments(moments.affine_chain("sghmc-refresh", prob, h=0.1, n=2, L=1))


def _phase_step(params, k):
    """The registry step at a fixed phase ``k`` (the step count is part of its state)."""
    from sgmcmc_verify.algorithms import StepRandomness

    def step(state, *, h, noise, indices, problem, randomness=None):
        s = registry.make_sampler("sghmc-refresh", problem, h=h, **params)
        st = integ.RefreshState(state["theta"], state["p"], k)
        new, _ = s.step(st, StepRandomness(indices, noise))
        return {"theta": new.theta, "p": new.p}

    return step


@pytest.mark.parametrize("L", [2, 5])
def test_sghmc_refresh_probed_phase_maps_give_the_exact_law(L):
    """(b) for a periodic chain: probe the implementation's refresh step and its inner
    step separately (each is affine), chain them with period L, compare every phase."""
    prob = problem_step()
    h, params = 0.1, {"n": 2, "A": 1.5, "B_hat": 0.3, "L": L}
    law = probe.index_law(prob.N, 2)
    state = {"theta": np.zeros((1, 2)), "p": np.zeros((1, 2))}
    probed = [
        probe.probe_chain(_phase_step(params, k), state, h=h, law=law, kwargs={"problem": prob})
        for k in (0, 1)
    ]
    base = probed[0].chain()
    import dataclasses

    chain = dataclasses.replace(
        base,
        period=L,
        step=lambda S, phase: probed[0 if phase % L == 0 else 1].maps[S],
    )
    got = moments.stationary_moments(chain)
    want = moments.stationary_moments(moments.affine_chain("sghmc-refresh", prob, h=h, **params))
    np.testing.assert_allclose(got.state_mean, want.state_mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.state_cov, want.state_cov, rtol=0, atol=1e-10)


def _refresh_step(state, *, h, noise, indices, problem, randomness=None, bug=None):
    """Algorithm 2 written out (A = 1.5, the harness's friction; B̂ = 0; L = 10), the step
    count kept in the state dict.  Bugs: ``"never"`` (no refresh), ``"late"`` (refresh
    at phase 1 instead of 0)."""
    th, p, k = state["theta"], state["p"], state.get("k", 0)
    A, L = 1.5, 10
    Lam, c = problem.precisions, problem.centres
    N, n = problem.N, indices.shape[1]
    phase = (k - 1) % L if bug == "late" else k % L
    if phase == 0 and bug != "never":
        p = noise
    else:
        g = (th - problem.prior_mean) @ problem.prior_precision
        g = g + (N / n) * np.einsum("cbij,cbj->ci", Lam[indices], th[:, None, :] - c[indices])
        p = p - A * p * h - g * h + math.sqrt(2 * A * h) * noise
    return {"theta": th + h * p, "p": p, "k": k + 1}


def test_validate_step_mode_passes_sghmc_refresh_and_fails_a_missing_refresh():
    ok = validate(_refresh_step, algorithm="sghmc-refresh", mode="step", timeout=None)
    assert ok.verdict == "pass", [(c.name, c.verdict, c.message) for c in ok.checks]
    comp = {c.name: c.verdict for c in ok.checks}["step-by-step comparison"]
    assert comp == "pass"
    for bug in ("never", "late"):
        bad = validate(
            lambda s, bug=bug, **k: _refresh_step(s, bug=bug, **k), algorithm="sghmc-refresh",
            mode="step", timeout=None,
        )  # fmt: skip
        verdicts = {c.name: c.verdict for c in bad.checks}
        assert bad.verdict == "fail" and verdicts["step-by-step comparison"] == "fail", bug


def test_sghmc_refresh_algorithm_moments_is_the_law_after_whole_periods():
    """exact/linear.algorithm_moments (used by the smoke test on one data term) returns the
    refresh-phase law of the moment equations, and a per-step spectral radius."""
    prob = GaussianQuadratic(np.array([[0.3]]), np.array([[[1.0]]]), name="one")
    got = linear.algorithm_moments("sghmc-refresh", prob, 0.1, L=4)
    st = moments.stationary_moments(moments.affine_chain("sghmc-refresh", prob, h=0.1, L=4))
    np.testing.assert_allclose(got.cov, st.state_cov[0], rtol=1e-14)
    np.testing.assert_allclose(got.mean, st.state_mean[0], rtol=1e-14)
    assert got.spectral_radius == pytest.approx(st.spectral_radius**0.25, rel=1e-14)


@pytest.mark.parametrize("L", [2, 4])
def test_sghmc_refresh_at_fixed_l_is_not_consistent_as_h_shrinks(L):
    """A property of Algorithm 2 at fixed m = L (no M–H step), not of the code: per period
    θ moves by hLξ (variance h²L²) with a drift −h²L(L−1)/2·∇U (the refresh step moves
    θ with no gradient kick), so as h → 0 the chain is Langevin at temperature L/(L−1):
    a Var θ → L/(L−1) on N(0, 1/a).  Richardson 2v(h/2) − v(h) removes the O(h) term; its
    O(h²) remainder at h = 0.002 is below 1e-5 (measured 4e-6 for L = 4)."""
    a = 1.3
    prob = GaussianQuadratic(np.zeros((1, 1)), np.full((1, 1, 1), a), name="one")

    def var(h):
        chain = moments.affine_chain("sghmc-refresh", prob, h=h, gradient="full", L=L, A=1.5)
        return a * moments.stationary_moments(chain).time_cov[0, 0]

    assert abs(2 * var(0.001) - var(0.002) - L / (L - 1)) < 1e-5
    # the registry declares that limit (generic checks judge "the bias shrinks" against it)
    declared = registry.get("sghmc-refresh").temperature({"L": L})
    assert abs(2 * var(0.001) - var(0.002) - declared) < 1e-5
    # and L = 1 (a random walk: the refresh erases every gradient kick) has no finite limit
    assert registry.get("sghmc-refresh").temperature({"L": 1}) == math.inf


def test_a_huge_svrg_epoch_is_refused_with_the_reason_not_run():
    """Issue 11: svrg-ld with D = 10⁹ used to grind through 10⁹ phase maps; the moment
    equations now refuse a period above MAX_PERIOD before building any map, naming cv-sgld
    (a count of map builds, not a time)."""
    import dataclasses

    chain = moments.affine_chain("svrg-ld", problem_step(), h=0.1, n=2, D=10**9)
    calls = []

    def counting(S, phase, step=chain.step):
        calls.append(phase)
        return step(S, phase)

    counted = dataclasses.replace(chain, step=counting)
    with pytest.raises(ValueError, match="cv-sgld"):
        moments.stationary_moments(counted)
    with pytest.raises(ValueError, match="period 1000000000"):
        moments.transient_moments(counted, [5])
    assert calls == []


# -- BADODAB (Leimkuhler & Shang 2016): sampler mode on the validation problem ----------------


def _badodab_bad_d(problem, h):
    """Planted bug: BADODAB's D half-step after O with the wrong sign (ξ₁ − (h/2μ)(|p'|² − d)):
    the two half-steps cancel on average and ξ loses its restoring drift."""
    import dataclasses

    s = registry.make_sampler("badodab", problem, h=h, **targets.plan("badodab").params)
    i = s.integrator

    class Flipped(integ.BADODAB):
        def advance(self, state, grad, noise):
            new = super().advance(state, grad, noise)
            xi1 = self._d(state.xi, state.p - self.h * grad)  # the D before O, correct
            return new._replace(xi=2 * xi1 - new.xi)

    return dataclasses.replace(s, integrator=Flipped(i.h, A=i.A, mu=i.mu, xi0=i.xi0))


def _two_sample_rejections(report) -> list[str]:
    """Quantities the reference comparison rejected, two-sample tests only (each at the
    report's α_each: α = 0.01 over all tests and step sizes, Bonferroni)."""
    return [
        f"{c.name}: {t['quantity']}"
        for c in report.checks
        for t in c.numbers.get("tests", [])
        if "reference" in t and t["reject"]
    ]


def test_validate_badodab_reference_agrees_with_itself_two_sample():
    """The registry's BADODAB against itself (independent seeds): no two-sample test rejects
    (each at α_each, family α = 0.01; this fails with probability ≤ 0.01)."""
    from sgmcmc_verify.validation.core import reference_sample_function

    rep = validate(reference_sample_function("badodab"), "badodab", timeout=None)
    assert rep.settings["alpha"] == 0.01
    assert _two_sample_rejections(rep) == []


def test_validate_passes_the_badodab_reference():
    """SGNHT's E[pᵀp]/d = 1 on the recorded p is not BADODAB's identity (E|p_b|²/d is
    1 − O(h·noise), 0.994 at h = 0.1): the harness skips it for schemes whose identity needs
    the step's gradient (exact.thermostat.NEEDS_GRAD), which a sample function does not give."""
    from sgmcmc_verify.validation.core import reference_sample_function

    rep = validate(reference_sample_function("badodab"), "badodab", timeout=None)
    assert rep.verdict == "pass", [(c.name, c.message) for c in rep.checks]


def test_validate_fails_badodab_with_a_sign_flipped_d_step():
    """The flipped D leaves ξ without feedback: Cov θ and Cov p collapse (z ≈ −70 and −160 at
    h = 0.1), rejected by the two-sample tests at α_each (family α = 0.01)."""
    from sgmcmc_verify.validation.core import reference_sample_function

    rep = validate(reference_sample_function("badodab", make=_badodab_bad_d), "badodab",
                   timeout=None)  # fmt: skip
    assert rep.verdict == "fail"
    bad = _two_sample_rejections(rep)
    assert any("Cov θ" in b for b in bad) and any("Cov p" in b for b in bad), bad


def _badodab_step(state, *, h, noise, indices, problem, randomness=None, bug=None):
    """BADODAB written out (A = 1.5, the harness's friction; μ = 1), the merged B(h) kick with
    the batch gradient (N/n)Σ plus the prior.  Bug ``"flip"``: the D after O subtracts."""
    th, p, xi = state["theta"], state["p"], state["xi"]
    A, mu, d = 1.5, 1.0, state["theta"].shape[1]
    Lam, c = problem.precisions, problem.centres
    N, n = problem.N, indices.shape[1]
    g = (th - problem.prior_mean) @ problem.prior_precision
    g = g + (N / n) * np.einsum("cbij,cbj->ci", Lam[indices], th[:, None, :] - c[indices])
    pa = p - h * g  # B(h/2) B(h/2)
    th = th + h / 2 * pa  # A
    xi = xi + h / (2 * mu) * ((pa * pa).sum(axis=1) - d)  # D
    var = -A * np.expm1(-2 * xi * h) / xi  # σ_A²(1 − e^{−2ξh})/(2ξ)
    p = np.exp(-xi * h)[:, None] * pa + np.sqrt(var)[:, None] * noise  # O
    xi = xi + (-1 if bug == "flip" else 1) * h / (2 * mu) * ((p * p).sum(axis=1) - d)  # D
    return {"theta": th + h / 2 * p, "p": p, "xi": xi}  # A


def test_validate_step_mode_passes_badodab_and_fails_a_flipped_d():
    ok = validate(_badodab_step, algorithm="badodab", mode="step", timeout=None)
    assert ok.verdict == "pass", [(c.name, c.verdict, c.message) for c in ok.checks]
    bad = validate(lambda s, **k: _badodab_step(s, bug="flip", **k), algorithm="badodab",
                   mode="step", timeout=None)  # fmt: skip
    comp = {c.name: c for c in bad.checks}["step-by-step comparison"]
    assert bad.verdict == "fail" and comp.verdict == "fail"
    assert "xi" in comp.message
