"""Tests of sgmcmc_verify.validation: sampler, step and file modes, bad input, plugin."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

from sgmcmc_verify import bugs, registry
from sgmcmc_verify.validation import (
    SampleFileError,
    cli_validate_samples,
    compare_steps,
    load_samples,
    reference_sample_function,
    targets,
    validate,
    validate_samples,
)
from sgmcmc_verify.validation.power import _maker, kill_rate, sampler_step_function

pytest_plugins = ["pytester"]
SQRT2 = math.sqrt(2)


def _sgld_numpy(problem, h, n_steps, n_chains, seed, *, noise_scale=SQRT2):
    """An independent SGLD (the harness's batch, with replacement) written against the
    protocol: AGLD eqs. (4)-(5) with the prior added once, exactly."""
    rng = np.random.default_rng(seed)
    theta = np.zeros((n_chains, problem.d))
    out = np.empty((n_chains, n_steps, problem.d))
    n = targets.STEP_BATCH
    for t in range(n_steps):
        idx = rng.integers(0, problem.N, (n_chains, n))
        data = problem.component_grads(theta, idx).sum(axis=1)
        g = problem.prior_grad(theta) + problem.N / n * data
        theta = theta - h * g + noise_scale * math.sqrt(h) * rng.standard_normal(theta.shape)
        out[:, t] = theta
    return out


def test_independent_sgld_passes():
    rep = validate(_sgld_numpy, "sgld")
    assert rep.verdict == "pass", rep.summary()
    assert any(c.name.startswith("exact law") for c in rep.checks)


def test_half_noise_is_diagnosed():
    def bad(problem, h, n, c, s):
        return _sgld_numpy(problem, h, n, c, s, noise_scale=1.0)

    rep = validate(bad, "sgld")
    assert rep.verdict == "fail"
    diag = next(c for c in rep.checks if c.name == "diagnosis")
    # the stationary law cannot tell a halved noise variance from a doubled gradient:
    # the diagnosis says both, at every h, and points to step mode
    assert "fails at every h" in diag.message
    assert "noise variance too small or the gradient too large" in diag.message
    assert "mode='step'" in diag.message


@pytest.mark.parametrize(
    "impl, fragment",
    [
        (lambda p, h, n, c, s: (_ for _ in ()).throw(RuntimeError("boom")), "raised RuntimeError"),
        (lambda p, h, n, c, s: np.full((c, n, p.d), np.nan), "NaN or inf"),
        (lambda p, h, n, c, s: np.zeros((n, c, p.d)), "ArviZ layout"),
        (lambda p, h, n, c, s: np.zeros((c, n, p.d), np.float32), "float32"),
        (lambda p, h, n, c, s: np.zeros((c, 3, p.d)), "exactly"),
        (lambda p, h, n, c, s: np.zeros((c, n + 1, p.d)), "θ₀ not included"),
        (lambda p, h, n, c, s: time.sleep(5), "timeout"),
    ],
    ids=["raises", "nan", "shape", "dtype", "too-few", "theta0-prepended", "hangs"],
)
def test_bad_implementations_get_error_verdicts(impl, fragment):
    rep = validate(impl, "lmc", timeout=0.5, hs=(0.2,))
    # NaN draws are a divergence on a target where the scheme is stable: a finding (fail);
    # the rest cannot be judged (error)
    want = "fail" if fragment == "NaN or inf" else "error"
    assert rep.verdict == want
    errs = [c for c in rep.checks if c.verdict == want]
    assert errs and fragment in errs[0].message


@pytest.mark.parametrize("impl", [3, "tests/sampler.py:sample", None])
def test_an_implementation_that_is_not_callable_is_refused_before_anything_runs(impl):
    # it used to be called by every check, each reporting the same TypeError as an error
    with pytest.raises(TypeError, match="the implementation must be callable"):
        validate(impl, "sgld")


def test_identical_chains_extra_keys_and_all_inconclusive_are_not_passes():
    def identical(problem, h, n, c, s):
        one = _sgld_numpy(problem, h, n, 1, s)
        return np.repeat(one, c, axis=0)

    rep = validate(identical, "sgld", hs=(0.2,))
    assert rep.verdict == "error" and "chains are identical" in rep.checks[0].message

    def extra(problem, h, n, c, s):
        return {"theta": _sgld_numpy(problem, h, n, c, s), "grad": np.zeros((c, n, 2))}

    rep = validate(extra, "sgld", hs=(0.2,))
    assert rep.verdict == "error" and "unexpected keys ['grad']" in rep.checks[0].message
    # a report of inconclusive checks only judged nothing: not a pass
    from sgmcmc_verify.validation import CheckResult, ValidationReport

    only = ValidationReport("sgld", "sampler", [CheckResult("x", "inconclusive", "no law")])
    assert only.verdict == "error" and not only.passed


def test_a_matrix_thermostat_returning_xi_gets_a_clear_verdict_not_a_traceback():
    ref = reference_sample_function("sgnht-mat")

    def with_xi(problem, h, n, c, s):
        out = dict(ref(problem, h, n, c, s))
        out["xi"] = np.ones((c, n))  # a scalar ξ that sgnht-mat does not have
        return out

    rep = validate(with_xi, "sgnht-mat", hs=(0.1,))
    # the matrix thermostat's reference records no scalar ξ: the key is not compared (it
    # used to crash with KeyError), the rest is judged as usual
    assert rep.verdict == "pass", rep.summary()
    assert all("E ξ" not in c.numbers for c in rep.checks)


def test_partial_results_are_kept():
    calls = []

    def flaky(problem, h, n, c, s):
        calls.append(h)
        if len(calls) > 1:
            raise ValueError("second call fails")
        return _sgld_numpy(problem, h, n, c, s)

    rep = validate(flaky, "sgld", hs=(0.2, 0.1))
    assert [c.verdict for c in rep.checks][:2] == ["pass", "error"]


def _numpy_sghmc_step(state, *, problem, h, noise, indices, randomness=None, D=1.0):
    g = problem.prior_grad(state["theta"]) + problem.N / indices.shape[1] * (
        problem.component_grads(state["theta"], indices).sum(axis=1)
    )
    p = state["p"] - D * h * state["p"] - h * g + np.sqrt(2 * D * h) * noise
    return {"theta": state["theta"] + h * p, "p": p}


def test_step_mode_passes_an_equivalent_formula_and_locates_a_bug():
    prob = targets.problem_p4()
    ok = compare_steps(_numpy_sghmc_step, "sghmc-svr", prob, h=0.1, params={"b": 1})
    assert ok.verdict == "pass", ok.message

    def bad(state, **kw):
        out = _numpy_sghmc_step(state, **kw)  # then rounded through float32
        out["theta"] = out["theta"].astype(np.float32).astype(np.float64)
        return out

    res = compare_steps(bad, "sghmc-svr", prob, h=0.1, params={"b": 1})
    assert res.verdict == "fail"
    assert res.numbers["step"] == 0 and "first disagreement at step 0" in res.message


def test_step_mode_through_validate():
    alg = "svrg-ld"
    step = sampler_step_function(_maker(alg, lambda s: s, targets.step_params(alg)), 0)
    assert validate(step, alg, mode="step").verdict == "pass"


@pytest.mark.parametrize("ext", ["npy", "npz", "csv"])
def test_sample_files_round_trip(tmp_path, ext):
    prob = targets.problem_step()
    n = targets.n_steps_for(0.2, 64)
    draws = reference_sample_function("lmc")(prob, 0.2, n, 300, 3)["theta"]
    path = tmp_path / f"s.{ext}"
    if ext == "npy":
        np.save(path, draws)
    elif ext == "npz":
        np.savez(path, theta=draws)
    else:
        c, d_ = np.meshgrid(np.arange(300), np.arange(n), indexing="ij")
        rows = np.column_stack([c.ravel(), d_.ravel(), draws.reshape(-1, 2)])
        np.savetxt(path, rows, delimiter=",", header="chain,draw,theta[0],theta[1]", comments="")
    assert load_samples(path)["theta"].shape == (300, n, 2)
    rep = validate_samples(path, "lmc", h=0.2)
    assert rep.verdict == "pass", rep.summary()
    code, text = cli_validate_samples({0.2: str(path)}, "lmc")
    assert code == 0 and "pass" in text


@pytest.mark.parametrize(
    "content, fragment",
    [(b"", "empty"), (b"chain,draw\n", "header"), (b"chain,draw,x\n0,0,abc\n", "malformed")],
)
def test_malformed_files_give_one_line_and_exit_2(tmp_path, content, fragment):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(SampleFileError, match=fragment):
        load_samples(path)
    code, text = cli_validate_samples({0.2: str(path)}, "lmc")
    assert code == 2 and "\n" not in text and text.startswith("error:")


def test_pickled_and_mis_shaped_files_are_refused(tmp_path):
    obj = tmp_path / "obj.npy"
    np.save(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(SampleFileError, match="cannot read"):
        load_samples(obj)
    flat = tmp_path / "flat.npy"
    np.save(flat, np.zeros((10, 3)))
    with pytest.raises(SampleFileError, match="ArviZ layout"):
        load_samples(flat)
    assert cli_validate_samples({0.2: str(tmp_path / "missing.npy")}, "lmc")[0] == 2


def test_catalogue_is_large_and_spans_the_families():
    assert len(bugs.CATALOGUE) >= 25
    fams = {registry.get(alg).family for alg, _, _ in bugs.CATALOGUE.values()}
    assert fams == {"overdamped", "underdamped", "thermostat"}


def test_kill_rate_on_a_few_bugs():
    res = kill_rate(["sgld/noise-sqrt-h", "sgld/float32", "ppu-ca/index-off-by-one"])
    rows = {r["bug"]: r for r in res["rows"]}
    assert rows["sgld/noise-sqrt-h"]["killed_sampler"]
    assert rows["ppu-ca/index-off-by-one"]["killed_sampler"]
    assert rows["sgld/float32"]["killed_step"]  # float32 is invisible statistically


def test_pytest_plugin_fixture(pytester):
    pytester.makepyfile(
        """
        from sgmcmc_verify.validation import reference_sample_function

        def test_reference(sgmcmc_assert_valid):
            sgmcmc_assert_valid(reference_sample_function("lmc"), "lmc", hs=(0.2,))

        def test_broken(sgmcmc_assert_valid):
            sgmcmc_assert_valid(lambda p, h, n, c, s: None, "lmc", hs=(0.2,))
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*lmc implementation rejected (error)*"])


@pytest.mark.slow
def test_power_and_size():
    from sgmcmc_verify.validation.power import measure_power

    res = measure_power(seeds=100)
    assert res["kill"]["kill_rate_sampler"] >= 0.95, res["kill"]["survivors_sampler"]
    assert res["kill"]["kill_rate_step"] == 1.0
    assert res["false_alarm"]["within_alpha"], res["false_alarm"]


def test_reference_free_sampler_mode_judges_consistency_with_stated_power():
    """validate(fn) without an algorithm: moments extrapolated to h → 0 against the target.

    α = 0.01 in total (Bonferroni over the moments); seeds fixed, so the outcome is
    reproducible.  The correct SGLD passes, states its detectable effect and is identified;
    half the noise is rejected as temperature ≈ 0.5.
    """
    rep = validate(_sgld_numpy)
    cons = rep.checks[-1]
    assert rep.verdict == "pass", rep.summary()
    # quick profile, Richardson weights (8, −6, 1)/3: Var θ errors ≥ ~7 % detectable
    assert cons.numbers["Var θ error detectable at power 0.9"] < 0.1
    assert "`sgld`" in cons.message

    def half(problem, h, n, c, s):
        return _sgld_numpy(problem, h, n, c, s, noise_scale=1.0)

    bad = validate(half).checks[-1]
    assert bad.verdict == "fail" and "temperature ≈ 0.5" in bad.message


def test_reference_free_mode_passes_correct_schemes_and_refuses_what_it_cannot_judge():
    """Correct SAGA-LD and ULD-EM pass (α = 0.01 in total, fixed seeds); a BAOA with
    friction 0.1 is still moving after the burn-in: inconclusive (error), not inconsistent;
    params do nothing without an algorithm: an error before anything runs."""
    for alg in ("saga-ld", "uld-em"):
        rep = validate(reference_sample_function(alg))
        assert rep.verdict == "pass", (alg, rep.summary())
    slow = validate(reference_sample_function("baoa", gamma=0.1))
    cons = slow.checks[-1]
    assert slow.verdict == "error" and cons.verdict == "inconclusive"
    assert "not stationary" in cons.message
    with pytest.raises(ValueError, match="do nothing"):
        validate(_sgld_numpy, params={"n": 2})


def _z_test_by_definition(z: np.ndarray, mean: np.ndarray, cov: np.ndarray, labels_idx):
    """The sampler-mode z-tests written out from their definition, chain by chain.

    For chain c the unit is its window average of z_i (a mean) or of
    (z_i − c̄_i)(z_j − c̄_j)·C/(C − 1), c̄ the per-step mean over the C chains; the test
    statistic is (average of the units − exact value)/(sd of the units/√C), two-sided.
    """
    from scipy.stats import norm

    chains, w, _ = z.shape
    cbar = [[sum(z[c, t, k] for c in range(chains)) / chains for k in range(z.shape[2])]
            for t in range(w)]  # fmt: skip
    out = {}
    for label, idx in labels_idx:
        units = []
        for c in range(chains):
            if len(idx) == 1:
                units.append(sum(z[c, t, idx[0]] for t in range(w)) / w)
            else:
                i, j = idx
                acc = sum((z[c, t, i] - cbar[t][i]) * (z[c, t, j] - cbar[t][j]) for t in range(w))
                units.append(acc / w * chains / (chains - 1))
        avg = sum(units) / chains
        sd = math.sqrt(sum((u - avg) ** 2 for u in units) / (chains - 1))
        exact = mean[idx[0]] if len(idx) == 1 else cov[idx]
        zz = (avg - exact) / (sd / math.sqrt(chains))
        out[label] = (avg, zz, 2 * norm.sf(abs(zz)))
    return out


def test_sampler_mode_z_tests_and_p_values_follow_their_definition():
    """validate()'s exact-law z-tests (the numbers behind every sampler-mode verdict),
    pinned against the definition computed element by element in plain Python.

    A fixed array of draws stands in for a sampler, so the draws are known; the exact law
    is the harness's own (what is pinned is the test on the draws).  Agreement to 1e-9
    relative (summation order differs; the p-values are far from any threshold).  The
    diagnosis that follows a rejection reuses the same per-chain estimates for every
    scheme it compares with; they are checked to be the very numbers of the exact-law check.
    """
    from sgmcmc_verify.validation import core

    h, chains = 0.2, 60
    pl = targets.plan("sgld")
    window = math.ceil(core.PROFILES["quick"]["window_time"] / h)
    n_steps = targets.n_steps_for(h, window)
    law = targets.window_law("sgld", pl.exact_problem, h, pl.params, n_steps, window)
    rng = np.random.default_rng(123)
    draws = law.mean + rng.standard_normal((chains, n_steps, 2)) @ np.diag([0.55, 0.7])

    def fixed(problem, hh, n, c, s):
        return draws.copy()

    from unittest import mock

    with mock.patch.dict(core.PROFILES["quick"], {"chains": chains}):
        rep = validate(fixed, "sgld", hs=(h,))
    check = rep.checks[0]
    labels_idx = core._window_quantities(("theta",), 2)
    want = _z_test_by_definition(draws[:, n_steps - window :], law.mean, law.cov, labels_idx)
    for t in check.numbers["tests"]:
        avg, zz, p = want[t["quantity"]]
        assert t["MC"] == pytest.approx(avg, rel=1e-9)
        assert t["z"] == pytest.approx(zz, rel=1e-9)
        assert t["p"] == pytest.approx(p, rel=1e-9)
        assert t["reject"] == (p < rep.settings["alpha_each"])
    # Var θ is 0.55² and 0.7² here, far from SGLD's exact law: rejected, and diagnosed
    assert check.verdict == "fail" and rep.checks[-1].name == "diagnosis"
    z = draws[:, n_steps - window :]
    est = core._moment_estimates(z, ("theta",))
    assert [(t["quantity"], t["MC"], t["se"]) for t in check.numbers["tests"]] == [
        (lab, mc, se) for lab, _, mc, se in est
    ]
    idxs = [i for _, i in labels_idx]
    for idx, q in zip(idxs, core._per_chain_all(z, idxs, z.mean(axis=0)), strict=True):
        np.testing.assert_array_equal(q, core._per_chain(z, idx, z.mean(axis=0)))


def test_first_failure_stops_at_the_first_failing_check_with_the_same_verdict():
    """first_failure=True (HARNESS-POWER's kill rate) runs the step sizes largest first and
    stops at the first failing check: the same verdict and the same first check as the full
    validation, and only that run's chain-steps.  settings["chain_steps"] counts what the
    sampler was asked for (chains × steps of every call), here recorded by the sampler."""
    calls: list[int] = []

    def half(problem, h, n, c, s):
        calls.append(n * c)
        return _sgld_numpy(problem, h, n, c, s, noise_scale=1.0)

    full = validate(half, "sgld")
    asked_full = list(calls)
    calls.clear()
    first = validate(half, "sgld", first_failure=True)
    assert full.verdict == first.verdict == "fail"
    assert [c.name for c in first.checks] == [full.checks[0].name] == ["exact law at h=0.2"]
    assert first.checks[0].message == full.checks[0].message
    assert len(asked_full) == len(targets.plan("sgld").hs) and len(calls) == 1
    assert full.settings["chain_steps"] == {"implementation": sum(asked_full), "reference": 0}
    assert first.settings["chain_steps"]["implementation"] == calls[0]
    with pytest.raises(ValueError, match="first_failure"):
        validate(half, "sgld", first_failure=1)


def test_calls_share_one_thread_and_a_timed_out_call_never_answers_a_later_one(monkeypatch):
    # core.call_with_timeout runs a calling thread's calls in one reused daemon thread
    # (a thread per call cost hand-offs that dominate step mode on a loaded machine)
    from sgmcmc_verify.validation import core

    # an idle allowance no pause of a loaded machine reaches, until the idle part below
    monkeypatch.setattr(core, "CALL_THREAD_IDLE", 30.0)
    monkeypatch.setattr(core._callers, "worker", None, raising=False)
    # thread objects, not idents: an ident can be reused by the next thread started
    ran_in = [core.call_with_timeout(threading.current_thread, (), 5.0) for _ in range(50)]
    assert all(t is ran_in[0] for t in ran_in) and ran_in[0] is not threading.current_thread()
    release = threading.Event()
    # a call that outlives its timeout returns later; its value must not be taken as the
    # next call's, which therefore runs in a fresh thread
    with pytest.raises(core.ImplementationError, match=r"per-call timeout of 0\.05 s"):
        core.call_with_timeout(lambda: (release.wait(), "late")[1], (), 0.05)
    release.set()
    time.sleep(0.05)
    assert core.call_with_timeout(lambda: "mine", (), 5.0) == "mine"
    assert core.call_with_timeout(threading.current_thread, (), 5.0) is not ran_in[0]
    with pytest.raises(core.ImplementationError, match="raised ValueError: bad"):
        core.call_with_timeout(lambda: (_ for _ in ()).throw(ValueError("bad")), (), 5.0)
    # an idle thread leaves (no thread is left behind by a validation), and the next call
    # starts another
    monkeypatch.setattr(core, "CALL_THREAD_IDLE", 0.2)
    monkeypatch.setattr(core._callers, "worker", None)
    assert core.call_with_timeout(lambda: 6, (), 5.0) == 6
    worker = core._callers.worker
    worker.join(5.0)
    assert not worker.is_alive()
    assert core.call_with_timeout(lambda: 7, (), 5.0) == 7


def test_a_new_call_thread_cannot_leave_before_its_first_call(monkeypatch):
    # the job is queued before the thread starts: with no idle allowance at all, a thread
    # started first could retire before the job reached it, and the call was lost (a
    # timeout for a healthy implementation; with timeout=None, a hang)
    from sgmcmc_verify.validation import core

    monkeypatch.setattr(core, "CALL_THREAD_IDLE", 0.0)
    monkeypatch.setattr(core._callers, "worker", None, raising=False)
    assert [core.call_with_timeout(lambda i=i: i, (), 5.0) for i in range(20)] == list(range(20))


def test_a_call_thread_that_is_not_running_is_replaced(monkeypatch):
    # after os.fork() the child holds the parent's thread object, which runs nothing there:
    # a call queued to it would wait out its timeout
    from sgmcmc_verify.validation import core

    monkeypatch.setattr(core._callers, "worker", core._CallThread(), raising=False)
    assert core.call_with_timeout(lambda: 7, (), 5.0) == 7


def test_the_validation_and_the_implementations_calls_run_with_one_blas_thread():
    # the harness's linear algebra is small, and a report must not depend on the machine's
    # cores: validate() limits BLAS to one thread, calls included, and restores it after
    from threadpoolctl import threadpool_info, threadpool_limits

    seen = []
    step = sampler_step_function(_maker("sgld", lambda s: s, targets.step_params("sgld")), 0)

    def recording(state, **kw):
        seen.append({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})
        return step(state, **kw)

    with threadpool_limits(limits=2, user_api="blas"):
        outside = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
        assert validate(recording, "sgld", mode="step").verdict == "pass"
        after = {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}
    assert seen and all(s == {1} for s in seen)
    assert outside == after == {2}


@pytest.mark.parametrize("timeout", [0, -1.0, math.nan, math.inf, 1e12, True, "5"])
def test_a_timeout_that_cannot_be_waited_is_a_one_line_error(timeout):
    # inf and 1e12 s used to reach the waiting lock and raise OverflowError as a traceback
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        validate(lambda p, h, n, c, s: None, "sgld", timeout=timeout)


def _baoab_sampler(stale: bool):
    """A sample function running BAOAB with a cached gradient (γ = FRICTION); with
    ``stale`` the new gradient is taken at the θ the step started from (a bug)."""
    from sgmcmc_verify.validation.targets import FRICTION

    def sample(problem, h, n_steps, n_chains, seed):
        rng = np.random.default_rng(seed)
        th = np.zeros((n_chains, problem.d))
        p, g = th.copy(), problem.grad(th)
        c = np.exp(-FRICTION * h)
        out = np.empty((n_chains, n_steps, problem.d))
        for t in range(n_steps):
            th0 = th
            p = p - h / 2 * g
            th = th + h / 2 * p
            p = c * p + np.sqrt(1 - c * c) * rng.standard_normal(th.shape)
            th = th + h / 2 * p
            g = problem.grad(th0 if stale else th)
            p = p - h / 2 * g
            out[:, t] = th
        return out

    return sample


def test_a_law_no_z_test_rejects_is_named_with_its_resolution_never_called_a_valid_scheme():
    """A BAOAB whose gradient is taken at the old θ fails as ``baoa``, and no z-test rejects
    ULD-EM's law for it at the quick profile: the diagnosis names ULD-EM with the resolution
    and does not call the bug "a valid different discretisation, not a bug" (it did).

    Seeded, so deterministic; as statistics: each validation's z-tests share α = 0.01
    (Bonferroni), so the correct BAOAB fails with probability < 0.01; the stale one's Var θ
    error (1.34× at h = 0.2) is beyond the 4.4 % detectable at power 0.9, and its
    non-rejection against ULD-EM is what the message must not overstate."""
    assert validate(_baoab_sampler(stale=False), "baoa", params={"gradient": "full"}).passed
    rep = validate(_baoab_sampler(stale=True), "baoa", params={"gradient": "full"})
    assert rep.verdict == "fail"
    diag = next(c for c in rep.checks if c.name == "diagnosis")
    assert "consistent with the exact law of `uld-em`" in diag.message
    assert "goes unseen at power" in diag.message and "mode='step'" in diag.message
    assert "not a bug" not in diag.message and "valid different discretisation," not in diag.message


def test_a_shifted_mean_is_blamed_on_the_drift_and_a_noise_scale_bug_is_not():
    """The mean of a linear chain at every step is fixed by the drift: zero-mean noise cannot
    move it.  A prior scaled like the minibatch shifts E θ and the diagnosis says the drift is
    wrong; noise √h for √(2h) leaves E θ alone and the diagnosis does not claim a shift.

    Seeded, so deterministic; as statistics: the validation's z-tests share α = 0.01
    (Bonferroni), so the mean tests falsely reject the unshifted mean with probability
    < 0.01, and the prior's shift is detected far beyond its power-0.9 effect."""

    def diagnosis(bug):
        alg, transform, _ = bugs.CATALOGUE[bug]
        make = _maker(alg, transform, targets.plan(alg).params)
        rep = validate(reference_sample_function(alg, make=make), alg, seed=3)
        assert rep.verdict == "fail"
        return next(c for c in rep.checks if c.name == "diagnosis").message

    shifted = diagnosis("sgld/prior-times-N/n")
    assert "the mean is off: E θ[" in shifted and "so the drift is wrong" in shifted
    assert "the mean is off" not in diagnosis("sgld/noise-sqrt-h")
