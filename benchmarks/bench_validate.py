"""Time to verdict of the harness's routes (issue 11): measured, never asserted in a test.

Runs each validation twice in one process and prints both wall times (the first pays for
solving the exact laws of the validation problem, which later validations reuse), with
the verdict, so the README's statements about time come from a run:

    python benchmarks/bench_validate.py
"""

from __future__ import annotations

import time

import numpy as np

from sgmcmc_verify.validation import reference_sample_function, validate

CACHE = {"theta": np.zeros(2), "p": np.zeros(2), "grad": np.zeros(2)}


def baoab(state, *, h, noise, indices, problem, randomness=None, gamma=1.3, o=None):
    """A literal BAOAB with a cached full gradient (Leimkuhler & Matthews 2013)."""
    th, p, g = state["theta"], state["p"], state["grad"]
    p = p - h / 2 * g
    th = th + h / 2 * p
    c = np.exp(-gamma * h)
    p = c * p + (np.sqrt(1 - c * c) if o is None else o(gamma, h)) * noise
    th = th + h / 2 * p
    g = problem.grad(th)
    return {"theta": th, "p": p - h / 2 * g, "grad": g}


def broken_splitting(state, **kw):
    """BAOAB whose O step has noise √(γh): half the variance fluctuation–dissipation needs."""
    return baoab(state, **kw, o=lambda g, h: np.sqrt(g * h))


def explicit_sghmc(state, *, h, noise, indices, problem, randomness=None):
    """SGHMC by explicit Euler with a minibatch (as posteriors and blackjax implement it)."""
    th, p = state["theta"], state["p"]
    n = indices.shape[1]
    g = problem.prior_grad(th) + problem.N / n * problem.component_grads(th, indices).sum(1)
    return {"theta": th + h * p, "p": p - h * g - h * p + np.sqrt(2 * h) * noise}


CASES = {
    "step, no reference: BAOAB": (baoab, dict(mode="step", state=CACHE, params={"gamma": 1.3})),
    "step, no reference: broken splitting": (
        broken_splitting,
        dict(mode="step", state=CACHE, params={"gamma": 1.3}),
    ),
    "step, no reference: explicit SGHMC": (
        explicit_sghmc,
        dict(mode="step", state=("theta", "p")),
    ),
    "step, as sghmc-svr: explicit SGHMC": (
        explicit_sghmc,
        dict(algorithm="sghmc-svr", mode="step"),
    ),
    "sampler, as sgld: reference SGLD": (
        reference_sample_function("sgld"),
        dict(algorithm="sgld"),
    ),
    "sampler, no reference: reference SGLD": (reference_sample_function("sgld"), {}),
}


def main() -> None:
    print(f"{'route':42s} {'verdict':8s} {'first s':>8s} {'again s':>8s}")
    for name, (fn, kw) in CASES.items():
        t0 = time.perf_counter()
        validate(fn, **kw)
        t1 = time.perf_counter()
        rep = validate(fn, **kw)
        t2 = time.perf_counter()
        print(f"{name:42s} {rep.verdict:8s} {t1 - t0:8.2f} {t2 - t1:8.2f}")


if __name__ == "__main__":
    main()
