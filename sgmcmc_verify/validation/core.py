"""Validate an external implementation: a sampler function, a step function, or sample files.

Three protocols (the README documents them):

* :class:`SampleFunction` — ``sample(problem, h, n_steps, n_chains, seed)`` returns the
  draws ``(chains, draws, d)`` (ArviZ layout), or a mapping with ``"theta"`` and,
  optionally, ``"p"`` (chains, draws, d) and ``"xi"`` (chains, draws) to expose the
  invariants.  The problem is a :class:`~sgmcmc_verify.problems.base.Problem`: use
  ``problem.grad(theta)`` (full gradient, ``theta`` of shape (chains, d)),
  ``problem.component_grads(theta, idx)`` (``idx`` (chains, b) → (chains, b, d)),
  ``problem.prior_grad(theta)``, ``problem.N``, ``problem.d``.
* :class:`StepFunction` — one step with the randomness passed in; see
  :func:`compare_steps`.
* sample files — :func:`load_samples`, :func:`validate_samples`.

Every call of the implementation runs in a daemon thread with a timeout; an exception,
NaN/inf, a wrong shape or dtype, a timeout or too few draws gives an ``error`` verdict
for that check and the checks already run are kept.
"""

from __future__ import annotations

import dataclasses
import math
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.special import ndtr, ndtri

from .. import registry
from .._validation import finite_array
from ..driver import run_sampler
from ..exact import thermostat
from ..parallel import single_blas_thread
from ..problems.base import Problem
from . import targets
from .files import SampleFileError, load_samples
from .report import CheckResult, ValidationReport

__all__ = [
    "ImplementationError",
    "SampleFileError",
    "SampleFunction",
    "StepFunction",
    "check_params",
    "compare_steps",
    "load_samples",
    "reference_sample_function",
    "validate",
    "validate_samples",
]


def _norm_isf(q: float) -> float:
    """Standard normal upper quantile: ``scipy.stats.norm.isf(q)``, which is ``−ndtri(q)``
    (same bits for q ≠ 0.5, where this gives −0.0 for +0.0; the harness calls it with
    α/2 and 1 − power only); scipy.special spares every validation child ~0.4 s of
    scipy.stats import."""
    return -ndtri(q)


def _norm_sf(z: float) -> float:
    """Standard normal upper tail: ``scipy.stats.norm.sf(z)``, which is ``ndtr(−z)``."""
    return ndtr(-z)


#: Default total false-alarm probability of one validation (Bonferroni over its tests).
ALPHA = 0.01

#: Unit roundoff of float64.
U64 = 2.0**-53

#: Chains and the tested window's length in time units (h·steps) per profile.  Every draw
#: after :data:`~sgmcmc_verify.validation.targets.BURN_TIME` is tested against the exact
#: transient law, so the window is a time span: the same number of independent samples
#: per chain at every h (≈ 16 relaxation times in quick, 64 in full).
PROFILES = {
    "quick": {"chains": 2000, "window_time": 32.0},
    "full": {"chains": 8000, "window_time": 128.0},
}


@runtime_checkable
class SampleFunction(Protocol):
    """``sample(problem, h, n_steps, n_chains, seed) -> (chains, draws, d)`` float64 array.

    Draw ``j`` is the state after ``j + 1`` steps from ``θ_0 = 0`` (``p_0 = 0``); return
    every step (``draws == n_steps``), the harness discards its burn-in.  It may return a
    mapping ``{"theta": ..., "p": ..., "xi": ...}`` to expose momentum and thermostat.
    """

    def __call__(
        self, problem: Problem, h: float, n_steps: int, n_chains: int, seed: int
    ) -> np.ndarray | Mapping[str, np.ndarray]: ...


@runtime_checkable
class StepFunction(Protocol):
    """One step with the randomness injected.

    ``state`` is a dict with ``"theta"`` (chains, d) and, by family, ``"p"`` (chains, d)
    and ``"xi"`` (chains,); the implementation may add private keys (snapshot tables,
    counters), which the harness passes back unchanged.  ``noise`` (chains, d) is the
    standard normal draw of the step; ``indices`` (chains, b) the data indices the
    reference used in that step (``None`` for a full gradient); ``randomness`` the
    reference's raw :class:`~sgmcmc_verify.algorithms.StepRandomness` (may be ignored).
    Returns the new state dict.
    """

    def __call__(
        self,
        state: dict[str, np.ndarray],
        *,
        problem: Problem,
        h: float,
        noise: np.ndarray,
        indices: np.ndarray | None,
        randomness: Any = None,
    ) -> dict[str, np.ndarray]: ...


class ImplementationError(RuntimeError):
    """The implementation raised, hung, or returned something unusable (verdict ``error``)."""


class DivergedError(ImplementationError):
    """The draws hold NaN or inf: the chain diverged on a well-posed target (verdict ``fail``).

    Every scheme the harness plans is stable at its step sizes on the validation problem,
    so a divergence is a finding about the implementation, not an input it cannot judge.
    """


def _verdict_of(err: ImplementationError) -> str:
    return "fail" if isinstance(err, DivergedError) else "error"


# --------------------------------------------------------------------------------------
# Calling the implementation safely
# --------------------------------------------------------------------------------------


#: Seconds a call thread waits idle for its next call before it leaves (a validation makes
#: its calls back to back; an idle thread is not left behind after it).
CALL_THREAD_IDLE = 1.0

_callers = threading.local()


class _CallThread(threading.Thread):
    """A daemon thread that runs one calling thread's implementation calls, one at a time.

    Starting a thread per call cost a thread start and two extra hand-offs between threads
    per call: step mode makes hundreds of calls, each a few microseconds of work, and on
    a loaded machine each hand-off waits for the scheduler.  One thread per calling thread
    serves them all; a call that times out abandons it (it may never return), and the next
    call starts a fresh one.
    """

    def __init__(self) -> None:
        super().__init__(daemon=True, name="sgmcmc-validate-call")
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.retired = False

    def submit(self, fn: Callable[..., Any], args: tuple) -> bool:
        """Queue ``fn(*args)``; False if the thread has already left for idleness."""
        with self.lock:
            if self.retired:
                return False
            self.jobs.put((fn, args))
            return True

    def run(self) -> None:
        while True:
            try:
                fn, args = self.jobs.get(timeout=CALL_THREAD_IDLE)
            except queue.Empty:
                with self.lock:  # no call can be queued between this check and leaving
                    if self.jobs.empty():
                        self.retired = True
                        return
                continue
            try:
                self.results.put((True, fn(*args)))
            except BaseException as err:
                self.results.put((False, err))
            del fn, args  # the finished call's arguments are not kept alive while idle


def call_with_timeout(fn: Callable[..., Any], args: tuple, timeout: float | None) -> Any:
    """``fn(*args)`` in a daemon thread; :class:`ImplementationError` on exception or timeout.

    The thread is reused across the calls of one calling thread (:class:`_CallThread`).
    """
    worker = getattr(_callers, "worker", None)
    # is_alive(): a thread object inherited through os.fork() runs nothing in this process
    if worker is None or not worker.is_alive() or not worker.submit(fn, args):
        worker = _callers.worker = _CallThread()
        worker.submit(fn, args)  # queued before it runs, so it cannot leave idle first
        worker.start()
    try:
        ok, value = worker.results.get(timeout=timeout)
    except queue.Empty:
        _callers.worker = None  # it is still inside the call: never reuse it
        raise ImplementationError(
            f"did not return within the per-call timeout of {timeout:g} s"
        ) from None
    except BaseException:  # interrupted while waiting: its result must not reach the next call
        _callers.worker = None
        raise
    if not ok:
        raise ImplementationError(f"raised {type(value).__name__}: {value}") from value
    return value


def check_draws(
    out: Any, chains: int, min_draws: int, d: int, what: str, *, exact: bool = False
) -> dict[str, np.ndarray]:
    """Validate an implementation's output; :class:`ImplementationError` with the reason.

    ``exact=True`` (a sampler function asked for ``min_draws`` steps) requires exactly
    that many draws: the draws are compared with the exact law at those very steps, so a
    θ₀ prepended or a step dropped would shift every comparison by one iteration.
    """
    if isinstance(out, Mapping):
        if "theta" not in out:
            raise ImplementationError(f"{what}: the returned mapping has no 'theta' key")
        arrays = dict(out)
    else:
        arrays = {"theta": out}
    res = {}
    for key, val in arrays.items():
        if key not in ("theta", "p", "xi"):
            continue
        if not isinstance(val, np.ndarray):
            raise ImplementationError(
                f"{what}: {key} is a {type(val).__name__}, expected a numpy array"
            )
        if val.dtype != np.float64:
            raise ImplementationError(
                f"{what}: {key} has dtype {val.dtype}; float64 is required (float32 "
                "rounding would hide or fake discretisation effects)"
            )
        want = (chains, None, d) if key != "xi" else (chains, None)
        if val.ndim != len(want) or val.shape[0] != chains or (key != "xi" and val.shape[2] != d):
            shape = "(chains, draws, d)" if key != "xi" else "(chains, draws)"
            exp = (chains, "≥" + str(min_draws), d) if key != "xi" else (chains, min_draws)
            raise ImplementationError(
                f"{what}: {key} has shape {val.shape}; expected {shape} = {exp} "
                "(ArviZ layout: chains first)"
            )
        if val.shape[1] < min_draws or (exact and val.shape[1] != min_draws):
            raise ImplementationError(
                f"{what}: {key} has {val.shape[1]} draws; "
                + ("exactly" if exact else "at least")
                + f" {min_draws} are needed (one per step: draw t is the state after t + 1 "
                "steps, θ₀ not included)"
            )
        if not np.all(np.isfinite(val)):
            bad = np.argwhere(~np.isfinite(val))[0]
            raise DivergedError(
                f"{what}: {key} contains NaN or inf (first at index {tuple(int(i) for i in bad)}):"
                " the chain diverged on a target where the scheme is stable at this h"
            )
        res[key] = val
    th = res["theta"]
    if chains > 1 and np.all(th[1:, min_draws - 1] == th[0, min_draws - 1]):
        raise ImplementationError(
            f"{what}: all {chains} chains are identical at the last draw: the chains must be "
            "independent (a seed, noise or index draw shared across chains)"
        )
    extra = sorted(set(arrays) - {"theta", "p", "xi"})
    if extra:
        raise ImplementationError(
            f"{what}: unexpected keys {extra}; a sampler returns 'theta' and optionally 'p', 'xi'"
        )
    return res


# --------------------------------------------------------------------------------------
# Sampler-function validation
# --------------------------------------------------------------------------------------


def check_step_sizes(hs: Any) -> tuple[float, ...]:
    """Step sizes as a tuple of distinct positive finite floats, largest first.

    :class:`ValueError` with one line otherwise (h ≤ 0, NaN, inf, duplicates, empty, or
    not numbers): an input the harness cannot judge is an error, never a pass.
    """
    try:
        vals = [float(h) for h in np.atleast_1d(np.asarray(hs, dtype=object))]
    except (TypeError, ValueError):
        raise ValueError(f"step sizes must be numbers, got {hs!r}") from None
    if not vals:
        raise ValueError("no step size given")
    for h in vals:
        if not math.isfinite(h) or h <= 0:
            raise ValueError(f"step size h = {h!r} is not a positive finite number")
    if len(set(vals)) != len(vals):
        raise ValueError(f"duplicate step sizes in {vals}: each h must be given once")
    return tuple(sorted(vals, reverse=True))


def _check_args(algorithm, mode, profile, alpha, seed, timeout) -> None:
    if algorithm is not None:
        registry.get(algorithm)  # ValueError naming the known algorithms
    if mode not in ("sampler", "step"):
        raise ValueError(f"mode must be 'sampler' or 'step', got {mode!r}")
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {profile!r}")
    if not (isinstance(alpha, int | float) and 0 < alpha < 1):
        raise ValueError(f"alpha must be a probability in (0, 1), got {alpha!r}")
    if not (isinstance(seed, int | np.integer) and not isinstance(seed, bool) and seed >= 0):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    # TIMEOUT_MAX: a longer wait is an OverflowError inside the lock (inf included)
    if timeout is not None and not (
        isinstance(timeout, int | float)
        and not isinstance(timeout, bool)
        and 0 < timeout <= threading.TIMEOUT_MAX
    ):
        raise ValueError(
            f"timeout must be a positive number of seconds (at most {threading.TIMEOUT_MAX:g}) "
            f"or None, got {timeout!r}"
        )


def check_params(algorithm: str | None, params: Mapping[str, Any]) -> None:
    """Unknown or invalid parameters are a :class:`ValueError` before any user code runs."""
    if algorithm is None:
        known = {"n"} | {k for name in registry.names() for k in registry.get(name).params}
        unknown = set(params) - known
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; known: {sorted(known)}")
        n = params.get("n", targets.STEP_BATCH)
        if not (isinstance(n, int | np.integer) and not isinstance(n, bool) and n >= 1):
            raise ValueError(f"the batch size n must be a positive integer, got {n!r}")
        return
    # the registry validates names and values (ValueError) on the step-mode problem
    registry.make_sampler(algorithm, targets.problem_step(), h=0.1, **params)


def validate(
    impl: SampleFunction | StepFunction,
    algorithm: str | None = None,
    *,
    mode: str = "sampler",
    params: Mapping[str, Any] | None = None,
    profile: str = "quick",
    alpha: float = ALPHA,
    seed: int = 0,
    timeout: float | None = 120.0,
    hs: tuple[float, ...] | None = None,
    reference: bool = True,
    state: Sequence[str] | Mapping[str, Any] | None = None,
    noise_dim: int | None = None,
    unit_mass: bool = False,
    first_failure: bool = False,
) -> ValidationReport:
    """Validate an implementation, against registry ``algorithm`` or against the target alone.

    Each call of ``impl`` runs in a daemon thread with ``timeout``; the whole validation,
    those calls included, runs with numpy's BLAS limited to one thread
    (:func:`~sgmcmc_verify.parallel.single_blas_thread`, restored after).

    Parameters
    ----------
    impl : SampleFunction or StepFunction
        ``mode="sampler"``: :class:`SampleFunction`; ``mode="step"``: :class:`StepFunction`.
    algorithm : str, optional
        Registry name whose discrete chain the implementation claims to be.  ``None``:
        judge it by what every correct SG-MCMC scheme must satisfy (its stationary law
        converges to the target as h → 0), and name the registry scheme it matches.
    mode : {"sampler", "step"}
        ``"step"``: the step's exact law by probing it on the step-mode problem
        (:func:`~sgmcmc_verify.validation.targets.problem_step`: d = 2, a prior, N = 4,
        a batch of two), plus, with ``algorithm``, a trajectory comparison with the
        reference under the same noise and indices.
    params : mapping, optional
        Registry parameters (default the harness's; see
        :func:`sgmcmc_verify.validation.targets.plan`).  In step mode the batch is
        ``n`` (or ``b``), default :data:`~sgmcmc_verify.validation.targets.STEP_BATCH`.
        Unknown names or invalid values raise :class:`ValueError` before ``impl`` runs.
    profile : {"quick", "full"}
    alpha : float
        Total false-alarm probability of the statistical checks (Bonferroni).
    seed : int
        Non-negative.
    timeout : float or None
        Per-call timeout in seconds.
    hs : sequence of float, optional
        Step sizes (default per family); distinct, positive and finite.
    reference : bool
        Also compare with the reference implementation where the exact law does not
        see the gradient estimator.
    state : sequence of str or mapping, optional
        Step mode: the state's keys (each ``(d,)`` per chain, e.g. ``("theta", "p")``)
        or a one-chain template ``{key: array}`` for extra float entries such as a
        gradient cache.  Default from the algorithm's family, else ``("theta",)``.
    noise_dim : int, optional
        Step mode: standard normals per chain and step (default ``d``).
    unit_mass : bool
        Without ``algorithm``: the scheme claims ``E ppᵀ = I`` (unit mass), so its momentum
        is judged against it too.  Default θ only: a correct scheme with another mass, or
        in a (θ, v = hp) parametrisation, is not inconsistent.  Registry schemes have unit
        mass, so a named algorithm's momentum is always judged.
    first_failure : bool
        Sampler mode with ``algorithm``: stop at the first check (step sizes largest, i.e.
        cheapest, first) that fails or errors, and skip the diagnosis.  The verdict is the
        same (any failing check fails the validation; the α split is fixed before any
        data); only the later checks' runs are saved.  For kill-rate measurements.

    Returns
    -------
    ValidationReport

    Raises
    ------
    ValueError
        Bad arguments (one line), before the implementation is called.
    """
    _check_args(algorithm, mode, profile, alpha, seed, timeout)
    if not callable(impl):
        # else every check would call it and report the same TypeError as an 'error'
        raise TypeError(f"the implementation must be callable, got {type(impl).__name__}")
    if not isinstance(unit_mass, bool):
        raise ValueError(f"unit_mass must be True or False, got {unit_mass!r}")
    if not isinstance(first_failure, bool):
        raise ValueError(f"first_failure must be True or False, got {first_failure!r}")
    if noise_dim is not None and not (
        isinstance(noise_dim, int | np.integer)
        and not isinstance(noise_dim, bool)
        and noise_dim >= 1
    ):
        raise ValueError(f"noise_dim must be a positive integer, got {noise_dim!r}")
    params = dict(params or {})
    check_params(algorithm, params)
    if hs is not None:
        hs = check_step_sizes(hs)
    # One BLAS thread for the whole validation, the implementation's calls included: the
    # harness's linear algebra is small (nothing for threads to gain), a report must not
    # depend on the machine's cores, and OpenBLAS's pool woken from two threads in turn
    # (the calls' and the harness's) cost 18 ms a solve of a 6×6 system on a loaded machine.
    with single_blas_thread():
        return _validate_checked(
            impl, algorithm, mode=mode, params=params, profile=profile, alpha=alpha,
            seed=seed, timeout=timeout, hs=hs, reference=reference, state=state,
            noise_dim=noise_dim, unit_mass=unit_mass, first_failure=first_failure,
        )  # fmt: skip


def _validate_checked(
    impl: SampleFunction | StepFunction,
    algorithm: str | None,
    *,
    mode: str,
    params: dict[str, Any],
    profile: str,
    alpha: float,
    seed: int,
    timeout: float | None,
    hs: tuple[float, ...] | None,
    reference: bool,
    state: Sequence[str] | Mapping[str, Any] | None,
    noise_dim: int | None,
    unit_mass: bool,
    first_failure: bool,
) -> ValidationReport:
    """:func:`validate` after its arguments are checked."""
    if mode == "step":
        from .probing import MIN_HS

        if hs is not None and len(hs) < MIN_HS:
            raise ValueError(
                f"step mode extrapolates the exact law to h → 0: give at least {MIN_HS} step "
                f"sizes, got {len(hs)}"
            )
        return _validate_step(
            impl, algorithm, params, seed, timeout, hs, state, noise_dim, unit_mass
        )
    if algorithm is None:
        if params:
            raise ValueError(
                f"params {sorted(params)} do nothing in sampler mode without an algorithm: "
                "the sampler sets its own parameters"
            )
        return _validate_consistency(
            impl, PROFILES[profile], alpha, seed, timeout, hs, unit_mass=unit_mass
        )
    pl = targets.plan(algorithm, params)
    if hs is not None:
        pl.hs = tuple(hs)
    cfg = PROFILES[profile]
    return _validate_draws(
        lambda prob, h, n, c, s, what: check_draws(
            call_with_timeout(impl, (prob, h, n, c, s), timeout), c, n, prob.d, what, exact=True
        ),
        pl,
        cfg,
        alpha,
        seed,
        reference,
        first_failure,
    )


def _state_template(
    state: Sequence[str] | Mapping[str, Any] | None, family: str | None, d: int
) -> dict[str, np.ndarray]:
    if state is None:
        keys = ("theta", "p") if family in ("underdamped",) else ("theta",)
        return {k: np.zeros((1, d)) for k in keys}
    if isinstance(state, Mapping):
        out = {}
        for k, v in state.items():
            # the values only lay the state out, but garbage is refused, not probed around
            try:
                arr = np.asarray(v, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(
                    f"state[{k!r}] must be an array of floats, got {v!r:.40}"
                ) from None
            arr = finite_array(f"state[{k!r}]", arr)
            if arr.size == 0:
                raise ValueError(f"state[{k!r}] is empty")
            out[str(k)] = arr[None, ...]
        if "theta" not in out or out["theta"].shape != (1, d):
            raise ValueError(f"state must hold 'theta' of shape ({d},) per chain")
        return out
    keys = tuple(state)
    if "theta" not in keys or not all(isinstance(k, str) for k in keys):
        raise ValueError(f"state must name its keys, 'theta' among them; got {state!r}")
    return {k: np.zeros((1, d)) for k in keys}


def _validate_step(impl, algorithm, params, seed, timeout, hs, state, noise_dim, unit_mass):
    from ..estimators import FullGradient, Minibatch
    from .probing import EXACT_HS, probe_checks

    problem = targets.problem_step()
    spec = registry.get(algorithm) if algorithm is not None else None
    batch_key = next((k for k in ("n", "b") if spec and k in spec.params), "n")
    n = int(params.get(batch_key, targets.STEP_BATCH))
    settings = {"params": params, "seed": seed, "problem": problem.name, "batch": n}
    rep = ValidationReport(algorithm or "(reference-free)", "step", settings=settings)

    def call(thunk):
        return call_with_timeout(thunk, (), timeout)

    probe_params = {k: v for k, v in params.items() if k not in ("n", "b")}
    if algorithm is None:
        template = _state_template(state, None, problem.d)
        rep.checks += probe_checks(
            impl, template, problem=problem, n=n, params=probe_params,
            hs=hs or EXACT_HS, noise_dim=noise_dim, call=call, unit_mass=unit_mass,
        )  # fmt: skip
        return rep
    full = targets.step_params(algorithm, params)
    h0 = hs[0] if hs else 0.1
    sampler = registry.make_sampler(algorithm, problem, h=h0, **full)
    memoryless = isinstance(sampler.estimator, Minibatch | FullGradient)
    template = _state_template(state, spec.family, problem.d)
    ref_keys = _public_state(
        sampler, sampler.init(np.zeros((1, problem.d)), np.random.default_rng(0))
    )
    extra = sorted(set(template) - set(ref_keys)) if state is not None else []
    if extra or (noise_dim is not None and noise_dim != problem.d):
        # The trajectories cannot be compared: nothing defines the starting value of a key
        # the reference does not have (a gradient cache, a running average), and a noise of
        # another width cannot be shared.  The exact-law checks below compare the step's
        # law with the reference's where the reference has one in step mode; where nothing
        # does, the validation ends in an error (after the probe checks).
        why = (
            f"the step's state holds {extra}, which {algorithm} does not"
            if extra
            else f"the step takes {noise_dim} noise coordinates, {algorithm} {problem.d}"
        )
        traj = CheckResult(
            "step-by-step comparison",
            "inconclusive",
            f"not run: {why}, so no shared starting state and noise make the two "
            "trajectories comparable",
            {"extra keys": extra, "noise_dim": noise_dim},
        )
    else:
        traj = compare_steps(
            impl, algorithm, problem, h=h0, params=full, seed=seed, timeout=timeout
        )
    if traj.verdict == "fail" and memoryless and spec.family != "thermostat" and not extra:
        from .probing import same_kernel

        # trajectories under the same noise can differ while the chain's law is identical
        # (another square root of a preconditioner, permuted noise): judge the kernel itself
        kernel = same_kernel(
            impl, algorithm, problem, h=h0, n=n, call=call, noise_dim=noise_dim,
            params={k: v for k, v in full.items() if k not in ("n", "b")},
        )  # fmt: skip
        if kernel is not None and kernel[0] <= kernel[1]:
            traj = CheckResult(
                traj.name,
                "pass",
                f"the trajectories differ ({traj.message}), but the step's Markov kernel "
                f"equals {algorithm}'s exactly: the same drift map and noise covariance for "
                f"every index draw (largest gap {kernel[0]:.2g} ≤ {kernel[1]:.2g}); the noise "
                "enters through another factorisation (B_impl = B_ref·Q, Q orthogonal), which "
                "changes trajectories, not the chain's law",
                {**traj.numbers, "kernel gap": kernel[0], "kernel tolerance": kernel[1]},
            )
    rep.checks.append(traj)
    if spec.family != "thermostat" and memoryless:
        rep.checks += probe_checks(
            impl, template, problem=problem, n=n, algorithm=algorithm,
            params={k: v for k, v in full.items() if k not in ("n", "b")},
            hs=hs or EXACT_HS, noise_dim=noise_dim, call=call,
            unit_mass=True,  # every registry scheme has unit mass
        )  # fmt: skip
    compared = f"exact law of {algorithm}"
    if traj.verdict == "inconclusive" and not any(c.name == compared for c in rep.checks):
        # without the trajectories, only the exact law compares the step with the reference:
        # a thermostat or a stateful estimator has none here, and a state laid out otherwise
        # than the reference's (a momentum under another name) cannot be matched to it.  A
        # consistency check alone would pass a wrong scheme: this cannot be judged.
        reason = (
            f"{algorithm} has no exact law in step mode (a thermostat or an estimator with a state)"
            if spec.family == "thermostat" or not memoryless
            else f"the step's state {sorted(template)} does not hold {algorithm}'s "
            f"{sorted(ref_keys)} under those names, so the laws cannot be matched"
        )
        rep.checks.append(
            CheckResult(
                f"compared with {algorithm}",
                "error",
                f"nothing compared the step with {algorithm}: the trajectories could not be "
                f"compared and {reason}; validate it without an algorithm (mode='step') to "
                "judge its own law, or give it the reference's state and noise",
                {"state keys": sorted(template), "reference keys": sorted(ref_keys)},
            )
        )
    return rep


#: Power at which every statistical check states its minimum detectable effect.
POWER = 0.9


def _window_quantities(keys: tuple[str, ...], d: int) -> list[tuple[str, tuple[int, ...]]]:
    """The tested moments of the public state ``z``: labels and indices.

    ``E θ_i``; the covariances ``Cov(θ_i, θ_j)`` (i ≤ j: variances *and* the off-diagonal
    covariance); ``Cov(p_i, p_j)`` when a momentum is exposed.
    """
    out = [(f"E θ[{i}]", (i,)) for i in range(d)]
    out += [(f"Cov θ[{i}],θ[{j}]", (i, j)) for i in range(d) for j in range(i, d)]
    if "p" in keys:
        out += [(f"Cov p[{i}],p[{j}]", (d + i, d + j)) for i in range(d) for j in range(i, d)]
    return out


def _per_chain(z: np.ndarray, idx: tuple[int, ...], centre: np.ndarray) -> np.ndarray:
    """Per-chain window average of ``z_i``, or of ``(z_i − c_i)(z_j − c_j)``.

    These are the units tested.  ``centre`` (w, m) is the per-step mean of the draws
    (pooled over chains, and over both samples in a two-sample check): centring removes
    the mean's leverage on the second moment, which otherwise multiplies its standard
    error by ~2|μ|/σ, and keeps a shifted mean out of the covariance tests.
    """
    return _per_chain_all(z, [idx], centre)[0]


def _per_chain_all(
    z: np.ndarray, idxs: Sequence[tuple[int, ...]], centre: np.ndarray
) -> list[np.ndarray]:
    """:func:`_per_chain` for every index tuple of ``idxs``, centring ``z`` once.

    The same floating-point operations as one :func:`_per_chain` call per tuple (so the
    same bits); only the centred copy ``z − centre`` is shared.
    """
    zc = None
    out = []
    for idx in idxs:
        if len(idx) == 1:
            out.append(z[:, :, idx[0]].mean(axis=1))
            continue
        if zc is None:
            zc = z - centre
        out.append((zc[:, :, idx[0]] * zc[:, :, idx[1]]).mean(axis=1))
    return out


#: One tested moment of the draws: label, indices, estimate, standard error.
Estimate = tuple[str, tuple[int, ...], float, float]


def _moment_estimates(z: np.ndarray, keys: tuple[str, ...]) -> list[Estimate]:
    """``(label, idx, estimate, standard error)`` of every window moment of ``z``.

    The estimate is the mean over chains of the per-chain window averages
    (:func:`_per_chain`, covariances about the draws' own per-step mean times C/(C − 1),
    which makes them unbiased); the standard error is their standard deviation over
    √chains.  They depend on the draws only, not on the law tested against, so one call
    serves every law a diagnosis compares the same draws with.
    """
    d = z.shape[2] // len(keys)
    chains = z.shape[0]
    quantities = _window_quantities(keys, d)
    qs = _per_chain_all(z, [idx for _, idx in quantities], z.mean(axis=0))
    out = []
    for (label, idx), q in zip(quantities, qs, strict=True):
        if len(idx) == 2:
            q = q * (chains / (chains - 1))
        out.append((label, idx, float(q.mean()), float(q.std(ddof=1) / math.sqrt(q.size))))
    return out


def _law_value(law: targets.WindowLaw, idx: tuple[int, ...]) -> float:
    return float(law.mean[idx[0]] if len(idx) == 1 else law.cov[idx])


def _z_tests(
    z: np.ndarray,
    law: targets.WindowLaw,
    a_each: float,
    estimates: list[Estimate] | None = None,
) -> list[dict[str, Any]]:
    """One z-test per window moment against its exact value, on per-chain averages.

    Chains are independent, so the per-chain window averages are i.i.d. (up to the shared
    per-step mean the covariances are centred at, an O(1/chains) dependence) and the
    standard error is their standard deviation over √chains (CLT at ≥ 1000 chains).
    Each test also gives its minimum detectable effect at power :data:`POWER`:
    ``(z_{1−α/2} + z_{power})·se``.  ``estimates`` are :func:`_moment_estimates` of ``z``
    for ``law.keys`` when already computed.
    """
    crit = float(_norm_isf(a_each / 2))
    zp = float(_norm_isf(1 - POWER))
    out = []
    # Covariances about the draws' own per-step mean (C/(C − 1) makes them unbiased), so a
    # shifted mean is reported by the mean tests and does not leak into the covariance
    # tests as its square.
    for label, idx, mc, se in estimates or _moment_estimates(z, law.keys):
        exact = _law_value(law, idx)
        zz = (mc - exact) / se if se > 0 else math.inf
        out.append(
            {
                "quantity": label,
                "exact": exact,
                "MC": mc,
                "se": se,
                "z": zz,
                "p": float(2 * _norm_sf(abs(zz))),
                "detectable": (crit + zp) * se,
                "reject": abs(zz) > crit,
            }
        )
    return out


def _law_variances(law: targets.WindowLaw, d: int) -> np.ndarray:
    """Exact Var θ_j over the window (about each step's mean, as the draws' are)."""
    return np.diag(law.cov)[:d].copy()


def _draw_moments(estimates: list[Estimate], d: int, chains: int) -> tuple[np.ndarray, ...]:
    """Pooled E θ_j and Var θ_j of the draws, from their :func:`_moment_estimates`.

    The mean over chains of the per-chain window means is the pooled mean; the variance
    estimate without its C/(C − 1) is the pooled variance about each step's mean θ̄_t
    (what ``(θ − θ̄_t).var(axis=(0, 1))`` computes from the draws, up to rounding: the
    centred draws' own mean, ~1e-17, is not subtracted).  Reading them off the estimates
    spares passes over the draws (19 ms a call at 2000 chains × 320 steps: ~40 % of a
    sampler-mode validation's analysis, measured).
    """
    by = {idx: est for _, idx, est, _ in estimates}
    mean = np.array([by[(j,)] for j in range(d)])
    var = np.array([by[(j, j)] for j in range(d)]) * ((chains - 1) / chains)
    return mean, var


def _describe(
    tests: list[dict[str, Any]], law: targets.WindowLaw, mc_var: np.ndarray, ex_var: np.ndarray
) -> str:
    """The rejected moments in words: mean shifts in sd, variance ratios, covariances.

    ``mc_var``, ``ex_var``: :func:`_draw_moments`' variances and :func:`_law_variances`.
    """
    sd = np.sqrt(np.diag(law.stationary_cov))
    parts = []
    for t in tests:
        if not t["reject"]:
            continue
        q = t["quantity"]
        if q.startswith("E θ[") and "]θ[" not in q:
            i = int(q[4])
            parts.append(
                f"E θ[{i}] = {t['MC']:.4g}, exact {t['exact']:.4g} "
                f"({(t['MC'] - t['exact']) / sd[i]:+.3g} sd, z = {t['z']:.1f})"
            )
        else:
            parts.append(f"{q} = {t['MC']:.4g}, exact {t['exact']:.4g} (z = {t['z']:.1f})")
    return "; ".join(parts[:4]) + f" — Var θ MC/exact = {np.round(mc_var / ex_var, 3).tolist()}"


def _n_tests(keys: tuple[str, ...], d: int) -> int:
    return len(_window_quantities(keys, d))


def _validate_draws(
    get, pl: targets.Plan, cfg, alpha, seed, reference, first_failure: bool = False
) -> ValidationReport:
    alg = pl.algorithm
    spec = registry.get(alg)
    chains = cfg["chains"]
    rep = ValidationReport(
        alg,
        "sampler",
        settings={"params": pl.params, "hs": list(pl.hs), "chains": chains, "alpha": alpha,
                  "seed": seed, "power": POWER},
    )  # fmt: skip
    prob = pl.exact_problem or pl.reference_problem
    d = prob.d
    keys = targets._public_keys(spec.family)
    rep.settings["window"] = {h: _window(cfg, h) for h in pl.hs}
    # tests per h, fixed before any data: the moments of θ and p (a thermostat's reference
    # records p, compared two-sample), plus a thermostat's E ξ and E[pᵀp]/d = 1
    thermo = spec.family == "thermostat"
    # E[pᵀp]/d = 1 only where the identity needs the recorded p alone (BADODAB's pairs p with
    # the step's gradient, which a sample function does not return: exact.thermostat.NEEDS_GRAD)
    pinned_p = thermo and alg not in thermostat.NEEDS_GRAD
    per_h = _n_tests(("theta", "p") if thermo else keys, d) + int(thermo) + int(pinned_p)
    if pl.exact_problem is None and not reference:
        raise ValueError(f"{alg} has no exact law here; reference=False leaves nothing to test")
    a_each = alpha / (per_h * len(pl.hs))
    rep.settings["alpha_each"] = a_each
    # chain-steps simulated (chains × steps of every run asked for): what the check costs
    steps = rep.settings["chain_steps"] = {"implementation": 0, "reference": 0}
    if pl.exact_problem is None:
        rep.checks.extend(_reference_checks(get, pl, cfg, a_each, seed, steps, first_failure))
        return rep
    failed_h, ratios, draws, mdes, shifted = [], [], {}, [], []
    for i, h in enumerate(pl.hs):
        name = f"exact law at h={h:g}"
        window = _window(cfg, h)
        n_steps = cfg.get("n_steps", {}).get(h) or targets.n_steps_for(h, window)
        try:
            law = targets.window_law(alg, prob, h, pl.params, n_steps, window)
        except ValueError as err:
            rep.checks.append(CheckResult(name, "error", f"no exact law: {err}"))
            continue
        steps["implementation"] += chains * n_steps
        try:
            out = get(prob, h, n_steps, chains, seed + 1000 * i, f"sample(h={h:g})")
        except ImplementationError as err:
            rep.checks.append(CheckResult(name, _verdict_of(err), str(err), {"n_steps": n_steps}))
            if first_failure:
                return rep
            continue
        parts = [out["theta"][:, n_steps - window : n_steps, :]]
        if "p" in keys and "p" in out:
            parts.append(out["p"][:, n_steps - window : n_steps, :])
        z = np.concatenate(parts, axis=2)
        sub = law if len(parts) == len(keys) else _theta_only(law, d)
        estimates = _moment_estimates(z, sub.keys)
        tests = _z_tests(z, sub, a_each, estimates)
        draws[h] = (z, n_steps)
        mc_mean, mc_var = _draw_moments(estimates, d, z.shape[0])
        ex_var = _law_variances(sub, d)
        ratios.append((h, float(np.mean(mc_var / ex_var))))
        var_tests = [t for t in tests if t["quantity"] in {f"Cov θ[{j}],θ[{j}]" for j in range(d)}]
        mde_var = max(t["detectable"] / ev for t, ev in zip(var_tests, ex_var, strict=True))
        mdes.append(mde_var)
        # rejected E θ tests, in standard deviations of θ: for the diagnosis
        mean_tests = [t for t in tests if t["quantity"].startswith("E θ")]
        shifted += [
            (h, t["quantity"], (t["MC"] - t["exact"]) / math.sqrt(ev), t["z"])
            for t, ev in zip(mean_tests, ex_var, strict=True)
            if t["reject"]
        ]
        nums = {
            "exact mean": sub.mean[:d],
            "exact var": ex_var,
            "MC mean": mc_mean,
            "MC var": mc_var,
            "tests": tests,
            "alpha each": a_each,
            f"Var θ error detectable at power {POWER}": mde_var,
            "source": law.source,
            "n_steps": n_steps,
        }
        bad = any(t["reject"] for t in tests)
        if bad:
            failed_h.append(h)
        msg = (
            _describe(tests, sub, mc_var, ex_var)
            if bad
            else f"matches the exact discrete law at every tested moment ({len(tests)} z-tests "
            f"at α = {a_each:.2g} each; relative Var θ errors ≥ {mde_var:.1%} detectable at "
            f"power {POWER}); {law.source}"
        )
        rep.checks.append(CheckResult(name, "fail" if bad else "pass", msg, nums))
        if bad and first_failure:
            return rep
    if failed_h:
        rep.checks.append(_diagnosis(pl, failed_h, ratios, draws, cfg, a_each, max(mdes), shifted))
    return rep


def _window(cfg: Mapping[str, Any], h: float) -> int:
    """Draws tested at ``h``: a fixed count (sample files) or the profile's time span."""
    if "window" in cfg:
        w = cfg["window"]
        return int(w[h] if isinstance(w, Mapping) else w)
    return math.ceil(cfg["window_time"] / h)


#: Step sizes of the reference-free sampler mode.  The stationary bias is extrapolated to
#: h = 0 through a polynomial of degree len(hs) − 1 (three points: a quadratic, residual
#: O(h³)).  A straight line was not enough: for explicit-Euler SGHMC its O(h²) residual
#: at these h is 1–1.7 % of E p² (exact laws), which rejected a correct sampler.
CONSISTENCY_HS = (0.1, 0.05, 0.025)

#: Time run before the window when no exact law is known: the draws must be stationary.
#: 20 time units are 28 relaxation times of the validation problem's slowest overdamped
#: mode (1/1.38) and 10 of an underdamped one at unit friction.
CONSISTENCY_BURN_TIME = 20.0


def _validate_consistency(
    impl, cfg, alpha, seed, timeout, hs, *, unit_mass: bool = False
) -> ValidationReport:
    """Sampler mode without a reference: does the stationary law tend to the target?

    At each ``h`` the per-chain window averages of every ``E θ_i`` and ``Cov(θ_i, θ_j)``
    (and ``Cov(p_i, p_j)`` when p is returned and ``unit_mass``) are computed from the
    draws after :data:`CONSISTENCY_BURN_TIME`; each quantity is extrapolated to ``h = 0``
    through the polynomial of degree ``len(hs) − 1`` in h (three step sizes: the quadratic,
    i.e. Richardson extrapolation, which cancels the O(h) and O(h²) terms and leaves O(h³)),
    with the standard error propagated from the chains', and ``q₀`` is z-tested against the
    target's value (``μ``, ``Λ⁻¹``, ``I``).  Each test states its minimum detectable effect
    at power :data:`POWER`; the weights (8, −6, 1)/3 inflate the standard error
    √(64 + 36 + 1)/3 ≈ 3.35-fold over one h's.

    Stationarity is a precondition, tested, not assumed: at each h every quantity's first
    and second half-window averages are compared (paired per chain, z-test).  A sampler
    still moving (a low friction mixes slowly) gives "inconclusive", never "inconsistent".
    Bonferroni over all these tests at total ``alpha``.
    """
    prob = targets.problem_step()
    hs = tuple(hs) if hs is not None else CONSISTENCY_HS
    if len(hs) < 2:
        raise ValueError("reference-free validation needs at least two step sizes")
    chains, d = cfg["chains"], prob.d
    rep = ValidationReport(
        "(reference-free)",
        "sampler",
        settings={"hs": list(hs), "chains": chains, "alpha": alpha, "seed": seed,
                  "power": POWER, "problem": prob.name, "unit_mass": unit_mass},
    )  # fmt: skip
    outs: dict[float, tuple[np.ndarray, int]] = {}
    keys: tuple[str, ...] = ("theta",)
    returned_p = False
    steps = rep.settings["chain_steps"] = {"implementation": 0, "reference": 0}
    for i, h in enumerate(hs):
        window = _window(cfg, h)
        n_steps = math.ceil(CONSISTENCY_BURN_TIME / h) + window
        steps["implementation"] += chains * n_steps
        try:
            out = check_draws(
                call_with_timeout(impl, (prob, h, n_steps, chains, seed + 1000 * i), timeout),
                chains, n_steps, d, f"sample(h={h:g})", exact=True,
            )  # fmt: skip
        except ImplementationError as err:
            name = f"stationary moments at h={h:g}"
            rep.checks.append(CheckResult(name, _verdict_of(err), str(err), {"n_steps": n_steps}))
            return rep
        returned_p = "p" in out
        keys = ("theta", "p") if returned_p and unit_mass else ("theta",)
        outs[h] = (
            np.concatenate([out[k][:, n_steps - window :, :] for k in keys], axis=2),
            n_steps,
        )
    quantities = _window_quantities(keys, d)
    a_each = alpha / (len(quantities) * (1 + len(hs)))  # limits + a stationarity test per h
    crit, zp = float(_norm_isf(a_each / 2)), float(_norm_isf(1 - POWER))
    est: dict[str, list[tuple[float, float]]] = {}
    moving = []
    for h, (z, _) in outs.items():
        centre = z.mean(axis=0)
        half = z.shape[1] // 2
        nums, drift = {}, []
        idxs = [idx for _, idx in quantities]
        whole = _per_chain_all(z, idxs, centre)
        first = _per_chain_all(z[:, :half], idxs, centre[:half])
        second = _per_chain_all(z[:, half:], idxs, centre[half:])
        for k, (label, _idx) in enumerate(quantities):
            q = whole[k]
            est.setdefault(label, []).append(
                (float(q.mean()), float(q.std(ddof=1) / math.sqrt(q.size)))
            )
            nums[label] = est[label][-1]
            dq = first[k] - second[k]
            zz = float(dq.mean() / (dq.std(ddof=1) / math.sqrt(dq.size)))
            if abs(zz) > crit:
                drift.append(f"{label} (z = {zz:.1f})")
        if drift:
            moving.append(h)
        rep.checks.append(
            CheckResult(
                f"stationary moments at h={h:g}",
                "inconclusive",
                (f"not stationary: the first and second halves of the window differ in "
                 f"{', '.join(drift)}" if drift else
                 f"{len(nums)} window moments; halves of the window agree (stationary)"),
                nums,
            )
        )  # fmt: skip
    if moving:
        rep.checks.append(
            CheckResult(
                "consistency (h → 0)",
                "inconclusive",
                f"cannot judge: the draws are not stationary after {CONSISTENCY_BURN_TIME:g} "
                f"time units at h = {', '.join(f'{h:g}' for h in moving)} (a slowly mixing "
                "sampler, e.g. a low friction); validate against a named algorithm, whose "
                "exact transient law needs no stationarity",
                {"alpha each": a_each},
            )
        )
        return rep
    tmean, tcov = prob.exact["mean"].value, prob.exact["cov"].value
    x = np.array(hs)
    tests, bad = [], []
    for label, idx in quantities:
        y = np.array([m for m, _ in est[label]])
        w = 1 / np.array([se for _, se in est[label]]) ** 2
        X = np.vander(x, len(x), increasing=True)  # 1, h, h², …: exact through the points
        cov = np.linalg.inv(X.T @ (X * w[:, None]))
        q0 = float((cov @ (X.T @ (w * y)))[0])
        se0 = float(math.sqrt(cov[0, 0]))
        if len(idx) == 1:
            target = float(tmean[idx[0]])
        elif idx[0] < d:
            target = float(tcov[idx])
        else:
            target = float(idx[0] == idx[1])  # unit mass: E ppᵀ = I
        zz = (q0 - target) / se0
        t = {"quantity": label, "limit": q0, "target": target, "se": se0, "z": zz,
             "detectable": (crit + zp) * se0, "reject": abs(zz) > crit}  # fmt: skip
        tests.append(t)
        if t["reject"]:
            bad.append(t)
    diag = {f"Cov θ[{j}],θ[{j}]" for j in range(d)}
    var_ratio = [t["limit"] / t["target"] for t in tests if t["quantity"] in diag]
    mde = max(t["detectable"] / t["target"] for t in tests if t["quantity"] in diag)
    nums = {"tests": tests, "alpha each": a_each, "Var θ limit / target": var_ratio,
            f"Var θ error detectable at power {POWER}": mde}  # fmt: skip
    family = "underdamped" if returned_p else "overdamped"
    pl = targets.Plan(None, {}, prob, None, hs)  # type: ignore[arg-type]
    cfg2 = {**cfg, "window": {h: _window(cfg, h) for h in hs}}
    matches = _matching_schemes(pl, outs, cfg2, a_each, family=family)
    fit = "; ".join(f"`{m}` ({registry.get(m).citation})" for m in matches)
    if bad and matches:
        msg = (
            f"conflict: the extrapolated limit misses the target, but the draws fit the exact "
            f"law of {fit} at every h, a consistent scheme — the extrapolation is not accurate "
            "at these h (give smaller step sizes)"
        )
        rep.checks.append(CheckResult("consistency (h → 0)", "inconclusive", msg, nums))
    elif bad:
        what = "; ".join(
            f"{t['quantity']} → {t['limit']:.4g}, target {t['target']:.4g} (z = {t['z']:.1f})"
            for t in bad[:4]
        )
        msg = (
            f"inconsistent: extrapolated to h → 0, {what}; Var θ limit/target = "
            f"{np.round(var_ratio, 3).tolist()}"
        )
        if np.allclose(var_ratio, var_ratio[0], rtol=0.05) and abs(var_ratio[0] - 1) > 0.1:
            msg += (
                f": the chain samples the target at temperature ≈ {var_ratio[0]:.2g} (noise "
                "variance against drift off by that factor)"
            )
        rep.checks.append(CheckResult("consistency (h → 0)", "fail", msg, nums))
    else:
        msg = (
            f"consistent: every moment extrapolated to h → 0 matches the target "
            f"({len(tests)} z-tests at α = {a_each:.2g} each; relative Var θ errors ≥ "
            f"{mde:.1%} of the limit detectable at power {POWER})"
            + (f"; the draws fit the exact law of {fit}" if matches else "")
        )
        rep.checks.append(CheckResult("consistency (h → 0)", "pass", msg, nums))
    return rep


def _theta_only(law: targets.WindowLaw, d: int) -> targets.WindowLaw:
    """The θ block of a law (for an implementation that does not expose p)."""
    return dataclasses.replace(
        law,
        keys=("theta",),
        mean=law.mean[:d],
        cov=law.cov[:d, :d],
        stationary_mean=law.stationary_mean[:d],
        stationary_cov=law.stationary_cov[:d, :d],
    )


def _diagnosis(pl, failed_h, ratios, draws, cfg, a_each, mde_var, shifted=()) -> CheckResult:
    """What the numbers distinguish: where it failed, the variance ratios, the best match.

    The stationary law alone cannot tell a noise variance too small from a gradient too
    large (both scale Var θ): the message says so and points to step mode, which reads
    the drift and the noise apart.  Other registry schemes whose exact laws no z-test
    rejects at any h (same z-tests and α) are named with the checks' resolution
    ``mde_var`` (the relative Var θ error detectable at power :data:`POWER`): that is not
    a match: a BAOAB whose new gradient is taken at the old θ (a bug) is not rejected as
    ULD-EM at the quick profile (Var θ errors below 4.4 % unseen), so the message never
    calls a non-rejection a valid discretisation; step mode compares the exact laws.

    ``shifted`` are the rejected ``E θ`` tests ``(h, label, shift in sd, z)``.  The chains
    judged here are affine in (state, noise) for each index draw, with the noise additive,
    zero-mean and independent of the state and the indices: setting it to zero leaves the
    mean at every step unchanged, so a shifted mean points at the drift (or at a noise with a
    nonzero mean, or at draws that do not start from θ_0 = 0), whatever Var θ suggests.
    """
    hs = pl.hs
    where = (
        "at every h"
        if len(failed_h) == len(hs)
        else f"only at h = {', '.join(f'{h:g}' for h in failed_h)}"
    )
    r = [x for _, x in ratios]  # (h, ratio) pairs: an h that errored has none
    msg = [
        f"fails {where}; Var θ MC/exact = " + ", ".join(f"{x:.3g} at h = {h:g}" for h, x in ratios)
    ]
    if shifted:
        h, label, sd, zz = max(shifted, key=lambda s: abs(s[2]))
        msg.append(
            f"the mean is off: {label} by {sd:+.3g} sd at h = {h:g} (z = {zz:.1f}); "
            "zero-mean noise cannot move the mean of this affine chain at any step, so the "
            "drift is wrong (a gradient term missing or misweighted, e.g. the prior or a "
            "snapshot's full gradient), the noise has a nonzero mean, or the chains do not "
            "start at θ_0 = 0"
        )
    matches = _matching_schemes(pl, draws, cfg, a_each)
    if matches:
        named = "; ".join(f"`{m}` ({registry.get(m).citation})" for m in matches)
        msg.append(
            f"the draws are consistent with the exact law of {named} at every h (no z-test "
            f"rejects at α = {a_each:.2g} each; a relative Var θ error below {mde_var:.1%} "
            f"goes unseen at power {POWER}): if the implementation is meant to be that "
            f"scheme, validate with algorithm='{matches[0]}'; sampler mode cannot tell a "
            "different valid discretisation from a bug that small — mode='step' compares "
            "the exact laws"
        )
    elif len(r) == len(hs) and all(abs(x - r[0]) < 0.05 * r[0] for x in r) and abs(r[0] - 1) > 0.1:
        msg.append(
            f"Var θ is {r[0]:.2g}× the exact value at every h, not → 1 as h shrinks: the "
            "injected noise variance too small or the gradient too large by that factor (or "
            "the reverse above 1) — the stationary law cannot tell which; mode='step' reads "
            "the drift and the noise apart"
        )
    return CheckResult("diagnosis", "inconclusive", "; ".join(msg), {"variance ratios": ratios})


def _matching_schemes(pl, draws, cfg, a_each, family: str | None = None) -> list[str]:
    """Registry schemes (``family``, exact law here) whose laws the draws fit at every h.

    ``pl.algorithm`` (``None`` for a reference-free validation) is left out; the same
    z-tests at the same ``a_each`` as the exact-law check decide each match.
    """
    family = family or registry.get(pl.algorithm).family
    prob = pl.exact_problem
    out = []
    # the draws' moment estimates do not depend on the law: once per (h, keys)
    estimates: dict[tuple[float, tuple[str, ...]], list] = {}
    for name in registry.names():
        other = registry.get(name)
        if name == pl.algorithm or other.family != family:
            continue
        params = targets.step_params(name)
        if not targets.has_exact_law(name, params):
            continue
        ok = True
        for h, (z, n_steps) in draws.items():
            try:
                law = targets.window_law(name, prob, h, params, n_steps, _window(cfg, h))
            except ValueError:
                ok = False
                break
            sub = law if z.shape[2] == law.mean.size else _theta_only(law, prob.d)
            key = (h, sub.keys)
            if key not in estimates:
                estimates[key] = _moment_estimates(z, sub.keys)
            if any(t["reject"] for t in _z_tests(z, sub, a_each, estimates[key])):
                ok = False
                break
        if ok and draws:
            out.append(name)
    return out


def _reference_checks(
    get, pl, cfg, a_each, seed, steps, first_failure: bool = False
) -> list[CheckResult]:
    """Two-sample comparison with the reference where no exact law is available.

    The same window moments as the exact-law check (every coordinate, variances and the
    off-diagonal covariance), plus for thermostats ``E ξ`` and the exact discrete
    invariant ``E[pᵀp]/d = 1``.  Welch z on per-chain window averages.  ``steps`` counts
    the chain-steps run (implementation and reference); ``first_failure`` stops at the
    first step size whose check fails or errors.
    """
    alg, prob = pl.algorithm, pl.reference_problem
    spec = registry.get(alg)
    thermo = spec.family == "thermostat"
    d = prob.d
    crit = float(_norm_isf(a_each / 2))
    zp = float(_norm_isf(1 - POWER))
    out: list[CheckResult] = []
    chains = cfg["chains"]
    for i, h in enumerate(pl.hs):
        name = f"reference comparison at h={h:g}"
        window = _window(cfg, h)
        # a thermostat's ξ relaxes slowly (SGNHT §3): a longer run before the window, as
        # the one-sample test of E[pᵀp]/d = 1 holds at stationarity only
        n_steps = cfg.get("n_steps", {}).get(h) or (
            round((30 if thermo else 0) / h) + targets.n_steps_for(h, window)
        )
        steps["implementation"] += chains * n_steps
        try:
            got = get(prob, h, n_steps, chains, seed + 7919 + 1000 * i, f"sample(h={h:g})")
        except ImplementationError as err:
            out.append(CheckResult(name, _verdict_of(err), str(err), {"n_steps": n_steps}))
            if first_failure:
                break
            continue
        ref = _reference_draws(alg, prob, h, n_steps, chains, seed + 10**6 + i, pl.params, steps)
        sl = slice(n_steps - window, n_steps)
        keys = ("theta", "p") if "p" in got and "p" in ref else ("theta",)
        zg = np.concatenate([got[k][:, sl, :] for k in keys], axis=2)
        zr = np.concatenate([ref[k][:, sl, :] for k in keys], axis=2)
        centre = np.concatenate([zg, zr]).mean(axis=0)  # pooled per-step mean (w, m)
        quantities = _window_quantities(keys, d)
        idxs = [idx for _, idx in quantities]
        rows = list(zip([lab for lab, _ in quantities], _per_chain_all(zg, idxs, centre),
                        _per_chain_all(zr, idxs, centre), strict=True))  # fmt: skip
        if thermo and "xi" in got and "xi" in ref and got["xi"].ndim == 2:
            rows.append(("E ξ", got["xi"][:, sl].mean(axis=1), ref["xi"][:, sl].mean(axis=1)))
        tests, msgs, bad = [], [], False
        for lab, x, y in rows:
            se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
            zz = (
                (x.mean() - y.mean()) / se
                if se > 0
                else (0.0 if x.mean() == y.mean() else math.inf)
            )
            rej = abs(zz) > crit
            tests.append({"quantity": lab, "impl": float(x.mean()), "reference": float(y.mean()),
                          "z": float(zz), "p": float(2 * _norm_sf(abs(zz))),
                          "detectable": (crit + zp) * se, "reject": rej})  # fmt: skip
            if rej:
                bad = True
                msgs.append(f"{lab} = {x.mean():.4g}, reference {y.mean():.4g} (z = {zz:.2f})")
        if thermo and "p" in got and alg not in thermostat.NEEDS_GRAD:
            p2 = (got["p"][:, sl, :] ** 2).mean(axis=(1, 2))
            zz = (p2.mean() - 1) / (p2.std(ddof=1) / math.sqrt(p2.size))
            rej = abs(zz) > crit
            tests.append({"quantity": "E[pᵀp]/d", "impl": float(p2.mean()), "exact": 1.0,
                          "z": float(zz), "p": float(2 * _norm_sf(abs(zz))),
                          "reject": rej})  # fmt: skip
            if rej:
                bad = True
                msgs.append(
                    f"E[pᵀp]/d = {p2.mean():.4g}, but the thermostat update ξ' = ξ + (pᵀp/d − 1)h "
                    "forces exactly 1 at stationarity: the ξ update uses a different p or scaling"
                )
        nums = {"tests": tests, "alpha each": a_each, "n_steps": n_steps}
        for t in tests:
            nums[t["quantity"]] = {k: v for k, v in t.items() if k != "quantity"}
        out.append(
            CheckResult(
                name,
                "fail" if bad else "pass",
                "; ".join(msgs)
                if bad
                else f"consistent with the reference implementation ({len(tests)} two-sample "
                f"z-tests on per-chain window averages at α = {a_each:.2g} each; no exact law "
                "for this scheme on this problem)",
                nums,
            )
        )
        if bad and first_failure:
            break
    return out


#: The reference draws of the last few two-sample checks, keyed by content: validations
#: of several implementations of one algorithm at one seed (the planted bugs of
#: HARNESS-POWER) share them.  At most :data:`_REFERENCE_CACHE_SIZE` entries (tens of MB).
_REFERENCE_CACHE: dict[tuple, dict[str, np.ndarray]] = {}
_REFERENCE_CACHE_SIZE = 2


def _reference_draws(
    alg, prob, h, n_steps, chains, seed, params, steps=None
) -> dict[str, np.ndarray]:
    """The reference's draws (cached); ``steps["reference"]`` counts the chain-steps run."""
    key = (alg, prob.content_key(), float(h), int(n_steps), int(chains), int(seed),
           tuple(sorted((k, repr(v)) for k, v in params.items())))  # fmt: skip
    if key in _REFERENCE_CACHE:
        return _REFERENCE_CACHE[key]
    sampler = registry.make_sampler(alg, prob, h=h, **params)
    rec = ["theta"] + (["p"] if sampler.family != "overdamped" else [])
    rec += ["xi"] if sampler.family == "thermostat" and alg != "sgnht-mat" else []
    res = run_sampler(sampler, n_steps=n_steps, chains=chains, seed=seed, record=tuple(rec))
    if steps is not None:
        steps["reference"] += chains * n_steps
    while len(_REFERENCE_CACHE) >= _REFERENCE_CACHE_SIZE:
        _REFERENCE_CACHE.pop(next(iter(_REFERENCE_CACHE)))
    _REFERENCE_CACHE[key] = res.draws
    return res.draws


def reference_sample_function(
    algorithm: str, make: Callable[..., Any] | None = None, **params: Any
) -> Callable[..., dict[str, np.ndarray]]:
    """A :class:`SampleFunction` from a registry algorithm (or ``make(problem, h)`` → Sampler).

    ``make`` lets a planted bug (:mod:`sgmcmc_verify.bugs`) be validated:
    ``make=lambda prob, h: bugs.half_noise(make_sampler("sgld", prob, h=h, n=1))``.
    """
    pl = targets.plan(algorithm, params)

    def sample(problem, h, n_steps, n_chains, seed):
        if make is None:
            s = registry.make_sampler(algorithm, problem, h=h, **pl.params)
        else:
            s = make(problem, h)
        rec = ["theta"] + (["p"] if s.family != "overdamped" else [])
        rec += ["xi"] if s.family == "thermostat" and algorithm != "sgnht-mat" else []
        return run_sampler(s, n_steps=n_steps, chains=n_chains, seed=seed, record=tuple(rec)).draws

    return sample


# --------------------------------------------------------------------------------------
# Step-function comparison
# --------------------------------------------------------------------------------------


def _lipschitz(problem: Problem) -> float:
    prec = getattr(problem, "precision", None)
    if prec is not None:
        return float(np.linalg.norm(np.asarray(prec), 2))
    return 10.0


def _public_state(sampler, state) -> dict[str, np.ndarray]:
    integ = sampler.integrator
    out = {"theta": state.theta}
    if hasattr(state, "p"):
        out["p"] = integ.momentum(state) if hasattr(integ, "momentum") else state.p
    if hasattr(state, "xi"):
        out["xi"] = integ.thermostat(state) if hasattr(integ, "thermostat") else state.xi
    return out


def compare_steps(
    step: StepFunction,
    algorithm: str,
    problem: Problem,
    *,
    h: float,
    params: Mapping[str, Any] | None = None,
    n_steps: int = 200,
    chains: int = 8,
    seed: int = 0,
    timeout: float | None = 30.0,
    ops: int = 16,
) -> CheckResult:
    """Drive ``step`` and the reference with the same noise and indices; compare trajectories.

    Tolerance (float64 rounding analysis).  One step computes each coordinate with at most
    ``ops`` floating-point operations, each with relative error ``u = 2⁻⁵³``, so two
    mathematically equal formulas differ by at most ``ops·u·S`` where ``S`` is the sum of
    the magnitudes of the terms of the update (``|z|``, ``h|g|``, ``|noise term|``).  A
    difference ``e`` in the state is amplified by at most ``L = 1 + h(‖∇²U‖ + 1) + h·c``
    per step (``c`` the friction or ``|ξ|``; ``‖∇²U‖`` from the problem's precision).
    The bound propagated over the trajectory is

        ``tol_{k+1} = L·tol_k + 2·ops·u·S_k``,

    per coordinate, the factor 2 for the two implementations' independent roundings.  A
    coordinate beyond it is a disagreement no reordering of float64 arithmetic explains.
    """
    params = dict(targets.plan(algorithm, dict(params or {})).params if params is None else params)
    sampler = registry.make_sampler(algorithm, problem, h=h, **params)
    rng = np.random.default_rng(seed)
    theta0 = np.random.default_rng(seed + 1).standard_normal((chains, problem.d))
    state = sampler.init(theta0, rng)
    ext = {k: np.array(v, copy=True) for k, v in _public_state(sampler, state).items()}
    lip = _lipschitz(problem)
    fric = float(
        max(
            getattr(sampler.integrator, "D", 0.0) or 0.0,
            getattr(sampler.integrator, "gamma", 0.0) or 0.0,
            float(np.max(np.abs(np.asarray(getattr(sampler.integrator, "A", 0.0) or 0.0)))),
        )
    )
    tol = {k: np.zeros_like(v, dtype=float) for k, v in ext.items()}
    name = "step-by-step comparison"
    for t in range(n_steps):
        rand, state = sampler.draw(state, rng)
        new, info = sampler.step(state, rand)
        try:
            got = call_with_timeout(
                lambda s=ext, r=rand, i=info: step(
                    dict(s), problem=problem, h=h, noise=r.noise, indices=i.indices, randomness=r
                ),
                (),
                timeout,
            )
        except ImplementationError as err:
            return CheckResult(name, "error", f"step {t}: {err}", {"step": t})
        if not isinstance(got, Mapping) or "theta" not in got:
            return CheckResult(
                name, "error", f"step {t}: returned {type(got).__name__}, expected a state dict"
            )
        refpub = _public_state(sampler, new)
        xi_abs = float(np.max(np.abs(refpub["xi"]))) if "xi" in refpub else 0.0
        amp = 1 + h * (lip + 1) + h * max(fric, xi_abs) + (h * h if "xi" in refpub else 0.0)
        scale = sum(np.abs(v).max(axis=-1, keepdims=True) for k, v in refpub.items() if k != "xi")
        scale = scale + h * np.abs(info.grad).max(axis=-1, keepdims=True)
        scale = scale + math.sqrt(2 * h * max(1.0, fric)) * np.abs(rand.noise).max(
            axis=-1, keepdims=True
        )
        for key, ref in refpub.items():
            val = np.asarray(got.get(key)) if key in got else None
            if val is None or val.shape != ref.shape:
                return CheckResult(
                    name,
                    "error",
                    f"step {t}: state[{key!r}] has shape "
                    f"{None if val is None else val.shape}, expected {ref.shape}",
                )
            sc = scale if key != "xi" else scale.max(axis=-1)
            tol[key] = amp * tol[key] + 2 * ops * U64 * (np.abs(ref) + sc)
            diff = np.abs(val.astype(np.float64) - ref)
            over = ~(diff <= tol[key])
            if np.any(over):
                first = tuple(int(i) for i in np.argwhere(over)[0])
                chain = first[0]
                coord = first[1] if len(first) > 1 else None
                where = f"chain {chain}" + (f", coordinate {coord}" if coord is not None else "")
                return CheckResult(
                    name,
                    "fail",
                    f"first disagreement at step {t} (0-based), {key}, {where}: "
                    f"implementation {val[first]!r}, reference {ref[first]!r}, "
                    f"|difference| {diff[first]:.3g} > rounding bound {tol[key][first]:.3g}",
                    {"step": t, "key": key, "chain": chain, "coordinate": coord,
                     "difference": float(diff[first]), "bound": float(tol[key][first])},
                )  # fmt: skip
        state = new
        ext = dict(got)
    worst = {k: float(v.max()) for k, v in tol.items()}
    return CheckResult(
        name,
        "pass",
        f"{n_steps} steps × {chains} chains agree within the float64 rounding bound",
        {"n_steps": n_steps, "final bounds": worst},
    )


def validate_samples(
    paths: Mapping[float, str | Path] | str | Path,
    algorithm: str,
    *,
    h: float | None = None,
    params: Mapping[str, Any] | None = None,
    alpha: float = ALPHA,
    window: int | None = None,
) -> ValidationReport:
    """Validate draws read from files, one file per step size.

    ``paths`` maps ``h`` to a file (or is one file, with ``h`` given).  Each file holds
    ``(chains, T, 2)`` draws of θ (and optionally p, ξ) run on the harness's validation
    problem (:func:`sgmcmc_verify.validation.targets.problem_step`; export it with
    ``sgmcmc-verify problem ALG --export FILE``) from ``θ_0 = 0`` (``p_0 = 0``), with the
    parameters of :func:`~sgmcmc_verify.validation.targets.step_params`, recording every
    step: draw ``t`` is the state after ``t + 1`` steps.  Any ``T`` works: the draws after
    :data:`~sgmcmc_verify.validation.targets.BURN_TIME` (or the last ``window``) are
    compared with the exact *transient* law at those very steps.

    Raises
    ------
    SampleFileError
        Unreadable files (one line; the CLI exits 2).
    ValueError
        Bad step sizes (≤ 0, NaN, inf, duplicates), an unknown algorithm or parameter.
    """
    if not isinstance(paths, Mapping):
        if h is None:
            raise ValueError("give h with a single file, or a mapping {h: path}")
        paths = {h: paths}
    hs = check_step_sizes(list(paths))
    _check_args(algorithm, "sampler", "quick", alpha, 0, None)
    if algorithm is None:
        raise ValueError("validate-samples needs --algorithm (the scheme the draws claim)")
    params = dict(params or {})
    check_params(algorithm, params)
    files = {float(hh): p for hh, p in paths.items()}
    loaded = {hh: load_samples(p) for hh, p in files.items()}
    pl = targets.plan(algorithm, params)
    pl.hs = hs
    shapes = {hh: a["theta"].shape for hh, a in loaded.items()}
    chains = {s[0] for s in shapes.values()}
    if len(chains) != 1:
        raise ValueError(f"the files hold different numbers of chains: {sorted(chains)}")
    d = (pl.exact_problem or pl.reference_problem).d
    for hh, shp in shapes.items():
        if shp[2] != d:
            raise SampleFileError(
                f"{files[hh]}: theta has {shp[2]} coordinate(s); the validation problem has "
                f"d = {d} (draws from another target? export it with 'sgmcmc-verify problem "
                f"{algorithm} --export FILE')"
            )
    steps = {hh: shp[1] for hh, shp in shapes.items()}
    burn = {hh: min(math.ceil(targets.BURN_TIME / hh), steps[hh] - 1) for hh in hs}
    win = {hh: window or steps[hh] - burn[hh] for hh in hs}
    for hh in hs:
        if not 1 <= win[hh] <= steps[hh]:
            raise ValueError(f"window {win[hh]} does not fit the {steps[hh]} draws at h = {hh:g}")
    cfg = {"chains": chains.pop(), "window": win, "n_steps": steps}

    def get(prob, hh, n_steps, n_chains, seed, what):
        arr = loaded[float(hh)]
        return check_draws(arr, n_chains, n_steps, prob.d, f"{files[hh]}")

    rep = _validate_draws(get, pl, cfg, alpha, 0, True)
    rep.mode = "samples"
    return rep


def timed(fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    return fn(*args, **kw), time.perf_counter() - t0
