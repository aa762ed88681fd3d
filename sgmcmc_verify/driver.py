"""The driver: draw the randomness from a seed, loop, record.

``run`` is the one place where random numbers are generated
(``np.random.default_rng(seed)``); samplers only consume them.  Output arrays
are laid out ``(chains, draws, ...)`` as in ArviZ.  With ``keep="moments"``
nothing per-draw is stored: running sums give per-chain first and second
moments in O(chains·d²) memory.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._rowsum import sum_last
from ._validation import as_theta, choice, finite_array, positive, positive_int
from .algorithms import Sampler
from .estimators import FullGradient, InjectedNoise
from .problems.base import Problem
from .registry import make_sampler

__all__ = ["RECORDABLE", "RunResult", "run", "run_sampler"]

#: Observables ``run`` can record, and what each is.
RECORDABLE = {
    "theta": "the state θ, (chains, draws, d)",
    "p": "the momentum p (r in EWSG; u/h for SGNHT-2), (chains, draws, d)",
    "xi": "the thermostat ξ (α/h for SGNHT-2), (chains, draws); Ξ for SGNHT-MAT, (..., d, d)",
    "kinetic_energy": "pᵀp/2, (chains, draws)",
    "grad": "the gradient estimate used by the step that produced the draw, (chains, draws, d)",
    "indices": "the data indices used by that step, (chains, draws, b)",
}


@dataclass
class RunResult:
    """What :func:`run` returns.

    Attributes
    ----------
    draws : dict
        Recorded observables, each ``(chains, draws, ...)``; empty with ``keep="moments"``.
    moments : dict
        ``"mean"`` (chains, d) and ``"second"`` (chains, d, d): per-chain averages of
        ``θ`` and ``θθᵀ`` over the kept draws; present with ``keep="moments"`` or when
        ``theta`` is recorded.
    final_state : Any
        The sampler state after the last step (to continue a run).
    params : dict
        Everything needed to reproduce the run: algorithm, problem, h, seed, ...
    wall_time : float
        Seconds.
    """

    draws: dict[str, np.ndarray]
    moments: dict[str, np.ndarray]
    final_state: Any
    params: dict[str, Any]
    wall_time: float
    n_kept: int = field(default=0)

    def to_inference_data(self) -> Any:
        """The draws as an ArviZ object: ``InferenceData`` (arviz < 1) or a ``DataTree``.

        Every recorded observable (``theta``, ``p``, ``xi``, ...) becomes a variable of
        the ``posterior`` group with dimensions ``(chain, draw, <name>_dim_0, ...)``; the
        run's :attr:`params` (algorithm, problem, h, seed, ...) are the group's attributes,
        so the object says how to reproduce it.  Needs the optional ``arviz`` extra
        (``pip install 'sgmcmc-verify[arviz]'``).

        Returns
        -------
        arviz.InferenceData or xarray.DataTree

        Raises
        ------
        ImportError
            arviz is not installed (one line saying how to install it).
        ValueError
            The run kept no draws (``keep="moments"``).
        """
        if not self.draws:
            raise ValueError("no draws were recorded (keep='moments'); run with keep='draws'")
        import warnings

        try:
            with warnings.catch_warnings():
                # arviz 0.2x announces its 1.0 refactor with a FutureWarning on import
                warnings.simplefilter("ignore", FutureWarning)
                import arviz
        except ImportError:
            raise ImportError(
                "RunResult.to_inference_data needs arviz: pip install 'sgmcmc-verify[arviz]'"
            ) from None
        posterior = {k: np.asarray(v) for k, v in self.draws.items()}
        # netCDF attributes must be numbers or strings
        attrs = {
            k: v if isinstance(v, (int, float, str)) else repr(v) for k, v in self.params.items()
        }
        if int(arviz.__version__.split(".")[0]) >= 1:  # arviz 1.x: one dict of groups
            data = arviz.from_dict({"posterior": posterior})
        else:
            data = arviz.from_dict(posterior=posterior)
        data["posterior"].attrs.update(attrs)
        return data


def run(
    algorithm: str,
    problem: Problem,
    *,
    h: float,
    n_steps: int,
    chains: int = 1000,
    seed: int = 0,
    theta0: np.ndarray | None = None,
    burn_in: int = 0,
    thin: int = 1,
    record: Sequence[str] = ("theta",),
    keep: str = "draws",
    progress: bool = False,
    **params: Any,
) -> RunResult:
    """Run ``chains`` independent chains of ``algorithm`` on ``problem``.

    Parameters
    ----------
    algorithm : str
        A registry name (:func:`sgmcmc_verify.registry.names`).
    problem : Problem
    h : float
        Step size, > 0.
    n_steps : int
        Number of steps.
    chains : int
        Number of independent chains.
    seed : int
        Seed of ``np.random.default_rng``; the same seed gives the same numbers on the same
        machine with the same BLAS threads.  Products that numpy hands to BLAS (a GLM's
        ``θ Zᵀ``, the AGLD mixture's ``θ Aᵀ``, SAGA's per-chain batch sums) are split over
        the process's BLAS threads, which changes their last bits (LMC on ``agld-gmm``,
        1000 chains: 2.8e-17 between one and two OpenBLAS threads).  For numbers that do
        not depend on the cores, run inside :func:`sgmcmc_verify.parallel.single_blas_thread`
        from the main thread, as every claim check and validation does; the driver does not
        set a limit itself, because OpenBLAS ignores one set from another thread once the
        main thread has set one.
    theta0 : ndarray, shape (d,) or (chains, d), optional
        Initial state; default zeros (as SVRHMC Algorithms 1–4 initialise).
    burn_in : int
        Steps discarded before recording.
    thin : int
        Record every ``thin``-th state after burn-in (at most ``n_steps − burn_in``: a
        run that would record nothing is a ``ValueError``).
    record : sequence of str
        Observables to store per draw, from :data:`RECORDABLE`.
    keep : {"draws", "moments"}
        ``"moments"`` stores nothing per draw (bounded memory) and accumulates the
        moments as it goes; ``"draws"`` stores the ``record`` observables (with an
        empty ``record`` it stores nothing, which is how the benchmarks time the
        samplers alone).
    progress : bool
        Print progress to stderr every 10 %.
    **params
        Algorithm parameters (see ``registry.get(algorithm).params``).

    Returns
    -------
    RunResult
        Draw ``j`` is the state after ``burn_in + (j+1)·thin`` steps; ``grad`` and
        ``indices`` of draw ``j`` belong to the step that produced that state.
    """
    positive("h", h)
    sampler = make_sampler(algorithm, problem, h=h, **params)
    result = run_sampler(
        sampler,
        n_steps=n_steps,
        chains=chains,
        seed=seed,
        theta0=theta0,
        burn_in=burn_in,
        thin=thin,
        record=record,
        keep=keep,
        progress=progress,
    )
    result.params.update({"algorithm": algorithm, "h": float(h), **params})
    return result


def run_sampler(
    sampler: Sampler,
    *,
    n_steps: int,
    chains: int = 1000,
    seed: int = 0,
    theta0: np.ndarray | None = None,
    burn_in: int = 0,
    thin: int = 1,
    record: Sequence[str] = ("theta",),
    keep: str = "draws",
    progress: bool = False,
) -> RunResult:
    """:func:`run` for a :class:`~sgmcmc_verify.algorithms.Sampler` built by hand.

    Use it to drive a modified sampler (a planted bug, another integrator) with
    exactly the driver the registry's algorithms use.  Arguments as in :func:`run`.
    """
    problem = sampler.problem
    n_steps = positive_int("n_steps", n_steps)
    chains = positive_int("chains", chains)
    thin = positive_int("thin", thin)
    burn_in = positive_int("burn_in", burn_in, minimum=0)
    if burn_in >= n_steps:
        raise ValueError(f"burn_in ({burn_in}) must be < n_steps ({n_steps})")
    if thin > n_steps - burn_in:
        raise ValueError(
            f"thin ({thin}) exceeds the n_steps − burn_in = {n_steps - burn_in} steps kept: "
            "nothing would be recorded"
        )
    choice("keep", keep, ("draws", "moments"))
    for name in record:
        choice("observable to record", name, RECORDABLE)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}")
    if theta0 is None:
        theta0 = np.zeros((chains, problem.d))
    theta0 = finite_array("theta0", theta0)
    if theta0.ndim == 1:
        theta0 = np.broadcast_to(theta0, (chains, theta0.shape[0]))
    theta0 = as_theta(theta0, problem.d)
    if theta0.shape[0] != chains:
        raise ValueError(f"theta0 has {theta0.shape[0]} chains, expected {chains}")
    for name in record:
        _check_recordable(name, sampler)

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    state = sampler.init(theta0, rng)
    n_kept = (n_steps - burn_in) // thin
    store = keep == "draws"
    # draws are written into (chains, n_kept, ...) arrays allocated at the first record:
    # the same values as stacking a list of per-step copies, without the list (half the
    # peak memory) and 1.2-5× faster (a (1250, 22000) record: 0.11 s against 0.62 s)
    out: dict[str, np.ndarray] = {}
    sum1 = np.zeros((chains, problem.d)) if not store else None
    sum2 = np.zeros((chains, problem.d, problem.d)) if not store else None
    outer = np.empty((chains, problem.d, problem.d)) if not store else None
    report_every = max(1, n_steps // 10)
    for t in range(n_steps):
        rand, state = sampler.draw(state, rng)
        state, info = sampler.step(state, rand)
        s = t + 1 - burn_in
        if s > 0 and s % thin == 0 and s // thin <= n_kept:
            if store:
                j = s // thin - 1
                for name in record:
                    obs = np.asarray(_observable(name, sampler, state, info))
                    if name not in out:
                        out[name] = np.empty((chains, n_kept, *obs.shape[1:]), obs.dtype)
                    out[name][:, j] = obs
            else:
                sum1 += state.theta
                # the product into a buffer, then added: the same bits as a temporary
                np.multiply(state.theta[:, :, None], state.theta[:, None, :], out=outer)
                sum2 += outer
        if progress and (t + 1) % report_every == 0:
            print(
                f"  {sampler.name}: {100 * (t + 1) // n_steps}% ({t + 1}/{n_steps} steps)",
                file=sys.stderr,
            )
    draws = out
    if not store:
        moments = {"mean": sum1 / n_kept, "second": sum2 / n_kept}
    elif "theta" in draws:
        th = draws["theta"]
        moments = {"mean": th.mean(axis=1), "second": np.einsum("cti,ctj->cij", th, th) / n_kept}
    else:
        moments = {}
    return RunResult(
        draws=draws,
        moments=moments,
        final_state=state,
        params={
            "algorithm": sampler.name,
            "problem": problem.name,
            "h": float(sampler.h),
            "n_steps": n_steps,
            "chains": chains,
            "seed": int(seed),
            "burn_in": burn_in,
            "thin": thin,
        },
        wall_time=time.perf_counter() - t0,
        n_kept=n_kept,
    )


def _check_recordable(name: str, sampler: Any) -> None:
    fields = type(
        sampler.integrator.init(
            np.zeros((1, sampler.problem.d)), np.random.default_rng(0), sampler.problem.d
        )
    )._fields
    need = {"p": "p", "kinetic_energy": "p", "xi": ("xi", "Xi")}.get(name)
    if need is not None and not any(f in fields for f in np.atleast_1d(need)):
        raise ValueError(f"{sampler.name} has no {name!r} to record ({sampler.family} family)")
    if name == "indices" and isinstance(sampler.estimator, (FullGradient, InjectedNoise)):
        raise ValueError(f"{sampler.name} uses no data indices to record")


def _observable(name: str, sampler: Any, state: Any, info: Any) -> np.ndarray:
    integ = sampler.integrator
    if name == "theta":
        return state.theta
    if name == "grad":
        return info.grad
    if name == "indices":
        return info.indices
    if name == "xi":
        if hasattr(state, "Xi"):
            return state.Xi
        return integ.thermostat(state) if hasattr(integ, "thermostat") else state.xi
    p = integ.momentum(state) if hasattr(integ, "momentum") else state.p
    return p if name == "p" else 0.5 * sum_last(p * p)
