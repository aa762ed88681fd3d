"""What the experiment reproductions share: the comparison rule, the Monte Carlo SEs, the
data-pass budget and the sampler factory (:mod:`sgmcmc_verify.claims.experiments` and
:mod:`sgmcmc_verify.claims.exp_normal_gamma`).

An ordering "A better than B" is :func:`beats`: one
:func:`~sgmcmc_verify.claims.decide.ordering_test` per loser, confirming at level
:data:`ALPHA` and refuting at ``bonferroni(ALPHA, k)`` (k losers), combined by
:func:`~sgmcmc_verify.claims.decide.all_of`.  Standard errors are Monte Carlo ones over
independent chains (:func:`boot` for final-state laws, :func:`jackknife` over groups of
chains for time averages, tested with Student-t critical values at ``groups − 1`` df).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import stats

from ..algorithms import Sampler
from ..baselines import BASELINES, make_baseline
from ..driver import run_sampler
from ..registry import make_sampler
from ..stats.multiplicity import bonferroni
from . import decide
from .result import Measurement, Part

__all__ = [
    "ALPHA",
    "N_BOOT",
    "SamplerFactory",
    "beats",
    "boot",
    "budget_steps",
    "default_make",
    "final_states",
    "fit_kl",
    "gauss_kl",
    "jackknife",
    "outcomes",
    "z_one_sided",
]

#: Level of each one-sided comparison.
ALPHA = 0.01

#: Bootstrap replicates for SEs of final-state functionals.
N_BOOT = 200

SamplerFactory = Callable[..., Sampler]


def default_make(name: str, problem, *, h: float, **params: Any) -> Sampler:
    """The package's sampler (tests pass a factory planting a bug in one algorithm).

    Registry names go to :func:`~sgmcmc_verify.registry.make_sampler`; the comparison
    baselines of :mod:`sgmcmc_verify.baselines` (``"psgld"``) to
    :func:`~sgmcmc_verify.baselines.make_baseline`.
    """
    if name in BASELINES:
        return make_baseline(name, problem, h=h, **params)
    return make_sampler(name, problem, h=h, **params)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def gauss_kl(m: np.ndarray, S: np.ndarray, mt: np.ndarray, St: np.ndarray) -> float:
    """``KL(N(m, S) ‖ N(mt, St))``."""
    m, mt = np.atleast_1d(m), np.atleast_1d(mt)
    S, St = np.atleast_2d(S), np.atleast_2d(St)
    d = m.size
    Sti = np.linalg.inv(St)
    dm = mt - m
    sign, logdet = np.linalg.slogdet(S)
    if sign <= 0:
        return math.inf
    return float(0.5 * (np.trace(Sti @ S) + dm @ Sti @ dm - d + np.linalg.slogdet(St)[1] - logdet))


def fit_kl(x: np.ndarray, mt, St) -> float:
    """KL of the Gaussian fitted to rows of ``x`` (n, d) to ``N(mt, St)``."""
    return gauss_kl(x.mean(axis=0), np.cov(x, rowvar=False), mt, St)


def boot(x: np.ndarray, fn: Callable[[np.ndarray], float], rng) -> tuple[float, float]:
    """``fn(x)`` and its bootstrap SE over the rows (independent chains) of ``x``."""
    val = fn(x)
    n = x.shape[0]
    reps = [fn(x[rng.integers(0, n, n)]) for _ in range(N_BOOT)]
    return float(val), float(np.std(reps, ddof=1))


def jackknife(per_group: list[np.ndarray], fn: Callable[[np.ndarray], float]):
    """``fn`` of the pooled group averages and its jackknife SE over the groups."""
    arr = np.stack(per_group)
    g = arr.shape[0]
    val = fn(arr.mean(axis=0))
    loo = np.array([fn((arr.sum(axis=0) - arr[i]) / (g - 1)) for i in range(g)])
    se = math.sqrt((g - 1) / g * np.sum((loo - loo.mean()) ** 2))
    return float(val), float(se)


def z_one_sided(alpha: float = ALPHA, df: int | None = None) -> float:
    """One-sided critical value at level ``alpha``: normal, or Student t with ``df`` degrees
    of freedom when the SE is estimated from few groups (a g-group :func:`jackknife` has
    ``g − 1``; ``z`` there would run a nominal 0.01 test at 0.022 for g = 10)."""
    return float(stats.norm.isf(alpha) if df is None else stats.t.isf(alpha, df))


def beats(
    name: str,
    expectation: str,
    winner: str,
    losers: list[str],
    metric: dict[str, tuple[float, float]],
    metric_name: str,
    extra: dict[str, Measurement] | None = None,
) -> Part:
    """Part for "``winner`` has a smaller ``metric`` than each of ``losers``".

    One :func:`decide.ordering_test` per loser (independent seeds, so the SEs add in
    quadrature), combined by :func:`decide.all_of`: confirmed when every ordering is
    significant at ``ALPHA`` (an intersection–union test: the conjunction is confirmed at
    level ``ALPHA``), refuted when some opposite ordering is significant at
    ``bonferroni(ALPHA, k)`` for k losers (a refutation needs only one of the k, so the
    family's false-refutation rate is then ≤ ``ALPHA``), qualified otherwise.  Normal
    critical values: the SEs are bootstraps (:data:`N_BOOT` = 200 replicates over ≥ 200
    chains), whose ≈ 5 % relative error moves the critical value by < 1 % (t at 199 df).
    """
    a_ref = bonferroni(ALPHA, len(losers))
    subs = {
        f"{winner} < {los}": decide.ordering_test(
            f"{winner} vs {los}",
            f"{metric_name}({winner}) < {metric_name}({los})",
            smaller=metric[winner],
            larger=metric[los],
            alpha=ALPHA,
            alpha_refute=a_ref,
            effect_label=metric_name,
            holds=f"{winner} significantly better than {los}",
            fails=f"{los} significantly better than {winner}",
            counterexample={k: metric[k] for k in (winner, los)},
        )
        for los in losers
    }
    values = {
        f"{metric_name} {k}": Measurement(v[0], v[1], note="Monte Carlo SE")
        for k, v in metric.items()
    }
    levels = {
        "α (each ordering confirms)": Measurement(ALPHA, note="intersection–union: family α"),
        "α (each ordering refutes)": Measurement(
            a_ref, note=f"bonferroni(α = {ALPHA:g}, k = {len(losers)}): family α of refutation "
            f"{ALPHA:g}"
        ),
    }  # fmt: skip
    return decide.all_of(name, expectation, subs, extra=values | levels | (extra or {}))


def final_states(make, name, problem, *, h, steps, chains, seed, theta0=None, **params):
    """Draws recorded every ``steps // len`` ... (chains, draws, d); ``steps`` a list of
    checkpoints (increasing), returned as {checkpoint: (chains, d)}."""
    sampler = make(name, problem, h=h, **params)
    cps = sorted(set(int(s) for s in steps))
    last = cps[-1]
    stride = math.gcd(*cps) if len(cps) > 1 else last
    res = run_sampler(sampler, n_steps=last, chains=chains, seed=seed, theta0=theta0, thin=stride)
    th = res.draws["theta"]
    return {c: th[:, c // stride - 1] for c in cps}


def budget_steps(passes: float, N: int, cost: float) -> int:
    return max(1, int(passes * N / cost))


def outcomes(per: Mapping[str, Part], won: str, lost: str, open_: str) -> str:
    """Each setting's verdict in words, for an erratum: "won a, b; lost c; open_ d"."""
    by: dict[str, list[str]] = {"confirmed": [], "refuted": [], "other": []}
    for k, p in per.items():
        by[p.verdict if p.verdict in ("confirmed", "refuted") else "other"].append(k)
    words = zip((won, lost, open_), by.values(), strict=True)
    return "; ".join(f"{w} {', '.join(ks)}" for w, ks in words if ks)
