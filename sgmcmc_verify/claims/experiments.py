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
* SGNHT's Normal–Gamma panel (a substitute on an assumed (h, A) grid): KL of the
  Gaussian fit of θ = (μ, log γ) to the exact posterior moments, the paper's density
  RMSE against exact bin masses (reported), and the autocorrelation time of μ + γ
  (:mod:`sgmcmc_verify.claims.exp_normal_gamma`).

The shared pieces (comparison rule, Monte Carlo SEs, data-pass budget, sampler factory)
are in :mod:`sgmcmc_verify.claims.exp_common`.

Comparison baselines that none of the four papers proposes (pSGLD, Li et al. 2016) come
from :mod:`sgmcmc_verify.baselines` through the same ``make`` factory as the registry's
algorithms.

Standard errors are Monte Carlo ones over independent chains (bootstrap of the chains
for the final-state laws, jackknife over groups of chains for time averages; a g-group
jackknife SE is tested with Student-t critical values at g − 1 df).  Every verdict comes
from a builder of :mod:`sgmcmc_verify.claims.decide` (issue 12): an ordering "A better
than B" is :func:`~sgmcmc_verify.claims.decide.ordering_test` (one-sided z of the
difference of two independent estimates, confirmed when ``z > z_{1−α}``, refuted when the
opposite ordering is significant, unresolved otherwise with its MDE), "A better than each
of B, C" is their :func:`~sgmcmc_verify.claims.decide.all_of` (an intersection–union test:
each ordering at level ``ALPHA`` confirms the conjunction at level ``ALPHA``; since any one
reversed ordering refutes it, each refutes at ``bonferroni(ALPHA, k)``, so a false
refutation too has probability ≤ ``ALPHA``), and an experiment on a substitute problem at
settings the paper does not fix goes through
:func:`~sgmcmc_verify.claims.decide.on_substitute`.  ``ALPHA`` is per comparison; α splits
(a search over pairs, "at some setting", a family of refutations) use
:func:`~sgmcmc_verify.stats.multiplicity.bonferroni`.

Data passes: one pass is ``N`` component-gradient evaluations.  Evaluations per step
(``COST``): minibatch methods (SGLD, pSGLD, SGHMC) ``n``; LMC ``N``; EWSG ``M + 1``
(Algorithm 1); SVRG-type (SVRG-LD = PTU-RA, SVRG-HMC, SVRG2nd-HMC) ``2n + N/D`` (the minibatch at θ
and at the snapshot, plus a full gradient every ``D`` steps); PPU (SAGA) ``n``; TMU
``n + N/D`` (the table is refreshed from the new gradients; a full refresh every ``D``
steps).  Algorithms are compared at equal data passes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..baselines import PSGLD_ALPHA, PSGLD_LAMBDA
from ..driver import run_sampler
from ..problems.gaussian import gaussian_identical
from ..problems.linear_regression import linear_regression_synthetic
from ..problems.logistic import logistic_regression_synthetic
from ..problems.mixture import agld_gmm
from ..problems.sgnht_models import normal_mean
from ..stats.multiplicity import bonferroni
from . import decide
from .catalogue import REGIMES
from .exp_common import (
    ALPHA,
    N_BOOT,
    SamplerFactory,
    beats,
    boot,
    budget_steps,
    default_make,
    final_states,
    fit_kl,
    gauss_kl,
    jackknife,
    outcomes,
    z_one_sided,
)
from .exp_normal_gamma import normal_gamma_panel
from .result import Measurement, Part
from .sgnht_thermostat import derived_xi_slope

# --------------------------------------------------------------------------------------
# SGNHT-GAUSS
# --------------------------------------------------------------------------------------

#: KL threshold of "samples accurately" (KL 0.01 ↔ a variance ratio of about 1.15 or
#: a mean offset of 0.14 posterior SDs).
KL_ACCURATE = 0.01

#: Relative tolerance of "ξ absorbs the gradient noise": the measured excess E[ξ] − A
#: must be within ±XI_ABSORB_TOL of the predicted excess (see :func:`check_sgnht_gauss`).
XI_ABSORB_TOL = 0.25


def _sgnht_horizon(profile: str, alg: str, h: float) -> tuple[float, float]:
    """(time simulated, burn-in time) of one SGNHT-GAUSS normal-mean run.

    ξ relaxes from ξ₀ = A to its stationary mean with a time constant of about
    ``D = A + B_eff`` time units (linearising ``dξ/dt = D/ξ − 1``), i.e. ≈ 15 at h = 0.01,
    A = 10.  The full profile runs h = 0.01 for T = 200 with burn-in 50, which covers it
    everywhere; at h = 0.001 (ten times the steps per time unit, 80 % of the claim's steps
    at T = 200) it measures 50 time units: SGNHT after a burn-in of 50 (D ≤ 10.5 there, so
    e⁻⁵ of ξ's initial offset hV/2 ≈ 0.46 is left), SGHMC after 5 (it has no ξ; θ mixes in
    well under one time unit).  Every decision there has wide margins at that length (KL
    ≈ 1e-5 against 0.01; the ξ cross-check's |E[ξ] − prediction| ≈ 0.01–0.03 against A/4).
    The quick profile runs SGNHT at h = 0.01 for T = 100 with burn-in 50 so that its E[ξ]
    is stationary, and everything else for T = 20 with burn-in 5.
    """
    if profile != "quick":
        if h == 0.001:
            return (100.0, 50.0) if alg == "sgnht" else (55.0, 5.0)
        return 200.0, 50.0
    if alg == "sgnht" and h == 0.01:
        return 100.0, 50.0
    return 20.0, 5.0


def check_sgnht_gauss(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """SGNHT §5.1: normal mean (Figure 2, panels 1-3) and Normal–Gamma (panel 4, substitute).

    Normal mean: N = 100, Ñ = 10, flat prior; h ∈ {0.01, 0.001}, A ∈ {1, 10}.  SGNHT
    (Algorithm 1) and SGHMC (Chen et al., friction A, B̂ = 0) with minibatch gradients.
    Accuracy: KL of the Gaussian fit of the pooled draws (after burn-in) to the posterior
    ``N(x̄, 1/N)``, SE by jackknife over 10 groups of chains, so every test of a jackknifed
    quantity uses Student-t critical values (and MDEs) at 9 df: normal ones would run a
    nominal α = 0.01 at 0.022.  "Accurate" is ``KL < KL_ACCURATE`` significantly
    (:func:`decide.ordering_test` at α, at every (h, A)); "SGHMC inaccurate somewhere" is
    its most inaccurate setting's KL significantly above ``KL_ACCURATE`` at α/4 (Bonferroni
    over the four settings it is chosen from); the part is their :func:`decide.all_of`,
    confirmed at level α (intersection–union) and refuted when any of the five refutes,
    each at α/5, so that a false refutation also has probability ≤ α.  Run lengths:
    :func:`_sgnht_horizon`.

    "ξ ≈ A at h = 0.001" is decided from the analytic prediction of E[ξ] below
    (:func:`_xi_close_part`: "close" read as nearer A than 2A, arithmetically and on the
    log scale); "ξ ≫ A at h = 0.01" reads "much larger" as ``E[ξ] ≥ 2A``, a statement up
    to a constant (:func:`decide.counterexample_search`: a miss is qualified with the
    factor that repairs it, refuted only if ξ is not even above A).

    ``E[ξ]`` is compared with ``A`` (the paper's "ξ and A are close" / "much larger") and
    with what "the ξ variable effectively absorbs the noise" predicts quantitatively: the
    minibatch noise enters the ``p``-update as ``h·e``, ``Var e = V = N²/Ñ · Var_i(x_i)``
    (with replacement), i.e. as SGNHT §3's ``N(0, 2Bh)`` with ``B_eff = hV/2``; the
    thermostat then settles at ``D = A + B_eff`` plus the derived O(h) term
    ``(h/2)(D² − 1/n)`` (:func:`~sgmcmc_verify.claims.sgnht_thermostat.derived_xi_slope`).
    The Part "ξ absorbs the gradient noise" judges the ratio of the measured excess
    ``E[ξ] − A`` to the predicted one at h = 0.01 (where B_eff ≈ 4.6 is large and ξ is
    stationary in both profiles) by an equivalence test at each A
    (:func:`decide.within_tolerance`, tolerance ``XI_ABSORB_TOL`` around 1): confirmed when
    both (1 − 2α) intervals lie in ``[1 − XI_ABSORB_TOL, 1 + XI_ABSORB_TOL]``, refuted when
    one lies outside that band at α/2 (so the pair refutes falsely with probability ≤ α).
    The ±25 % band covers the unknown O(h²) remainder (h²D³ ≈ 0.3, ≈ 6 % of the excess at
    A = 10) and the transient left after burn-in (≈ e^{−50/15}(D − A), ≈ 3 %).  A sampler
    injecting the wrong noise (e.g. ``√(Ah)`` for ``√(2Ah)``) leaves θ correct — the
    thermostat compensates — but moves ξ by the missing diffusion: this Part is what sees it.

    Normal–Gamma: see :func:`normal_gamma_panel`.
    """
    problem = normal_mean(100, seed=seed)
    chains = 40 if profile == "quick" else 200
    groups = 10
    mt, St = problem.exact["mean"].value, problem.exact["cov"].value
    V = problem.N**2 / 10 * float(np.var(problem.x))
    kl: dict[str, dict[tuple, tuple[float, float]]] = {"sgnht": {}, "sghmc-chen": {}}
    xi: dict[tuple, tuple[float, float]] = {}
    horizons: dict[str, float] = {}
    k = 0
    for h in (0.01, 0.001):
        for A in (1.0, 10.0):
            for alg in ("sgnht", "sghmc-chen"):
                k += 1
                T, T_burn = _sgnht_horizon(profile, alg, h)
                horizons[f"{alg} h={h}"] = T
                steps = round(T / h)
                burn = round(T_burn / h)
                thin = max(1, (steps - burn) // 1500)
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

                kl[alg][(h, A)] = jackknife(per, fn)
                if alg == "sgnht":
                    xs = res.draws["xi"]
                    xi[(h, A)] = jackknife(
                        [np.array([g.mean()]) for g in np.array_split(xs, groups)],
                        lambda m: float(m[0]),
                    )
    # the SEs are g-group jackknifes: Student-t critical values at g − 1 df (review H10 #7)
    df = groups - 1
    z = z_one_sided(df=df)

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
    sghmc_bad = [s for s in settings if inacc(kl["sghmc-chen"][s])]
    sghmc_ok = [s for s in settings if acc(kl["sghmc-chen"][s])]
    # The conjunction of five sub-tests is refuted when any one is: each refutes at α/5
    # (Bonferroni), so the family's false-refutation rate is ≤ α (review H10, finding 6).
    a_ref = bonferroni(ALPHA, len(settings) + 1)
    subs = {
        f"SGNHT accurate h={h} A={A:g}": decide.ordering_test(
            f"SGNHT accurate h={h} A={A:g}",
            f"KL(SGNHT) < {KL_ACCURATE}",
            smaller=kl["sgnht"][(h, A)],
            larger=(KL_ACCURATE, 0.0),
            alpha=ALPHA,
            alpha_refute=a_ref,
            df=df,
            effect_label="KL",
            holds=f"KL below {KL_ACCURATE} (upper one-sided bound)",
            fails=f"KL significantly above {KL_ACCURATE}",
            counterexample={"h": h, "A": A, "KL": kl["sgnht"][(h, A)], "seed": seed},
        )
        for (h, A) in settings
    }
    # "SGHMC inaccurate at some setting": the most inaccurate one, at α/4 (Bonferroni over
    # the four settings it was chosen from).
    worst = max(
        settings, key=lambda s: (kl["sghmc-chen"][s][0] - KL_ACCURATE) / kl["sghmc-chen"][s][1]
    )
    subs["SGHMC inaccurate somewhere"] = decide.ordering_test(
        "SGHMC inaccurate somewhere",
        f"KL(SGHMC) > {KL_ACCURATE} at some (h, A)",
        smaller=(KL_ACCURATE, 0.0),
        larger=kl["sghmc-chen"][worst],
        alpha=bonferroni(ALPHA, len(settings)),
        alpha_refute=a_ref,
        df=df,
        effect_label="KL",
        holds=f"SGHMC inaccurate at h={worst[0]}, A={worst[1]:g} (its worst setting)",
        fails=f"SGHMC accurate at every setting, its worst (h={worst[0]}, A={worst[1]:g}) included",
        counterexample={"KL SGHMC": {str(s): kl["sghmc-chen"][s] for s in settings}},
    )
    parts = [
        decide.all_of(
            "SGNHT accurate where SGHMC is not",
            f"KL(SGNHT) < {KL_ACCURATE} for all (h, A); KL(SGHMC) > {KL_ACCURATE} for some, "
            "SGHMC accurate only for small h and large A",
            subs,
            extra=meas
            | {
                "SGHMC accurate at": Measurement(sghmc_ok, note=f"one-sided, α = {ALPHA}, t{df}"),
                "SGHMC inaccurate at": Measurement(
                    sghmc_bad, note=f"one-sided, α = {ALPHA}, t{df}"
                ),
                "threshold": Measurement(KL_ACCURATE),
                "α of refutation (family)": Measurement(
                    ALPHA, note=f"each of the 5 sub-tests refutes at bonferroni(α, 5) = {a_ref:g}"
                ),
                "critical values": Measurement(
                    f"Student t, {df} df", note=f"jackknife SEs over {groups} groups"
                ),
            },
        )
    ]

    # ξ ≈ A at h = 0.001; ξ ≫ A at h = 0.01
    def pred(h, A):
        return A + h * V / 2

    def pred_oh(h, A):
        D = pred(h, A)
        return D + h * derived_xi_slope(D, problem.d)

    xmeas = {
        f"E[ξ] h={h} A={A:g}": Measurement(
            xi[(h, A)][0],
            xi[(h, A)][1],
            note=f"prediction A + hV/2 = {pred(h, A):.3f}; with the O(h) term {pred_oh(h, A):.3f}",
        )
        for (h, A) in settings
    }
    rel = {f"h={h} A={A:g}": (xi[(h, A)][0] - A) / A for (h, A) in settings}
    xi_command = f"sgmcmc-verify check SGNHT-GAUSS --seed {seed}"
    xrel = xmeas | {"(E[ξ] − A)/A": Measurement(rel)}
    parts.append(_xi_close_part(xi, pred_oh, xrel, seed, df))
    # "much larger" has no threshold in the paper: read as E[ξ] ≥ 2A, a statement up to a
    # constant.  Where E[ξ] ≥ 2A is not significant, the factor c with E[ξ] ≥ 2A/c at both A
    # (lower one-sided bounds, t at g − 1 df) is the constant that repairs it; c ≥ 2 would
    # mean ξ is not even larger than A, which no constant repairs.
    twice = {
        A: decide.ordering_test(
            f"E[ξ] ≥ 2A, A={A:g}",
            "E[ξ] > 2A at h = 0.01",
            smaller=(2 * A, 0.0),
            larger=xi[(0.01, A)],
            alpha=ALPHA,
            df=df,
            effect_label="E[ξ]",
            holds="",
            fails="",
        )
        for A in (1.0, 10.0)
    }
    misses = {
        f"A={A:g}": {"E[ξ]": xi[(0.01, A)], "2A": 2 * A}
        for A, t in twice.items()
        if t.verdict != "confirmed"
    }
    c = max(2 * A / (xi[(0.01, A)][0] - z * xi[(0.01, A)][1]) for A in twice)
    parts.append(
        decide.counterexample_search(
            "ξ ≫ A at h = 0.01",
            "E[ξ] ≥ 2A at h = 0.01 for A ∈ {1, 10} (reading of 'much larger')",
            regime="h = 0.01, A ∈ {1, 10}, N = 100, Ñ = 10 (§5.1); 'much larger' is unquantified",
            searched=f"both A at h = 0.01, one-sided tests of E[ξ] > 2A at α = {ALPHA} "
            f"(Student t, {df} df)",
            in_regime=misses or None,
            up_to_constant=True,
            proved_constant=c if 0 < c < 2 else math.inf,
            holds="E[ξ] significantly above 2A at both A",
            fails=f"E[ξ] not significantly ≥ 2A at {sorted(misses)}; E[ξ] ≥ 2A/{c:.3g} at both A",
            measured=xmeas | {"(E[ξ] − A)/A": Measurement(rel)},
            erratum=decide.Erratum(
                corrected="E[ξ] − A ≈ hV/2 = B_eff (plus O(h)) whatever A: at h = 0.01, "
                f"E[ξ] ≈ A + {pred(0.01, 1.0) - 1:.2g}, so ξ ≫ A for A = 1 but only "
                f"E[ξ] ≈ {xi[(0.01, 10.0)][0] / 10:.2g}·A for A = 10",
                failing_step="SGNHT §5.1: 'when h = 0.01, ξ becomes much larger than A' "
                "(Figure 2, 3rd plot)",
                command=xi_command,
                regime="h = 0.01, A ∈ {1, 10}, N = 100, Ñ = 10 (§5.1)",
            ),
        )
    )
    parts.append(_xi_absorbs_part(xi, pred_oh, xmeas, df))
    ng_part, ng_params = normal_gamma_panel(profile=profile, seed=seed, make=make)
    parts.append(ng_part)
    return parts, {
        "alpha": ALPHA,
        "T (time units) per run": horizons,
        "burn-in": "see _sgnht_horizon",
        "chains": chains,
        "groups": groups,
        "minibatch": 10,
        "V": V,
        "kl_accurate": KL_ACCURATE,
        "xi_absorb_tol": XI_ABSORB_TOL,
        "sghmc": "sghmc-chen, B_hat = 0",
        "normal_gamma": ng_params,
    }


def _xi_close_part(xi, pred_oh, xmeas, seed: int, df: int) -> Part:
    """Part "ξ ≈ A at h = 0.001" (SGNHT §5.1), decided from the analytic prediction.

    §5.1 states no tolerance for "close".  Read against the next sentence's "much larger"
    (read there as E[ξ] ≥ 2A), "close" means nearer A than 2A — arithmetically,
    ``E[ξ]/A ≤ 3/2`` (the former reading ``|E[ξ] − A| ≤ A/2``), or on the log scale,
    ``E[ξ]/A ≤ √2``.  Both are :func:`decide.exact_comparison` s of the predicted ratio
    ``(D + (h/2)(D² − 1/n))/A``, ``D = A + hV/2`` (see :func:`check_sgnht_gauss`), with
    tolerance the size ``h²D³/A`` of its next term (an estimate, not a bound; ≤ 1.2e-4 here,
    against margins ≥ 0.036).  A failure of the arithmetic reading refutes (ξ is nearer 2A
    than A); a failure of the log-scale reading alone qualifies: the answer then depends on
    what "close" means.

    The Monte Carlo E[ξ] cross-checks the prediction at each A: an equivalence test
    (:func:`decide.within_tolerance`, Student t at ``df``, refuting at α/2 per A) of
    ``|E[ξ] − prediction| ≤ A/4``, half the A/2 scale of the readings — it catches a
    sampler or a prediction that is wrong by that much (a misscaled noise moves E[ξ] by
    ≈ A/2 or more), not errors as small as the readings' margins: those rest on the
    expansion, itself checked by Monte Carlo where its excess is ten times larger (the part
    "ξ absorbs the gradient noise", h = 0.01).  The equivalence test of the Monte Carlo E[ξ]
    against A ± A/2 that this replaces (review H10, finding 9) could not resolve A = 1,
    whose predicted excess sits at 93 % of that tolerance.
    """
    h = 0.001
    ratio = {A: pred_oh(h, A) / A for A in (1.0, 10.0)}
    rem = {A: h * h * (pred_oh(h, A)) ** 3 / A for A in ratio}
    r1, r_big = ratio[1.0], pred_oh(0.01, 10.0) / 10.0
    erratum = decide.Erratum(
        corrected=f"E[ξ] − A ≈ hV/2 = B_eff whatever A: at h = 0.001, E[ξ]/A ≈ {r1:.3f} for "
        f"A = 1 (a {100 * (r1 - 1):.0f} % excess: nearer A than 2A, but not on the log scale, "
        f"and close to the ratio {r_big:.2f} that §5.1 calls 'much larger' at h = 0.01, "
        f"A = 10) and {ratio[10.0]:.3f} for A = 10 (close under either reading); whether ξ "
        "and A are 'close' at A = 1 depends on what 'close' means",
        failing_step="SGNHT §5.1: 'When h = 0.001, ξ and A are close' (no tolerance)",
        command=f"sgmcmc-verify check SGNHT-GAUSS --seed {seed}",
        regime="h = 0.001, A ∈ {1, 10}, N = 100, Ñ = 10 (§5.1)",
    )
    why = (
        "'close' is unquantified in §5.1: where this reading fails while 'nearer A than 2A' "
        "holds, the answer depends on the reading, not on the sampler"
    )
    # reading → (bound on E[ξ]/A, verdict when the prediction exceeds it, why not refuted)
    readings = {
        "nearer A than 2A": (1.5, "refuted", ""),
        "nearer A than 2A on the log scale": (math.sqrt(2.0), "qualified", why),
    }
    subs = {}
    for A, r in ratio.items():
        for lab, (c, failed, reason) in readings.items():
            subs[f"A={A:g}, {lab}"] = decide.exact_comparison(
                f"ξ ≈ A, A={A:g}, {lab}",
                f"predicted E[ξ]/A ≤ {c:.4g}",
                value=r,
                target=c,
                relation="<=",
                tol=rem[A],
                tol_source="size h²D³/A of the prediction's next term (an estimate)",
                holds=f"predicted E[ξ]/A = {r:.4f} ≤ {c:.4g}",
                fails=f"predicted E[ξ]/A = {r:.4f} > {c:.4g} ({lab} fails)",
                failed_verdict=failed,
                why_not_refuted=reason,
                counterexample={"h": h, "A": A, "predicted E[ξ]/A": r},
                erratum=erratum,
            )
    for A in ratio:
        est, se = xi[(h, A)]
        subs[f"A={A:g}, Monte Carlo cross-check"] = decide.within_tolerance(
            f"E[ξ] matches its prediction, A={A:g}",
            "|E[ξ] − prediction| ≤ A/4 at h = 0.001",
            estimate=est,
            target=pred_oh(h, A),
            se=se,
            tol=A / 4,
            tol_source="a quarter of A, half the A/2 scale of the 'close' readings",
            alpha=ALPHA,
            alpha_refute=bonferroni(ALPHA, 2),
            df=df,
            holds="the Monte Carlo E[ξ] agrees with the prediction to within A/4",
            fails="the Monte Carlo E[ξ] is farther than A/4 from the prediction: the sampler "
            "or the prediction is wrong",
            counterexample={"h": h, "A": A, "E[ξ]": (est, se), "prediction": pred_oh(h, A)},
        )
    return decide.all_of(
        "ξ ≈ A at h = 0.001",
        "E[ξ] close to A at h = 0.001 for A ∈ {1, 10}: 'close' read as nearer A than 2A (the "
        "'much larger' reading), arithmetically (E[ξ]/A ≤ 3/2) and on the log scale "
        "(E[ξ]/A ≤ √2), decided from the prediction D + (h/2)(D² − 1/n), D = A + hV/2, "
        "cross-checked by Monte Carlo to within A/4",
        subs,
        extra=xmeas
        | {
            "predicted E[ξ]/A at h = 0.001": Measurement({f"A={A:g}": r for A, r in ratio.items()}),
        },
        erratum=erratum,
    )


def _xi_absorbs_part(xi, pred_oh, xmeas, df: int) -> Part:
    """Part "ξ absorbs the gradient noise" at h = 0.01 (see :func:`check_sgnht_gauss`): at
    each A an equivalence test (:func:`decide.within_tolerance`) of the ratio of the measured
    to the predicted excess against 1 ± ``XI_ABSORB_TOL``, combined by :func:`decide.all_of`.
    The SEs are jackknifes with ``df`` degrees of freedom (Student-t critical values); each
    test refutes at ``bonferroni(ALPHA, 2)``, so the pair refutes at family level ``ALPHA``."""
    subs, ratio = {}, {}
    a_ref = bonferroni(ALPHA, 2)
    for A in (1.0, 10.0):
        s = (0.01, A)
        excess = pred_oh(*s) - A
        r, se = (xi[s][0] - A) / excess, xi[s][1] / excess
        ratio[f"h=0.01 A={A:g}"] = Measurement(r, se, note=f"predicted excess {excess:.3f}")
        subs[f"A={A:g}"] = decide.within_tolerance(
            f"ξ absorbs the noise, A={A:g}",
            "(E[ξ] − A)/predicted excess = 1 ± XI_ABSORB_TOL",
            estimate=r,
            target=1.0,
            se=se,
            tol=XI_ABSORB_TOL,
            tol_source="unknown O(h²) remainder (≈ 6 %) and burn-in transient (≈ 3 %)",
            alpha=ALPHA,
            alpha_refute=a_ref,
            df=df,
            holds="E[ξ] − A matches B_eff + O(h) within ±25 %",
            fails="E[ξ] − A is not the absorbed gradient noise",
            counterexample={"A": A, "ratio": r},
        )
    return decide.all_of(
        "ξ absorbs the gradient noise",
        "(E[ξ] − A)/(D + (h/2)(D² − 1) − A) ∈ [0.75, 1.25], D = A + hV/2, at h = 0.01 "
        f"(equivalence tests, α = {ALPHA} per setting, Student t at {df} df; refutation at "
        f"family α = {ALPHA}: {a_ref:g} per setting)",
        subs,
        extra={"(E[ξ] − A)/predicted excess": Measurement(ratio)} | xmeas,
    )


# --------------------------------------------------------------------------------------
# EWSG-EXP-GAUSS
# --------------------------------------------------------------------------------------


def check_ewsg_exp_gauss(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """EWSG §5.1: 2-D Gaussian, n = 20, c_i ~ N(0, I), b = 1, 30 data passes.

    KL (Gaussian fit of the final states of independent chains, as the paper's 10⁴
    realisations) to the target.  Step sizes as the paper: SGHMC/EWSG h = 5e-2,
    γ = 10; SGLD and pSGLD 5e-3; SVRG-LD 5e-4 (D = N, b = 1).  Costs per step: SGHMC 1,
    SGLD 1, pSGLD 1, EWSG M + 1, SVRG-LD 2 + N/D = 3.

    pSGLD is the comparison baseline :func:`sgmcmc_verify.baselines.make_psgld` (Li et al.
    2016, Algorithm 1, Γ omitted as there), with EWSG §5's α = 0.99, λ = 1e-5 and b = 1.
    Its step size uses the same convention as SGLD's: the paper's "5 × 10⁻³ for SGLD and
    pSGLD" is the ``h`` of ``θ' = θ − h∇̃U + √(2h)ξ``, so pSGLD runs
    ``θ' = θ − hG∇̃U + √(2hG)ξ`` with h = 5e-3 (Li et al.'s ε = 2h = 1e-2).  Its KL is
    bootstrapped with its own generator (``seed + 19``) so that the other parts' numbers
    do not depend on whether pSGLD runs.
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
    psgld_prm = {"n": 1, "alpha": PSGLD_ALPHA, "lam": PSGLD_LAMBDA}
    cfg["pSGLD"] = ("psgld", 5e-3, psgld_prm, 1)  # last: the others' seeds are unchanged
    theta0 = np.zeros(2)
    kl = {}
    finals = {}
    psgld_G = None
    for i, (lab, (alg, h, prm, cost)) in enumerate(cfg.items()):
        steps = budget_steps(passes, N, cost)
        sampler = make(alg, problem, h=h, **prm)
        res = run_sampler(
            sampler, n_steps=steps, chains=chains, seed=seed * 100 + i, theta0=theta0, thin=steps
        )
        finals[lab] = res.draws["theta"][:, -1]
        boot_rng = rng if lab != "pSGLD" else np.random.default_rng(seed + 19)
        kl[lab] = boot(finals[lab], lambda x: fit_kl(x, mt, St), boot_rng)
        if lab == "pSGLD" and hasattr(res.final_state, "V"):
            psgld_G = sampler.integrator.preconditioner(res.final_state.V).mean(axis=0)
    costs = {lab: c[3] for lab, c in cfg.items()}
    note = {"evaluations per step": Measurement(costs), "data passes": Measurement(passes)}
    psgld_note = {
        "pSGLD settings": Measurement(
            {"h": 5e-3, "epsilon (Li et al.)": 1e-2} | psgld_prm,
            note="Li et al. 2016 Alg. 1, Γ omitted; ε = 2h (package convention, as SGLD)",
        ),
        "pSGLD mean diag G at the end": Measurement(
            None if psgld_G is None else [float(g) for g in psgld_G],
            note="G = 1/(λ + √V), averaged over chains",
        ),
    }
    parts = [
        beats(
            "EWSG beats SGHMC and SGLD in KL",
            "KL(EWSG) < KL(SGHMC), KL(SGLD) at 30 data passes",
            "EWSG",
            ["SGHMC", "SGLD"],
            kl,
            "KL",
            note,
        ),
        beats(
            "EWSG beats pSGLD",
            "KL(EWSG) < KL(pSGLD) at 30 data passes",
            "EWSG",
            ["pSGLD"],
            kl,
            "KL",
            psgld_note,
        ),
        beats(
            "SVRG-LD most accurate",
            "KL(SVRG-LD) smallest at 30 data passes",
            "SVRG-LD",
            ["EWSG", "SGHMC", "SGLD", "pSGLD"],
            kl,
            "KL",
        ),
        beats(
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
        meas[f"tr Cov {lab}"] = Measurement(*boot(x, lambda y: float(np.trace(np.cov(y.T))), rng))
        meas[f"|mean − μ| {lab}"] = Measurement(
            *boot(x, lambda y: float(np.linalg.norm(y.mean(0) - mt)), rng)
        )
        meas[f"KL {lab}"] = Measurement(*kl[lab])
    tr_true = float(np.trace(St))
    meas["tr Σ target"] = Measurement(tr_true)

    def mv(key):
        return (meas[key].value, meas[key].stderr)

    def smaller(key, lo, hi, what):
        return decide.ordering_test(
            f"{what} smaller at {lo}",
            f"{key}({lo}) < {key}({hi})",
            smaller=mv(f"{key} {lo}"),
            larger=mv(f"{key} {hi}"),
            alpha=ALPHA,
            alpha_refute=bonferroni(ALPHA, 2),  # either of the two refutes the conjunction
            effect_label=key,
            holds=f"{key} significantly smaller at {lo} than at {hi}",
            fails=f"{key} significantly larger at {lo} than at {hi}",
        )

    parts.append(
        decide.all_of(
            "M trades bias for variance",
            "larger M (M = 1 → 10): smaller tr Cov of the final states (variance), larger "
            "|mean − μ| (bias), at M + 1 evaluations per step and equal data passes",
            {
                "variance decreases with M": smaller("tr Cov", "EWSG M=10", "EWSG", "spread"),
                "bias increases with M": smaller("|mean − μ|", "EWSG", "EWSG M=10", "bias"),
            },
            extra=meas
            | {"note": Measurement("tr Cov at M = 10 is below the target's (tr Σ target)")},
        )
    )
    return parts, {
        "alpha": ALPHA,
        "chains": chains,
        "passes": passes,
        "costs": costs,
        "bootstrap": N_BOOT,
        "steps": {lab: budget_steps(passes, N, c[3]) for lab, c in cfg.items()},
        "psgld": {
            "citation": "Li, Chen, Carlson, Carin 2016 (AAAI), Algorithm 1, Γ omitted",
            "h": 5e-3,
            "epsilon": 1e-2,
            **psgld_prm,
        },
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
        steps = budget_steps(passes, N, cost)
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
        err[lab] = boot(sec, lambda y: float(np.linalg.norm(y.mean(axis=0) - cov_ref)), rng)
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
        beats(
            "LMC and SGLD deviate",
            "error(TMU-RA) < error(LMC), error(SGLD) at equal data passes",
            "TMU-RA",
            ["LMC", "SGLD"],
            err,
            "‖ΔE[xxᵀ]‖_F",
            extra,
        ),
        beats(
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


def _tmu_erratum(acc: str, per: dict[str, Part], passes: int, seed: int) -> decide.Erratum:
    """What §6.2 would have to state for "TMU beats PTU and PPU" under ``acc`` to hold here."""
    pieces = outcomes(
        per,
        "significantly better with",
        f"significantly worse than one of them (α = {ALPHA} for the pair) with",
        "not significantly better with",
    )
    tail = (
        "the ordering depends on the refresh period D, so §6.2 should state D and η with the claim"
        if any(p.verdict == "confirmed" for p in per.values())
        else "no refresh period tried makes the ordering hold here; the claim needs the "
        "settings (D, η) under which it was observed"
    )
    return decide.Erratum(
        corrected=f"On synthetic ridge regression (N = 200, n = 10, η = 1e-3) at {passes} data "
        f"passes, TMU-{acc} against PTU-{acc} and PPU-{acc} is {pieces}: {tail}.",
        failing_step="AGLD §6.2 and Figure 2: 'TMU beats PTU and PPU' is shown without the "
        "refresh period D or the step size η it was run with",
        command=f"sgmcmc-verify check AGLD-EXP-TMU --seed {seed}",
        regime=REGIMES["AGLD-EXP-TMU"],
    )


def check_agld_exp_tmu(
    *, profile: str = "quick", seed: int = 0, make: SamplerFactory = default_make
) -> tuple[list[Part], dict[str, Any]]:
    """AGLD §6.2 (-SUB): Bayesian ridge regression on synthetic data (the UCI sets are
    unavailable offline), TMU vs PTU and PPU under each access RA, RR, CA.

    Synthetic ``linear_regression_synthetic(N=200, d=5, noise_sd=1, prior_sd=1)``;
    n = 10, η = 1e-3 (stable: ηλ_max ≈ 0.25); chains start at 0.  §6.2 states neither
    D nor η, so two refresh periods are run: D = N (Theorem 3's value) and D = N/n.
    Metric: KL of the Gaussian fit of the final states to the exact posterior after a few
    data passes (the paper's x-axis is epochs, 0-10).  Costs per step: PTU 2n + N/D,
    PPU n, TMU n + N/D.  A loss on this substitute problem at
    settings not from the paper is ``qualified``, never ``refuted``.

    Verdicts by :func:`decide.on_substitute`.
    """
    problem = linear_regression_synthetic(200, 5, noise_sd=1.0, prior_sd=1.0, seed=seed)
    mt, St = problem.exact["mean"].value, problem.exact["cov"].value
    N, n = problem.N, 10
    periods = {"D = N (Theorem 3)": N, "D = N/n": N // n}
    chains = 500 if profile == "quick" else 3000
    passes = 4 if profile == "quick" else 10
    eta = 1e-3
    rng = np.random.default_rng(seed + 13)
    parts = []
    kls: dict[str, dict[str, dict[str, tuple[float, float]]]] = {}
    costs_by = {}
    for j, acc in enumerate(("ra", "rr", "ca")):
        per = {}
        for t, (label, D) in enumerate(periods.items()):
            costs = {"ptu": 2 * n + N / D, "ppu": n, "tmu": n + N / D}
            costs_by[label] = costs
            kl = {}
            for i, snap in enumerate(("tmu", "ptu", "ppu")):
                prm = {"n": n} | ({} if snap == "ppu" else {"D": D})
                steps = budget_steps(passes, N, costs[snap])
                x = final_states(
                    make,
                    f"{snap}-{acc}",
                    problem,
                    h=eta,
                    steps=[steps],
                    chains=chains,
                    seed=seed * 100 + 10 * j + i + 1000 * t,
                    **prm,
                )[steps]
                kl[snap.upper()] = boot(x, lambda y: fit_kl(y, mt, St), rng)
            kls.setdefault(acc, {})[label] = kl
            per[label] = beats(label, "", "TMU", ["PTU", "PPU"], kl, "KL")
        parts.append(
            decide.on_substitute(
                f"TMU beats PTU and PPU under {acc.upper()}",
                f"KL(TMU-{acc.upper()}) < KL(PTU-{acc.upper()}), KL(PPU-{acc.upper()}) "
                f"at {passes} data passes, at D = N and D = N/n",
                per,
                "untuned settings (η = 1e-3) on a substitute problem (synthetic ridge regression)",
                {"evaluations per step": Measurement(costs_by)} if j == 0 else None,
                erratum=_tmu_erratum(acc.upper(), per, passes, seed),
            )
        )
    return parts, {
        "alpha": ALPHA,
        "problem": "linear_regression_synthetic(200, 5, noise_sd=1, prior_sd=1) (-SUB)",
        "eta": eta,
        "n": n,
        "D": periods,
        "chains": chains,
        "passes": passes,
        "costs": costs_by,
        "comparisons": 12,
        "rule": "substitute problem, settings not from the paper: a loss is qualified",
    }


# --------------------------------------------------------------------------------------
# SVRHMC-EXP and SVRHMC-EXP-SUB
# --------------------------------------------------------------------------------------


def check_svrhmc_exp(*, profile: str = "quick", seed: int = 0) -> tuple[list[Part], dict]:
    """SVRHMC §5 on the UCI data sets: not checkable offline (see SVRHMC-EXP-SUB)."""
    return [
        decide.not_checkable(
            "SVRG-HMC and SVRG2nd-HMC faster per data pass than SVRG-LD (UCI data)",
            "lower test error per data pass on the UCI regression/classification sets",
            "the UCI data sets (SVRHMC §5) are not available offline, nor the step sizes and "
            "friction §5 selects on their validation sets; the substitute on synthetic data "
            "is SVRHMC-EXP-SUB",
            would_decide="the UCI sets and §5's validation split: tune h and D per method on "
            "the validation set, then one-sided tests (decide.ordering_test) of test error at "
            "each data-pass checkpoint, HMC variants against SVRG-LD, as in SVRHMC-EXP-SUB",
        )
    ], {"profile": profile, "seed": seed}


def _exp_sub_erratum(lab: str, pname: str, per: Mapping[str, Part], seed: int) -> decide.Erratum:
    """What SVRHMC §5 would state for the per-pass comparison to hold on this substitute."""
    bits = outcomes(
        per,
        "significantly faster than SVRG-LD at",
        f"significantly slower (α = {ALPHA}) at",
        "not significantly faster at",
    )
    return decide.Erratum(
        corrected=f"On synthetic {pname} regression (N = 200) at the fixed step sizes in params, "
        f"{lab} is {bits}.  The per-pass advantage depends on the step sizes "
        "and friction, which §5 selects on a validation set and does not report",
        failing_step="SVRHMC §5 and Figure 1: 'converge markedly faster than SVRG-LD' is shown "
        "at step sizes and friction tuned per data set (§5: 'the validation set is used to "
        "select step size as well as friction'), not reported",
        command=f"sgmcmc-verify check SVRHMC-EXP-SUB --seed {seed}",
        regime=REGIMES["SVRHMC-EXP-SUB"],
    )


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
            cps = [budget_steps(p, N, cost) for p in passes]
            out = final_states(
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
                kl[p][lab] = boot(out[c], lambda y, m=mt, S=St: fit_kl(y, m, S), rng)
        for lab in ("SVRG-HMC", "SVRG2nd-HMC"):
            per = {
                f"{p} passes": beats(
                    f"{lab} faster than SVRG-LD ({pname}, {p} passes)", "", lab, ["SVRG-LD"],
                    kl[p], "KL",
                )
                for p in passes
            }  # fmt: skip
            # The paper tunes step sizes; ours are fixed, so a loss of the HMC variants
            # is evidence against the claim at these settings only: qualified, not refuted.
            parts.append(
                decide.on_substitute(
                    f"{lab} converges faster per data pass than SVRG-LD ({pname})",
                    "KL(HMC variant) < KL(SVRG-LD) at each data-pass checkpoint",
                    per,
                    "fixed (untuned) step sizes in params, on a substitute problem",
                    {"evaluations per step": Measurement(cost, note="2b + N/K, all three")},
                    erratum=_exp_sub_erratum(lab, pname, per, seed),
                )
            )
        params[pname] = {"h_ld": h_ld, "h_hmc": h_hmc, "K": K, "L": L, "friction": fric}
    return parts, params
