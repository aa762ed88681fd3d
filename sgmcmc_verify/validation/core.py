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

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from scipy.stats import norm

from .. import registry
from ..driver import run_sampler
from ..problems.base import Problem
from ..stats import variance_test, z_test_mean
from . import targets
from .files import SampleFileError, load_samples
from .report import CheckResult, ValidationReport

__all__ = [
    "ImplementationError",
    "SampleFileError",
    "SampleFunction",
    "StepFunction",
    "compare_steps",
    "load_samples",
    "reference_sample_function",
    "validate",
    "validate_samples",
]

#: Default total false-alarm probability of one validation (Bonferroni over its tests).
ALPHA = 0.01

#: Unit roundoff of float64.
U64 = 2.0**-53

PROFILES = {"quick": {"chains": 2000, "window": 64}, "full": {"chains": 8000, "window": 256}}


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
    """The implementation raised, hung, or returned something unusable."""


# --------------------------------------------------------------------------------------
# Calling the implementation safely
# --------------------------------------------------------------------------------------


def call_with_timeout(fn: Callable[..., Any], args: tuple, timeout: float | None) -> Any:
    """``fn(*args)`` in a daemon thread; :class:`ImplementationError` on exception or timeout."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as err:
            box["error"] = err

    th = threading.Thread(target=target, daemon=True, name="sgmcmc-validate-call")
    th.start()
    th.join(timeout)
    if th.is_alive():
        raise ImplementationError(f"did not return within the per-call timeout of {timeout:g} s")
    if "error" in box:
        err = box["error"]
        raise ImplementationError(f"raised {type(err).__name__}: {err}") from err
    return box["value"]


def check_draws(out: Any, chains: int, min_draws: int, d: int, what: str) -> dict[str, np.ndarray]:
    """Validate an implementation's output; :class:`ImplementationError` with the reason."""
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
        if val.shape[1] < min_draws:
            raise ImplementationError(
                f"{what}: {key} has {val.shape[1]} draws; at least {min_draws} are needed "
                "(one per step)"
            )
        if not np.all(np.isfinite(val)):
            bad = np.argwhere(~np.isfinite(val))[0]
            raise ImplementationError(
                f"{what}: {key} contains NaN or inf (first at index {tuple(int(i) for i in bad)})"
            )
        res[key] = val
    return res


# --------------------------------------------------------------------------------------
# Statistics on chain means
# --------------------------------------------------------------------------------------


def _two_sample(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Welch z and two-sided p of equal means of independent chain means ``x``, ``y``."""
    se = math.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size)
    if se == 0:
        return (0.0, 1.0) if x.mean() == y.mean() else (math.inf, 0.0)
    z = (x.mean() - y.mean()) / se
    return float(z), float(2 * norm.sf(abs(z)))


def _ratio_message(ratios: list[float], hs: tuple[float, ...], gradient_factor: float) -> str:
    r = float(np.median(ratios))
    spread = max(ratios) / min(ratios) if min(ratios) > 0 else math.inf
    every = "at every h" if spread < 1.3 else f"at h = {', '.join(f'{h:g}' for h in hs)}"
    head = f"stationary variance is {r:.2g}× the expected value {every}"
    if spread >= 1.3:
        trend = "shrinking toward 1" if abs(ratios[-1] - 1) < abs(ratios[0] - 1) else "not → 1"
        return (
            f"stationary variance is {', '.join(f'{x:.3g}' for x in ratios)}× the expected value "
            f"at h = {', '.join(f'{h:g}' for h in hs)} ({trend} as h → 0): the discretisation "
            "differs from the named scheme (update order, a missing half step or factor h)"
        )
    hints = []
    if abs(r - 0.5) < 0.12:
        hints.append("consistent with noise scale √h where √(2h) is required")
    if abs(r - 2.0) < 0.4:
        hints.append("consistent with noise scale 2√h (variance 4h) where √(2h) is required")
    if gradient_factor > 1 and abs(r / gradient_factor - 1) < 0.25:
        hints.append(
            f"consistent with a gradient {gradient_factor:g}× too small: is the minibatch sum "
            f"scaled by N/n = {gradient_factor:g}?"
        )
    if not hints:
        hints.append("check the noise scale and the gradient scaling")
    return head + "; " + "; ".join(hints)


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
    if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")


def _check_params(algorithm: str | None, params: Mapping[str, Any]) -> None:
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
) -> ValidationReport:
    """Validate an implementation, against registry ``algorithm`` or against the target alone.

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

    Returns
    -------
    ValidationReport

    Raises
    ------
    ValueError
        Bad arguments (one line), before the implementation is called.
    """
    _check_args(algorithm, mode, profile, alpha, seed, timeout)
    params = dict(params or {})
    _check_params(algorithm, params)
    if hs is not None:
        hs = check_step_sizes(hs)
    if mode == "step":
        return _validate_step(impl, algorithm, params, seed, timeout, hs, state, noise_dim)
    if algorithm is None:
        raise ValueError(
            "a sampler function needs algorithm=...; without a reference use mode='step' "
            "with a step function (the exact law by probing)"
        )
    pl = targets.plan(algorithm, params)
    if hs is not None:
        pl.hs = tuple(hs)
    cfg = PROFILES[profile]
    return _validate_draws(
        lambda prob, h, n, c, s, what: check_draws(
            call_with_timeout(impl, (prob, h, n, c, s), timeout), c, n, prob.d, what
        ),
        pl,
        cfg,
        alpha,
        seed,
        reference,
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
            arr = np.asarray(v, dtype=np.float64)
            out[str(k)] = arr[None, ...]
        if "theta" not in out or out["theta"].shape != (1, d):
            raise ValueError(f"state must hold 'theta' of shape ({d},) per chain")
        return out
    keys = tuple(state)
    if "theta" not in keys or not all(isinstance(k, str) for k in keys):
        raise ValueError(f"state must name its keys, 'theta' among them; got {state!r}")
    return {k: np.zeros((1, d)) for k in keys}


def _validate_step(impl, algorithm, params, seed, timeout, hs, state, noise_dim):
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
            hs=hs or EXACT_HS, noise_dim=noise_dim, call=call,
        )  # fmt: skip
        return rep
    full = targets.step_params(algorithm, params)
    h0 = hs[0] if hs else 0.1
    rep.checks.append(
        compare_steps(impl, algorithm, problem, h=h0, params=full, seed=seed, timeout=timeout)
    )
    sampler = registry.make_sampler(algorithm, problem, h=h0, **full)
    memoryless = isinstance(sampler.estimator, Minibatch | FullGradient)
    if spec.family != "thermostat" and memoryless and state is None:
        template = _state_template(None, spec.family, problem.d)
        rep.checks += probe_checks(
            impl, template, problem=problem, n=n, algorithm=algorithm,
            params={k: v for k, v in full.items() if k not in ("n", "b")},
            hs=hs or EXACT_HS, noise_dim=noise_dim, call=call,
        )  # fmt: skip
    return rep


def _validate_draws(get, pl: targets.Plan, cfg, alpha, seed, reference) -> ValidationReport:
    alg = pl.algorithm
    spec = registry.get(alg)
    chains, window = cfg["chains"], cfg["window"]
    rep = ValidationReport(
        alg,
        "sampler",
        settings={"params": pl.params, "hs": list(pl.hs), "chains": chains, "alpha": alpha,
                  "seed": seed, "window": window},
    )  # fmt: skip
    n_exact = (3 if spec.family != "thermostat" else 0) * len(pl.hs)
    n_ref = (4 if spec.family == "thermostat" else 2) * len(pl.hs) if pl.reference_problem else 0
    m = max(1, n_exact + (n_ref if reference else 0))
    a_each = alpha / m
    rep.settings["alpha_each"] = a_each
    gfac = 1.0
    if pl.exact_problem is not None and pl.exact_problem.N > 1:
        b = pl.params.get("n", pl.params.get("b", 1))
        gfac = pl.exact_problem.N / b
    # 1. exact discrete law at each h
    ratios, biases = [], []
    if pl.exact_problem is not None:
        prob = pl.exact_problem
        for i, h in enumerate(pl.hs):
            name = f"exact law at h={h:g}"
            try:
                law = targets.exact_law(alg, prob, h, pl.params)
            except ValueError as err:
                rep.checks.append(CheckResult(name, "inconclusive", f"no exact law: {err}"))
                continue
            w = law.period * math.ceil(window / law.period)
            n_steps = law.burn_in + w
            try:
                out = get(prob, h, n_steps, chains, seed + 1000 * i, f"sample(h={h:g})")
            except ImplementationError as err:
                rep.checks.append(CheckResult(name, "error", str(err), {"n_steps": n_steps}))
                continue
            th = out["theta"][:, -w:, :]
            zt = z_test_mean(th, law.mean, alpha=a_each, method="chain_means")
            vt = variance_test(th, law.var, alpha=a_each, mean=law.mean, method="chain_means")
            mc_var = ((th - law.mean) ** 2).mean(axis=(0, 1))
            ratio = float(np.mean(mc_var / law.var))
            ratios.append(ratio)
            biases.append((h, float(mc_var[0] - (pl.target_var or 0.0)), float(law.var[0])))
            nums = {
                "exact mean": law.mean,
                "exact var": law.var,
                "MC mean": th.mean(axis=(0, 1)),
                "MC var": mc_var,
                "p mean": zt.p_value,
                "p var": vt.p_value,
                "alpha each": a_each,
                "source": law.source,
                "n_steps": n_steps,
            }
            msgs, bad = [], zt.reject or vt.reject
            if zt.reject:
                msgs.append(
                    f"stationary mean {np.round(th.mean(axis=(0, 1)), 4).tolist()} differs from "
                    f"the exact {np.round(law.mean, 4).tolist()} (p = {zt.p_value:.2g}): a biased "
                    "gradient estimate (wrong index used, table updated before use, stale "
                    "snapshot, data never read)"
                )
            if vt.reject:
                msgs.append(f"variance ratio MC/exact = {ratio:.3g} (p = {vt.p_value:.2g})")
            pp = out.get("p")
            if law.p2 is not None and pp is not None:
                p2 = (pp[:, -w:, :] ** 2).mean(axis=2)[..., None]
                t = z_test_mean(p2, law.p2, alpha=a_each, method="chain_means")
                nums["E[pᵀp]/d exact, MC"] = (law.p2, float(p2.mean()))
                if t.reject:
                    bad = True
                    msgs.append(
                        f"E[pᵀp]/d = {p2.mean():.4g}, the exact discrete value is {law.p2:.4g} "
                        f"(p = {t.p_value:.2g}): momentum noise or friction is off"
                    )
            rep.checks.append(
                CheckResult(
                    name,
                    "fail" if bad else "pass",
                    "; ".join(msgs) if bad else f"matches the exact discrete law ({law.source})",
                    nums,
                )
            )
        if ratios and any(c.verdict == "fail" for c in rep.checks):
            rep.checks.append(
                CheckResult(
                    "diagnosis",
                    "inconclusive",
                    _ratio_message(ratios, pl.hs[: len(ratios)], gfac),
                    {"variance ratios": ratios},
                )
            )
        if len(biases) >= 2:
            rep.checks.append(_order_check(biases, pl))
    # 2. thermostat invariants and reference comparison
    if pl.reference_problem is not None and reference:
        rep.checks.extend(_reference_checks(get, pl, chains, window, a_each, seed))
    return rep


def _order_check(biases, pl: targets.Plan) -> CheckResult:
    """Bias order of Var θ across h, from MC (informational; the exact-law tests decide)."""
    hs = np.array([b[0] for b in biases])
    mc = np.array([b[1] for b in biases])
    ex = np.array([b[2] - (pl.target_var or 0.0) for b in biases])
    nums = {"h": hs, "MC bias of Var θ": mc, "exact bias": ex, "scheme order": pl.scheme_order}
    if np.all(np.abs(mc) > 0) and np.all(np.sign(mc) == np.sign(mc[0])):
        slope = float(np.polyfit(np.log(hs), np.log(np.abs(mc)), 1)[0])
        nums["MC order"] = slope
        msg = f"measured bias order ≈ {slope:.2f} (exact-law values: {np.round(ex, 4).tolist()})"
    else:
        msg = "bias below Monte Carlo resolution at these h; order not measurable"
    return CheckResult("bias order", "inconclusive", msg, nums)


def _reference_checks(get, pl, chains, window, a_each, seed) -> list[CheckResult]:
    alg, prob = pl.algorithm, pl.reference_problem
    thermo = registry.get(alg).family == "thermostat"
    out: list[CheckResult] = []
    for i, h in enumerate(pl.hs):
        name = f"reference comparison at h={h:g}"
        n_steps = round((30 if thermo else 20) / h) + window
        try:
            got = get(prob, h, n_steps, chains, seed + 7919 + 1000 * i, f"sample(h={h:g})")
        except ImplementationError as err:
            out.append(CheckResult(name, "error", str(err), {"n_steps": n_steps}))
            continue
        ref = _reference_draws(alg, prob, h, n_steps, chains, seed + 10**6 + i, pl.params)
        sl = slice(-window, None)
        c = ref["theta"][:, sl, :].mean(axis=(0, 1))  # centre: the reference's mean
        obs = {
            "E θ": lambda a, sl=sl: a["theta"][:, sl, 0].mean(axis=1),
            "Var θ": lambda a, sl=sl, c=c: ((a["theta"][:, sl, :] - c) ** 2).mean(axis=(1, 2)),
        }
        if thermo:
            obs["E ξ"] = lambda a, sl=sl: a["xi"][:, sl].mean(axis=1)
        msgs, nums, bad = [], {}, False
        for key, f in obs.items():
            if key == "E ξ" and "xi" not in got:
                continue
            x, y = f(got), f(ref)
            z, p = _two_sample(x, y)
            nums[key] = {"impl": float(x.mean()), "reference": float(y.mean()), "p": p}
            if p <= a_each:
                bad = True
                msgs.append(f"{key} = {x.mean():.4g}, reference {y.mean():.4g} (z = {z:.2f})")
        if thermo and "p" in got:
            p2 = (got["p"][:, sl, :] ** 2).mean(axis=(1, 2))
            z = (p2.mean() - 1) / (p2.std(ddof=1) / math.sqrt(p2.size))
            pv = float(2 * norm.sf(abs(z)))
            nums["E[pᵀp]/d"] = {"impl": float(p2.mean()), "exact": 1.0, "p": pv}
            if pv <= a_each:
                bad = True
                msgs.append(
                    f"E[pᵀp]/d = {p2.mean():.4g}, but the thermostat update ξ' = ξ + (pᵀp/d − 1)h "
                    "forces exactly 1 at stationarity: the ξ update uses a different p or scaling"
                )
        out.append(
            CheckResult(
                name,
                "fail" if bad else "pass",
                "; ".join(msgs)
                if bad
                else "consistent with the reference implementation (two-sample test on chain "
                "means; no closed-form law for this estimator/problem)",
                nums,
            )
        )
    return out


def _reference_draws(alg, prob, h, n_steps, chains, seed, params) -> dict[str, np.ndarray]:
    sampler = registry.make_sampler(alg, prob, h=h, **params)
    rec = ["theta"] + (["p"] if sampler.family != "overdamped" else [])
    rec += ["xi"] if sampler.family == "thermostat" and alg != "sgnht-mat" else []
    res = run_sampler(sampler, n_steps=n_steps, chains=chains, seed=seed, record=tuple(rec))
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

    ``paths`` maps ``h`` to a file (or is one file, with ``h`` given).  Each file must
    hold every step of ``chains`` chains run on the harness's validation problem
    (:func:`sgmcmc_verify.validation.targets.plan`; write it with
    ``sgmcmc_verify.problems``) from ``θ_0 = 0``, at least as many steps as the exact
    law's burn-in plus the window; the last ``window`` draws are tested.

    Raises :class:`SampleFileError` (one line; the CLI exits 2) for unreadable files.
    """
    if not isinstance(paths, Mapping):
        if h is None:
            raise ValueError("give h with a single file, or a mapping {h: path}")
        paths = {float(h): paths}
    loaded = {float(hh): load_samples(p) for hh, p in paths.items()}
    pl = targets.plan(algorithm, dict(params or {}))
    pl.hs = tuple(sorted(loaded, reverse=True))
    pl.reference_problem = None if pl.exact_problem is not None else pl.reference_problem
    first = next(iter(loaded.values()))["theta"]
    cfg = {"chains": first.shape[0], "window": window or min(64, first.shape[1] // 2)}

    def get(prob, hh, n_steps, chains, seed, what):
        arr = loaded[float(hh)]
        return check_draws(arr, arr["theta"].shape[0], n_steps, prob.d, f"{paths[hh]}")

    rep = _validate_draws(get, pl, cfg, alpha, 0, True)
    rep.mode = "samples"
    return rep


def timed(fn: Callable[..., Any], *args: Any, **kw: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    return fn(*args, **kw), time.perf_counter() - t0
