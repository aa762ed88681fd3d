"""Chain-steps per second of every algorithm: vectorised against a per-chain loop.

Not a timed test: a script that prints a Markdown table (the README's).

    python benchmarks/bench_samplers.py [--chains 10000] [--d 10] [--N 100] [--steps 50]

Problem: Bayesian linear regression, d = 10, N = 100 (a GLM, so the component
gradients cost O(d) each).  The loop baseline runs the *same* reference code
with ``chains=1`` once per chain, which is what a user without the vectorised
driver would write; its rate is measured on ``--loop-chains`` chains and is per
chain-step, so the comparison does not depend on that number.
"""

from __future__ import annotations

import argparse
import time

import sgmcmc_verify as sv
from sgmcmc_verify import registry


def rate_vectorised(name, prob, chains, steps) -> float:
    t0 = time.perf_counter()
    sv.run(name, prob, h=1e-3, n_steps=steps, chains=chains, seed=0, record=())
    return chains * steps / (time.perf_counter() - t0)


def rate_loop(name, prob, loop_chains, steps) -> float:
    t0 = time.perf_counter()
    for c in range(loop_chains):
        sv.run(name, prob, h=1e-3, n_steps=steps, chains=1, seed=c, record=())
    return loop_chains * steps / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int, default=10_000)
    ap.add_argument("--loop-chains", type=int, default=20)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--N", type=int, default=100)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--only", nargs="*", default=None, help="algorithm names")
    args = ap.parse_args()
    prob = sv.problems.linear_regression_synthetic(args.N, args.d, seed=0)
    print(f"linear regression N={args.N}, d={args.d}; {args.chains} chains × {args.steps} steps\n")
    print("| algorithm | vectorised (chain-steps/s) | loop (chain-steps/s) | speed-up |")
    print("|---|---:|---:|---:|")
    for name in args.only or registry.names():
        v = rate_vectorised(name, prob, args.chains, args.steps)
        lp = rate_loop(name, prob, args.loop_chains, args.steps)
        print(f"| {name} | {v:,.0f} | {lp:,.0f} | {v / lp:,.0f}× |", flush=True)


if __name__ == "__main__":
    main()
