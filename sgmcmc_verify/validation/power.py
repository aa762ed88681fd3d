"""Measured power and size of the harness (issue 7, "Measured power and size").

* :func:`kill_rate` — every bug of :data:`sgmcmc_verify.bugs.CATALOGUE` validated in
  the sampler mode (statistical checks only) and in the step mode (trajectory
  comparison under the same noise); a bug is killed when the verdict is not ``pass``.
* :func:`false_alarm_rate` — the sampler-mode battery on the reference implementations
  over many seeds; the observed rejection rate with its Clopper–Pearson interval,
  compared with the stated α.
* :func:`measure_power` — both, as one dict for the report.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.stats import beta

from .. import bugs, registry
from ..parallel import map_units
from . import targets
from .core import ALPHA, POWER, reference_sample_function, validate

__all__ = [
    "false_alarm_rate",
    "false_alarm_units",
    "kill_rate",
    "kill_units",
    "measure_power",
    "sampler_step_function",
]


_MDE_KEY = f"Var θ error detectable at power {POWER}"


def sampler_step_function(make: Callable[[Any, float], Any], seed: int) -> Callable[..., dict]:
    """A :class:`~sgmcmc_verify.validation.StepFunction` from ``make(problem, h) -> Sampler``.

    The sampler keeps its own full state in the private key ``"_state"`` and draws its
    estimator randomness from a generator seeded like the harness's (so, unless the bug
    is in the index draw, it reads the same indices); the Gaussian noise is the one passed.
    """

    def step(state, *, problem, h, noise, indices, randomness=None):
        if "_state" not in state:
            s = make(problem, h)
            rng = np.random.default_rng(seed)
            st = s.init(state["theta"], rng)
            pub = {k: np.array(state[k]) for k in ("p", "xi") if k in state and hasattr(st, k)}
            if hasattr(s.integrator, "from_public"):  # SGNHT-2 stores u = ph, α = ξh
                st = s.integrator.from_public(st, **pub)
            else:
                st = st._replace(**pub)
            state = {**state, "_state": (s, st, rng)}
        s, st, rng = state["_state"]
        rand, st = s.draw(st, rng)
        st, _ = s.step(st, rand._replace(noise=noise))
        out = {"theta": st.theta, "_state": (s, st, rng)}
        integ = s.integrator
        if hasattr(st, "p"):
            out["p"] = integ.momentum(st) if hasattr(integ, "momentum") else st.p
        if hasattr(st, "xi"):
            out["xi"] = integ.thermostat(st) if hasattr(integ, "thermostat") else st.xi
        return out

    return step


def _quiet(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` without numpy's overflow warnings: a planted bug may overflow (gradient
    ascent) and the harness judges the NaN draws; the warnings are noise on the terminal.
    Set inside the call because the harness runs it in a thread (errstate is per thread)."""

    def quiet(*args: Any, **kwargs: Any) -> Any:
        with np.errstate(over="ignore", invalid="ignore"):
            return fn(*args, **kwargs)

    return quiet


def _maker(alg: str, transform: Callable[..., Any], params: dict) -> Callable[..., Any]:
    return lambda problem, h: transform(registry.make_sampler(alg, problem, h=h, **params))


def _kill_row(name: str, *, seed: int, profile: str) -> dict[str, Any]:
    """Validate one catalogued bug in both modes (one unit of :func:`kill_rate`)."""
    alg, transform, desc = bugs.CATALOGUE[name]
    pl = targets.plan(alg)
    make = _maker(alg, transform, pl.params)
    t0 = time.perf_counter()
    # a kill is decided at the first failing check: later step sizes cannot undo it
    rep = validate(
        _quiet(reference_sample_function(alg, make=make)),
        alg,
        seed=seed,
        profile=profile,
        first_failure=True,
    )
    t1 = time.perf_counter()
    # step mode through the public API, on the step-mode problem and batch
    make_step = _maker(alg, transform, targets.step_params(alg))
    step = validate(_quiet(sampler_step_function(make_step, seed)), alg, mode="step", seed=seed)
    t2 = time.perf_counter()
    why = "; ".join(c.message for c in rep.failures()) or _survival_reason(rep)
    return {
        "bug": name,
        "algorithm": alg,
        "description": desc,
        "sampler_verdict": rep.verdict,
        "step_verdict": step.verdict,
        # a kill is a "fail" verdict; an "error" (e.g. a timeout, which depends on the
        # machine) is neither a kill nor a survival, and is counted apart
        "killed_sampler": rep.verdict == "fail",
        "killed_step": step.verdict == "fail",
        "errored": rep.verdict == "error" or step.verdict == "error",
        "sampler_message": why,
        "step_message": "; ".join(c.message for c in step.failures()) or "all checks pass",
        "seconds": (round(t1 - t0, 2), round(t2 - t1, 2)),
        # chain-steps the sampler-mode validation ran (the step mode's are negligible)
        "chain_steps": sum(rep.settings.get("chain_steps", {}).values()),
    }


def kill_units(
    names: Sequence[str] | None = None, *, seed: int = 0, profile: str = "quick"
) -> tuple[Callable[[str], dict[str, Any]], list[str]]:
    """The units of :func:`kill_rate`: one function and the bug names it maps over."""
    return functools.partial(_kill_row, seed=seed, profile=profile), list(names or bugs.CATALOGUE)


def kill_rate(
    names: Sequence[str] | None = None, *, seed: int = 0, profile: str = "quick"
) -> dict[str, Any]:
    """Validate every catalogued bug; returns per-bug verdicts, kill rates and survivors.

    Each bug is one unit of :func:`~sgmcmc_verify.parallel.map_units` (a Dask task of
    its own under ``report --scheduler``).
    """
    rows = map_units(*kill_units(names, seed=seed, profile=profile))
    n = len(rows)
    ks = sum(r["killed_sampler"] for r in rows)
    kt = sum(r["killed_step"] for r in rows)
    ka = sum(r["killed_sampler"] or r["killed_step"] for r in rows)
    return {
        "bugs": n,
        "chain_steps": sum(r["chain_steps"] for r in rows),
        "kill_rate_sampler": ks / n,
        "kill_rate_step": kt / n,
        "kill_rate_any": ka / n,
        "survivors_sampler": [
            {"bug": r["bug"], "reason": r["sampler_message"]}
            for r in rows
            if not r["killed_sampler"]
        ],
        "rows": rows,
    }


def _survival_reason(rep) -> str:
    nums = [c.numbers for c in rep.checks if c.name.startswith("exact law")]
    ratios = [float(np.mean(np.asarray(n["MC var"]) / np.asarray(n["exact var"]))) for n in nums]
    txt = "every statistical check passed at the stated α"
    if ratios:
        txt += f"; variance ratios MC/exact {np.round(ratios, 4).tolist()}"
    return txt + " (the effect is below the Monte Carlo resolution of the quick profile)"


def _reference_verdict(unit: tuple[str, int], *, alpha: float) -> tuple[str, int, list[float]]:
    """One validation of a reference implementation: its verdict (pass, fail or error), the
    chain-steps it ran, and the relative Var θ error each exact-law check detects at power
    :data:`~sgmcmc_verify.validation.core.POWER`."""
    alg, run_seed = unit
    rep = validate(reference_sample_function(alg), alg, seed=run_seed, alpha=alpha)
    mdes = [float(c.numbers[_MDE_KEY]) for c in rep.checks if _MDE_KEY in c.numbers]
    return rep.verdict, sum(rep.settings.get("chain_steps", {}).values()), mdes


def false_alarm_units(
    algorithms: Sequence[str] = ("sgld", "svrg-hmc", "uld-em"),
    seeds: int = 100,
    *,
    alpha: float = ALPHA,
    seed: int = 0,
) -> tuple[Callable[[tuple[str, int]], str], list[tuple[str, int]]]:
    """The units of :func:`false_alarm_rate`: one function and its (algorithm, seed) items.

    Every (algorithm, s) pair gets a seed of its own.  The binomial test of the size counts
    validations as independent trials; with one seed shared by the algorithms they are not
    (the reference samplers then draw the same noise: sgld's and svrg-hmc's E θ z-scores
    were correlated 0.95 across seeds, and their rejections came in pairs).
    """
    units = [
        (alg, 10_000 + 37 * (s * len(algorithms) + a) + 100_003 * seed)
        for a, alg in enumerate(algorithms)
        for s in range(seeds)
    ]
    return functools.partial(_reference_verdict, alpha=alpha), units


def false_alarm_rate(
    algorithms: Sequence[str] = ("sgld", "svrg-hmc", "uld-em"),
    seeds: int = 100,
    *,
    alpha: float = ALPHA,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Reject rate of the sampler-mode battery on the references over ``seeds`` seeds each.

    ``within_alpha`` is True when the Clopper–Pearson interval's lower end is ≤ α.
    Validations that end in ``error`` are counted in ``errors`` and left out of the rate.
    The ``s``-th validation of the ``a``-th algorithm (of ``A``) uses seed
    ``10_000 + 37 (s A + a) + 100_003 seed``: no two validations share a seed, and
    different ``seed`` values give disjoint, reproducible seed sets (while ``37 s A`` stays
    below 100_003).
    """
    fn, units = false_alarm_units(algorithms, seeds, alpha=alpha, seed=seed)
    results = map_units(fn, units)
    verdicts = [r[0] for r in results]
    per = {alg: 0 for alg in algorithms}
    for (alg, _), v in zip(units, verdicts, strict=True):
        per[alg] += v == "fail"
    # an error is a harness defect, not a statistical rejection: counted apart
    errors = sum(v == "error" for v in verdicts)
    mdes: dict[str, list[float]] = {}
    for (alg, _), r in zip(units, results, strict=True):
        mdes.setdefault(alg, []).extend(r[2])
    rejects, total = sum(per.values()), len(units) - errors
    if total == 0:
        raise RuntimeError(f"every one of the {len(units)} reference validations errored")
    a = (1 - confidence) / 2
    lo = 0.0 if rejects == 0 else float(beta.ppf(a, rejects, total - rejects + 1))
    hi = 1.0 if rejects == total else float(beta.ppf(1 - a, rejects + 1, total - rejects))
    return {
        "alpha": alpha,
        "validations": total,
        "rejections": rejects,
        "rate": rejects / total,
        "ci": (lo, hi),
        "confidence": confidence,
        "within_alpha": lo <= alpha,
        "per_algorithm": per,
        "errors": errors,
        "chain_steps": sum(r[1] for r in results),
        # the Var θ error a validation of a correct implementation detects, per algorithm
        "mde_var": {k: [min(v), max(v)] for k, v in mdes.items() if v},
    }


def measure_power(*, seeds: int = 100, seed: int = 0) -> dict[str, Any]:
    """Kill rate on the catalogue and false-alarm rate on the references, for the report."""
    t0 = time.perf_counter()
    kills = kill_rate(seed=seed)
    t1 = time.perf_counter()
    size = false_alarm_rate(seeds=seeds, seed=seed)
    t2 = time.perf_counter()
    return {"kill": kills, "false_alarm": size, "seconds": (t1 - t0, t2 - t1)}
