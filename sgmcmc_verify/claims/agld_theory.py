"""Checks of the AGLD mixing-time theorems (AGLD §4): AGLD-T1 … AGLD-T5.

The exact W2 machinery (Gaussian closed form, Gelbrich lower and LMC-coupling upper
bounds, 1-D quantile functions) and the analytic limits of bounds on ``K/rate`` are in
:mod:`sgmcmc_verify.claims.agld_bounds`; every part here goes through a builder of
:mod:`sgmcmc_verify.claims.decide`.

The theorems are upper bounds ``K = O(·)``.  A measured quantity growing more
slowly than the bound is consistent with it ("the bound is not tight here");
growing faster, on exact numbers or on a rigorous lower bound, is evidence
against.  Implied stationary-bias exponents: with ``η = cε^a`` and the chain
within ``ε`` of ``p*`` for every large ``k``, the stationary bias must be
``O(η^{1/a})``: T1 ``a = 2`` → slope ≥ 1/2, T2 ``a = 1`` → slope ≥ 1, T5 ``a = 4``
→ slope ≥ 1/4.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import scipy.integrate
import scipy.optimize
import sympy as sp

from ..exact import moments as em
from ..exact import nystrom
from ..exact.nystrom import PolynomialSum1D, stationary_expectations
from ..problems.double_well import DoubleWell, double_well
from ..problems.gaussian import GaussianQuadratic, gaussian_differing
from ..proofs.agld_theorem1 import mean_lower_bound_expr, mean_lower_bound_K, ra_steps
from ..stats import fit_order
from . import decide
from .agld_bounds import (
    EPS_SYM,
    MEAN_CHECK_STEPS,
    ChainFactory,
    as_float,
    default_chains,
    density_cdf,
    diffusion_time_limit,
    exact_law,
    fmt_limit,
    gaussian_w2,
    lmc_k_upper,
    lmc_mean_gap,
    mean_bound_limit,
    mixing_time,
    stationary_bounds,
    stationary_w2,
    w2_1d,
)
from .catalogue import REGIMES
from .result import Measurement, Part

__all__ = [
    "check_t1",
    "check_t2",
    "check_t3",
    "check_t4",
    "check_t5",
    "split_double_well",
    "wrong_double_well",
]

#: Nominal level recorded with the exact fits (no statistics are used: every number
#: below is exact up to float64 rounding or quadrature error, so α is not spent).
ALPHA = 0.01


def _local_slope(x, y) -> float:
    return float(np.log(y[-1] / y[-2]) / np.log(x[-1] / x[-2]))


#: Tolerance on local slopes (exact values, pre-asymptotic curvature only).
SLOPE_TOL = 0.1


def _slope_decision(
    name: str,
    expectation: str,
    *,
    local: float,
    implied: float,
    what: str,
    holds: str,
    fails: str,
    failed_verdict: str,
    why_not_refuted: str = "",
    erratum: decide.Erratum | None = None,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
) -> Part:
    """``local ≥ implied − SLOPE_TOL``, by :func:`decide.exact_comparison`.

    ``local`` is the exponent between the two smallest η of exactly computed values (``what``
    says which: the exact W2, or a proved lower or upper bound on it), so nothing is random;
    :data:`SLOPE_TOL` absorbs the pre-asymptotic curvature of a power law.  The verdict is
    about these exact numbers on the grid, not a limit: a lower bound decaying too slowly
    refutes, an upper bound decaying fast enough confirms (``failed_verdict`` says which).
    """
    return decide.exact_comparison(
        name,
        expectation,
        value=local,
        target=implied,
        relation=">=",
        tol=SLOPE_TOL,
        tol_source=f"local exponent of the {what} at the two smallest η; SLOPE_TOL for "
        "pre-asymptotic curvature",
        holds=holds,
        fails=fails,
        failed_verdict=failed_verdict,
        why_not_refuted=why_not_refuted,
        measured=measured,
        counterexample=counterexample,
        erratum=erratum,
    )


def _bias_part(
    claim: str,
    problem: GaussianQuadratic,
    chains: Mapping[str, ChainFactory],
    etas: np.ndarray,
    implied: float,
) -> tuple[list[Part], list[dict[str, Any]]]:
    """Stationary W2 bias against η for each chain; the claim needs slope ≥ ``implied``.

    Exact chains (LMC): exact W2.  The others: the Gelbrich lower bound and the
    LMC-coupling upper bound (:func:`coupled_with_lmc`), both exact numbers.  The
    part is refuted when the lower bound decays more slowly than ``η^implied``,
    confirmed when the upper bound decays at least that fast (local slope at the
    two smallest η, tolerance :data:`SLOPE_TOL`), otherwise not checkable.
    Returns the parts and the figure series.
    """
    parts, series = [], []
    for name, make in chains.items():
        exact = exact_law(name)
        bounds = np.array(
            [stationary_bounds(make(problem, float(h)), problem, exact) for h in etas]
        )
        lower, upper = bounds[:, 0], bounds[:, 1]
        kind = "exact W2 (Gaussian law)" if exact else "Gelbrich lower bound on W2"

        def slopes(v):
            if np.all(v > 0):
                return fit_order(etas, v, alpha=ALPHA).slope, _local_slope(etas, v)
            return math.inf, math.inf

        slope, local = slopes(lower)
        up_slope, up_local = slopes(upper)
        expectation = f"{claim}: stationary W2 bias = O(η^{implied:g})"
        measured = {
            "eta": Measurement(etas.tolist()),
            "w2_bias": Measurement(lower.tolist(), note=kind + ", max over phases"),
            "fitted slope": Measurement(slope, note="exact values, least squares"),
            "local slope (two smallest η)": Measurement(local),
        }
        lo = _slope_decision(
            f"stationary bias: {name}",
            expectation,
            local=local,
            implied=implied,
            what=kind,
            holds=f"exact bias ∝ η^{local:.2f} ≥ η^{implied:g}: consistent; the bound is not "
            "tight here (on Gaussians η = O(ε) already suffices for the stationary bias)"
            if exact
            else f"the Gelbrich lower bound decays like η^{local:.2f}: no refutation",
            fails=f"the {kind} decays like η^{local:.2f} at the smallest η, slower than the "
            f"η^{implied:g} the claim needs: the chain does not reach ε at the prescribed η",
            failed_verdict="refuted",
            measured=measured if exact else None,
            counterexample={"chain": name, "eta": etas.tolist(), "w2_bias": lower.tolist()},
        )
        if exact:
            part = lo
        else:
            measured |= {
                "w2_bias upper bound": Measurement(
                    upper.tolist(),
                    note="√E‖θ − θ̃‖² (synchronous coupling with LMC, exact moments) + exact "
                    "W2 of LMC, max over phases",
                ),
                "upper bound fitted slope": Measurement(up_slope, note="least squares"),
                "upper bound local slope (two smallest η)": Measurement(up_local),
            }
            up = _slope_decision(
                f"stationary bias: {name}",
                expectation,
                local=up_local,
                implied=implied,
                what="LMC-coupling upper bound on W2",
                holds=f"the LMC-coupling upper bound on W2 decays like η^{up_local:.2f} ≥ "
                f"η^{implied:g}: the bias is O(η^{implied:g}) as the claim needs"
                + ("; the claim's order is not tight here" if up_local > implied + 0.25 else ""),
                fails=f"the coupling upper bound decays only like η^{up_local:.2f} < "
                f"η^{implied:g}: the bounds do not decide",
                failed_verdict="qualified",
                why_not_refuted="an upper bound that decays too slowly says nothing against "
                "the claim (the true bias lies below it); only the lower bound can refute",
                erratum=decide.Erratum(
                    corrected=f"none established for {name}: the bias may be O(η^{implied:g}) "
                    "as the claim needs; deciding it needs a tighter upper bound",
                    failing_step="none identified (undecided here, not contradicted)",
                    command=f"sgmcmc-verify check {claim} --seed 0",
                    regime=REGIMES[claim],
                ),
            )
            part = decide.all_of(
                f"stationary bias: {name}",
                expectation,
                {"Gelbrich lower bound": lo, "coupling upper bound": up},
                extra=measured,
            )
        parts.append(part)
        for label, vals, sl in (
            (name if exact else f"{name} (lower bound)", lower, slope),
            *(() if exact else ((f"{name} (upper bound)", upper, up_slope),)),
        ):
            if np.all(vals > 0):
                series.append(_series(label, etas, vals, sl, implied))
    return parts, series


def _series(label, x, y, slope, claimed) -> dict[str, Any]:
    """One series of a ``loglog_fit`` figure (exact values: no error bars, no CI)."""
    return {
        "label": label,
        "x": [float(v) for v in x],
        "y": [float(v) for v in y],
        "yerr": None,
        "slope": float(slope),
        "slope_ci": None,
        "claimed_slope": claimed,
    }


def _mixing_erratum(
    claim: str, claimed_text: str, chain: str, lo_lim: Any, up_lim_log: Any = None
) -> decide.Erratum:
    """The erratum of a mixing-time part: the log factor where the lower bound proves it is
    needed (and, where a closed-form upper bound shows it, sufficient); otherwise an honest
    "not decided" entry (the ledger lists every qualified part)."""
    theorem = claim.split("-")[1].replace("T", "Theorem ")
    regime = f"{REGIMES[claim]}; checked on a 2-D Gaussian, the start at distance r from the mean"
    command = f"sgmcmc-verify check {claim} --seed 0"
    if as_float(lo_lim) == math.inf:
        sufficient = up_lim_log is not None and math.isfinite(as_float(up_lim_log))
        return decide.Erratum(
            corrected=f"necessary: K(ε) = Ω({claimed_text}·log(1/ε)) with the prescribed η, "
            "from every start with a mean offset r > 0 along the slowest direction: the "
            "log(1/ε) factor cannot be dropped; "
            + (
                f"K(ε) = O({claimed_text}·log(1/ε)) = Õ({claimed_text}) suffices for {chain} "
                "(closed-form upper bound)"
                if sufficient
                else f"whether K(ε) = O({claimed_text}·log(1/ε)) suffices for {chain} is not "
                "verified here (no upper bound on its K)"
            ),
            failing_step=f"AGLD {theorem}: 'K = O({claimed_text})' (the O hides only μ, L, N "
            "— §4 — not log(1/ε))",
            command=command,
            regime=regime,
        )
    return decide.Erratum(
        corrected=f"none established for {chain}: the statement K = O({claimed_text}) may hold "
        "as printed; deciding it needs an analytic upper bound on this chain's K(ε)",
        failing_step=f"none identified (AGLD {theorem} is undecided here, not contradicted)",
        command=command,
        regime=regime,
    )


def _no_mixing_part(
    name: str,
    expectation: str,
    stationary_w2: list[float],
    epss: np.ndarray,
    measured: Mapping[str, Measurement],
    counterexample: dict[str, Any],
) -> Part:
    """The part of a chain with no mixing time ``K(ε)`` at some ε on the grid.

    Only a stationary W2 (or its lower bound) above ε contradicts the claim — the chain then
    never gets within ε: :func:`decide.exact_comparison` of the largest ``W2/ε`` with 1
    (exact values).  Otherwise (the lower bound is ≤ ε from the start, or the stationary
    value lies in (0.9ε, ε], where no K is computed) nothing is decided.
    """
    worst = max(w / e for w, e in zip(stationary_w2, epss, strict=True))
    if worst <= 1:
        return decide.not_checkable(
            name,
            expectation,
            "no mixing time: the W2 lower bound is ≤ ε from the start (K_LB = 0), or the "
            "stationary value lies in (0.9ε, ε]",
            measured=measured,
            would_decide="a finer ε grid, or an analytic bound on this chain's K(ε)",
        )
    return decide.exact_comparison(
        name,
        expectation,
        value=worst,
        target=1.0,
        relation="<=",
        tol_source="exact moments or Nyström; a stationary W2 (or its lower bound) above ε",
        holds="",
        fails=f"the chain never gets within ε of p* at the prescribed η: its own stationary "
        f"law (or a lower bound on its W2) is at up to {worst:.3g}·ε from p*",
        measured=measured,
        counterexample=counterexample,
    )


def _mixing_part(
    claim: str,
    problem: GaussianQuadratic,
    chains: Mapping[str, ChainFactory],
    epss: np.ndarray,
    eta_of_eps: Callable[[float], float],
    claimed: Callable[[np.ndarray], np.ndarray],
    claimed_text: str,
    claimed_exponent: float,
    theta0,
    rate: tuple[sp.Expr, sp.Expr],
) -> tuple[list[Part], list[dict[str, Any]]]:
    """``K(ε)`` with ``η = eta_of_eps(ε)``; compared with the claimed rate ``claimed(ε)``.

    ``rate = (η(ε), claimed(ε))`` as sympy expressions in :data:`EPS_SYM`: the verdict is
    :func:`decide.order_from_limits` on the limits, as ε → 0, of analytic bounds on
    ``K/claimed`` (:func:`mean_bound_limit`, :class:`LmcUpperBound`); the grid values of
    ``K``, ``K_LB``, ``K_UB`` are reported beside them and decide nothing (issue 12).

    Exact chains: exact ``K``.  The others: ``K_LB ≤ K ≤ K_UB`` from the Gelbrich
    lower and the LMC-coupling upper bound on W2.  Refuted outright when the chain
    never gets within ε (its stationary W2, or the lower bound on it, exceeds ε); not
    checkable when ``K_LB = 0``.  Returns the parts and the figure series (``K``
    against ``1/ε``).
    """
    lam = np.linalg.eigvalsh(problem.precision)
    lam_min = float(lam[0])
    mu = problem.exact["mean"].value
    v_min = np.linalg.eigh(problem.precision)[1][:, 0]
    r = abs(float(v_min @ (np.asarray(theta0) - mu)))
    parts, series = [], []
    for name, make in chains.items():
        exact = exact_law(name)
        kind = "exact K (W2 exact)" if exact else "K_LB ≤ K (from the Gelbrich lower bound)"
        res = [
            mixing_time(make(problem, eta_of_eps(e)), problem, e, theta0, lam_min, exact)
            for e in epss
        ]
        Ks = [x["K"] for x in res]
        Kub = [x["K_UB"] for x in res]
        if any(k is None or k == 0 for k in Ks):
            stat = [x["stationary_w2"] for x in res]
            meas = {
                "eps": Measurement(epss.tolist()),
                "stationary_w2": Measurement(stat),
                "K": Measurement(Ks),
            }
            parts.append(
                _no_mixing_part(
                    f"mixing time: {name}",
                    f"{claim}: K(ε) = {claimed_text}",
                    stat,
                    epss,
                    meas,
                    {"chain": name, "eps": epss.tolist(), "K": Ks},
                )
            )
            continue
        K = np.array(Ks, float)
        fit = fit_order(epss, K, alpha=ALPHA)  # descriptive only (figure): decides nothing
        ratio = K / claimed(epss)
        has_ub = all(k is not None and k > 0 for k in Kub)
        ratio_ub = np.array(Kub, float) / claimed(epss) if has_ub else None
        ub_fit = fit_order(epss, np.array(Kub, float), alpha=ALPHA) if has_ub else None
        # Mean lower bound along the slowest direction: exact for every chain whose mean
        # follows E x' = E x − ηΛ(E x − μ) (LMC and all unbiased RA schemes).
        mean_lb = [mean_lower_bound_K(e, eta_of_eps(e), lam_min, r) for e in epss]
        # The decision (issue 12): limits of analytic bounds on K/claimed as ε → 0, never the
        # fitted exponent.  Lower: the mean bound, for chains with an unbiased mean.  Upper:
        # the closed-form LMC bound (lmc_k_upper), for LMC only.
        # Whether the mean bound applies is measured on the chain (exact mean against LMC's
        # recursion, at the grid's largest and smallest η), not read off its name.
        gaps = [
            lmc_mean_gap(make(problem, eta_of_eps(e)), problem, theta0) for e in (epss[0], epss[-1])
        ]
        unbiased = all(g <= t for g, t in gaps)
        lo_lim = mean_bound_limit(r, lam_min, rate[0], rate[1]) if unbiased else None
        ub_closed = lmc_k_upper(problem, theta0) if exact_law(name) else None
        up_lim = ub_closed.limit(rate[0], rate[1]) if ub_closed else None
        up_lim_log = ub_closed.limit(rate[0], rate[1] * sp.log(1 / EPS_SYM)) if ub_closed else None
        ub_text = (
            f"; the coupling upper bound K_UB (numeric) gives K_UB/({claimed_text}) "
            f"{ratio_ub[0]:.3g} → {ratio_ub[-1]:.3g} on the grid"
            if has_ub and not exact
            else ""
        )
        numbers = (
            f"{kind}: K/({claimed_text}) = {ratio[0]:.3g} → {ratio[-1]:.3g} over ε = "
            f"{epss[0]:g} → {epss[-1]:g}{ub_text}"
        )
        lb_text = (
            f"the mean alone needs k ≥ log(r/ε)/(−log(1 − ηλ_min)) iterations (r = {r:.3g}, the "
            f"start's distance along the slowest direction; exact for a chain whose mean "
            f"contracts like LMC's), and lim_(ε→0) of that over {claimed_text} is "
            f"{fmt_limit(lo_lim)}"
        )
        part = decide.order_from_limits(
            f"mixing time: {name}",
            f"{claim}: K(ε) = O({claimed_text}) with the prescribed η",
            claimed=claimed_text,
            lower_limit=as_float(lo_lim),
            upper_limit=as_float(up_lim),
            derivation="sympy limits of closed-form bounds: lower, the mean's contraction "
            "(unbiased-mean chains); upper, the LMC Gaussian bound (LMC only)",
            holds=f"K ≤ K_UB with lim K_UB/({claimed_text}) = {fmt_limit(up_lim)} (closed-form LMC "
            f"bound W2 ≤ Cρᵏ + Bη, ρ = 1 − ηλ_min); {numbers}",
            fails=f"{lb_text}: K = Θ({claimed_text}·log(1/ε)), the log factor is needed"
            + (
                f" (and sufficient: lim K_UB/({claimed_text}·log(1/ε)) = {fmt_limit(up_lim_log)})"
                if up_lim_log is not None
                else ""
            )
            + f"; {numbers}",
            undecided=(
                f"undecided: {lb_text}, finite, so it does not refute; "
                if lo_lim is not None
                else "undecided: no analytic lower bound on K for this chain (its mean is "
                "biased, so the mean bound does not apply); "
            )
            + (
                "and no closed-form upper bound for it (the coupling bound K_UB is numeric on "
                "a finite ε grid, and a fitted exponent cannot tell ε^-a from "
                f"ε^-a·log(1/ε)); {numbers}"
            ),
            counterexample={"chain": name, "eps": epss.tolist(), "K": Ks},
            erratum=_mixing_erratum(claim, claimed_text, name, lo_lim, up_lim_log),
        )
        part.measured["mean-only lower bound on K"] = Measurement(
            mean_lb,
            note="valid for LMC and unbiased-mean (RA) chains"
            if unbiased
            else "not a bound for this chain (biased mean); shown for comparison",
        )
        tol = max(t for _, t in gaps)
        part.measured[f"mean − LMC mean recursion (exact, k ≤ {MEAN_CHECK_STEPS})"] = Measurement(
            [g for g, _ in gaps],
            note=f"at the largest and smallest η; rounding tolerance {tol:.2g}: "
            + ("the mean follows LMC's, so the mean bound applies" if unbiased else "biased mean"),
        )
        if ub_closed is not None:
            part.measured["closed-form upper bound on K (LMC)"] = Measurement(
                [ub_closed.at(float(eta_of_eps(e)), float(e)) for e in epss],
                note=f"⌈log(C/(ε − Bη))/(−log(1 − ηλ_min))⌉, C = {ub_closed.C:.4g}, "
                f"B = {ub_closed.B:.4g}",
            )
            part.measured[f"lim K_UB/({claimed_text}·log(1/ε)) (closed form)"] = Measurement(
                as_float(up_lim_log)
            )
        part.measured.update(
            {
                "eps": Measurement(epss.tolist()),
                "eta": Measurement([eta_of_eps(e) for e in epss]),
                "K": Measurement(Ks, note=kind),
                "fitted exponent of K in ε": Measurement(
                    fit.slope, note="descriptive only: the verdict uses the analytic limits"
                ),
                f"K / ({claimed_text})": Measurement(ratio.tolist()),
                "stationary_w2": Measurement([x["stationary_w2"] for x in res]),
            }
        )
        if not exact:
            part.measured.update(
                {
                    "K_UB": Measurement(
                        Kub, note="K ≤ K_UB, from the LMC-coupling upper bound on W2"
                    ),
                    "fitted exponent of K_UB in ε": Measurement(
                        ub_fit.slope if has_ub else None, note="descriptive only"
                    ),
                    f"K_UB / ({claimed_text})": Measurement(ratio_ub.tolist() if has_ub else None),
                    "stationary_w2 upper bound": Measurement(
                        [x["stationary_w2_upper"] for x in res]
                    ),
                }
            )
        parts.append(part)
        inv = 1.0 / epss
        series.append(
            _series(name if exact else f"{name} K_LB", inv, K, -fit.slope, claimed_exponent)
        )
        if has_ub and not exact:
            series.append(_series(f"{name} K_UB", inv, Kub, -ub_fit.slope, claimed_exponent))
    return parts, series


def _t12_problem():
    return gaussian_differing(N=4, d=2, seed=3)


# --------------------------------------------------------------------------------------
# AGLD-T1
# --------------------------------------------------------------------------------------

T1_BIAS_CHAINS = (
    "lmc",
    "sgld",
    "svrg-ld",
    "saga-ld",
    "ppu-rr",
    "ppu-ca",
    "ptu-ca",
    "tmu-ra",
    "tmu-rr",
    "tmu-ca",
)
T1_MIX_CHAINS = ("lmc", "svrg-ld", "saga-ld", "ppu-ca", "tmu-ra", "tmu-rr")


def _sgld_exact_1d(etas: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact stationary W2 of SGLD on the 1-D analogue ``gaussian_differing(N=4, d=1, seed=3)``.

    SGLD's state is 1-D there, so its stationary law is Nyström's
    (:func:`~sgmcmc_verify.exact.nystrom.stationary_expectations`, AGLD eq. (4))
    and ``W2`` to the target is exact from the monotone map ``G⁻¹∘F``:
    ``W2² ≈ Σ_j w_j π_h(x_j) (x_j − G⁻¹(F(x_j)))²``.  Returns the values and their
    error bounds (quantile table plus the largest moment error of the solve, a
    proxy for the density's).
    """
    prob = gaussian_differing(N=4, d=1, seed=3)
    q = nystrom.target_quantile(prob)
    vals, errs = [], []
    for h in etas:
        law = stationary_expectations(prob, float(h), scheme="sgld", n=n)
        d = law.nodes - q(law.cdf(law.nodes))
        vals.append(math.sqrt(float((law.weights * law.density) @ (d * d))))
        errs.append(q.error + max(law.error.values()))
    return np.array(vals), np.array(errs)


def check_t1(
    *,
    profile: str = "quick",
    seed: int = 0,
    chains: Mapping[str, ChainFactory] | None = None,
    mixing_chains: Mapping[str, ChainFactory] | None = None,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 1: W2 ≤ ε for k ≥ K = O(ε⁻²) with η = O(ε²) (smooth, strongly convex).

    On a 2-D Gaussian with differing component curvatures (N = 4, n = 2):

    * stationary W2 bias against η (exact for LMC, Gelbrich lower bound for the
      rest); the theorem needs bias = O(η^{1/2});
    * ``K(ε)`` from ``θ_0 = μ + (2, 2)`` with ``η = ε²/2``.
    """
    problem = _t12_problem()
    n = 2
    quick = profile == "quick"
    bias_names = ("lmc", "sgld", "svrg-ld", "saga-ld", "ppu-ca") if quick else T1_BIAS_CHAINS
    mix_names = ("lmc", "svrg-ld", "ppu-ca") if quick else T1_MIX_CHAINS
    chains_default = chains is None
    chains = dict(default_chains(bias_names, n) if chains is None else chains)
    mixing = dict(default_chains(mix_names, n) if mixing_chains is None else mixing_chains)
    etas = np.array([0.08, 0.04, 0.02, 0.01] + ([] if quick else [0.005]))
    epss = np.array([0.4, 0.28, 0.2, 0.14] + ([] if quick else [0.1]))
    theta0 = problem.exact["mean"].value + 2.0
    parts, bias_series = _bias_part("AGLD-T1", problem, chains, etas, 0.5)
    if chains_default and "sgld" in chains:
        # SGLD's state is 2-D here; on the 1-D analogue its W2 is exact (Nyström).
        ex, ex_err = _sgld_exact_1d(etas, n)
        ex_local = _local_slope(etas, ex)
        i = next(i for i, p in enumerate(parts) if p.name == "stationary bias: sgld")
        parts[i].measured["exact W2 bias, 1-D analogue"] = Measurement(
            ex.tolist(),
            stderr=None,
            note=f"gaussian_differing(N=4, d=1, seed=3), Nyström stationary law, W2 exact in "
            f"1-D; error ≤ {max(ex_err):.1g}",
        )
        parts[i].measured["exact 1-D local slope"] = Measurement(ex_local)
        parts[i] = dataclasses.replace(
            parts[i],
            reading=parts[i].reading + f"; on the 1-D analogue (where SGLD's W2 is exact by "
            f"Nyström) the bias decays like η^{ex_local:.2f}: the coupling bound's η^1/2 is loose",
        )
        bias_series.append(_series("sgld, 1-D analogue (exact)", etas, ex, ex_local, 0.5))
    mix_parts, mix_series = _mixing_part(
        "AGLD-T1",
        problem,
        mixing,
        epss,
        lambda e: 0.5 * e * e,
        lambda e: e**-2.0,
        "ε⁻²",
        2.0,
        theta0,
        (EPS_SYM**2 / 2, EPS_SYM**-2),
    )
    parts += mix_parts
    return parts, {
        "problem": "gaussian_differing(N=4, d=2, seed=3)",
        "n": n,
        "eta": etas.tolist(),
        "eps": epss.tolist(),
        "eta_of_eps": "ε²/2",
        "theta0": "μ + (2, 2)",
        "alpha": None,
        "note": "exact moments; no statistical test (α not spent)",
        "figure_data": _figures("AGLD-T1", bias_series, 0.5, mix_series, 2.0, "ε²/2"),
    }


def _figures(claim, bias_series, implied, mix_series, exponent, eta_text) -> dict[str, Any]:
    """The two ``loglog_fit`` figures of T1/T2: stationary bias against η, K against 1/ε."""
    key = claim.lower().replace("-", "_")
    return {
        f"{key}_bias": {
            "kind": "loglog_fit",
            "title": f"{claim}: stationary W2 bias against η (exact; bounds for AGLD)",
            "xlabel": "η",
            "ylabel": "W2(stationary law, p*)",
            "series": bias_series,
            "reference_slopes": sorted({implied, 1.0}),
        },
        f"{key}_mixing": {
            "kind": "loglog_fit",
            "title": f"{claim}: W2 mixing time K(ε) at η = {eta_text} (exact; bounds for AGLD)",
            "xlabel": "1/ε",
            "ylabel": "K(ε)",
            "series": mix_series,
            "reference_slopes": [exponent],
        },
    }


# --------------------------------------------------------------------------------------
# AGLD-T2
# --------------------------------------------------------------------------------------

T2_CHAINS = ("lmc", "svrg-ld", "saga-ld", "tmu-ra")


def check_t2(
    *,
    profile: str = "quick",
    seed: int = 0,
    chains: Mapping[str, ChainFactory] | None = None,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 2: with a Lipschitz Hessian and RA, K = O(log(1/ε)/ε) with η = O(ε).

    Gaussian targets have a constant Hessian (L = 0), so Assumption 3 holds
    trivially.  Stationary bias must be O(η); ``K(ε)`` with ``η = cε``, ``c``
    chosen from LMC's bias so that the stationary bias stays below ε/4.
    """
    problem = _t12_problem()
    names = T2_CHAINS[:3] if profile == "quick" else T2_CHAINS
    chains = dict(default_chains(names, 2) if chains is None else chains)
    etas = np.array([0.08, 0.04, 0.02, 0.01])
    parts, bias_series = _bias_part("AGLD-T2", problem, chains, etas, 1.0)
    b = stationary_w2(em.affine_chain("lmc", problem, h=0.01), problem) / 0.01
    c = min(0.25 / (4 * b), 0.2)
    epss = np.array([0.3, 0.2, 0.14, 0.1] if profile == "quick" else [0.3, 0.2, 0.14, 0.1, 0.07])
    theta0 = problem.exact["mean"].value + 2.0
    mix_parts, mix_series = _mixing_part(
        "AGLD-T2",
        problem,
        chains,
        epss,
        lambda e: c * e,
        lambda e: np.log(1 / e) / e,
        "log(1/ε)/ε",
        1.0,
        theta0,
        (sp.nsimplify(c) * EPS_SYM, sp.log(1 / EPS_SYM) / EPS_SYM),
    )
    parts += mix_parts
    return parts, {
        "problem": "gaussian_differing(N=4, d=2, seed=3)",
        "n": 2,
        "eta": etas.tolist(),
        "eps": epss.tolist(),
        "eta_of_eps": f"{c:.4g}·ε",
        "alpha": None,
        "figure_data": _figures("AGLD-T2", bias_series, 1.0, mix_series, 1.0, f"{c:.3g}ε"),
    }


# --------------------------------------------------------------------------------------
# AGLD-T3
# --------------------------------------------------------------------------------------


#: The small instance on which TMU-RA's exact mean is compared with LMC's recursion (the
#: step AGLD-T3's mean bound rests on): N = 4, n = 2, D = N (Theorem 3's D), h = 0.05.
T3_MEAN_CHECK: dict[str, Any] = {
    "N": 4,
    "d": 2,
    "seed": 3,
    "n": 2,
    "D": 4,
    "h": 0.05,
    "theta0": (2.0, -1.0),
}


def _tmu_ra_small(problem: GaussianQuadratic, h: float) -> em.AffineChain:
    """TMU-RA on the small instance of :data:`T3_MEAN_CHECK` (n = 2, D = N)."""
    return em.affine_chain("tmu-ra", problem, h=h, n=T3_MEAN_CHECK["n"], D=T3_MEAN_CHECK["D"])


def check_t3(
    *,
    profile: str = "quick",
    seed: int = 0,
    ra_chain: Callable[[GaussianQuadratic, float], em.AffineChain] | None = None,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 3: TMU-RA, K = O(κ^{3/2}√d/(nε)) with η < εn√μ/(M√d N), n ≥ 9, D = N.

    The step everything rests on: TMU-RA's estimator is unbiased given the past (``S_k``
    is fresh), so on a Gaussian-quadratic target ``E x^(k)`` follows
    ``E x' = E x − ηΛ(E x − μ)`` exactly, whatever n, N, D — proved in
    :func:`sgmcmc_verify.proofs.agld_theorem1.ra_steps` and measured here on the
    implementation (exact moments of TMU-RA at N = 4, n = 2, D = N against LMC's mean
    recursion, :func:`lmc_mean_gap`).  Hence ``W2(p^(k), p*) ≥ ‖E x^(k) − μ‖`` and
    ``K ≥ log(r/ε)/(−log(1 − ηλ_min))`` for every start with a mean offset ``r > 0`` along
    the slowest direction: an exact lower bound on the true K (no enumeration of the
    ``C(N+n−1, n)`` batches, so n ≥ 9 is no obstacle).  It decreases in η, so its value at
    Theorem 3's (strict) bound on η is a lower bound at every permitted η.  Targets:
    ``Λ = diag(μ, M̄, …)``-type precisions with controlled κ, start ``x0 = μ* + 1``.

    ``ra_chain(problem, h)`` replaces the small TMU-RA chain of the mean check (tests:
    a chain with a biased mean must leave the ε part undecided).
    """
    n, N = 9, 9
    regime = REGIMES["AGLD-T3"]
    # The load-bearing step: proved (sympy) and measured on the implementation.
    ra = {s.name: s for s in ra_steps()}
    small = gaussian_differing(
        N=T3_MEAN_CHECK["N"], d=T3_MEAN_CHECK["d"], seed=T3_MEAN_CHECK["seed"]
    )
    chain_small = (ra_chain or _tmu_ra_small)(small, T3_MEAN_CHECK["h"])
    gap, gap_tol = lmc_mean_gap(chain_small, small, T3_MEAN_CHECK["theta0"])
    mean_like_lmc = all(s.holds for s in ra.values()) and gap <= gap_tol
    mean_fact = {
        "TMU-RA mean − LMC mean recursion (exact)": Measurement(
            gap,
            note=f"{chain_small.description}; problem and start: {T3_MEAN_CHECK}, "
            f"k ≤ {MEAN_CHECK_STEPS}; rounding tolerance {gap_tol:.2g}",
        ),
        "RA: E[g | F_k] = ∇f(x_k) (sympy)": Measurement(
            all(s.holds for s in ra.values()),
            note="proofs.agld_theorem1.ra_steps: " + "; ".join(ra),
        ),
    }

    def K_lb(eps, mu, Mbar, d):
        # κ = M̄/μ with M̄ = N·M the smoothness of f (per-component M = M̄/N), so η at
        # Theorem 3's bound εn√μ/(M√d N) = εn√μ/(M̄√d); capped at 1/M̄ for stability.
        eta = min(eps * n * math.sqrt(mu) / ((Mbar / N) * math.sqrt(d) * N), 1.0 / Mbar)
        return mean_lower_bound_K(eps, eta, mu, 1.0)  # x0 − μ* = (1, …, 1): r = 1

    epss = np.array([0.1, 0.05, 0.02, 0.01, 0.005])
    kappas = np.array([10.0, 30.0, 100.0, 300.0, 1000.0])
    ds = np.array([1, 4, 16, 64, 256])
    K_eps = np.array([K_lb(e, 1.0, 100.0, 4) for e in epss], float)
    K_kmu = np.array([K_lb(0.01, 100.0 / k, 100.0, 4) for k in kappas], float)
    K_kM = np.array([K_lb(0.01, 1.0, k, 4) for k in kappas], float)
    K_d = np.array([K_lb(0.01, 1.0, 100.0, int(d)) for d in ds], float)
    # descriptive exponents (reported, decide nothing: issue 12)
    f_kmu = fit_order(kappas, K_kmu, alpha=ALPHA)
    f_kM = fit_order(kappas, K_kM, alpha=ALPHA)
    f_d = fit_order(ds.astype(float), K_d, alpha=ALPHA)
    f_eps = fit_order(epss, K_eps, alpha=ALPHA)
    ratio_eps = K_eps * epss
    claimed_kd = kappas**1.5 * 2 / (n * 0.01)  # κ^{3/2}√d/(nε) at d = 4, ε = 0.01
    # κ = M/μ with M the per-component smoothness (the catalogue's regime): vary N at fixed
    # M = 10, μ = 1, d = 4, ε = 0.01; η at Theorem 3's bound εn√μ/(M√d N) = 0.0045/N.
    Ns = np.array([9, 18, 36, 72])
    K_N = [mean_lower_bound_K(0.01, 0.01 * n * 1.0 / (10.0 * 2.0 * NN), 1.0, 1.0) for NN in Ns]
    f_N = fit_order(Ns.astype(float), np.array(K_N, float), alpha=ALPHA)
    N_sym = sp.Symbol("N", positive=True)
    K_N_expr = mean_lower_bound_expr(
        sp.Integer(1), sp.Integer(1), sp.Rational(n, 2000) / N_sym, sp.Rational(1, 100)
    )
    slope_N = sp.limit(K_N_expr / N_sym, N_sym, sp.oo)  # lim K_LB/N as N → ∞
    # η = c·(Theorem 3's bound) = c·9ε/200 at μ = 1, M̄ = 100, d = 4, n = 9 (below the 1/M̄
    # cap for ε ≤ 0.1); the bound is strict, so every c ∈ (0, 1) is permitted.
    c_sym = sp.Symbol("c", positive=True)
    eta_eps = c_sym * sp.Rational(n, 100 * 2) * EPS_SYM
    lo_lim = mean_bound_limit(1.0, 1.0, eta_eps, 1 / EPS_SYM)
    no_r = "for every start with a mean offset r > 0 along the slowest direction"
    n_measured = {
        "regime (paper)": Measurement(regime),
        "N": Measurement(Ns.tolist()),
        "K_LB(N)": Measurement(K_N, note="M = 10 per component, μ = 1, d = 4, ε = 0.01"),
        "lim K_LB/N (N → ∞)": Measurement(float(slope_N), note=f"sympy: {slope_N}"),
        "exponent in N": Measurement(f_N.slope, note="descriptive only"),
        **mean_fact,
    }
    n_part = (
        # The two readings of κ give opposite answers, and the extracted text cannot tell
        # them apart: a counterexample under one reading of an ambiguous symbol qualifies the
        # statement (it holds only under the other reading), it does not refute it.
        decide.exact_comparison(
            "N dependence (reading of κ)",
            "no N in K = O(κ^{3/2}√d/(nε)): the exact mean lower bound stays bounded as N grows "
            "at fixed κ, d, n, ε (searched: N ∈ "
            f"{Ns.tolist()} and the sympy limit K_LB/N as N → ∞, per-component M = 10, μ = 1, "
            "d = 4, n = 9, ε = 0.01, η at Theorem 3's bound 0.0045/N)",
            value=float(slope_N),
            target=0.0,
            relation="<=",
            holds="the exact lower bound stays bounded as N grows",
            fails="η < εn√μ/(M√d N) carries 1/N, and with κ = M/μ for the per-component M of "
            "Assumption 1 the exact lower bound grows linearly in N at fixed κ, d, n, ε "
            f"(lim K_LB/N = {float(slope_N):.4g}; N^{f_N.slope:.2f} on the grid); with κ read "
            "as f's condition number M̃/μ (M̃ = NM, Assumption 1's second constant) the N "
            "cancels.  The O of Theorem 3 does not hide N (Remark 2 hides μ, L, N for Theorem 1; "
            "Theorem 3 is 'a more concrete form' and Remark 3 writes T_g = O(N + κ^{3/2}√d/ε))",
            failed_verdict="qualified",
            why_not_refuted="the statement fails only under one reading of κ: the extracted "
            "text drops the diacritic that separates the per-component M from f's M̃ = NM "
            "(Assumption 1: 'f is M-smooth with M = MN'), and under κ = M̃/μ the N cancels",
            measured=n_measured,
            counterexample={"N": Ns.tolist(), "K_LB(N)": K_N, "lim K_LB/N": float(slope_N)},
            erratum=decide.Erratum(
                corrected="state which M κ uses: with κ = M/μ (per-component M) K = "
                "Ω(N·log(1/ε)/ε) at fixed κ, d, n (the mean bound), so the bound needs a factor "
                "growing with N; with κ = M̃/μ, M̃ = NM the smoothness of f, the N cancels in the "
                "mean bound and the statement (with its log(1/ε)) may hold — not verified here",
                failing_step="AGLD Theorem 3: κ = M/μ together with η < εn√μ/(M√d N); "
                "Assumption 1 defines both M (each f_i) and M̃ = NM (f)",
                command="sgmcmc-verify check AGLD-T3 --seed 0",
                regime=regime,
            ),
        )
        if mean_like_lmc and slope_N > 0
        else decide.not_checkable(
            "N dependence (reading of κ)",
            "no N in K = O(κ^{3/2}√d/(nε))",
            "a lower bound that does not grow with N cannot show that K does not",
            measured=n_measured,
            would_decide="an upper bound on TMU-RA's K",
        )
        if mean_like_lmc
        else decide.not_checkable(
            "N dependence (reading of κ)",
            "no N in K = O(κ^{3/2}√d/(nε))",
            "the mean lower bound does not apply: the small TMU-RA chain's exact mean does not "
            f"follow LMC's recursion (gap {gap:.3g} > rounding {gap_tol:.2g})",
            measured=mean_fact,
            would_decide="an exact mean of TMU-RA that follows LMC's (as proofs.agld_theorem1."
            "ra_steps proves), or an upper bound on K",
        )
    )
    parts = [
        decide.not_checkable(
            "kappa and d dependence",
            "K = O(κ^{3/2}√d/(nε)): at most κ^{3/2}√d growth of TMU-RA's K",
            "an upper bound on TMU-RA's K is claimed, and only a lower bound (the mean's "
            "contraction) is available: at the prescribed η it grows like "
            f"κ^{f_kmu.slope:.2f} (κ through μ), κ^{f_kM.slope:.2f} (through M̄) and "
            f"d^{f_d.slope:.2f} — the prescribed η is consistent with the κ^{{3/2}}√d bound (the "
            "mean lower bound does not exceed it; that follows from η's form by algebra, with no "
            "TMU-RA quantity in it), but a chain whose K scales worse would not be detected",
            measured={
                "kappa": Measurement(kappas.tolist()),
                "K_LB(kappa), kappa via mu": Measurement(
                    K_kmu.tolist(), note="M̄ = 100, μ = 100/κ, ε = 0.01, d = 4"
                ),
                "exponent in kappa via mu": Measurement(f_kmu.slope, note="descriptive only"),
                "K_LB(kappa), kappa via M": Measurement(
                    K_kM.tolist(), note="μ = 1, M̄ = κ, ε = 0.01, d = 4"
                ),
                "exponent in kappa via M": Measurement(f_kM.slope, note="descriptive only"),
                "K_LB / (κ^{3/2}√d/(nε)), kappa via mu": Measurement(
                    (K_kmu / claimed_kd).tolist(), note="≈ log(r/ε)/√M̄ = 0.46: bounded"
                ),
                "d": Measurement(ds.tolist()),
                "K_LB(d)": Measurement(K_d.tolist(), note="ε = 0.01, κ = 100"),
                "exponent in d": Measurement(f_d.slope, note="descriptive only"),
            },
            would_decide="an upper bound on TMU-RA's K: its exact second moments at n ≥ 9 "
            "(see the part 'TMU-RA chain itself')",
        ),
        decide.order_from_limits(
            "epsilon dependence",
            "K = O(1/ε) at η ∝ ε",
            claimed="1/ε",
            lower_limit=as_float(lo_lim) if mean_like_lmc else None,
            upper_limit=None,
            derivation="sympy limit of the mean lower bound log(r/ε)/(−log(1 − ημ)) "
            "(proofs.agld_theorem1.mean_lower_bound_expr), which holds because TMU-RA's mean "
            "follows LMC's (proofs.agld_theorem1.ra_steps, and measured: see 'TMU-RA mean − LMC "
            "mean recursion'), at η = c·(Theorem 3's bound) = c·9ε/200, any c > 0 "
            "(κ = 100, d = 4, n = 9, r = 1)",
            holds="",
            fails=f"K ≥ log(r/ε)/(−log(1 − ημ)) with η = c·9ε/200, so K·ε → ∞ (lim = "
            f"{fmt_limit(lo_lim)} for every c > 0): the literal O(1/ε) fails {no_r}, at every "
            f"permitted η; on the grid (η at the bound, c = 1, which bounds every permitted η's "
            f"K_LB from below) K_LB·ε grows from {ratio_eps[0]:.3g} to {ratio_eps[-1]:.3g} like "
            "log(1/ε)",
            undecided="the mean lower bound does not apply: the small TMU-RA chain's exact mean "
            f"does not follow LMC's recursion (gap {gap:.3g} > rounding {gap_tol:.2g})",
            measured={
                "eps": Measurement(epss.tolist()),
                "K_LB": Measurement(
                    K_eps.tolist(), note="κ = 100, d = 4, η at the bound (c = 1), exact bound"
                ),
                "exponent in eps": Measurement(f_eps.slope, note="descriptive only"),
                "K_LB·ε": Measurement(ratio_eps.tolist()),
                **mean_fact,
            },
            counterexample={"eps": epss.tolist(), "K_LB": K_eps.tolist(), "r": 1.0},
            erratum=decide.Erratum(
                corrected="necessary: K = Ω(log(1/ε)/ε) at every permitted η (η = c·εn√μ/"
                f"(M√d N), any c ∈ (0, 1)), {no_r}, so the log(1/ε) factor of Theorem 2 cannot "
                "be dropped in Theorem 3.  Whether K = O(κ^{3/2}√d·log(1/ε)/(nε)) (the "
                "paper's bound with the log restored) suffices is not verified here: no upper "
                "bound on TMU-RA's K is checked",
                failing_step="AGLD Theorem 3: 'K = O(κ^{3/2}√d/(nε))' (the O hides no log(1/ε))",
                command="sgmcmc-verify check AGLD-T3 --seed 0",
                regime=regime,
            ),
        ),
        n_part,
        decide.not_checkable(
            "TMU-RA chain itself",
            "W2(p^(k), p*) ≤ ε for TMU-RA with n ≥ 9, D = N",
            "exact moments of TMU-RA with n ≥ 9 need the C(N+n−1, n) = 24310 batch maps of a "
            "(1 + (N+1)d)²-dimensional moment recursion per step; only the exact mean "
            "recursion is used (proved for every RA scheme, proofs.agld_theorem1.ra_steps, and "
            "measured on TMU-RA at N = 4, n = 2, D = N)",
            measured={"batches per step (N = n = 9, RA)": Measurement(math.comb(17, 9))},
            would_decide="a moment recursion over the batch law instead of its support (the "
            "batch enters the second moments only through a few pair probabilities)",
        ),
    ]
    return parts, {"n": n, "N": N, "D": N, "mu": 1.0, "alpha": None}


# --------------------------------------------------------------------------------------
# AGLD-T4
# --------------------------------------------------------------------------------------


def _lam_paper(eps: float, U_hat: float, d: int) -> float:
    return 4 * eps * eps / (U_hat * d * d)


def _quartic_w2(lam: float, x: np.ndarray) -> float:
    F = density_cdf(x, -(x**4) / 4)
    G = density_cdf(x, -(x**4) / 4 - lam * x * x / 2)
    return w2_1d(x, F, G)


def check_t4(
    *,
    profile: str = "quick",
    seed: int = 0,
    lam_rule: Callable[[float, float, int], float] = _lam_paper,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 4's construction: W2(p̂*, p*) ≤ ε/2 with λ = 4ε²/(Ûd²), E‖x‖⁴ ≤ Ûd².

    * Gaussians (exact W2, p̂* Gaussian too): 2-D with one tiny-curvature
      direction, and a search over 1-D ``N(m, 1)`` (scale-invariant) for the
      worst ratio ``W2/(ε/2)``.
    * ``U = x⁴/4`` (convex, not strongly): ``E x⁴ = 1``, W2 by quantile functions
      on a 40001-point grid (error O(Δx²) ≈ 1e-8).
    """
    epss = np.array([2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02])
    parts = []

    # Gaussian with one tiny-curvature direction, offset mean.
    worst = {}
    for delta in (1e-1, 1e-2, 1e-3):
        prec = np.array([1.0, delta])
        m = np.array([1.0, 0.0])
        cov = 1 / prec
        EX4 = float((np.sum(cov) + m @ m) ** 2 + 2 * np.sum(cov**2) + 4 * np.sum(cov * m * m))
        ratios = []
        for e in epss:
            lam = lam_rule(e, EX4 / 4, 2)
            mh = prec * m / (prec + lam)
            w = gaussian_w2(m, np.diag(cov), mh, np.diag(1 / (prec + lam)))
            ratios.append(w / (e / 2))
        worst[delta] = ratios
    gmax = max(max(r) for r in worst.values())
    parts.append(
        decide.exact_comparison(
            "Gaussian, tiny curvature",
            "W2(p̂*, p*) ≤ ε/2",
            value=gmax,
            target=1.0,
            relation="<=",
            tol=decide.rounding_tolerance(1.0, 64),
            tol_source="float64 rounding of the closed-form Gaussian W2 (2-D)",
            holds=f"largest ratio W2/(ε/2) {gmax:.3g} ≤ 1 over the ε grid and curvatures",
            fails=f"largest ratio W2/(ε/2) {gmax:.3g} > 1",
            measured={
                "eps": Measurement(epss.tolist()),
                **{
                    f"W2/(ε/2), curvature {k:g}": Measurement(
                        v, note="exact (Gaussian closed form)"
                    )
                    for k, v in worst.items()
                },
            },
            counterexample={"ratios": worst},
        )
    )

    # Worst case over 1-D Gaussians N(m, 1) (scale invariance: W2/ε is invariant).
    def neg_ratio(p):
        m, le = p
        e = math.exp(le)
        U = m**4 + 6 * m * m + 3
        lam = lam_rule(e, U, 1)
        w = math.hypot(m - m / (1 + lam), 1 - 1 / math.sqrt(1 + lam))
        return -w / (e / 2)

    best = min(
        (
            scipy.optimize.minimize(neg_ratio, [m0, le0], method="Nelder-Mead")
            for m0 in (0.0, 1.0, 3.0)
            for le0 in (-2.0, 0.0, 2.0)
        ),
        key=lambda r: r.fun,
    )
    r1 = -best.fun
    at = {"m": float(best.x[0]), "eps": math.exp(best.x[1]), "ratio": r1}
    parts.append(
        decide.counterexample_search(
            "Gaussian worst case (1-D search)",
            "W2(p̂*, p*) ≤ ε/2 for every N(m, σ²)",
            regime=REGIMES["AGLD-T4"] + "; this part: 1-D Gaussian targets N(m, σ²), Û = E x⁴",
            searched="sup over (m/σ, log ε/σ) of W2/(ε/2) by Nelder–Mead from 9 starts, exact "
            "W2 (W2/ε is scale-invariant, so N(m, 1) covers every N(m, σ²))",
            in_regime=at if r1 > 1 else None,
            holds=f"largest ratio {r1:.3g} ≤ 1 over the search",
            fails=f"ratio {r1:.3g} > 1 at m/σ = {at['m']:.3g}, ε/σ = {at['eps']:.3g}",
            measured={
                "sup W2/(ε/2)": Measurement(r1, note="Nelder–Mead from 9 starts, exact W2"),
                "at (m/σ, ε/σ)": Measurement([at["m"], at["eps"]]),
            },
        )
    )

    # U = x⁴/4.
    x = np.linspace(-7, 7, 40001)
    qr = []
    for e in epss:
        lam = lam_rule(e, 1.0, 1)
        qr.append(_quartic_w2(lam, x) / (e / 2))
    qmax = max(qr)
    parts.append(
        decide.exact_comparison(
            "U = x⁴/4",
            "W2(p̂*, p*) ≤ ε/2 with Û = E x⁴ = 1",
            value=qmax,
            target=1.0,
            relation="<=",
            tol=1e-6,
            tol_source="quadrature: CDFs on a 40001-point grid, W2 error O(Δx²) ≈ 1e-8, over "
            "ε/2 ≥ 0.01",
            holds=f"largest ratio {qmax:.3g}; W2 ∝ λ ∝ ε², far below ε/2 for small ε",
            fails=f"largest ratio {qmax:.3g} > 1",
            measured={
                "eps": Measurement(epss.tolist()),
                "W2/(ε/2)": Measurement(qr, note="quantile functions, grid [−7, 7], Δx = 3.5e-4"),
            },
            counterexample={"eps": epss.tolist(), "ratio": qr},
        )
    )
    return parts, {"eps": epss.tolist(), "alpha": None}


# --------------------------------------------------------------------------------------
# AGLD-T5
# --------------------------------------------------------------------------------------


def _dw_coeffs() -> np.ndarray:
    """``(θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5`` in increasing powers."""
    c = np.polynomial.polynomial.polyfromroots([-4, -1, 1, 3]) / 14
    c[0] += 0.5
    return c


#: T5's prescribed step size ``η = T5_C·ε⁴`` (Theorem 5 fixes only the order; at
#: ``ε = 0.5`` this is ``η ≈ 0.031``, where LMC's stationary bias is ``≈ 0.027``).
T5_C = 0.5
#: T5's start: the bottom of the minor (right) well's slope, so ~74% of the mass must
#: cross the barrier: the slow mode of the nonconvex chain is fully excited.
T5_X0 = 2.5
#: Tolerance on the exponent of ``K`` in ``1/ε``.  The ``K`` are exact to about one
#: step (``K_uncertainty``), i.e. the exponent to < 1e-3; 0.05 only absorbs
#: sub-leading terms of a pure ``ε⁻⁴`` law.
T5_EXPONENT_TOL = 0.05
#: Relative tolerance of the log-factor test: β·r = 1 and β not accelerating, up to the
#: O(1/log(1/ε)) sub-leading terms of Kη = log(c/ε)/r + O(1) (β·r = 1.00 at the smallest ε
#: of the full grid).
T5_LOG_TOL = 0.1
#: Split of the double well into ``N = 2`` data terms for the SGLD stand-in.
T5_SPLIT = 0.25


def split_double_well(coeffs: np.ndarray | None = None, a: float = T5_SPLIT) -> PolynomialSum1D:
    """``U`` as ``N = 2`` data terms ``f_{1,2} = U/2 ± aθ²/2``: a nonconvex finite sum.

    ``Σ f_i = U`` (the double well by default), and the minibatch gradient of SGLD
    with ``n = 1`` (AGLD eq. (4)) is ``U'(θ) ± 2aθ``: state-dependent noise with
    the right mean.  Used for AGLD-T5 as the 1-D stand-in for AGLD with ``N > 1``,
    whose snapshot table makes the state ``(N+1)``-dimensional.

    Parameters
    ----------
    coeffs : ndarray, optional
        ``U`` in increasing powers; default :func:`_dw_coeffs`.
    a : float
    """
    c = _dw_coeffs() if coeffs is None else np.asarray(coeffs, dtype=np.float64)
    q = np.zeros_like(c)
    q[2] = a / 2
    # exact=False: the target's exact values come from the unsplit problem
    return PolynomialSum1D(
        [c / 2 + q, c / 2 - q], name=f"double-well split ±{a:g}θ²/2", exact=False
    )


def _t5_mixing(
    label: str,
    problem,
    quantile,
    epss: np.ndarray,
    check: float,
    **kw: Any,
) -> tuple[Part, dict[str, Any]]:
    """``K(ε)`` at ``η = T5_C·ε⁴`` from ``T5_X0`` by Nyström propagation; Part + figure series."""
    etas = T5_C * epss**4
    res = [
        nystrom.w2_mixing_time(problem, float(h), T5_X0, float(e), quantile, check=check, **kw)
        for e, h in zip(epss, etas, strict=True)
    ]
    Ks = [r.K for r in res]
    expectation = f"AGLD-T5: K(ε) = O(ε⁻⁴) with η = {T5_C:g}·ε⁴ (W2, from θ0 = {T5_X0:g})"
    if any(k is None for k in Ks):
        stat = [r.stationary_w2 for r in res]
        part = _no_mixing_part(
            f"mixing time K(ε): {label}",
            expectation,
            stat,
            epss,
            {
                "eps": Measurement(epss.tolist()),
                "eta": Measurement(etas.tolist()),
                "K": Measurement(Ks),
                "stationary W2 of the chain": Measurement(
                    stat, note="W2(π_η, p*), π_η the chain's own stationary law (Nyström, GTH)"
                ),
            },
            {"eps": epss.tolist(), "eta": etas.tolist(), "K": Ks},
        )
        return part, {"label": label, "x": [], "y": []}
    K = np.array(Ks, float)
    inv = 1.0 / epss
    slope = float(np.polyfit(np.log(inv), np.log(K), 1)[0])
    local = np.diff(np.log(K)) / np.diff(np.log(inv))
    T = K * etas  # diffusion time
    beta = np.diff(T) / np.diff(np.log(inv))  # growth of T per unit log(1/ε)
    # W2 decay rate in diffusion time along the scan, between 2ε and ε/2 (slow mode)
    rates = []
    for r in res:
        t = np.array(r.path_k, float) * r.h
        w = np.array(r.path_w2)
        sel = (w < 2 * r.eps) & (w > 0.5 * r.eps)
        rates.append(float(-np.polyfit(t[sel], np.log(w[sel]), 1)[0]) if sel.sum() >= 3 else None)
    unc = [r.K_uncertainty for r in res]
    agree = all(r.K_check is not None and abs(r.K_check - r.K) <= 1 for r in res)
    rate = next((x for x in reversed(rates) if x), math.nan)
    # The log model K·η = log(c/ε)/r + O(1), with r the W2 decay rate measured along the
    # path, predicts β → 1/r: a power excess ε^−(4+a) instead makes β grow like ε^−a, with
    # no tie to r.  Both must hold: β·r within T5_LOG_TOL of 1 at the smallest ε, and β
    # not accelerating (β[-1] ≤ β[0] up to the same tolerance).
    beta_r = float(beta[-1] * rate) if math.isfinite(rate) else math.nan
    logish = bool(abs(beta_r - 1.0) <= T5_LOG_TOL and beta[-1] <= (1 + T5_LOG_TOL) * beta[0])
    lo_lim = diffusion_time_limit(T5_C * EPS_SYM**4, EPS_SYM**-4)
    numbers = (
        f"measured: K ∝ ε^-{slope:.2f} on the grid (local exponents {local[0]:.2f} → "
        f"{local[-1]:.2f}; descriptive only), diffusion time Kη {T[0]:.1f} → {T[-1]:.1f}, "
        f"growing by β = {beta[-1]:.1f} per unit log(1/ε) with β·r = {beta_r:.3f}, r ≈ "
        f"{rate:.3g} the W2 decay rate (the log model Kη = log(c/ε)/r + O(1) predicts 1; "
        + ("consistent" if logish else f"not within {T5_LOG_TOL}")
        + ")"
        + ("" if agree else "; BUT the check solve disagrees on K by more than one step")
    )
    part = decide.order_from_limits(
        f"mixing time K(ε): {label}",
        expectation,
        claimed="ε⁻⁴",
        lower_limit=as_float(lo_lim),
        upper_limit=None,
        derivation="diffusion-time bound (diffusion_time_limit): K·η → ∞ for any chain that "
        "converges to the Langevin diffusion on finite horizons as η → 0",
        holds="",
        fails="with η = Θ(ε⁴), K = O(ε⁻⁴) would keep the diffusion time Kη bounded, but from a "
        "point start the Langevin diffusion is at W2 > 0 from p* at every finite time, and the "
        "chain converges to it on finite horizons as η → 0: Kη → ∞, so K/ε⁻⁴ → ∞ whatever "
        "the start (analytic; independent of the ε grid).  How fast Kη grows (the log(1/ε) "
        "of an exponentially mixing diffusion, as in Raginsky et al. 2017) is not proved "
        "here: " + numbers,
        undecided="the diffusion-time bound does not apply: " + numbers,
        counterexample={"eps": epss.tolist(), "eta": etas.tolist(), "K": Ks},
        erratum=decide.Erratum(
            corrected="K(ε)·η → ∞ as ε → 0, so K ≠ O(ε⁻⁴) with η = Θ(ε⁴); the statement "
            "needs the extra factor of the diffusion's own mixing time, log(1/ε) for an "
            "exponentially mixing diffusion: K = O(ε⁻⁴·log(1/ε)) = Õ(ε⁻⁴)",
            failing_step="AGLD Theorem 5: 'K = O(ε⁻⁴) with η = O(ε⁴)' (the O hides μ, L, N, "
            "§4, not log(1/ε))",
            command="sgmcmc-verify check AGLD-T5 --seed 0",
            regime=REGIMES["AGLD-T5"] + "; checked on the SGNHT double well from θ0 = 2.5",
        ),
    )
    part.measured.update(
        {
            "eps": Measurement(epss.tolist()),
            "eta": Measurement(etas.tolist(), note=f"η = {T5_C:g}·ε⁴"),
            "K": Measurement(
                Ks, note="Nyström propagation, exact W2 (monotone map); ± K uncertainty"
            ),
            "K uncertainty (steps)": Measurement(
                unc, note="W2 error estimate over the last step's drop in W2"
            ),
            "K from the check solve": Measurement(
                [r.K_check for r in res], note=f"{check:g}× the nodes"
            ),
            "W2 error estimate at K": Measurement([r.error for r in res]),
            "nodes": Measurement([r.n_nodes for r in res]),
            "exponent of K in 1/ε": Measurement(
                slope, note="least squares over the ε grid, exact values (no CI: nothing random)"
            ),
            "local exponents": Measurement(local.tolist(), note="between neighbouring ε"),
            "K·ε⁴": Measurement((K * epss**4).tolist()),
            "diffusion time K·η": Measurement(T.tolist()),
            "growth of K·η per unit log(1/ε)": Measurement(beta.tolist()),
            "W2 decay rate in diffusion time": Measurement(
                rates, note="least squares of log W2 on kη over the scan points in (ε/2, 2ε)"
            ),
            "monotone after the crossing": Measurement([r.monotone_after for r in res]),
            "stationary W2 of the chain": Measurement(
                [r.stationary_w2 for r in res], note="W2(π_η, p*), π_η by Nyström (GTH)"
            ),
            "W2 ≤ ε certified from k": Measurement(
                [r.certified_from for r in res],
                note="W2(π_η, p*) + 2L·√TV(p_k, π_η) ≤ ε there, and TV never increases",
            ),
        }
    )
    series = {
        "label": label,
        "x": inv.tolist(),
        "y": K.tolist(),
        "yerr": [float(u) for u in unc],
        "slope": slope,
        "slope_ci": None,
        "claimed_slope": 4.0,
    }
    return part, series


def check_t5(
    *,
    profile: str = "quick",
    seed: int = 0,
    chain_problem: Any = None,
    noise: float = 1.0,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 5 (nonconvex, dissipative): W2(p_k, p*) ≤ ε for k ≥ K = O(ε⁻⁴), η = O(ε⁴).

    AGLD §4.3, Theorem 5 (metric: W2, AGLD §2.1).  On the SGNHT double well
    (``N = 1``: every AGLD variant's estimator (6) is then
    ``∇f_1(x) − α_1 + α_1 = ∇U(x)``, i.e. AGLD *is* LMC):

    * stationary bias: the stationary law of LMC by Nyström
      (:func:`~sgmcmc_verify.exact.nystrom.stationary_expectations`), its W2 to
      ``p*`` exactly from the quantile functions; the theorem needs bias
      ``= O(η^{1/4})``;
    * mixing time: ``K(ε)`` with ``η = T5_C·ε⁴`` from ``θ0 = T5_X0``, the laws
      ``p_k`` by Nyström propagation
      (:func:`~sgmcmc_verify.exact.nystrom.w2_mixing_time`) and W2 exact in 1-D
      (monotone map ``G⁻¹∘F_k``); for LMC (= AGLD with ``N = 1``) and for SGLD on
      the double well split into ``N = 2`` data terms (:func:`split_double_well`),
      the 1-D stand-in for AGLD with ``N > 1`` (whose snapshot table makes the state
      ``(N+1)``-dimensional, out of reach of a 1-D Nyström solve).  The exponent
      of ``K`` in ``1/ε`` is fitted by least squares over the ε grid (exact
      values) and compared with 4.

    Parameters
    ----------
    profile : {"quick", "full"}
        ``quick``: ε ∈ {0.5, 0.4, 0.3}, propagation checked against 3/4 of the
        nodes; ``full`` adds 0.25, 0.2 and checks against 1.5× the nodes.
    seed : int
        Unused (nothing is random).
    chain_problem : Problem, optional
        The potential the chain actually follows (default the target): a wrong one
        is a power check.
    noise : float
        Noise scale factor of the chain (``√(2η)·noise``); ``1/√2`` is the planted
        bug "noise √η".
    """
    target = double_well()
    chain_problem = target if chain_problem is None else chain_problem
    quick = profile == "quick"
    etas = np.array([0.04, 0.02, 0.01] if quick else [0.04, 0.02, 0.01, 0.005])
    x = np.linspace(-9, 8, 20001)
    F = density_cdf(x, -DoubleWell._U(x))
    bias = []
    for h in etas:
        law = stationary_expectations(chain_problem, float(h), scheme="lmc")
        bias.append(w2_1d(x, law.cdf(x), F))
    bias = np.array(bias)
    fit = fit_order(etas, bias, alpha=ALPHA)
    local = _local_slope(etas, bias)
    parts = [
        _slope_decision(
            "stationary bias (LMC = AGLD with N = 1)",
            "stationary W2 bias = O(η^{1/4})",
            local=local,
            implied=0.25,
            what="exact W2 (Nyström stationary law vs exact p*)",
            holds=f"bias ∝ η^{local:.2f} ≥ η^{{1/4}}: consistent; the bound is not tight here",
            fails=f"bias ∝ η^{local:.2f}: the bias does not vanish as η → 0",
            failed_verdict="refuted",
            measured={
                "eta": Measurement(etas.tolist()),
                "w2_bias": Measurement(
                    bias.tolist(), note="Nyström law vs exact p*, quantile functions; exact"
                ),
                "fitted slope": Measurement(fit.slope, note="least squares, exact values"),
                "local slope": Measurement(local),
            },
            counterexample={"eta": etas.tolist(), "w2_bias": bias.tolist()},
        ),
    ]
    epss = np.array([0.5, 0.4, 0.3] if quick else [0.5, 0.4, 0.3, 0.25, 0.2])
    # Error check of the propagation: 1.5× the nodes (full: 9 per kernel width, a much
    # more accurate solve), or 3/4 of them (quick, 8× cheaper; the Nyström error falls
    # exponentially in the node count, so the coarser solve overestimates the error).
    check = 0.75 if quick else 1.5
    quantile = nystrom.target_quantile(target)
    coeffs = chain_problem.coeffs.sum(axis=0) if hasattr(chain_problem, "coeffs") else None
    split = split_double_well(coeffs)
    series = []
    for label, prob, kw in (
        ("LMC (= AGLD with N = 1)", chain_problem, {"scheme": "lmc"}),
        (
            f"SGLD, N = 2, n = 1 (1-D stand-in for AGLD with N > 1; U split ±{T5_SPLIT:g}θ²/2)",
            split,
            {"scheme": "sgld", "n": 1},
        ),
    ):
        part, s = _t5_mixing(label, prob, quantile, epss, check, noise=noise, **kw)
        parts.append(part)
        if s["x"]:
            series.append(s)
    figures = {
        "agld_t5_bias": {
            "kind": "loglog_fit",
            "title": "AGLD-T5: stationary W2 bias of LMC on the double well (exact)",
            "xlabel": "η",
            "ylabel": "W2(π_η, p*)",
            "series": [
                {
                    "label": "LMC (= AGLD, N = 1)",
                    "x": etas.tolist(),
                    "y": bias.tolist(),
                    "yerr": None,
                    "slope": fit.slope,
                    "slope_ci": None,
                    "claimed_slope": 0.25,
                }
            ],
            "reference_slopes": [0.25, 1.0],
        },
    }
    if series:
        figures["agld_t5_mixing"] = {
            "kind": "loglog_fit",
            "title": f"AGLD-T5: W2 mixing time K(ε) at η = {T5_C:g}ε⁴ (Nyström, exact)",
            "xlabel": "1/ε",
            "ylabel": "K(ε)",
            "series": series,
            "reference_slopes": [4.0],
        }
    return parts, {
        "problem": "double-well (SGNHT §3), N = 1",
        "eta": etas.tolist(),
        "eps": epss.tolist(),
        "eta_of_eps": f"{T5_C:g}·ε⁴",
        "theta0": T5_X0,
        "exponent_tolerance": T5_EXPONENT_TOL,
        "nystrom_check": f"{check:g}× nodes",
        "noise": noise,
        "alpha": None,
        "figure_data": figures,
    }


def wrong_double_well(scale: float = 0.8) -> PolynomialSum1D:
    """The double-well potential multiplied by ``scale``: a chain following the wrong U."""
    return PolynomialSum1D([scale * _dw_coeffs()], name=f"double-well×{scale}")
