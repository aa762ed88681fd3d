"""Reproductions of the papers' experiments: SGNHT-GAUSS, EWSG-EXP-GAUSS, AGLD-EXP-GMM,
AGLD-EXP-TMU, SVRHMC-EXP (not checkable offline) and its substitute SVRHMC-EXP-SUB.

Every stated ordering or behaviour is one :class:`Part`.  Accuracy is measured against
exact posterior moments:

* Gaussian targets (SGNHT normal mean, EWSG's 2-D Gaussian, Bayesian linear
  regression): ``KL(N(m̂, Ŝ) ‖ π)``, the KL divergence from the Gaussian fitted to the
  chains' draws to the (exactly Gaussian) target.  The chains' law is only
  approximately Gaussian (the stochastic gradient noise is not), so this is the KL of
  its Gaussian projection.
* Logistic regression: the same KL to the Gaussian with the posterior's exact
  (quadrature) mean and covariance.
* AGLD's Gaussian mixture: ``‖Ê[xxᵀ] − E_π[xxᵀ]‖_F`` against the stored
  importance-sampling reference (the mean is exactly 0 but unreachable: the modes are
  never crossed, so the chains start symmetrically at ±ā).

Standard errors are Monte Carlo ones over independent chains (bootstrap of the chains
for the final-state laws, jackknife over groups of chains for time averages).  An
ordering "A better than B" is decided by the z statistic of the difference of the two
estimates (independent seeds, so the SEs add in quadrature): confirmed when
``z > z_{1−α}``, refuted when the opposite ordering is significant, ``qualified``
(not confirmed at this size) otherwise.  ``ALPHA`` is per comparison; the numbers of
comparisons are stated in ``params``.

Data passes: one pass is ``N`` component-gradient evaluations.  Evaluations per step
(``COST``): minibatch methods ``n``; LMC ``N``; EWSG ``M + 1`` (Algorithm 1);
SVRG-type (SVRG-LD = PTU-RA, SVRG-HMC, SVRG2nd-HMC) ``2n + N/D`` (the minibatch at θ
and at the snapshot, plus a full gradient every ``D`` steps); PPU (SAGA) ``n``; TMU
``n + N/D`` (the table is refreshed from the new gradients; a full refresh every ``D``
steps).  Algorithms are compared at equal data passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from ..algorithms import Sampler
from ..driver import run_sampler
from ..problems.gaussian import gaussian_identical
from ..problems.linear_regression import linear_regression_synthetic
from ..problems.logistic import logistic_regression_synthetic
from ..problems.mixture import agld_gmm
from ..problems.sgnht_models import normal_mean
from ..registry import make_sampler
from .result import Measurement, Part

#: Level of each one-sided comparison.
ALPHA = 0.01

#: Bootstrap replicates for SEs of final-state functionals.
N_BOOT = 200

SamplerFactory = Callable[..., Sampler]


def default_make(name: str, problem, *, h: float, **params: Any) -> Sampler:
    """The package's sampler (tests pass a factory planting a bug in one algorithm)."""
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


def _fit_kl(x: np.ndarray, mt, St) -> float:
    """KL of the Gaussian fitted to rows of ``x`` (n, d) to ``N(mt, St)``."""
    return gauss_kl(x.mean(axis=0), np.cov(x, rowvar=False), mt, St)


def _boot(x: np.ndarray, fn: Callable[[np.ndarray], float], rng) -> tuple[float, float]:
    """``fn(x)`` and its bootstrap SE over the rows (independent chains) of ``x``."""
    val = fn(x)
    n = x.shape[0]
    reps = [fn(x[rng.integers(0, n, n)]) for _ in range(N_BOOT)]
    return float(val), float(np.std(reps, ddof=1))


def _jackknife(per_group: list[np.ndarray], fn: Callable[[np.ndarray], float]):
    """``fn`` of the pooled group averages and its jackknife SE over the groups."""
    arr = np.stack(per_group)
    g = arr.shape[0]
    val = fn(arr.mean(axis=0))
    loo = np.array([fn((arr.sum(axis=0) - arr[i]) / (g - 1)) for i in range(g)])
    se = math.sqrt((g - 1) / g * np.sum((loo - loo.mean()) ** 2))
    return float(val), float(se)


def _zq() -> float:
    return float(stats.norm.ppf(1 - ALPHA))


def _better(a: tuple[float, float], b: tuple[float, float]) -> tuple[str, float]:
    """Decide 'a < b' (a more accurate) at level ALPHA: ('yes' | 'no' | 'opposite', z)."""
    diff = b[0] - a[0]
    se = math.hypot(a[1], b[1])
    z = diff / se if se > 0 else (math.inf if diff > 0 else -math.inf)
    if z > _zq():
        return "yes", z
    if z < -_zq():
        return "opposite", z
    return "no", z


def _ordering_part(
    name: str,
    expectation: str,
    winner: str,
    losers: list[str],
    metric: dict[str, tuple[float, float]],
    metric_name: str,
    extra: dict[str, Measurement] | None = None,
) -> Part:
    """Part for '``winner`` has a smaller ``metric`` than each of ``losers``'."""
    measured = {
        f"{metric_name} {k}": Measurement(v[0], v[1], note="Monte Carlo SE")
        for k, v in metric.items()
    }
    outcomes = {}
    for los in losers:
        res, z = _better(metric[winner], metric[los])
        outcomes[los] = res
        measured[f"z ({los} − {winner}) / SE"] = Measurement(
            z, note=f"one-sided, α = {ALPHA} (z crit {_zq():.3f})"
        )
    measured.update(extra or {})
    if all(r == "yes" for r in outcomes.values()):
        verdict, reading = "confirmed", f"{winner} significantly better than each of {losers}"
    elif any(r == "opposite" for r in outcomes.values()):
        opp = [k for k, r in outcomes.items() if r == "opposite"]
        verdict, reading = "refuted", f"{opp} significantly better than {winner}"
    else:
        ns = [k for k, r in outcomes.items() if r != "yes"]
        verdict = "qualified"
        reading = f"{winner} not significantly better than {ns} at this size"
    ce = None
    if verdict == "refuted":
        ce = {k: metric[k] for k in [winner, *losers]}
    return Part(name, verdict, expectation, measured, reading, ce)


def _final_states(make, name, problem, *, h, steps, chains, seed, theta0=None, **params):
    """Draws recorded every ``steps // len`` ... (chains, draws, d); ``steps`` a list of
    checkpoints (increasing), returned as {checkpoint: (chains, d)}."""
    sampler = make(name, problem, h=h, **params)
    cps = sorted(set(int(s) for s in steps))
    last = cps[-1]
    stride = math.gcd(*cps) if len(cps) > 1 else last
    res = run_sampler(sampler, n_steps=last, chains=chains, seed=seed, theta0=theta0, thin=stride)
    th = res.draws["theta"]
    return {c: th[:, c // stride - 1] for c in cps}


# --------------------------------------------------------------------------------------
# SGNHT-GAUSS
# --------------------------------------------------------------------------------------

#: KL threshold of "samples accurately" (KL 0.01 ↔ a variance ratio of about 1.15 or
#: a mean offset of 0.14 posterior SDs).
KL_ACCURATE = 0.01


def check_sgnht_gauss(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """SGNHT §5.1(a): normal mean, N = 100, Ñ = 10, flat prior; h ∈ {0.01, 0.001}, A ∈ {1, 10}.

    SGNHT (Algorithm 1) and SGHMC (Chen et al., friction A, B̂ = 0) with minibatch
    gradients.  Accuracy: KL of the Gaussian fit of the pooled draws (after burn-in) to
    the posterior ``N(x̄, 1/N)``, SE by jackknife over 10 groups of chains.  "Accurate"
    is ``KL < KL_ACCURATE`` with the upper one-sided (1 − α) bound; "inaccurate" is the
    lower bound above it.  ``E[ξ]`` is compared with ``A`` and with the prediction
    ``A + B_eff``, ``B_eff = h·V/2``, ``V = N²/Ñ · Var_i(x_i)`` (the minibatch-gradient
    variance; with replacement), which is what "ξ absorbs the noise" predicts.
    """
    problem = normal_mean(100, seed=seed)
    T = 20.0 if profile == "quick" else 200.0  # time units simulated
    chains = 40 if profile == "quick" else 200
    groups = 10
    mt, St = problem.exact["mean"].value, problem.exact["cov"].value
    V = problem.N**2 / 10 * float(np.var(problem.x))
    kl: dict[str, dict[tuple, tuple[float, float]]] = {"sgnht": {}, "sghmc-chen": {}}
    xi: dict[tuple, tuple[float, float]] = {}
    k = 0
    for h in (0.01, 0.001):
        steps = round(T / h)
        burn = steps // 4
        thin = max(1, steps // 2000)
        for A in (1.0, 10.0):
            for alg in ("sgnht", "sghmc-chen"):
                k += 1
                sampler = make(alg, problem, h=h, A=A, n=10)
                rec = ("theta", "xi") if alg == "sgnht" else ("theta",)
                res = run_sampler(
                    sampler,
                    n_steps=steps,
                    chains=chains,
                    seed=seed * 1000 + k,
                    theta0=np.full(1, problem.xbar),
                    burn_in=burn,
                    thin=thin,
                    record=rec,
                )
                th = res.draws["theta"][..., 0]  # (chains, draws)
                per = [np.array([g.mean(), (g**2).mean()]) for g in np.array_split(th, groups)]

                def fn(mom):
                    return gauss_kl(mom[:1], np.array([[mom[1] - mom[0] ** 2]]), mt, St)

                kl[alg][(h, A)] = _jackknife(per, fn)
                if alg == "sgnht":
                    xs = res.draws["xi"]
                    xi[(h, A)] = _jackknife(
                        [np.array([g.mean()]) for g in np.array_split(xs, groups)],
                        lambda m: float(m[0]),
                    )
    z = _zq()

    def acc(v):
        return v[0] + z * v[1] < KL_ACCURATE

    def inacc(v):
        return v[0] - z * v[1] > KL_ACCURATE

    settings = [(h, A) for h in (0.01, 0.001) for A in (1.0, 10.0)]
    meas = {
        f"KL {alg} h={h} A={A:g}": Measurement(
            kl[alg][(h, A)][0], kl[alg][(h, A)][1], note="jackknife SE"
        )
        for alg in kl
        for (h, A) in settings
    }
    sgnht_ok = all(acc(kl["sgnht"][s]) for s in settings)
    sghmc_bad = [s for s in settings if inacc(kl["sghmc-chen"][s])]
    sghmc_ok = [s for s in settings if acc(kl["sghmc-chen"][s])]
    sgnht_bad = [s for s in settings if inacc(kl["sgnht"][s])]
    if sgnht_ok and sghmc_bad:
        verdict = "confirmed"
        reading = f"SGNHT accurate in all four settings; SGHMC inaccurate at {sghmc_bad}"
    elif sgnht_bad:
        verdict = "refuted"
        reading = f"SGNHT inaccurate (KL > {KL_ACCURATE} significantly) at {sgnht_bad}"
    else:
        verdict = "qualified"
        reading = (
            f"not significant at this size: SGNHT accurate everywhere = {sgnht_ok}, "
            f"SGHMC inaccurate at {sghmc_bad}"
        )
    parts = [
        Part(
            "SGNHT accurate where SGHMC is not",
            verdict,
            f"KL(SGNHT) < {KL_ACCURATE} for all (h, A); KL(SGHMC) > {KL_ACCURATE} for some, "
            "SGHMC accurate only for small h and large A",
            meas
            | {
                "SGHMC accurate at": Measurement(sghmc_ok),
                "SGHMC inaccurate at": Measurement(sghmc_bad),
                "threshold": Measurement(KL_ACCURATE, note=f"one-sided bounds at α = {ALPHA}"),
            },
            reading,
            None if verdict != "refuted" else {"settings": sgnht_bad, "seed": seed},
        )
    ]

    # ξ ≈ A at h = 0.001; ξ ≫ A at h = 0.01
    def pred(h, A):
        return A + h * V / 2

    xmeas = {
        f"E[ξ] h={h} A={A:g}": Measurement(
            xi[(h, A)][0], xi[(h, A)][1], note=f"prediction A + hV/2 = {pred(h, A):.3f}"
        )
        for (h, A) in settings
    }
    rel = {s: (xi[s][0] - s[1]) / s[1] for s in settings}
    near = [s for s in settings if s[0] == 0.001 and abs(rel[s]) <= 0.5]
    far_ = [s for s in settings if s[0] == 0.001 and abs(rel[s]) > 0.5]
    verdict = "confirmed" if not far_ else ("qualified" if near else "refuted")
    parts.append(
        Part(
            "ξ ≈ A at h = 0.001",
            verdict,
            "|E[ξ] − A| ≤ A/2 at h = 0.001 for A ∈ {1, 10} (reading of 'close')",
            xmeas | {"(E[ξ] − A)/A": Measurement({f"h={h} A={A:g}": rel[(h, A)] for h, A in rel})},
            "E[ξ] − A ≈ hV/2 = B_eff: close to A relative to A only where A ≫ hV/2"
            + ("" if not far_ else f"; not within A/2 at {far_}"),
            None if verdict != "refuted" else {"settings": far_},
        )
    )
    big = [s for s in settings if s[0] == 0.01 and rel[s] >= 1.0]
    small = [s for s in settings if s[0] == 0.01 and rel[s] < 1.0]
    verdict = "confirmed" if not small else ("qualified" if big else "refuted")
    parts.append(
        Part(
            "ξ ≫ A at h = 0.01",
            verdict,
            "E[ξ] ≥ 2A at h = 0.01 for A ∈ {1, 10} (reading of 'much larger')",
            xmeas,
            f"E[ξ] ≥ 2A at {big}" + (f"; not at {small}" if small else ""),
            None if verdict != "refuted" else {"settings": small},
        )
    )
    parts.append(
        Part(
            "Normal–Gamma variant",
            "not-checkable",
            "SGNHT lower autocorrelation time than SGHMC at similar RMSE (Figure 2, 4th panel)",
            {},
            "not implemented in this check: the (h, A) grid of the 4th panel is in appendix E, "
            "which is not in the text provided",
        )
    )
    return parts, {
        "alpha": ALPHA,
        "T": T,
        "chains": chains,
        "groups": groups,
        "minibatch": 10,
        "V": V,
        "kl_accurate": KL_ACCURATE,
        "sghmc": "sghmc-chen, B_hat = 0",
    }


# --------------------------------------------------------------------------------------
# EWSG-EXP-GAUSS
# --------------------------------------------------------------------------------------


def _budget_steps(passes: float, N: int, cost: float) -> int:
    return max(1, int(passes * N / cost))


def check_ewsg_exp_gauss(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """EWSG §5.1: 2-D Gaussian, n = 20, c_i ~ N(0, I), b = 1, 30 data passes.

    KL (Gaussian fit of the final states of independent chains, as the paper's 10⁴
    realisations) to the target.  Step sizes as the paper: SGHMC/EWSG h = 5e-2,
    γ = 10; SGLD 5e-3; SVRG-LD 5e-4 (D = N, b = 1).  Costs per step: SGHMC 1, SGLD 1,
    EWSG M + 1, SVRG-LD 2 + N/D = 3.  pSGLD is not implemented (not-checkable).
    """
    problem = gaussian_identical(20, 2, precision=20.0, seed=seed)
    mt, St = problem.exact["mean"].value, problem.exact["cov"].value
    N = problem.N
    chains = 2000 if profile == "quick" else 10000
    passes = 30
    rng = np.random.default_rng(seed + 7)
    cfg = {
        "SGHMC": ("sghmc-ewsg", 5e-2, {"gamma": 10.0, "b": 1, "p0": "normal"}, 1),
        "SGLD": ("sgld", 5e-3, {"n": 1}, 1),
        "SVRG-LD": ("svrg-ld", 5e-4, {"n": 1, "D": N}, 3),
        "EWSG": ("ewsg", 5e-2, {"gamma": 10.0, "M": 1, "p0": "normal"}, 2),
    }
    for x in ("zero", "one", "alt"):
        cfg[f"EWSG x={x}"] = ("ewsg", 5e-2, {"gamma": 10.0, "M": 1, "x": x, "p0": "normal"}, 2)
    for M in (5, 10):
        cfg[f"EWSG M={M}"] = ("ewsg", 5e-2, {"gamma": 10.0, "M": M, "p0": "normal"}, M + 1)
    theta0 = np.zeros(2)
    kl = {}
    finals = {}
    for i, (lab, (alg, h, prm, cost)) in enumerate(cfg.items()):
        steps = _budget_steps(passes, N, cost)
        out = _final_states(
            make,
            alg,
            problem,
            h=h,
            steps=[steps],
            chains=chains,
            seed=seed * 100 + i,
            theta0=theta0,
            **prm,
        )
        finals[lab] = out[steps]
        kl[lab] = _boot(finals[lab], lambda x: _fit_kl(x, mt, St), rng)
    costs = {lab: c[3] for lab, c in cfg.items()}
    note = {"evaluations per step": Measurement(costs), "data passes": Measurement(passes)}
    parts = [
        _ordering_part(
            "EWSG beats SGHMC and SGLD in KL",
            "KL(EWSG) < KL(SGHMC), KL(SGLD) at 30 data passes",
            "EWSG",
            ["SGHMC", "SGLD"],
            kl,
            "KL",
            note,
        ),
        Part(
            "EWSG beats pSGLD",
            "not-checkable",
            "KL(EWSG) < KL(pSGLD)",
            {},
            "pSGLD (Li et al. 2016) is not implemented in this package",
        ),
        _ordering_part(
            "SVRG-LD most accurate",
            "KL(SVRG-LD) smallest at 30 data passes",
            "SVRG-LD",
            ["EWSG", "SGHMC", "SGLD"],
            kl,
            "KL",
        ),
        _ordering_part(
            "x̂ beats the alternatives",
            "KL(x̂) < KL(x = 0), KL(x = 1), KL(x = (−1+hγ)r/(σ√h))",
            "EWSG",
            ["EWSG x=zero", "EWSG x=one", "EWSG x=alt"],
            kl,
            "KL",
        ),
    ]
    # M trades bias for variance: at equal data passes larger M makes fewer steps; its
    # weights are closer to eq. (4) (bias change) and its index less random.  Measured:
    # KL at equal passes, and the variance of the final-state estimate of E[θ]
    # (tr Cov over chains) against the full-gradient ULD-EM's.
    meas = {}
    for lab in ("EWSG", "EWSG M=5", "EWSG M=10"):
        x = finals[lab]
        meas[f"tr Cov {lab}"] = Measurement(*_boot(x, lambda y: float(np.trace(np.cov(y.T))), rng))
        meas[f"|mean − μ| {lab}"] = Measurement(
            *_boot(x, lambda y: float(np.linalg.norm(y.mean(0) - mt)), rng)
        )
        meas[f"KL {lab}"] = Measurement(*kl[lab])
    tr_true = float(np.trace(St))
    meas["tr Σ target"] = Measurement(tr_true)

    def mv(key):
        return (meas[key].value, meas[key].stderr)

    res_var, zv = _better(mv("tr Cov EWSG M=10"), mv("tr Cov EWSG"))
    meas["z tr Cov (M=1 − M=10)/SE"] = Measurement(zv, note=f"one-sided, α = {ALPHA}")
    res_bias, zb = _better(mv("|mean − μ| EWSG"), mv("|mean − μ| EWSG M=10"))
    meas["z |mean − μ| (M=10 − M=1)/SE"] = Measurement(zb, note=f"one-sided, α = {ALPHA}")
    if res_var == "yes" and res_bias == "yes":
        verdict = "confirmed"
        reading = (
            "larger M lowers the spread of the chains' law (tr Cov) and raises the error of "
            "its mean, at equal data passes; note tr Cov at M = 10 is below the target's"
        )
    elif res_var == "opposite" or res_bias == "opposite":
        verdict = "refuted"
        reading = f"variance decreases with M: {res_var}; bias increases with M: {res_bias}"
    else:
        verdict = "qualified"
        reading = f"variance decreases with M: {res_var}; bias increases with M: {res_bias}"
    parts.append(
        Part(
            "M trades bias for variance",
            verdict,
            "larger M (M = 1 → 10): smaller tr Cov of the final states (variance), larger "
            "|mean − μ| (bias), at M + 1 evaluations per step and equal data passes",
            meas,
            reading,
        )
    )
    return parts, {
        "alpha": ALPHA,
        "chains": chains,
        "passes": passes,
        "costs": costs,
        "bootstrap": N_BOOT,
        "steps": {lab: _budget_steps(passes, N, c[3]) for lab, c in cfg.items()},
    }


# --------------------------------------------------------------------------------------
# AGLD-EXP-GMM
# --------------------------------------------------------------------------------------


def check_agld_exp_gmm(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """AGLD §6.1: Gaussian mixture, N = 500, d = 10, RA access, equal data passes.

    η = 0.05, n = 10, D = N/n for SVRG-LD (PTU-RA) and TMU-RA (the paper gives neither).
    Chains start symmetrically at ±ā (half each).  Metric: ``‖Ê[xxᵀ] − E_π[xxᵀ]‖_F`` with
    ``Ê`` the average over chains of the time averages over the second half of the
    budget (as the paper uses the last 10⁴ of 2·10⁴ passes); SE by bootstrap over chains
    (the Frobenius norm carries an upward bias of the size of the Monte Carlo noise).
    Costs per step: LMC N, SGLD n, SVRG-LD 2n + N/D, SAGA-LD n, TMU-RA n + N/D.
    """
    problem = agld_gmm()
    N, n = problem.N, 10
    D = N // n
    cov_ref = problem.exact["cov"].value
    abar = problem.centres.mean(axis=0)
    chains = 200 if profile == "quick" else 1000
    passes = 20 if profile == "quick" else 200
    eta = 0.05
    rng = np.random.default_rng(seed + 11)
    theta0 = np.where(np.arange(chains)[:, None] % 2 == 0, abar, -abar)
    cfg = {
        "LMC": ("lmc", {}, N),
        "SGLD": ("sgld", {"n": n}, n),
        "SVRG-LD": ("ptu-ra", {"n": n, "D": D}, 2 * n + N / D),
        "SAGA-LD": ("ppu-ra", {"n": n}, n),
        "TMU-RA": ("tmu-ra", {"n": n, "D": D}, n + N / D),
    }
    err = {}
    for i, (lab, (alg, prm, cost)) in enumerate(cfg.items()):
        steps = _budget_steps(passes, N, cost)
        sampler = make(alg, problem, h=eta, **prm)
        res = run_sampler(
            sampler,
            n_steps=steps,
            chains=chains,
            seed=seed * 100 + i,
            theta0=theta0,
            burn_in=steps // 2,
            keep="moments",
        )
        sec = res.moments["second"]  # (chains, d, d): per-chain time averages of xxᵀ
        err[lab] = _boot(sec, lambda y: float(np.linalg.norm(y.mean(axis=0) - cov_ref)), rng)
    costs = {lab: c[2] for lab, c in cfg.items()}
    extra = {
        "evaluations per step": Measurement(costs),
        "data passes": Measurement(passes),
        "reference E[xxᵀ] SE (max entry)": Measurement(
            float(np.max(problem.exact["cov"].stderr))
            if problem.exact["cov"].stderr is not None
            else 0.0
        ),
    }
    parts = [
        _ordering_part(
            "LMC and SGLD deviate",
            "error(TMU-RA) < error(LMC), error(SGLD) at equal data passes",
            "TMU-RA",
            ["LMC", "SGLD"],
            err,
            "‖ΔE[xxᵀ]‖_F",
            extra,
        ),
        _ordering_part(
            "TMU-RA approximates best among AGLD methods",
            "error(TMU-RA) < error(SVRG-LD), error(SAGA-LD)",
            "TMU-RA",
            ["SVRG-LD", "SAGA-LD"],
            err,
            "‖ΔE[xxᵀ]‖_F",
        ),
    ]
    return parts, {
        "alpha": ALPHA,
        "eta": eta,
        "n": n,
        "D": D,
        "chains": chains,
        "passes": passes,
        "costs": costs,
        "start": "±ā, half the chains each",
    }


# --------------------------------------------------------------------------------------
# AGLD-EXP-TMU
# --------------------------------------------------------------------------------------


def check_agld_exp_tmu(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """AGLD §6.2 (-SUB): Bayesian ridge regression on synthetic data (the UCI sets are
    unavailable offline), TMU vs PTU and PPU under each access RA, RR, CA.

    Synthetic ``linear_regression_synthetic(N=200, d=5, noise_sd=1, prior_sd=1)``;
    n = 10, D = N/n, η = 1e-3 (stable: ηλ_max ≈ 0.25); chains start at 0.  Metric:
    KL of the Gaussian fit of the final states to the exact posterior after a few data
    passes (the paper's x-axis is epochs, 0-10).  Costs per step: PTU 2n + N/D,
    PPU n, TMU n + N/D.
    """
    problem = linear_regression_synthetic(200, 5, noise_sd=1.0, prior_sd=1.0, seed=seed)
    mt, St = problem.exact["mean"].value, problem.exact["cov"].value
    N, n = problem.N, 10
    D = N // n
    chains = 500 if profile == "quick" else 3000
    passes = 4 if profile == "quick" else 10
    eta = 1e-3
    rng = np.random.default_rng(seed + 13)
    costs = {"ptu": 2 * n + N / D, "ppu": n, "tmu": n + N / D}
    parts = []
    kls = {}
    for j, acc in enumerate(("ra", "rr", "ca")):
        kl = {}
        for i, snap in enumerate(("tmu", "ptu", "ppu")):
            prm = {"n": n} | ({} if snap == "ppu" else {"D": D})
            steps = _budget_steps(passes, N, costs[snap])
            x = _final_states(
                make,
                f"{snap}-{acc}",
                problem,
                h=eta,
                steps=[steps],
                chains=chains,
                seed=seed * 100 + 10 * j + i,
                **prm,
            )[steps]
            kl[snap.upper()] = _boot(x, lambda y: _fit_kl(y, mt, St), rng)
        kls[acc] = kl
        parts.append(
            _ordering_part(
                f"TMU beats PTU and PPU under {acc.upper()}",
                f"KL(TMU-{acc.upper()}) < KL(PTU-{acc.upper()}), KL(PPU-{acc.upper()}) "
                f"at {passes} data passes",
                "TMU",
                ["PTU", "PPU"],
                kl,
                "KL",
                {"evaluations per step": Measurement(costs)} if j == 0 else None,
            )
        )
    return parts, {
        "alpha": ALPHA,
        "problem": "linear_regression_synthetic(200, 5, noise_sd=1, prior_sd=1) (-SUB)",
        "eta": eta,
        "n": n,
        "D": D,
        "chains": chains,
        "passes": passes,
        "costs": costs,
        "comparisons": 6,
    }


# --------------------------------------------------------------------------------------
# SVRHMC-EXP and SVRHMC-EXP-SUB
# --------------------------------------------------------------------------------------


def check_svrhmc_exp(*, profile: str = "quick", seed: int = 0) -> tuple[list[Part], dict]:
    """SVRHMC §5 on the UCI data sets: not checkable offline (see SVRHMC-EXP-SUB)."""
    return [
        Part(
            "SVRG-HMC and SVRG2nd-HMC faster per data pass than SVRG-LD (UCI data)",
            "not-checkable",
            "lower test error per data pass on the UCI regression/classification sets",
            {},
            "the UCI data sets are not available offline; the substitute on synthetic data "
            "is SVRHMC-EXP-SUB",
        )
    ], {"profile": profile, "seed": seed}


def check_svrhmc_exp_sub(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """SVRHMC §5 substitute: SVRG-HMC, SVRG2nd-HMC vs SVRG-LD per data pass on synthetic
    Bayesian linear regression (exact posterior) and logistic regression (quadrature).

    b = 10, K = D_LD = N/b.  Step sizes (SVRHMC §5 tunes them; here fixed, stated in
    params): SVRG-LD h = 0.25/L; HMC variants friction D = √L (L = λ_max of the
    posterior precision) and h = 0.9/D, the largest Dh < 1 SVRHMC allows.  With D = 1 and
    h = 0.5/√L the explicit-Euler SVRG-HMC is unstable (it needs D ≥ hL).  Costs per step:
    2b + N/K for all three.  Metric: KL of the Gaussian fit of the final states to the
    posterior's Gaussian (exact moments) after each of a few data passes; the claim is
    judged at each checkpoint and the Part is confirmed when both HMC variants are
    significantly better than SVRG-LD at every checkpoint.
    """
    chains = 500 if profile == "quick" else 3000
    passes = [1, 2, 4] if profile == "quick" else [1, 2, 4, 8, 16]
    b = 10
    rng = np.random.default_rng(seed + 17)
    problems = {
        "linear": linear_regression_synthetic(200, 3, noise_sd=1.0, prior_sd=1.0, seed=seed),
        "logistic": logistic_regression_synthetic(200, 2, prior_sd=1.0, seed=seed),
    }
    parts = []
    params: dict[str, Any] = {"alpha": ALPHA, "b": b, "chains": chains, "passes": passes}
    for pi, (pname, problem) in enumerate(problems.items()):
        mt, St = problem.exact["mean"].value, problem.exact["cov"].value
        L = float(np.linalg.eigvalsh(np.linalg.inv(St)).max())
        N = problem.N
        K = N // b
        cost = 2 * b + N / K
        h_ld = 0.25 / L
        fric = math.sqrt(L)  # friction of the order of the stiffest frequency
        h_hmc = 0.9 / fric  # Dh = 0.9 < 1; explicit-Euler stable: det = 1 − Dh + h²L = 0.91
        cfg = {
            "SVRG-LD": ("svrg-ld", h_ld, {"n": b, "D": K}),
            "SVRG-HMC": ("svrg-hmc", h_hmc, {"b": b, "K": K, "D": fric}),
            "SVRG2nd-HMC": ("svrg2-hmc", h_hmc, {"b": b, "K": K, "D": fric}),
        }
        kl: dict[int, dict[str, tuple[float, float]]] = {p: {} for p in passes}
        for i, (lab, (alg, h, prm)) in enumerate(cfg.items()):
            cps = [_budget_steps(p, N, cost) for p in passes]
            out = _final_states(
                make,
                alg,
                problem,
                h=h,
                steps=cps,
                chains=chains,
                seed=seed * 100 + 10 * pi + i,
                **prm,
            )
            for p, c in zip(passes, cps, strict=True):
                kl[p][lab] = _boot(out[c], lambda y, m=mt, S=St: _fit_kl(y, m, S), rng)
        for lab in ("SVRG-HMC", "SVRG2nd-HMC"):
            per = [
                _ordering_part(
                    f"{lab} faster than SVRG-LD ({pname}, {p} passes)",
                    "",
                    lab,
                    ["SVRG-LD"],
                    kl[p],
                    "KL",
                )
                for p in passes
            ]
            meas = {}
            for p, pp in zip(passes, per, strict=True):
                meas.update({f"{k} @ {p} passes": v for k, v in pp.measured.items()})
            vs = [pp.verdict for pp in per]
            # The paper tunes step sizes; ours are fixed, so a loss of the HMC variants
            # is evidence against the claim at these settings only: qualified, not refuted.
            verdict = "confirmed" if all(v == "confirmed" for v in vs) else "qualified"
            parts.append(
                Part(
                    f"{lab} converges faster per data pass than SVRG-LD ({pname})",
                    verdict,
                    "KL(HMC variant) < KL(SVRG-LD) at each data-pass checkpoint",
                    meas | {"evaluations per step": Measurement(cost, note="2b + N/K, all three")},
                    "at the fixed (untuned) step sizes in params: "
                    + "; ".join(f"{p} passes: {v}" for p, v in zip(passes, vs, strict=True)),
                    None
                    if "refuted" not in vs
                    else {"KL at checkpoints": {p: kl[p] for p in passes}, "seed": seed},
                )
            )
        params[pname] = {"h_ld": h_ld, "h_hmc": h_hmc, "K": K, "L": L, "friction": fric}
    return parts, params
