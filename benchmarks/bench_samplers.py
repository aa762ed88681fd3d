"""The vectorised references against what a user would run instead: blackjax and numba.

Not a timed test: a script that prints Markdown tables (the README's speed table).

    python benchmarks/bench_samplers.py [--chains 10000] [--steps 30] [--reps 5]

Problem: Bayesian linear regression, N = 100, d = 10, batch n = 10, float64
(a GLM: ``∇f_i(θ) = s_i z_i`` with ``s_i = (z_iᵀθ − y_i)/σ²``, O(d) per component).

Every competitor does the same work as the reference: the same number of
component-gradient evaluations per chain-step, the same batch (n indices with
replacement), float64, the same initialisation (θ₀ = 0; the snapshot tables built
at θ₀, which is N evaluations per chain for SAGA-LD/PPU-RA) and the same chain
count and steps.  Random numbers come from each tool's own generator, so the
chains are equal in law, not in value.

* **blackjax** (jax.jit of jax.vmap over chains, lax.scan over steps, CPU, x64):
  ``blackjax.sgld`` and the one-gradient SGHMC step
  ``blackjax.sgmcmc.diffusions.sghmc`` (``blackjax.sghmc`` runs L gradient
  evaluations per call and redraws the momentum; see
  :mod:`sgmcmc_verify.validation.blackjax_adapter`).  Compile time is reported
  apart and excluded from the rates.  blackjax has no SAGA/PPU kernel.
* **numba**: ``@njit`` per-chain loops written from the papers' equations
  (single thread, no fastmath), one per algorithm; compile time excluded.

Row ``ppu-ra-scalar`` is PPU-RA with the O(N) snapshot storage of a GLM (AGLD §3.2:
``α_i = s̃_i z_i``, N scalars per chain; ``storage="scalar"``), against a numba loop
that stores the same scalars: like is compared with like.  The default ``ppu-ra``
row keeps the ``(chains, N, d)`` table on both sides.

Repetitions alternate the implementations (A, B, C, A, B, C, ...) so that a
change in machine load hits all of them alike; each row reports the median rate
and the median of the per-repetition ratios.  The CPU column is process CPU
seconds over wall seconds: above 1 means the implementation used more than one
core (XLA's thread pool).  The references run under one BLAS thread
(``parallel.single_blas_thread``), as the numba loops run on one core: equal work
on equal cores, blackjax excepted, which is timed as a user would run it.

The last table is the PPU-RA peak memory (tracemalloc: numpy's allocations, init
and 5 steps) against the bytes of its snapshot table.

numba is not a dependency of the package: install it for this script
(``pip install numba``); without it (or without jax/blackjax) those columns are
skipped and say so.
"""

# numba compiles the legacy np.random functions inside @njit (its own per-thread state);
# a Generator cannot be created there, so NPY002 does not apply to the loops below.
# ruff: noqa: NPY002

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

import sgmcmc_verify as sv
from sgmcmc_verify.parallel import single_blas_thread

H = 1e-4  # step size: stable for this posterior (largest precision eigenvalue ≈ 1.4e2)
A_FRICTION = 1.0  # sghmc-chen's friction A (registry default) = blackjax's alpha
ALGORITHMS = ("sgld", "sghmc-chen", "saga-ld", "ppu-ra", "ppu-ra-scalar")
#: Rows that are a registry sampler with non-default parameters: PPU-RA with the O(N)
#: snapshot storage of a GLM (AGLD §3.2), against a numba loop with the same storage.
VARIANTS = {"ppu-ra-scalar": ("ppu-ra", {"storage": "scalar"})}


# --------------------------------------------------------------------------------------
# numba per-chain loops (AGLD eqs. (4)-(6); SVRHMC Alg. 2; SGNHT eq. (3) with ξ = A)
# --------------------------------------------------------------------------------------


def numba_kernels() -> dict[str, Callable] | str:
    """The jitted per-chain loops, or the reason they are unavailable."""
    try:
        from numba import njit
    except ImportError:
        return "numba not installed (pip install numba)"

    @njit(cache=False)
    def comp(Z, y, inv_s2, i, th):  # s_i(θ) of the linear regression
        s = -y[i]
        for k in range(th.shape[0]):
            s += Z[i, k] * th[k]
        return s * inv_s2

    @njit(cache=False)
    def minibatch_grad(Z, y, inv_s2, inv_t2, th, n, g):  # g ← θ/τ² + (N/n)Σ_{i∈S}∇f_i(θ)
        N = Z.shape[0]
        for k in range(th.shape[0]):
            g[k] = th[k] * inv_t2
        for _j in range(n):
            i = np.random.randint(0, N)
            s = comp(Z, y, inv_s2, i, th) * (N / n)
            for k in range(th.shape[0]):
                g[k] += s * Z[i, k]

    @njit(cache=False)
    def em_step(th, g, h, sq):  # overdamped Euler–Maruyama, AGLD eq. (5)
        for k in range(th.shape[0]):
            th[k] += -h * g[k] + sq * np.random.standard_normal()

    @njit(cache=False)
    def sgld(theta, Z, y, inv_s2, inv_t2, h, n, steps, seed):
        """AGLD eq. (4): θ ← θ − h(θ/τ² + (N/n)Σ_{i∈S}∇f_i(θ)) + √(2h)ξ, S: n with replacement."""
        np.random.seed(seed)
        C, d = theta.shape
        g = np.empty(d)
        sq = math.sqrt(2.0 * h)
        for c in range(C):
            th = theta[c]
            for _t in range(steps):
                minibatch_grad(Z, y, inv_s2, inv_t2, th, n, g)
                em_step(th, g, h, sq)
        return theta

    @njit(cache=False)
    def sghmc(theta, Z, y, inv_s2, inv_t2, h, n, steps, seed, A):
        """SGNHT eq. (3) as Alg. 1 with ξ = A: p ← p − Aph − ∇Ũh + N(0, 2Ah); θ ← θ + ph."""
        np.random.seed(seed)
        C, d = theta.shape
        g = np.empty(d)
        p = np.zeros(d)
        sq = math.sqrt(2.0 * A * h)
        for c in range(C):
            th = theta[c]
            p[:] = 0.0
            for _t in range(steps):
                minibatch_grad(Z, y, inv_s2, inv_t2, th, n, g)
                for k in range(d):
                    p[k] += -A * p[k] * h - g[k] * h + sq * np.random.standard_normal()
                    th[k] += p[k] * h
        return theta

    @njit(cache=False)
    def first(idx, j):  # is idx[j] the first occurrence in the batch?
        for m in range(j):
            if idx[m] == idx[j]:
                return False
        return True

    @njit(cache=False)
    def saga_ld(theta, Z, y, inv_s2, inv_t2, h, n, steps, seed):
        """SVRHMC Alg. 2 estimator (table of points α^i, lines 7, 10-11) in overdamped EM."""
        np.random.seed(seed)
        C, d = theta.shape
        N = Z.shape[0]
        alpha = np.empty((C, N, d))  # the points α^i = θ_0
        gsum = np.zeros((C, d))  # Σ_i ∇f_i(α^i)
        idx = np.empty(n, np.int64)
        diff = np.empty((n, d))
        g = np.empty(d)
        sq = math.sqrt(2.0 * h)
        for c in range(C):
            th = theta[c]
            for i in range(N):
                s = comp(Z, y, inv_s2, i, th)
                for k in range(d):
                    alpha[c, i, k] = th[k]
                    gsum[c, k] += s * Z[i, k]
            for _t in range(steps):
                for k in range(d):
                    g[k] = th[k] * inv_t2 + gsum[c, k]
                for j in range(n):
                    i = np.random.randint(0, N)
                    idx[j] = i
                    ds = comp(Z, y, inv_s2, i, th) - comp(Z, y, inv_s2, i, alpha[c, i])
                    for k in range(d):
                        diff[j, k] = ds * Z[i, k]
                        g[k] += (N / n) * diff[j, k]
                for j in range(n):
                    i = idx[j]
                    if first(idx, j):
                        for k in range(d):
                            gsum[c, k] += diff[j, k]
                    for k in range(d):
                        alpha[c, i, k] = th[k]
                em_step(th, g, h, sq)
        return theta

    @njit(cache=False)
    def ppu_ra(theta, Z, y, inv_s2, inv_t2, h, n, steps, seed):
        """AGLD eq. (6), RA access, Strategy 3 (PPU): table of α_i = ∇f_i, ages kept."""
        np.random.seed(seed)
        C, d = theta.shape
        N = Z.shape[0]
        table = np.empty((C, N, d))
        total = np.zeros((C, d))
        stamp = np.zeros((C, N), np.int64)
        idx = np.empty(n, np.int64)
        now = np.empty((n, d))
        g = np.empty(d)
        sq = math.sqrt(2.0 * h)
        for c in range(C):
            th = theta[c]
            for i in range(N):
                s = comp(Z, y, inv_s2, i, th)
                for k in range(d):
                    table[c, i, k] = s * Z[i, k]
                    total[c, k] += table[c, i, k]
            for t in range(steps):
                for k in range(d):
                    g[k] = th[k] * inv_t2 + total[c, k]
                for j in range(n):
                    i = np.random.randint(0, N)
                    idx[j] = i
                    s = comp(Z, y, inv_s2, i, th)
                    for k in range(d):
                        now[j, k] = s * Z[i, k]
                        g[k] += (N / n) * (now[j, k] - table[c, i, k])
                for j in range(n):
                    i = idx[j]
                    if first(idx, j):
                        for k in range(d):
                            total[c, k] += now[j, k] - table[c, i, k]
                            table[c, i, k] = now[j, k]
                        stamp[c, i] = t
                em_step(th, g, h, sq)
        return theta

    @njit(cache=False)
    def ppu_ra_scalar(theta, Z, y, inv_s2, inv_t2, h, n, steps, seed):
        """PPU-RA as ppu_ra, with the O(N) storage of a GLM (AGLD §3.2): α_i = s̃_i z_i."""
        np.random.seed(seed)
        C, d = theta.shape
        N = Z.shape[0]
        sc = np.empty((C, N))  # the scalars s̃_i
        total = np.zeros((C, d))
        stamp = np.zeros((C, N), np.int64)
        idx = np.empty(n, np.int64)
        snew = np.empty(n)
        g = np.empty(d)
        sq = math.sqrt(2.0 * h)
        for c in range(C):
            th = theta[c]
            for i in range(N):
                s = comp(Z, y, inv_s2, i, th)
                sc[c, i] = s
                for k in range(d):
                    total[c, k] += s * Z[i, k]
            for t in range(steps):
                for k in range(d):
                    g[k] = th[k] * inv_t2 + total[c, k]
                for j in range(n):
                    i = np.random.randint(0, N)
                    idx[j] = i
                    s = comp(Z, y, inv_s2, i, th)
                    snew[j] = s
                    ds = (N / n) * (s - sc[c, i])
                    for k in range(d):
                        g[k] += ds * Z[i, k]
                for j in range(n):
                    i = idx[j]
                    if first(idx, j):
                        ds = snew[j] - sc[c, i]
                        for k in range(d):
                            total[c, k] += ds * Z[i, k]
                        sc[c, i] = snew[j]
                        stamp[c, i] = t
                em_step(th, g, h, sq)
        return theta

    return {
        "sgld": sgld,
        "sghmc-chen": sghmc,
        "saga-ld": saga_ld,
        "ppu-ra": ppu_ra,
        "ppu-ra-scalar": ppu_ra_scalar,
    }


# --------------------------------------------------------------------------------------
# blackjax (jit + vmap, float64)
# --------------------------------------------------------------------------------------


def blackjax_runners(prob, chains: int, steps: int, n: int) -> dict[str, tuple] | str:
    """``{name: (compiled run, compile seconds)}`` or the reason blackjax is unavailable."""
    try:
        import blackjax
        import jax
        import jax.numpy as jnp
        from blackjax.sgmcmc import diffusions
        from blackjax.sgmcmc.gradients import grad_estimator
    except ImportError:
        return "jax/blackjax not installed (pip install sgmcmc-verify[peers])"
    jax.config.update("jax_enable_x64", True)
    Z, y = jnp.asarray(prob.Z), jnp.asarray(prob.y)
    N, d = prob.N, prob.d
    sigma2, tau2 = prob.sigma2, prob.tau2

    def loglik(position, datum):
        z, yi = datum
        return -0.5 * (z @ position - yi) ** 2 / sigma2

    grad = grad_estimator(lambda position: -0.5 * position @ position / tau2, loglik, N)

    def minibatch(key):
        i = jax.random.randint(key, (n,), 0, N)
        return Z[i], y[i]

    sgld = blackjax.sgld(grad)
    sghmc_step = diffusions.sghmc(alpha=A_FRICTION, beta=0.0)

    def sgld_chain(key, theta):
        k_mb, k_step = jax.random.split(key)
        return sgld.step(k_step, theta, minibatch(k_mb), H)

    def sghmc_chain(key, state):
        k_mb, k_step = jax.random.split(key)
        theta, v = state
        # θ' = θ + hp, p' = (1 − αh)p + h∇log π̃ + N(0, 2αh): one gradient, as sghmc-chen
        return sghmc_step(k_step, theta, v, grad(theta, minibatch(k_mb)), H)

    out = {}
    for name, chain, state0 in (
        ("sgld", sgld_chain, jnp.zeros((chains, d))),
        ("sghmc-chen", sghmc_chain, (jnp.zeros((chains, d)), jnp.zeros((chains, d)))),
    ):
        step_all = jax.vmap(chain)

        def run(key, state, step_all=step_all):
            def body(state, key_t):
                return step_all(jax.random.split(key_t, chains), state), None

            return jax.lax.scan(body, state, jax.random.split(key, steps))[0]

        t0 = time.perf_counter()
        compiled = jax.jit(run).lower(jax.random.PRNGKey(0), state0).compile()
        compile_s = time.perf_counter() - t0

        def go(seed, compiled=compiled, state0=state0):
            jax.block_until_ready(compiled(jax.random.PRNGKey(seed), state0))

        out[name] = (go, compile_s)
    return out


# --------------------------------------------------------------------------------------
# measurement
# --------------------------------------------------------------------------------------


def timed(fn: Callable[[int], object], seed: int) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn(seed)
    return time.perf_counter() - w0, time.process_time() - c0


def interleaved(impls: dict[str, Callable[[int], object]], reps: int) -> dict[str, list]:
    """Run every implementation once per repetition, alternating; one warm-up round first."""
    for fn in impls.values():
        fn(0)
    times: dict[str, list] = {k: [] for k in impls}
    for r in range(reps):
        for k, fn in impls.items():
            times[k].append(timed(fn, r + 1))
    return times


def ppu_peak_memory(prob, chains: int, n: int) -> dict[str, int]:
    """Bytes for PPU-RA: its table, its whole snapshot state, and the traced peaks.

    ``init`` is the peak while the table is built; ``steps`` the peak over 5 steps
    after it (tracemalloc counts numpy's allocations; the state itself included).
    """
    from sgmcmc_verify.registry import make_sampler

    s = make_sampler("ppu-ra", prob, h=H, n=n)
    rng = np.random.default_rng(0)
    tracemalloc.start()
    state = s.init(np.zeros((chains, prob.d)), rng)
    init_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    for _ in range(5):
        rand, state = s.draw(state, rng)
        state, _ = s.step(state, rand)
    steps_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    snap = state.est.snap
    return {
        "table": snap.table.nbytes,
        "state": snap.table.nbytes + snap.total.nbytes + snap.stamp.nbytes,
        "stamp dtype": snap.stamp.dtype.name,
        "init": init_peak,
        "steps": steps_peak,
    }


def load_average() -> str:
    """The 1-minute load average (other processes share the cores), or that it is unknown."""
    try:
        return f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    except OSError:
        return "load average unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int, default=10_000)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--N", type=int, default=100)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--n", type=int, default=10, help="batch size")
    ap.add_argument(
        "--only",
        default=",".join(ALGORITHMS),
        help="comma-separated rows to time (default: all)",
    )
    args = ap.parse_args()
    only = [a.strip() for a in args.only.split(",") if a.strip()]
    unknown = sorted(set(only) - set(ALGORITHMS))
    if unknown or not only:
        ap.error(f"--only takes some of {', '.join(ALGORITHMS)}; got {args.only!r}")
    C, T, n = args.chains, args.steps, args.n
    prob = sv.problems.linear_regression_synthetic(args.N, args.d, seed=0)
    print(
        f"linear regression N={args.N}, d={args.d}, batch n={n}, float64; "
        f"{C} chains × {T} steps; {args.reps} interleaved repetitions; {load_average()}\n"
    )

    nb = numba_kernels()
    if isinstance(nb, str):
        print(f"numba: skipped, {nb}")
        nb = {}
    else:
        t0 = time.perf_counter()
        for name, k in nb.items():
            extra = (A_FRICTION,) if name == "sghmc-chen" else ()
            k(
                np.zeros((2, args.d)),
                prob.Z,
                prob.y,
                1 / prob.sigma2,
                1 / prob.tau2,
                H,
                n,
                2,
                0,
                *extra,
            )
        print(f"numba compile (all {len(nb)} loops): {time.perf_counter() - t0:.1f} s")
    # blackjax has no SAGA/PPU kernel: compile it only when one of its samplers is timed.
    bj = blackjax_runners(prob, C, T, n) if {"sgld", "sghmc-chen"} & set(only) else {}
    if isinstance(bj, str):
        print(f"blackjax: skipped, {bj}")
        bj = {}
    elif bj:
        comp = ", ".join(f"{k} {v[1]:.1f} s" for k, v in bj.items())
        print(f"blackjax compile (jit of vmap+scan, excluded below): {comp}")
    print()

    def ours(name):
        name, params = VARIANTS.get(name, (name, {}))
        if name == "sghmc-chen":
            params = {"A": A_FRICTION}

        def run(seed):
            # one BLAS thread, as the numba loops have: at 1e4 chains SAGA's and SVRG's
            # per-chain products otherwise keep a second OpenBLAS thread spinning for the
            # same wall time (SAGA-LD 1.45 CPU/wall, SVRG-LD 2.0, measured)
            with single_blas_thread():
                return sv.run(
                    name, prob, h=H, n_steps=T, chains=C, seed=seed, record=(), n=n, **params
                )

        return run

    def numba_run(name):
        extra = (A_FRICTION,) if name == "sghmc-chen" else ()
        return lambda seed: nb[name](
            np.zeros((C, args.d)),
            prob.Z,
            prob.y,
            1 / prob.sigma2,
            1 / prob.tau2,
            H,
            n,
            T,
            seed,
            *extra,
        )

    rows = []
    for name in only:
        impls = {"sgmcmc-verify": ours(name)}
        if name in bj:
            impls["blackjax"] = bj[name][0]
        if name in nb:
            impls["numba"] = numba_run(name)
        times = interleaved(impls, args.reps)
        ref = times["sgmcmc-verify"]
        for k, ts in times.items():
            rate = C * T / statistics.median(w for w, _ in ts)
            cpu = statistics.median(c / w for w, c in ts)
            ratio = statistics.median(w / r[0] for (w, _), r in zip(ts, ref, strict=True))
            rows.append((name, k, rate, cpu, ratio))
        print(f"  measured {name}", flush=True)

    print("\n| algorithm | implementation | chain-steps/s (median) | CPU/wall | time ÷ ours |")
    print("|---|---|---:|---:|---:|")
    for name, k, rate, cpu, ratio in rows:
        print(f"| {name} | {k} | {rate:,.0f} | {cpu:.2f} | {ratio:.2f} |")
    print(
        "\ntime ÷ ours: median over repetitions of (its wall time ÷ sgmcmc-verify's in the "
        f"same repetition); > 1 means slower than the vectorised reference.  {load_average()}"
    )

    m = ppu_peak_memory(prob, C, n)
    table = m["table"]
    print(f"\n| PPU-RA memory, {C:,} chains, batch n = {n} of N = {args.N} | MB | × table |")
    print("|---|---:|---:|")
    rows_mem = [
        ("snapshot table (chains, N, d) float64", table),
        (f"snapshot state (table + total + {m['stamp dtype']} ages)", m["state"]),
        ("peak traced allocation while building the table", m["init"]),
        ("peak traced allocation over 5 steps", m["steps"]),
    ]
    for label, nbytes in rows_mem:
        print(f"| {label} | {nbytes / 1e6:.1f} | {nbytes / table:.3f} |")


if __name__ == "__main__":
    main()
