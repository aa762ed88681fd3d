"""SGNHT-DW: the §3 double-well illustration (SGNHT §3, Figure 1, Appendix B).

Fixed friction ξ ∈ {1, 10, 0.1} and SGNHT on the §3 double well with §3's gradient
noise; the closed forms and exact laws it compares against are in
:mod:`.sgnht_theory`, the chain machinery in :mod:`.chain_stats`.  Every part is
decided by :mod:`.decide` (see :func:`check_dw`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.special
import scipy.stats

from ..problems.double_well import DoubleWell, double_well
from ..registry import make_sampler
from ..stats import variance_test
from ..stats.multiplicity import bonferroni
from . import decide
from .chain_stats import (
    ALPHA,
    MEAN_EFFECT_SD,
    SamplerFactory,
    _Budget,
    _int_seed,
    _mean_se,
    _one_sided_bound,
    _run_batches,
    _selected,
)
from .result import Measurement, Part
from .sgnht_theory import (
    TemperedDoubleWell,
    _mean_grad_sq,
    derived_xi_slope,
    euler_kinetic_energy,
    euler_tv_bound,
)

__all__ = ["T_PAPER", "check_dw"]

#: The paper's run length in time units: 10⁶ samples at h = 0.01 (§3, Figure 1).
T_PAPER = 1e6 * 0.01
#: A relative error of a tenth in the variance of §3's gradient noise (SGNHT-DW).
NOISE_EFFECT_REL = 0.1


def _law_test(fracs: np.ndarray, F: np.ndarray, budget: _Budget) -> dict[str, Any]:
    """Test the θ-law through its CDF at k points, and measure its distance.

    ``fracs[c, j]`` is chain c's fraction of draws with θ ≤ x_j (i.i.d. over
    chains); under H0 its mean is ``F[j]``.  Per-point two-sided z-tests at
    ``budget.each / k`` (Bonferroni inside the test).  A point where all chains
    agree (zero spread) and differ from ``F`` counts as infinitely significant.
    Distances: the largest CDF gap over the points, and the total variation on
    the k + 1 bins they delimit (a lower bound on the full TV), with its
    delta-method standard error, an upper bound ``½ Σ se_j`` on its standard deviation
    valid at any TV, and its noise floor ``½ Σ se_j √(2/π)``.
    """
    m, k = fracs.shape
    mean = fracs.mean(axis=0)
    se = fracs.std(axis=0, ddof=1) / math.sqrt(m)
    diff = mean - F
    z = np.where(se > 0, diff / np.where(se > 0, se, 1.0), np.where(diff == 0, 0.0, np.inf))
    crit = float(-scipy.special.ndtri(bonferroni(budget.each, k) / 2))
    zmax = float(np.max(np.abs(z)))
    # bins: (−∞, x_1], (x_1, x_2], ..., (x_k, ∞)
    bins_c = np.diff(np.column_stack([np.zeros(m), fracs, np.ones(m)]), axis=1)
    pi = np.diff(np.concatenate([[0.0], F, [1.0]]))
    dev = bins_c.mean(axis=0) - pi
    tv = 0.5 * float(np.abs(dev).sum())
    s = np.sign(dev)
    tv_se = 0.5 * float((bins_c @ s).std(ddof=1) / math.sqrt(m))
    # sd(Σ|X_j|) ≤ Σ sd(|X_j|) ≤ Σ sd(X_j) (Minkowski): an upper bound on the TV
    # estimator's standard deviation that holds at any TV, also near 0 where the
    # delta-method tv_se (taken at the estimated signs) does not
    se_bound = 0.5 * float(np.sum(bins_c.std(axis=0, ddof=1) / math.sqrt(m)))
    floor = se_bound * math.sqrt(2 / math.pi)
    j = int(np.argmax(np.abs(diff)))
    return {
        "max_abs_z": zmax,
        "crit": crit,
        "sup_cdf_gap": float(abs(diff[j])),
        "sup_cdf_gap_se": float(se[j]),
        "tv": tv,
        "tv_se": tv_se,
        "tv_se_bound": se_bound,
        "tv_noise_floor": floor,
    }


def _switches(theta: np.ndarray, left_core: float, right_core: float) -> np.ndarray:
    """Per-chain number of well switches: passages between the cores θ < left_core and
    θ > right_core (hysteresis, so recrossings of the barrier are not counted).  The first
    core visited sets the starting well and is not a switch.

    The core labels (−1, +1; 0 between the cores) of all chains are read as one sequence
    in row-major order with the 0s dropped: a switch is a change of label between two
    consecutive entries of the same chain (one pass over int8 labels, no per-chain
    forward fill).
    """
    lab = (theta > right_core).astype(np.int8) - (theta < left_core).astype(np.int8)
    in_core = lab != 0
    vals = lab[in_core]
    rows = np.repeat(np.arange(theta.shape[0]), np.count_nonzero(in_core, axis=1))
    change = (vals[1:] != vals[:-1]) & (rows[1:] == rows[:-1])
    return np.bincount(rows[1:][change], minlength=theta.shape[0])


def _poisson_rate(k: int, exposure: float, r0: float, alpha: float, side: str) -> dict[str, Any]:
    """Switch count ``k`` over ``exposure`` chain-time units against a rate ``r0``.

    ``side="less"``: H0 rate ≥ r0 vs H1 rate < r0 (the chain sticks), p = P(Poisson(r0 E) ≤ k)
    (for k = 0 this is ``exp(−r0 E)``, a bound for any holding-time law with hazard ≥ r0);
    ``side="greater"``: H0 rate ≤ r0 vs H1 rate > r0 (it mixes), p = P(Poisson(r0 E) ≥ k).
    Exact (Garwood) one-sided 1 − alpha bounds on the rate are returned too.
    """
    mu0 = r0 * exposure
    if side == "less":
        p = float(scipy.stats.poisson.cdf(k, mu0))
    else:
        p = float(scipy.stats.poisson.sf(k - 1, mu0)) if k > 0 else 1.0
    upper = float(scipy.stats.chi2.ppf(1 - alpha, 2 * k + 2) / (2 * exposure))
    lower = float(scipy.stats.chi2.ppf(alpha, 2 * k) / (2 * exposure)) if k > 0 else 0.0
    return {"rate": k / exposure, "p": p, "upper": upper, "lower": lower}


@dataclass(frozen=True)
class _DWSizes:
    """Sizes of one SGNHT-DW profile.

    ``chains`` runs in every regime except those named in ``regime_chains`` (fewer
    chains where the regime's decisions have margin to spare); ``batch`` chains per run.
    """

    chains: int
    t_meas: float
    burn: dict[str, float]
    batch: int
    regime_chains: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # a regime runs theta0[:chains_of(key)]: more than ``chains`` would silently run fewer
        # chains than its exposure (and so its Garwood bound) counts
        for key, n in self.regime_chains.items():
            if not 0 < n <= self.chains:
                raise ValueError(f"regime {key!r}: {n} chains, must be in (0, {self.chains}]")

    def chains_of(self, key: str) -> int:
        return self.regime_chains.get(key, self.chains)


# Full profile: ξ = 10 and ξ = 0.1 run 4000 chains (their decisions are confidence bounds
# with large margins at any of these sizes: 0 switches in 8e5 chain-time units bound the
# rate below 1.2e-5 < 1e-4; E[K] ≈ 0.05 and ≈ 5 against 0.5; TV ≈ 0.5 against 0.002);
# ξ = 1 and SGNHT keep 16,000 (ξ = 1's E[K] test needs them: MDE 0.0021 against the
# meaningful 0.0025).  Batches of 4000 chains: in 1-D a chain-step costs ≈ 69 ns at 2000
# chains and ≈ 41 ns at 10,000 (the driver's per-step overhead); the SGNHT regime's batch
# (θ, K and ξ over 400 time units) peaks at ≈ 2.4 GB.
_DW = {
    "quick": _DWSizes(4000, 30.0, {"1": 20.0, "10": 10.0, "0.1": 60.0, "sgnht": 50.0}, 4000),
    "full": _DWSizes(
        16_000,
        200.0,
        {"1": 40.0, "10": 40.0, "0.1": 100.0, "sgnht": 200.0},
        4000,
        {"10": 4000, "0.1": 4000},
    ),
}

#: Cores for counting well switches (hysteresis around the barrier at θ ≈ −0.04).
_LEFT_CORE, _RIGHT_CORE = -1.5, 1.0


def check_dw(
    *,
    profile: str = "quick",
    seed: int = 0,
    make: SamplerFactory = make_sampler,
    select: Sequence[str] | None = None,
) -> tuple[list[Part], dict[str, Any]]:
    """The §3 double-well illustration (SGNHT §3, Figure 1, Appendix B).

    Setting: ``U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5``, ``h = 0.01``, ``B = 1``,
    ``A = 0``, ``∇Ũ h = ∇U h + N(0, 2Bh)``.  Fixed ξ is ``sghmc-chen`` with
    friction ``A = ξ`` and ``B̂ = ξ``: its injected noise ``N(0, 2(ξ − B̂)h)`` is 0
    ("we did not inject additional noise"), so ``p`` is driven only by the
    gradient noise ``N(0, 2Bh)``.  SGNHT is ``sgnht`` with ``A = 0`` and Algorithm
    1's ``ξ_0 = A = 0``.

    Parts:

    * **§3 dynamics**: one step from i.i.d. states reproduces
      ``p' = p − ξph − h g`` with the gradient estimate ``g`` the step used (to
      rounding), and ``h(g − ∇U)`` has variance ``2Bh`` (a test with its power);
      :func:`_dw_setup_part`.
    * **ξ = 1 samples correctly**, **SGNHT samples correctly with kinetic energy
      0.5**: the θ-law's TV to ``ρ ∝ exp(−U)`` (20 equiprobable bins, exact by
      quadrature, per-chain fractions i.i.d. over chains) within the first-order
      discretisation bound at h (an equivalence test), E[K] against the discrete
      chain's value (Euler's for fixed ξ, 0.5 for SGNHT) with its power, and well
      switching faster than one per paper run (``T_PAPER`` time units); combined by
      :func:`decide.all_of` (:func:`_dw_correct_part`).
    * **ξ = 10 sticks in one well**: the exact (Garwood) upper bound on the switching
      rate below ``1/T_PAPER``, the upper confidence bound on E[K] below 0.5
      (:func:`_dw_stick_part`).
    * **ξ = 0.1 overheats**: the lower confidence bound on E[K] above 0.5, and on the
      TV to ρ above the discretisation bias (:func:`_dw_hot_part`); the θ-law is also
      compared with ``exp(−(ξ/B)U)`` (temperature B/ξ = 10), reported.
    * **ξ → B** (Appendix B): E[ξ] of SGNHT against B with its power (derived O(h)
      term 0 here; :func:`_dw_xi_part`).

    Time horizon.  The barrier is ≈ 4.3 nats above the left well and 2.2 above the
    right one; at ξ = 1 a chain switches wells about 0.005 times per time unit (≈ 50
    times in the paper's run), so a chain of tens of time units cannot equilibrate
    the well populations by itself.  Chains therefore start from ρ (inverse CDF)
    with ``p ~ N(0, 1)``; after a burn-in (longer than the in-well relaxation,
    ξ/U'' ≈ 2–3 time units for ξ = 10; than the heating, ≈ 1/ξ = 10 for ξ = 0.1;
    than the relaxation of the well populations after SGNHT's ξ₀ = 0 transient,
    ≈ 40) each records ``t_meas`` time units (quick: 4000 chains × 30; full:
    16,000 × 200 for ξ = 1 and SGNHT, 4000 × 200 for ξ = 10 and ξ = 0.1, whose
    decisions have wide margins; :data:`_DW`).  Many short chains replace the paper's
    single run of 10⁴ time units: for the θ-law and E[K] the per-chain averages are
    i.i.d. and started in the target, which only helps; for switching, escapes from a
    well are rare events after in-well relaxation, so switch counts over chains add up
    to a Poisson count with mean rate × (chains × t_meas).  "Sticks" is read as
    rate × 10⁴ < 1 and tested as H0: rate ≥ 10⁻⁴; with zero switches the p-value
    ``exp(−10⁻⁴·exposure)`` holds for any in-well holding-time law with hazard
    ≥ 10⁻⁴.  What many short chains cannot show is a single chain's history
    beyond ``t_meas``; the rate bound is what carries over to the paper's horizon.

    Parameters
    ----------
    profile : {"quick", "full"}
    seed : int
    make : callable
        Sampler factory with the signature of :func:`sgmcmc_verify.registry.make_sampler`.
    select : sequence of {"dynamics", "1", "10", "0.1", "sgnht"}, optional
        Run only these parts (default all; "sgnht" includes "ξ → B"); the α split is
        unchanged.

    Returns
    -------
    parts : list of Part
    params : dict
    """
    chosen = _selected(select, ("dynamics", "1", "10", "0.1", "sgnht"))
    if profile not in _DW:
        raise ValueError(f"profile must be one of {sorted(_DW)}, got {profile!r}")
    sz = _DW[profile]
    problem = double_well()
    h, B = 0.01, 1.0
    # the decided tests: gradient noise 1; ξ = 1 and SGNHT 3 each (θ-law, E[K], mixing);
    # ξ = 10 2 (rate, E[K]); ξ = 0.1 2 (E[K], TV to ρ); ξ → B 1
    budget = _Budget(12)
    rho = TemperedDoubleWell(problem, 1.0)
    rho_hot = TemperedDoubleWell(problem, B / 0.1)
    rho_cold = TemperedDoubleWell(problem, B / 10.0)
    x_rho, x_hot = rho.quantile_points(), rho_hot.quantile_points()
    F_rho, F_hot = rho.cdf(x_rho), rho_hot.cdf(x_hot)
    theta0 = rho.sample(sz.chains, np.random.default_rng(_int_seed(seed, 5, 999)))
    thin = 5
    parts = (
        [_dw_setup_part(make, problem, h, B, theta0, budget, seed)] if "dynamics" in chosen else []
    )

    regimes = {
        "1": ("sghmc-chen", {"A": 1.0, "B_hat": 1.0, "p0": "normal"}),
        "10": ("sghmc-chen", {"A": 10.0, "B_hat": 10.0, "p0": "normal"}),
        "0.1": ("sghmc-chen", {"A": 0.1, "B_hat": 0.1, "p0": "normal"}),
        "sgnht": ("sgnht", {"A": 0.0}),
    }
    stats: dict[str, dict[str, np.ndarray]] = {}
    for ri, (key, (name, params)) in enumerate(regimes.items()):
        if key not in chosen:
            continue
        n_burn = round(sz.burn[key] / h) // thin
        record = ("theta", "kinetic_energy") + (("xi",) if name == "sgnht" else ())

        def red(res, n_burn=n_burn, sgnht=name == "sgnht"):
            th = res.draws["theta"][:, n_burn:, 0]
            ke = res.draws["kinetic_energy"][:, n_burn:]
            half = ke.shape[1] // 2
            out = {
                "F_rho": np.column_stack([(th <= x).mean(axis=1) for x in x_rho]),
                "F_hot": np.column_stack([(th <= x).mean(axis=1) for x in x_hot]),
                "left": (th < problem.barrier).mean(axis=1),
                "K": ke.mean(axis=1),
                "K_drift": ke[:, half:].mean(axis=1) - ke[:, :half].mean(axis=1),
                "switches": _switches(th, _LEFT_CORE, _RIGHT_CORE),
                "hist": _hist_total(th, _DW_EDGES),
                "n_draws": np.full(th.shape[0], th.shape[1]),
            }
            if sgnht:
                out["xi"] = res.draws["xi"][:, n_burn:].mean(axis=1)
                out["xi_path"] = res.draws["xi"][:, : round(10 / h) // thin]
            return out

        stats[key] = _run_batches(
            make,
            name,
            problem,
            h=h,
            theta0=theta0[: sz.chains_of(key)],
            t_total=sz.burn[key] + sz.t_meas,
            thin=thin,
            batch=sz.batch,
            seed=seed,
            tags=(5, ri),
            record=record,
            reduce=red,
            gradient="injected",
            B=B,
            **params,
        )

    exposure = {key: sz.chains_of(key) * sz.t_meas for key in regimes}
    r0 = 1.0 / T_PAPER
    base = {
        "budget": budget,
        "B": B,
        "problem": problem,
        "F_rho": F_rho,
        "r0": r0,
        "left_exact": problem.exact["left_well_mass"].value,
    }

    def ctx(key: str) -> dict[str, Any]:
        starts = theta0[: sz.chains_of(key), 0]
        return base | {
            "exposure": exposure[key],
            "start_left": float(np.mean(starts < problem.barrier)),
        }

    if "1" in stats:
        parts.append(_dw_correct_part("ξ = 1 samples correctly", stats["1"], ctx("1"), xi=1.0, h=h))
    if "10" in stats:
        parts.append(_dw_stick_part(stats["10"], ctx("10"), rho_cold, h=h, B=B))
    if "0.1" in stats:
        parts.append(_dw_hot_part(stats["0.1"], ctx("0.1"), F_hot, rho_hot, h=h, B=B))
    if "sgnht" in stats:
        parts.append(
            _dw_correct_part(
                "SGNHT samples correctly with kinetic energy 0.5",
                stats["sgnht"],
                ctx("sgnht"),
                xi=None,
                h=h,
            )
        )
        parts.append(_dw_xi_part(stats["sgnht"], budget, B, h))
    figures = {"dw_densities": _dw_figure(problem, stats)} if stats else {}
    return parts, {
        "alpha": ALPHA,
        "alpha_per_test": budget.each,
        "n_tests": budget.n_tests,
        "h": h,
        "B": B,
        "A": 0.0,
        "chains": {key: sz.chains_of(key) for key in regimes},
        "t_meas": sz.t_meas,
        "burn_in_time": dict(sz.burn),
        "thin": thin,
        "exposure_chain_time": exposure,
        "paper_horizon_time": T_PAPER,
        "cores": (_LEFT_CORE, _RIGHT_CORE),
        "figure_data": figures,
    }


#: Histogram bins of θ for the SGNHT-DW figure (the ξ = 0.1 regime spills past them).
_DW_EDGES = np.linspace(-6.0, 5.0, 89)


def _hist_total(th: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Counts of all of ``th`` in the bins ``[edges[i], edges[i+1])`` (values outside
    ``[edges[0], edges[-1])`` and NaN are dropped), shape ``(1, len(edges) − 1)``.

    :func:`numpy.histogram` with the edges themselves (its counts equal a search over the
    edges), whose last bin is closed: the draws equal to ``edges[-1]`` are taken out of it.
    Only the sum over chains is used (the SGNHT-DW figure); per-chain counts took 1.4 s
    per full-profile batch of 4000 × 4000 draws, this 0.08 s (measured).  The leading axis
    of one row lets :func:`_run_batches` concatenate the batches' totals.
    """
    counts, _ = np.histogram(th, edges)
    counts[-1] -= np.count_nonzero(th == edges[-1])
    return counts[None, :]


def _dw_figure(problem: DoubleWell, stats: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    """Figure data: θ histograms per regime against ρ, and E[K] per regime."""
    grid = np.linspace(_DW_EDGES[0], _DW_EDGES[-1], 441)
    names = {"1": "ξ = 1", "10": "ξ = 10", "0.1": "ξ = 0.1", "sgnht": "SGNHT"}
    regimes = []
    for key, st in stats.items():
        k, kse = _mean_se(st["K"])
        regimes.append(
            {
                "regime": names[key],
                "counts": [int(c) for c in st["hist"].sum(axis=0)],
                "total_draws": int(st["n_draws"].sum()),
                "kinetic_energy": k,
                "kinetic_energy_se": kse,
            }
        )
    return {
        "kind": "dw_densities",
        "title": "SGNHT-DW: sampled θ densities against ρ ∝ exp(−U), and E[K] per regime",
        "bin_edges": [float(e) for e in _DW_EDGES],
        "grid": [float(g) for g in grid],
        "density": [float(v) for v in problem.density(grid)],
        "kinetic_energy_target": 0.5,
        "regimes": regimes,
    }


def _dw_setup_part(
    make: SamplerFactory,
    problem: DoubleWell,
    h: float,
    B: float,
    theta0: np.ndarray,
    budget: _Budget,
    seed: int,
) -> Part:
    """One step of each §3 sampler against the paper's update, with the step's own gradient."""
    rng = np.random.default_rng(_int_seed(seed, 6))
    worst, noise = 0.0, []
    configs = [("sghmc-chen", {"A": x, "B_hat": x, "p0": "normal"}, x) for x in (1.0, 10.0, 0.1)]
    configs.append(("sgnht", {"A": 0.0}, None))
    for name, params, xi in configs:
        s = make(name, problem, h=h, gradient="injected", B=B, **params)
        st = s.init(theta0, rng)
        rand, st = s.draw(st, rng)
        new, info = s.step(st, rand)
        xi_v = np.full(len(theta0), xi) if xi is not None else st.xi
        p_paper = st.p - xi_v[:, None] * st.p * h - h * info.grad
        scale = np.abs(st.p) + np.abs(h * info.grad) + np.abs(xi_v[:, None] * st.p * h)
        rel = np.abs(new.p - p_paper) / (64 * np.finfo(float).eps * np.maximum(scale, 1e-300))
        rel_th = np.abs(new.theta - (st.theta + h * new.p)) / (
            64 * np.finfo(float).eps * np.maximum(np.abs(st.theta) + np.abs(h * new.p), 1e-300)
        )
        worst = max(worst, float(rel.max()), float(rel_th.max()))
        if xi is None:
            xi_paper = st.xi + (new.p[:, 0] ** 2 - 1) * h
            worst = max(worst, float(np.abs(new.xi - xi_paper).max() / (64 * np.finfo(float).eps)))
        noise.append(h * (info.grad - problem.grad(st.theta)))
    noise_all = np.concatenate(noise)[:, None, :]
    vt = variance_test(noise_all, 2 * B * h, alpha=budget.each, mean=0.0, method="chi2")
    df = int(vt.details["df"])
    ratio = float(vt.details["chi2"][0] / df)
    update = decide.exact_comparison(
        "update",
        "p' = p − ξph − h∇Ũ and θ' = θ + hp' (and SGNHT's ξ' = ξ + (p'² − 1)h) to rounding",
        value=worst,
        target=1.0,
        relation="<=",
        tol_source="residual in units of 64 ε × the update's scale (float64 rounding)",
        holds="each step equals §3's update, with the gradient estimate the step used",
        fails="the step differs from §3's update",
        measured={
            "max |p' − paper| / (64 ε scale)": Measurement(worst, note="≤ 1: equal to rounding")
        },
        counterexample={"max_rel_residual": worst},
    )
    gradient_noise = decide.statistical_test(
        "gradient noise",
        "Var[h(∇Ũ − ∇U)] = 2Bh",
        estimate=ratio,
        target=1.0,
        se=math.sqrt(2.0 / df),
        alpha=budget.each,
        meaningful_effect=NOISE_EFFECT_REL,
        effect_label="|Var[h(∇Ũ − ∇U)]/(2Bh) − 1| (relative variance error)",
        holds=f"Var[h(∇Ũ − ∇U)]/(2Bh) = {ratio:.4f}",
        fails=f"Var[h(∇Ũ − ∇U)]/(2Bh) = {ratio:.4f}: the gradient noise is not N(0, 2Bh)",
        measured={
            "Var[h(∇Ũ − ∇U)] / (2Bh)": Measurement(
                ratio, note=f"χ²/df, df = {df} i.i.d. draws (se √(2/df) under H0)"
            )
        },
        counterexample={"variance_ratio": ratio, "noise_var_p": vt.p_value},
    )
    return decide.all_of(
        "§3 dynamics",
        "p' = p − ξph − h∇Ũ with h∇Ũ = h∇U + N(0, 2Bh) and no injected noise (A = 0; "
        "fixed ξ: B̂ = ξ), i.e. dp = −∇U dt − ξp dt + N(0, 2B dt)",
        {"update": update, "gradient noise": gradient_noise},
    )


def _k_meas(st: dict[str, np.ndarray]) -> dict[str, Measurement]:
    k, kse = _mean_se(st["K"])
    d, dse = _mean_se(st["K_drift"])
    return {
        "E[K]": Measurement(k, kse),
        "E[K] drift (2nd − 1st half of window)": Measurement(d, dse, note="stationarity"),
    }


def _switch_meas(st, ctx, test) -> dict[str, Measurement]:
    k = int(st["switches"].sum())
    return {
        "well switches / exposure": Measurement(
            test["rate"],
            ci=(test["lower"], test["upper"]),
            note=f"{k} switches in {ctx['exposure']:.3g} chain-time units; one-sided bounds",
        ),
        "expected switches in the paper's 10⁴ time units": Measurement(test["rate"] * T_PAPER),
    }


def _dw_correct_part(name: str, st, ctx, *, xi: float | None, h: float) -> Part:
    """'samples correctly' (and kinetic energy 0.5): θ-law ≈ ρ, E[K], mixes between wells.

    Three decisions, combined by :func:`decide.all_of`, each against what the
    *discretised* chain should do at this h (sgnht_theory), so the verdict settles
    as the sample grows instead of flipping once a test resolves the O(h) bias:

    * θ-law: :func:`decide.within_tolerance` of the TV to ρ (20 equiprobable bins, its
      standard deviation bounded by ``½ Σ se_j``) against :func:`euler_tv_bound` — for
      fixed ξ the first-order TV of the chain's joint law, a bound on the θ-law's; for
      SGNHT (no closed form) the same bound for the Euler chain with ξ frozen at its
      stationary mean B (E[ξ] = B + O(h²) here).
    * E[K]: :func:`decide.statistical_test` against :func:`euler_kinetic_energy` (fixed
      ξ) or 0.5 (SGNHT, exact: ``E|p|²/n = 1``); the meaningful effect is the O(h) Euler
      term ``ξTh/4`` (at ξ = B for SGNHT): a test that cannot see it cannot tell the
      discrete chain's E[K] from the continuous one, and does not confirm.
    * mixing: :func:`decide.exact_comparison` of the exact (Garwood) lower bound on the
      switching rate, at the check's α share, against one switch per paper run.
    """
    budget, B, problem = ctx["budget"], ctx["B"], ctx["problem"]
    law = _law_test(st["F_rho"], ctx["F_rho"], budget)
    k = int(st["switches"].sum())
    mix = _poisson_rate(k, ctx["exposure"], ctx["r0"], budget.each, "greater")
    left, left_se = _mean_se(st["left"])
    k_mean, k_se = _mean_se(st["K"])
    xi_ref = B if xi is None else xi  # SGNHT: ξ → B (Appendix B)
    T = B / xi_ref
    tol_tv = euler_tv_bound(problem, xi_ref, B, h)
    tv_src = (
        f"(h/2)E_μ|g − Eg|, the first-order TV of the Euler chain's joint law at ξ = {xi_ref:g}, "
        f"h = {h:g}; the θ-law's own O(h) term is 0 (sgnht_theory)"
    )
    if xi is None:
        tv_src += "; SGNHT's own first-order term has no closed form: ξ frozen at E[ξ] = B"
        k_target, k_src = 0.5, "0.5 exactly: E|p|²/n = 1 for SGNHT's discrete chain"
    else:
        k_target = euler_kinetic_energy(T, xi, h, _mean_grad_sq(problem, T))
        k_src = "(T/2)/(1 − ξh/2) + (h²/8)E_ρ[U'²], Euler to O(h³)"
    k_effect = xi_ref * T * h / 4
    theta_law = decide.within_tolerance(
        "θ-law",
        "TV(θ-law, ρ) within the discretisation bias allowed at h",
        estimate=law["tv"],
        target=0.0,
        se=law["tv_se_bound"],
        tol=tol_tv,
        tol_source=tv_src,
        alpha=budget.each,
        holds=f"TV to ρ {law['tv']:.4f} is within the bound {tol_tv:.4f}",
        fails=f"TV to ρ {law['tv']:.4f} exceeds the bound {tol_tv:.4f}",
        measured={
            "TV to ρ (20 equiprobable bins)": Measurement(
                law["tv"],
                law["tv_se_bound"],
                note=f"sd bound ½Σse_j; delta-method se {law['tv_se']:.2g}; "
                f"noise floor {law['tv_noise_floor']:.4f}",
            ),
            "sup CDF gap to ρ": Measurement(
                law["sup_cdf_gap"],
                law["sup_cdf_gap_se"],
                note=f"exactness test: max |z| {law['max_abs_z']:.2f}, crit {law['crit']:.2f}",
            ),
            "left-well mass": Measurement(left, left_se, note=f"exact {ctx['left_exact']:.6f}"),
        },
        counterexample={"tv": law["tv"], "tv_se": law["tv_se"], "left_mass": left},
    )
    kinetic = decide.statistical_test(
        "E[K]",
        f"E[K] = {k_target:.6f} ({k_src})",
        estimate=k_mean,
        target=k_target,
        se=k_se,
        alpha=budget.each,
        meaningful_effect=k_effect,
        effect_label="|E[K] − target| (the O(h) Euler term ξTh/4)",
        holds=f"E[K] {k_mean:.5f} ± {k_se:.2g} agrees with {k_target:.5f}",
        fails=f"E[K] {k_mean:.5f} ± {k_se:.2g} differs from {k_target:.5f}",
        measured={**_k_meas(st), "E[K] target": Measurement(k_target, note=k_src)},
        counterexample={"E_K": k_mean, "se": k_se, "target": k_target},
    )
    mixing = decide.exact_comparison(
        "mixing",
        "switching rate > one per paper run (10⁴ time units)",
        value=mix["lower"],
        target=ctx["r0"],
        relation=">",
        tol_source=f"exact one-sided Garwood lower bound at α = {budget.each:.2g}",
        holds=f"{k} well switches: rate > {mix['lower']:.2g} per time unit",
        fails=f"{k} well switches: a rate ≤ 1/10⁴ per time unit is not excluded",
        measured=_switch_meas(st, ctx, mix),
        counterexample={"switches": k, "exposure": ctx["exposure"]},
    )
    return decide.all_of(
        name,
        "θ ~ ρ ∝ exp(−U) and E[K] as the discretised chain should have them at h, "
        "switching between wells",
        {"θ-law": theta_law, "E[K]": kinetic, "mixing": mixing},
    )


def _dw_stick_part(st, ctx, rho_cold: TemperedDoubleWell, *, h, B):
    """ξ = 10: switching rate below one per paper run; kinetic energy below 0.5.

    :func:`decide.all_of` of two exact comparisons of confidence bounds at the budget
    share: the exact (Garwood) upper bound on the switching rate against ``1/T_PAPER``,
    and the one-sided upper confidence bound on E[K] against 0.5.
    """
    budget = ctx["budget"]
    k = int(st["switches"].sum())
    stick = _poisson_rate(k, ctx["exposure"], ctx["r0"], budget.each, "less")
    k_mean, k_se, k_up = _one_sided_bound(st["K"], budget.each, "upper")
    left, left_se = _mean_se(st["left"])
    xi = 10.0
    measured = {
        **_switch_meas(st, ctx, stick),
        "P(rate ≥ 1/10⁴) test p": Measurement(stick["p"], note=f"α = {budget.each:.2g}"),
        **_k_meas(st),
        "E[K] predicted: B/(2ξ); Euler (B/(2ξ))/(1 − ξh/2)": Measurement(
            (B / (2 * xi), B / (2 * xi) / (1 - xi * h / 2))
        ),
        "left-well fraction over the window": Measurement(
            left, left_se, note=f"at the start {ctx['start_left']:.4f}; ρ: {ctx['left_exact']:.4f}"
        ),
        "left-well mass of the invariant law exp(−10U)": Measurement(
            rho_cold.left_mass(), note="quadrature"
        ),
    }
    rate = decide.exact_comparison(
        "no switching",
        "switching rate < 1/10⁴ per time unit (under one switch in the paper's run)",
        value=stick["upper"],
        target=ctx["r0"],
        relation="<",
        tol_source=f"exact one-sided Garwood upper bound at α = {budget.each:.2g}",
        holds=f"{k} switches in {ctx['exposure']:.3g} chain-time units: rate < "
        f"{stick['upper']:.2g} per unit, i.e. < {stick['upper'] * T_PAPER:.2g} expected in the "
        f"paper's 10⁴ time units. The invariant law exp(−10U) has all but "
        f"{1 - rho_cold.left_mass():.1e} of its mass in the left well, so a chain also sticks "
        f"in law; chains started in the right well stay there (left-well fraction "
        f"{ctx['start_left']:.4f} at the start, {left:.4f} over the window)",
        fails=f"{k} switches (rate {stick['rate']:.2g}): a rate ≥ 1/10⁴ is not excluded",
        measured=measured,
        counterexample={"switches": k, "exposure": ctx["exposure"]},
    )
    cold = decide.exact_comparison(
        "E[K] < 0.5",
        "kinetic energy below 0.5 (temperature B/ξ = 0.1)",
        value=k_up,
        target=0.5,
        relation="<",
        tol_source=f"one-sided Student-t upper confidence bound at α = {budget.each:.2g}",
        holds=f"E[K] = {k_mean:.4f} ± {k_se:.1g} (upper bound {k_up:.4f})",
        fails=f"E[K] = {k_mean:.4f} ± {k_se:.1g}: not shown below 0.5",
        counterexample={"E_K": k_mean, "se": k_se},
    )
    return decide.all_of(
        "ξ = 10 sticks in one well",
        "no well switching over the paper's horizon (rate < 1/10⁴ per time unit); E[K] < 0.5",
        {"no switching": rate, "E[K] < 0.5": cold},
    )


def _dw_hot_part(st, ctx, F_hot, rho_hot: TemperedDoubleWell, *, h, B):
    """ξ = 0.1: kinetic energy above 0.5, θ-law ≠ ρ, compared with exp(−(ξ/B)U).

    :func:`decide.all_of` of two exact comparisons of confidence bounds at the budget
    share: the one-sided lower bound on E[K] against 0.5, and the one-sided lower bound
    on the TV to ρ (20 bins, sd bound ``½Σse_j``) against the discretisation bias a ξ =
    0.1 chain *at temperature 1* would have (:func:`euler_tv_bound`): a θ-law farther
    from ρ than that is not ρ up to discretisation.  The comparison with
    ``exp(−(ξ/B)U)`` is reported.
    """
    budget = ctx["budget"]
    xi = 0.1
    k_mean, k_se, k_lo = _one_sided_bound(st["K"], budget.each, "lower")
    law_rho = _law_test(st["F_rho"], ctx["F_rho"], budget)
    law_hot = _law_test(st["F_hot"], F_hot, budget)
    left, left_se = _mean_se(st["left"])
    k = int(st["switches"].sum())
    tol = euler_tv_bound(ctx["problem"], xi, xi, h)  # a ξ = 0.1 Euler chain at T = 1
    tv_lo = law_rho["tv"] - budget.z1 * law_rho["tv_se_bound"]
    measured = {
        "E[K] predicted B/(2ξ) = T/2": Measurement(B / (2 * xi)),
        "TV to exp(−(ξ/B)U)": Measurement(
            law_hot["tv"], law_hot["tv_se"], note=f"noise floor {law_hot['tv_noise_floor']:.4f}"
        ),
        "sup CDF gap to exp(−(ξ/B)U)": Measurement(
            law_hot["sup_cdf_gap"],
            law_hot["sup_cdf_gap_se"],
            note=f"max |z| {law_hot['max_abs_z']:.2f}, crit {law_hot['crit']:.2f}",
        ),
        "left-well mass": Measurement(
            left,
            left_se,
            note=f"exp(−(ξ/B)U): {rho_hot.left_mass():.4f}; ρ: {ctx['left_exact']:.4f}",
        ),
        "well switches / exposure": Measurement(k / ctx["exposure"]),
    }
    hot = decide.exact_comparison(
        "E[K] > 0.5",
        "kinetic energy above 0.5",
        value=k_lo,
        target=0.5,
        relation=">",
        tol_source=f"one-sided Student-t lower confidence bound at α = {budget.each:.2g}",
        holds=f"E[K] = {k_mean:.3f} ± {k_se:.3f} (temperature B/ξ = {B / xi:g})",
        fails=f"E[K] = {k_mean:.3f} ± {k_se:.3f}: no overheating shown",
        measured=_k_meas(st),
        counterexample={"E_K": k_mean, "se": k_se},
    )
    far = decide.exact_comparison(
        "θ-law ≠ ρ",
        "TV(θ-law, ρ) beyond the discretisation bias of a ξ = 0.1 chain at temperature 1",
        value=tv_lo,
        target=tol,
        relation=">",
        tol_source=f"one-sided lower confidence bound on the TV (sd bound ½Σse_j) at α = "
        f"{budget.each:.2g}, against euler_tv_bound(ξ = 0.1, T = 1, h = {h:g}) = {tol:.2g}",
        holds=f"the θ-law is far from ρ (TV {law_rho['tv']:.3f}, lower bound {tv_lo:.3f}); "
        f"TV to exp(−(ξ/B)U) {law_hot['tv']:.4f}",
        fails=f"TV to ρ {law_rho['tv']:.4f}: not shown beyond the discretisation bias",
        measured={"TV to ρ": Measurement(law_rho["tv"], law_rho["tv_se_bound"])},
        counterexample={"tv_rho": law_rho["tv"], "tv_lower_bound": tv_lo, "tolerance": tol},
    )
    return decide.all_of(
        "ξ = 0.1 overheats",
        "E[K] > 0.5 and θ not ~ ρ; invariant law exp(−(ξ/B)H), temperature B/ξ = 10",
        {"E[K] > 0.5": hot, "θ-law ≠ ρ": far},
        extra=measured,
    )


def _dw_xi_part(st, budget: _Budget, B: float, h: float) -> Part:
    """Appendix B: SGNHT's ξ converges to B (derived O(h) term 0 for D = 1, n = 1).

    :func:`decide.statistical_test` of E[ξ] = B, meaningful effect :data:`MEAN_EFFECT_SD`
    of ξ's stationary sd (1 here): the O(h) term of E[ξ] is 0 in this setting
    (:func:`derived_xi_slope`), so the point target is the discrete chain's to O(h²).
    """
    m, se = _mean_se(st["xi"])
    path = st["xi_path"].mean(axis=0)
    t = (np.arange(path.size) + 1) * 5 * h
    within = np.flatnonzero(np.abs(path - B) > 0.1)
    t_in = float(t[within[-1] + 1]) if within.size and within[-1] + 1 < t.size else float(t[0])
    return decide.statistical_test(
        "ξ → B (Appendix B)",
        f"SGNHT's ξ converges to B = {B:g} (A = 0)",
        estimate=m,
        target=B,
        se=se,
        alpha=budget.each,
        meaningful_effect=MEAN_EFFECT_SD,
        effect_label=f"|E[ξ] − B| ({MEAN_EFFECT_SD:g} of ξ's sd 1/√μ = 1)",
        holds=f"E[ξ] = {m:.4f} ± {se:.4f}",
        fails=f"E[ξ] = {m:.4f} ± {se:.4f}, not B = {B:g}",
        measured={
            "E[ξ]": Measurement(m, se),
            "derived E[ξ] − B: (h/2)(D² − 1/n)": Measurement(derived_xi_slope(B, 1) * h),
            "time for the chain-average ξ to stay within 0.1 of B (from ξ₀ = 0)": Measurement(t_in),
        },
        counterexample={"E_xi": m, "se": se},
    )
