"""Step mode by the exact law of the user's own step (issue 11 items 1–3).

Specifications, on the step-mode problem (d = 2, correlated, a prior, N = 4, batch 2):
valid schemes the references lack pass and are named; broken ones fail with the
diagnosis the numbers support; a step the probe cannot judge is an error, not a pass.
All exact: no statistical test, so no α.
"""

import functools

import numpy as np
import pytest

from sgmcmc_verify.validation import targets, validate

P = targets.problem_step()
THETA = {"theta": np.zeros(2)}
MOM = {"theta": np.zeros(2), "p": np.zeros(2)}
CACHE = {"theta": np.zeros(2), "p": np.zeros(2), "grad": np.zeros(2)}


def _grad(problem, th, idx, *, prior=1.0, data=None):
    n = idx.shape[1]
    scale = problem.N / n if data is None else data
    return prior * problem.prior_grad(th) + scale * problem.component_grads(th, idx).sum(1)


def sgld(state, *, h, noise, indices, problem, randomness=None):
    th = state["theta"]
    return {"theta": th - h * _grad(problem, th, indices) + np.sqrt(2 * h) * noise}


def baoab(state, *, h, noise, indices, problem, randomness=None, gamma=1.3, o_noise=None):
    """A literal BAOAB (Leimkuhler & Matthews 2013) with a cached full gradient."""
    th, p, g = state["theta"], state["p"], state["grad"]
    p = p - h / 2 * g
    th = th + h / 2 * p
    c = np.exp(-gamma * h)
    p = c * p + (np.sqrt(1 - c * c) if o_noise is None else o_noise(gamma, h)) * noise
    th = th + h / 2 * p
    g = problem.grad(th)
    return {"theta": th, "p": p - h / 2 * g, "grad": g}


def explicit_sghmc(state, *, h, noise, indices, problem, randomness=None, friction=1.0):
    """SGHMC by explicit Euler (θ moves with the old momentum), as posteriors/blackjax."""
    th, p = state["theta"], state["p"]
    g = _grad(problem, th, indices)
    return {
        "theta": th + h * p,
        "p": p - h * g - h * friction * p + np.sqrt(2 * friction * h) * noise,
    }


def test_users_baoab_gets_its_exact_law_passes_and_is_named():
    rep = validate(baoab, mode="step", state=CACHE, params={"gamma": 1.3})
    assert rep.verdict == "pass", rep.summary()
    probe_check, cons = rep.checks
    assert probe_check.numbers["calls"] == 6 * 16  # one call per (h, index draw): counts
    # θ only by default: BAOAB samples a Gaussian's configuration exactly at every h
    # (Leimkuhler & Matthews 2013), which the probe finds to rounding
    assert "zero to rounding at every h" in cons.message
    # declared unit mass, p is judged too, and BAOAB's p carries an O(h²) bias
    with_p = validate(baoab, mode="step", state=CACHE, params={"gamma": 1.3}, unit_mass=True)
    assert with_p.verdict == "pass"
    assert with_p.checks[-1].numbers["bias order at the smallest h"] == pytest.approx(2, abs=0.05)
    # its θ-chain is BAOA's (the registry reference, posteriors' BAOA) with a full gradient
    assert "θ-chain is that of `baoa (gradient='full')`" in cons.message
    closest = cons.numbers["closest registry schemes (θ-law gap)"][0]
    assert closest[0] == "baoa (gradient='full')" and closest[1] < 1e-12


def test_explicit_sghmc_is_valid_and_identified_not_misdiagnosed():
    rep = validate(explicit_sghmc, mode="step", state=MOM)
    assert rep.verdict == "pass" and "`sghmc-ewsg`" in rep.checks[-1].message
    # named as SVRHMC's semi-implicit SGHMC it fails, with the true reason and the remedy
    named = validate(explicit_sghmc, "sghmc-svr", mode="step")
    exact = next(c for c in named.checks if c.name == "exact law of sghmc-svr")
    assert exact.verdict == "fail"
    assert "valid different discretisation, not a bug" in exact.message
    assert "algorithm='sghmc-ewsg'" in exact.message


def test_a_broken_splitting_is_rejected_with_its_temperature():
    def broken(state, **kw):  # O step noise √(γh): half of √(1 − e^{−2γh}) ≈ √(2γh)
        return baoab(state, **kw, o_noise=lambda g, h: np.sqrt(g * h))

    rep = validate(broken, mode="step", state=CACHE, params={"gamma": 1.3})
    cons = rep.checks[-1]
    assert rep.verdict == "fail" and cons.verdict == "fail"
    assert "temperature 0.5" in cons.message
    assert (
        abs(cons.numbers["h → 0 limit: covariance"][0, 0] / P.exact["cov"].value[0, 0] - 0.5) < 1e-6
    )


@pytest.mark.parametrize(
    ("bug", "words"),
    [
        (dict(prior=P.N / 2), "prior's gradient is weighted 2 (1 required) = N/n"),
        (dict(data=P.N), "batch sum is scaled by N instead of N/n"),
        (dict(prior=0.0), "prior's gradient is weighted 0"),
    ],
)
def test_gradient_weighting_bugs_are_named(bug, words):
    def step(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        g = _grad(problem, th, indices, **bug)
        return {"theta": th - h * g + np.sqrt(2 * h) * noise}

    rep = validate(step, mode="step")
    assert rep.verdict == "fail" and words in rep.checks[-1].message, rep.checks[-1].message


def test_noise_bugs_are_named():
    def half(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        return {"theta": th - h * _grad(problem, th, indices) + np.sqrt(h) * noise}

    def per_coordinate(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        scale = np.sqrt(2 * h) * np.array([1.0, 0.5])
        return {"theta": th - h * _grad(problem, th, indices) + scale * noise}

    msg = validate(half, mode="step").checks[-1].message
    assert "noise √h·ξ where √(2h)·ξ is required" in msg and "temperature 0.5" in msg
    msg = validate(per_coordinate, mode="step").checks[-1].message
    assert "not isotropic" in msg and "per-coordinate noise scale" in msg


def test_hard_coded_unit_friction_in_the_noise_breaks_fluctuation_dissipation():
    def step(state, *, h, noise, indices, problem, randomness=None):
        th, p = state["theta"], state["p"]
        g = _grad(problem, th, indices)
        D = 2.0  # the friction, but the noise uses D = 1
        return {"theta": th + h * p, "p": p - h * g - h * D * p + np.sqrt(2 * h) * noise}

    cons = validate(step, mode="step", state=MOM).checks[-1]
    assert cons.verdict == "fail"
    assert "fluctuation–dissipation fails" in cons.message and "temperature 0.5" in cons.message


def test_a_thermostat_cannot_be_judged_here_and_is_an_error():
    def sgnht(state, *, h, noise, indices, problem, randomness=None):
        th, p, xi = state["theta"], state["p"], state["xi"]
        p = p - xi[:, :1] * p * h - _grad(problem, th, indices) * h + np.sqrt(2 * h) * noise
        return {"theta": th + p * h, "p": p, "xi": xi + ((p * p).mean(1, keepdims=True) - 1) * h}

    rep = validate(sgnht, mode="step", state={**MOM, "xi": np.ones(1)})
    assert rep.verdict == "error" and "mode='sampler'" in rep.checks[0].message


def test_correct_reference_free_sgld_passes_and_states_its_resolution():
    rep = validate(sgld, mode="step")
    cons = rep.checks[-1]
    assert rep.verdict == "pass" and "would have been detected" in cons.message
    assert cons.numbers["resolution (relative)"] < 1e-3
    assert "`sgld`" in cons.message


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(hs=[0.0]), "not a positive finite"),
        (dict(hs=[-0.1]), "not a positive finite"),
        (dict(hs=[float("nan")]), "not a positive finite"),
        (dict(hs=[float("inf")]), "not a positive finite"),
        (dict(hs=[0.1, 0.1]), "duplicate"),
        (dict(hs=[]), "no step size"),
        (dict(params={"n": -3}), "positive integer"),
        (dict(params={"bogus": 1}), "unknown parameter"),
        (dict(seed=-1), "non-negative"),
        (dict(alpha=2.0), "alpha"),
        (dict(mode="steps"), "mode"),
        (dict(state=("p",)), "theta"),
        (dict(noise_dim=0), "noise_dim"),
        (dict(noise_dim=1.5), "noise_dim"),
        (dict(unit_mass="yes"), "unit_mass"),
        # the state template's values only lay the state out, but garbage is refused, with a
        # named reference too (where extra keys now reach the exact-law checks)
        (dict(state={"theta": np.zeros(2), "ema": [np.nan, 0.0]}), "finite"),
        (dict(state={"theta": np.zeros(2), "ema": [np.inf, 0.0]}), "finite"),
        (dict(state={"theta": np.zeros(2), "ema": "abc"}), "array of floats"),
        (dict(state={"theta": np.zeros(2), "ema": []}), "empty"),
        (dict(algorithm="sgld", state={"theta": np.zeros(2), "ema": [np.nan, 0.0]}), "finite"),
        (dict(algorithm="sgld", state={"theta": [0.0, np.nan]}), "finite"),
    ],
)
def test_garbage_arguments_are_one_line_errors_before_the_step_runs(kwargs, match):
    calls = []

    def step(state, **kw):
        calls.append(1)
        return sgld(state, **kw)

    kw = {"mode": "step", **kwargs}
    with pytest.raises(ValueError, match=match) as info:
        validate(step, **kw)
    assert "\n" not in str(info.value) and not calls


def test_named_algorithm_garbage_params_are_errors():
    with pytest.raises(ValueError, match="unknown parameter"):
        validate(sgld, "sgld", mode="step", params={"bogus": 1})
    with pytest.raises(ValueError):
        validate(sgld, "sgld", mode="step", params={"n": -3})
    with pytest.raises(ValueError, match=r"nope"):
        validate(sgld, "nope", mode="step")


def _baoa_pair(o_noise=None, friction=1.3):
    """BAOA on the (θ, p) state (one gradient per step), optionally with a broken O step."""

    def step(state, *, h, noise, indices, problem, randomness=None):
        th, p = state["theta"], state["p"]
        p = p - h * problem.grad(th)
        th = th + h / 2 * p
        c = np.exp(-friction * h)
        scale = np.sqrt(1 - c * c) if o_noise is None else o_noise(friction, h)
        p = c * p + scale * noise
        return {"theta": th + h / 2 * p, "p": p}

    return step


def test_a_splitting_with_one_bug_gets_that_finding_and_no_other():
    """Splittings are not linear in h: (M − I)/h carries O(h²) terms that a first-order
    extrapolation mistook for bugs (a position factor, noise in θ, prior weights 0.99991).
    The tolerance now comes from two extrapolation orders."""
    rep = validate(_baoa_pair(lambda g, h: np.sqrt(g * h)), mode="step", state=MOM,
                   params={"gamma": 1.3}, unit_mass=True)  # fmt: skip
    msg = rep.checks[-1].message
    assert rep.verdict == "fail" and "temperature 0.5" in msg
    for false in ("θ moves with", "noise enters θ", "prior's gradient", "data gradient"):
        assert false not in msg, msg


def test_the_generator_uses_the_actual_step_size_ratios():
    rep = validate(_baoa_pair(lambda g, h: np.sqrt(g * h)), mode="step", state=MOM,
                   hs=[0.2, 0.1, 0.05, 0.02], unit_mass=True)  # fmt: skip
    msg = rep.checks[-1].message
    assert "temperature 0.5" in msg and "prior's gradient" not in msg, msg


def test_step_sizes_the_user_cannot_have_meant_are_left_out_not_failed():
    """Friction 12 makes explicit Euler unstable at the ladder's h = 0.2; the h → 0 limit
    rests on the small step sizes, where it is stable: a pass, with h = 0.2 left out."""

    def stiff(state, **kw):
        return explicit_sghmc(state, **kw, friction=12.0)

    rep = validate(stiff, mode="step", state=MOM)
    cons = rep.checks[-1]
    assert rep.verdict == "pass", rep.summary()
    assert cons.numbers["left out (no stationary law)"] == [0.2]


def test_too_few_step_sizes_and_float32_are_clear_errors():
    with pytest.raises(ValueError, match="at least 4 step sizes"):
        validate(sgld, mode="step", hs=[0.1, 0.05, 0.025])

    def low(state, **kw):
        out = sgld(state, **kw)
        return {"theta": out["theta"].astype(np.float32)}

    rep = validate(low, mode="step")
    assert rep.verdict == "error" and "float64 is required" in rep.checks[0].message


def test_the_suggested_remedy_is_a_valid_call_that_passes():
    def baoa_full(state, *, h, noise, indices, problem, randomness=None):
        return _baoa_pair(friction=1.5)(state, h=h, noise=noise, indices=indices, problem=problem)

    rep = validate(baoa_full, "uld-em", mode="step")
    exact = next(c for c in rep.checks if c.name == "exact law of uld-em")
    remedy = "algorithm='baoa', params={'gradient': 'full'}"
    assert exact.verdict == "fail" and remedy in exact.message
    ok = validate(baoa_full, "baoa", mode="step", params={"gradient": "full"})
    assert ok.verdict == "pass", ok.summary()


def test_probed_reference_laws_agree_with_the_papers_transcriptions():
    """The exact reference laws of memoryless schemes are read off the reference steps;
    exact/linear.py transcribes the same schemes from the papers: on the validation
    problem (prior, d = 2, friction 1.5) they agree to rounding."""
    from sgmcmc_verify.exact import linear
    from sgmcmc_verify.validation import probing

    for name, kw in (("uld-em", {"gamma": 1.5}), ("baoa", {"gamma": 1.5, "gradient": "full"}),
                     ("obabo", {"gamma": 1.5, "gradient": "full"}), ("lmc", {})):  # fmt: skip
        for h in (0.2, 0.05):
            step, state, law, nd = probing.sampler_step(name, P, h=h, **kw)
            from sgmcmc_verify.exact import probe

            st = probe.probe_chain(step, state, h=h, law=law, noise_dim=nd,
                                   kwargs={"problem": P}).stationary()  # fmt: skip
            ref = linear.algorithm_moments(name, P, h, **kw)
            m = ref.mean.size
            assert np.allclose(st.state_mean[0, :m], ref.mean, rtol=0, atol=1e-12), name
            assert np.allclose(st.state_cov[0, :m, :m], ref.cov, rtol=0, atol=1e-12), name


def test_a_different_square_root_of_the_preconditioner_is_the_same_chain_not_a_bug():
    """pSGLD with G^(1/2) by Cholesky (Li et al. leave the root open): the trajectories under
    the harness's noise differ from the reference's symmetric root, the kernel does not; a
    G applied twice changes the kernel and still fails."""
    from sgmcmc_verify.validation import targets

    G = np.array(targets.step_params("psgld-fixed")["G"])

    def psgld(noise_map, drift_map):
        def step(state, *, h, noise, indices, problem, randomness=None):
            th = state["theta"]
            g = _grad(problem, th, indices)
            return {"theta": th - h * g @ drift_map.T + np.sqrt(2 * h) * noise @ noise_map.T}

        return step

    ok = validate(psgld(np.linalg.cholesky(G), G), "psgld-fixed", mode="step")
    traj = ok.checks[0]
    assert ok.verdict == "pass" and traj.verdict == "pass", ok.to_markdown()
    assert "trajectories differ" in traj.message and traj.numbers["kernel gap"] < 1e-12
    twice = validate(psgld(np.linalg.cholesky(G), G @ G), "psgld-fixed", mode="step")
    assert twice.verdict == "fail" and twice.checks[0].verdict == "fail"
    assert "kernel gap" not in twice.checks[0].numbers


def test_permuted_noise_coordinates_are_the_same_sgld_chain():
    def step(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        return {"theta": th - h * _grad(problem, th, indices) + np.sqrt(2 * h) * noise[:, ::-1]}

    rep = validate(step, "sgld", mode="step")
    assert rep.verdict == "pass" and "another factorisation" in rep.checks[0].message


def _full_grad(problem, th):
    every = np.tile(np.arange(problem.N), (th.shape[0], 1))
    return problem.prior_grad(th) + problem.component_grads(th, every).sum(1)


def test_a_friction_slip_is_named_with_the_friction_the_step_uses():
    """ULD-EM run at friction 1 where the harness asks for 1.5 (e.g. a library's "alpha" taken
    for the friction): consistent, so without the search it read "a different valid
    discretisation"; its law is uld-em's at gamma = 1 to rounding."""

    def step(state, *, h, noise, indices, problem, randomness=None):
        th, p = state["theta"], state["p"]
        p2 = p - h * _full_grad(problem, th) - h * p + np.sqrt(2 * h) * noise
        return {"theta": th + h * p, "p": p2}

    rep = validate(step, "uld-em", mode="step")
    law = next(c for c in rep.checks if c.name == "exact law of uld-em")
    assert rep.verdict == "fail" and law.verdict == "fail"
    assert "gamma = 1 instead of 1.5" in law.message and "parameter-mapping slip" in law.message


def test_a_step_size_convention_slip_is_named():
    """LMC written with ε = 2h (θ − (h/2)∇U + √h ξ) is LMC at h/2, not another scheme."""

    def step(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        return {"theta": th - h / 2 * _full_grad(problem, th) + np.sqrt(h) * noise}

    law = next(c for c in validate(step, "lmc", mode="step").checks if c.name == "exact law of lmc")
    assert law.verdict == "fail" and "step size h/2" in law.message


def test_a_different_discretisation_is_not_called_a_parameter_slip():
    # BAOAB-type θ-chain named as uld-em: consistent, no friction or h slip reproduces it
    def step(state, *, h, noise, indices, problem, randomness=None):
        th, p = state["theta"], state["p"]
        p = p - h * _full_grad(problem, th)
        th = th + h * p  # symplectic Euler: θ sees the new p
        g = 1.5
        return {"theta": th, "p": p - h * g * p + np.sqrt(2 * g * h) * noise}

    law = next(c for c in validate(step, "uld-em", mode="step").checks
               if c.name == "exact law of uld-em")  # fmt: skip
    assert law.verdict == "fail" and "parameter-mapping slip" not in law.message


def sgld_with_extras(state, *, h, noise, indices, problem, randomness=None, noise_scale=1.0):
    """SGLD that also keeps a running average of θ and the last noise (harmless state)."""
    new = sgld(state, h=h, noise=noise_scale * noise, indices=indices, problem=problem)["theta"]
    return {"theta": new, "ema": 0.9 * state["ema"] + 0.1 * new, "last_noise": noise.copy()}


def sgld_two_normals(state, *, h, noise, indices, problem, randomness=None):
    """SGLD drawing its Gaussian as (ξ₁ + ξ₂)/√2 from a noise of 2d coordinates."""
    d = state["theta"].shape[1]
    xi = (noise[:, :d] + noise[:, d:]) / np.sqrt(2)
    return sgld(state, h=h, noise=xi, indices=indices, problem=problem)


EXTRAS = {"theta": np.zeros(2), "ema": np.zeros(2), "last_noise": np.zeros(2)}


def test_a_named_reference_judges_a_step_with_more_state_or_noise_by_its_exact_law():
    # Neither a key the reference lacks (no starting value defines it) nor a wider noise
    # (nothing to share) lets the trajectories be compared: that check says so and does not
    # count, and the exact law decides.  Both used to end in an error (KeyError, broadcast).
    for step, kwargs in (
        (sgld_with_extras, {"state": EXTRAS}),
        (sgld_two_normals, {"noise_dim": 4}),
    ):
        rep = validate(step, "sgld", mode="step", **kwargs)
        assert rep.verdict == "pass", rep.summary()
        traj = rep.checks[0]
        assert traj.name == "step-by-step comparison" and traj.verdict == "inconclusive"
        assert "not run" in traj.message
        law = next(c for c in rep.checks if c.name == "exact law of sgld")
        assert law.verdict == "pass" and "equals sgld's" in law.message
    # and the route keeps its power: the same extras with the noise halved fail on the law
    halved = functools.partial(sgld_with_extras, noise_scale=0.5)
    rep = validate(halved, "sgld", mode="step", state=EXTRAS)
    assert rep.verdict == "fail"
    assert next(c for c in rep.checks if c.name == "exact law of sgld").verdict == "fail"


def test_a_prior_weight_both_batch_slips_explain_names_both_and_one_when_only_one_does():
    # the prior added once per batch element: weight n.  At the validation problem's N = 4,
    # n = 2 that is also N/n, and the message must not assert one cause; at n = 3 only n fits
    def per_element(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        g = _grad(problem, th, indices, prior=indices.shape[1])
        return {"theta": th - h * g + np.sqrt(2 * h) * noise}

    two = validate(per_element, mode="step").checks[-1].message
    assert "= N/n: the prior is scaled like the minibatch" in two
    assert "= n: the prior is added once per batch element (n = 2)" in two
    assert "cannot tell these apart" in two
    three = validate(per_element, mode="step", params={"n": 3}).checks[-1].message
    assert "weighted 3 (1 required) = n: the prior is added once per batch element" in three
    assert "N/n" not in three


G_PRE = np.array([[0.8, 0.3], [0.3, 0.5]])


def psgld(state, *, h, noise, indices, problem, randomness=None, root=True, noise_scale=1.0):
    """pSGLD with a fixed preconditioner (Li et al. 2016): θ − hG∇Ũ + √(2h)·G^½ξ; with
    ``root=False`` the noise is multiplied by G itself (a bug)."""
    w, v = np.linalg.eigh(G_PRE)
    factor = (v * np.sqrt(w)) @ v.T if root else G_PRE
    th = state["theta"]
    drift = h * _grad(problem, th, indices) @ G_PRE
    return {"theta": th - drift + noise_scale * np.sqrt(2 * h) * noise @ factor}


def test_a_preconditioned_drift_is_recognised_and_an_unrooted_noise_named():
    # the drift −G∇U is a valid preconditioned Langevin drift: the finding is the noise, 2G²
    # where 2G is required, not "the drift is not −∇U" or "the noise is not isotropic"
    assert validate(psgld, mode="step").verdict == "pass"
    rep = validate(functools.partial(psgld, root=False), mode="step")
    assert rep.verdict == "fail"
    msg = rep.checks[-1].message
    assert "the drift is −P∇U with the preconditioner P = [[0.8, 0.3], [0.3, 0.5]]" in msg
    assert "multiplied by P instead of P^½" in msg
    assert "not −∇U for any weighting" not in msg and "not isotropic" not in msg
    # the right shape at half the scale is named so, not "not isotropic" (review finding)
    half = functools.partial(psgld, noise_scale=np.sqrt(0.5))
    msg = validate(half, mode="step").checks[-1].message
    assert "noise covariance is 0.5 × the 2P·h required" in msg and "not isotropic" not in msg

    def per_coordinate_gradient(state, *, h, noise, indices, problem, randomness=None):
        # a gradient scaled by diag(2, 1) with the plain √(2h)ξ noise: the drift or the noise
        # is wrong, and the noise alone must not be blamed (it was: "noise √h·ξ")
        th = state["theta"]
        g = _grad(problem, th, indices) * np.array([2.0, 1.0])
        return {"theta": th - h * g + np.sqrt(2 * h) * noise}

    msg = validate(per_coordinate_gradient, mode="step").checks[-1].message
    assert "either the gradient is scaled per coordinate" in msg and "√h·ξ" not in msg


def test_a_misread_index_is_named_by_the_weights_it_gives_the_data_terms():
    # index j read as term min(j + 1, N − 1): term 0 never, term N − 1 twice.  No scalar
    # weighting of prior and data fits that drift; one weight per data term does, exactly
    def clipped(state, *, h, noise, indices, problem, randomness=None):
        th = state["theta"]
        g = _grad(problem, th, np.minimum(indices + 1, problem.N - 1))
        return {"theta": th - h * g + np.sqrt(2 * h) * noise}

    def halfway(state, *, h, noise, indices, problem, randomness=None):
        # the gradient evaluated at θ/2: its zero moves, so neither a weighting of the terms
        # nor a preconditioner fits.  (A skew mixing of the gradient's coordinates would not
        # do here: −(I + J)∇U with J skew is a valid non-reversible Langevin drift.)
        th = state["theta"]
        return {"theta": th - h * _grad(problem, th / 2, indices) + np.sqrt(2 * h) * noise}

    msg = validate(clipped, mode="step").checks[-1].message
    assert "the data terms are weighted ['0', '1', '1', '2'] in expectation" in msg
    assert "wrong point" not in msg
    msg = validate(halfway, mode="step").checks[-1].message
    assert "wrong point or mixes coordinates" in msg and "data terms are weighted" not in msg


def test_a_step_nothing_can_compare_with_the_reference_is_an_error_not_a_pass():
    # a momentum stored under another name: no trajectory comparison (a key baoa lacks) and
    # no law to match to baoa's (p is not there), so only the step's own consistency would
    # be left; a BAOA with three times the friction passed that way (review finding)
    def baoa_v(state, *, h, noise, indices, problem, randomness=None, gamma=3 * targets.FRICTION):
        th, v = state["theta"], state["v"]
        v = v - h * problem.grad(th)
        th = th + h * v
        c = np.exp(-gamma * h)
        return {"theta": th, "v": c * v + np.sqrt(1 - c * c) * noise}

    z = np.zeros(2)
    rep = validate(
        baoa_v, "baoa", mode="step", state={"theta": z, "v": z}, params={"gradient": "full"}
    )
    assert rep.verdict == "error"
    assert "nothing compared the step with baoa" in rep.checks[-1].message
    # a reference without an exact law in step mode (a table estimator): the same, not a pass
    rep = validate(sgld_with_extras, "saga-ld", mode="step", state=EXTRAS)
    assert (
        rep.verdict == "error" and "saga-ld has no exact law in step mode" in rep.checks[-1].message
    )
