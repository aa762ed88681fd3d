"""sgmcmc_verify.parallel: checks and their units run with one BLAS thread, whatever the
process has, so their numbers do not depend on the machine's cores."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from sgmcmc_verify import claims
from sgmcmc_verify.parallel import _single_threaded, single_blas_thread


def _blas_threads() -> int:
    return max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")


def test_a_run_under_the_limit_has_the_same_bits_whatever_the_process_threads():
    # LMC on the AGLD mixture (θ Aᵀ, N = 500, d = 10) at 1000 chains: with two OpenBLAS
    # threads and no limit its draws differ from one thread's in the last bits (measured on
    # the 2-core CI machine); under single_blas_thread they are the same
    from sgmcmc_verify import problems
    from sgmcmc_verify.driver import run_sampler
    from sgmcmc_verify.registry import make_sampler

    prob = problems.get("agld-gmm")

    def theta(threads):
        with threadpool_limits(limits=threads), single_blas_thread():
            s = make_sampler("lmc", prob, h=1e-3)
            return run_sampler(s, n_steps=5, chains=1000, seed=1).draws["theta"]

    assert np.array_equal(theta(1), theta(2))


def test_the_limit_holds_inside_the_block_and_is_restored_after():
    with threadpool_limits(limits=2):
        assert _blas_threads() == 2
        with single_blas_thread():
            assert _blas_threads() == 1
        assert _blas_threads() == 2
        assert _single_threaded(lambda x: (x, _blas_threads()), 7) == (7, 1)
        assert _blas_threads() == 2


def test_a_check_runs_with_one_blas_thread_whatever_the_process_has():
    seen = []

    def check(**kwargs):
        seen.append(_blas_threads())
        raise RuntimeError("stop here")  # an error verdict: only the thread count matters

    with threadpool_limits(limits=2):
        res = claims.run_check("AGLD-R1", check, profile="quick", seed=0)
        after = _blas_threads()
    assert seen == [1] and after == 2 and res.verdict == "error"


def test_overlapping_blocks_keep_the_limit_until_the_last_closes():
    # two validations in two threads open and close their blocks in any order: A opens,
    # B opens, A closes while B runs.  The limit is process-wide, so B must still have one
    # thread; each block restoring what it saw on entry gave B two (and left the process
    # at one for good once B closed).  Driven from this thread: OpenBLAS 0.3.31 ignores a
    # thread count set from another thread once the main thread has set one.
    a, b = single_blas_thread(), single_blas_thread()
    with threadpool_limits(limits=2):
        a.__enter__()
        b.__enter__()
        a.__exit__(None, None, None)
        assert _blas_threads() == 1
        b.__exit__(None, None, None)
        assert _blas_threads() == 2
