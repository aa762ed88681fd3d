"""Checks of the AGLD mixing-time theorems (AGLD §4): AGLD-T1 … AGLD-T5.

What can be measured, and how exactly
-------------------------------------
* **W2 between Gaussians** is closed form (:func:`gaussian_w2`).  LMC on a
  Gaussian-quadratic target started at a point has a Gaussian law at every
  iteration, so its ``W2(p^(k), p*)`` is *exact* from the moments of
  :mod:`sgmcmc_verify.exact.moments`.
* The AGLD chains (random, reshuffled or cyclic indices) have a *mixture* law:
  not Gaussian, but with exact mean and covariance.  The Gelbrich bound
  ``W2(p, q) ≥ W2(N(m_p, C_p), N(m_q, C_q))`` (Gelbrich 1990) then gives a rigorous
  *lower bound* on ``W2``, hence a lower bound ``K_LB ≤ K`` on the ε-mixture
  time.  A lower bound can refute an upper-bound claim, never confirm it; each
  Part says which kind of number it carries.
* In 1-D, ``W2`` is exact from the quantile functions (:func:`w2_1d`): used for
  the double-well stationary laws of :mod:`sgmcmc_verify.exact.nystrom` (T5) and
  for the regularised quartic target (T4).

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

from ..exact import moments as em
from ..exact.nystrom import PolynomialSum1D, stationary_expectations
from ..problems.double_well import DoubleWell, double_well
from ..problems.gaussian import GaussianQuadratic, gaussian_differing
from ..stats import fit_order
from .result import Measurement, Part

__all__ = [
    "check_t1",
    "check_t2",
    "check_t3",
    "check_t4",
    "check_t5",
    "gaussian_w2",
    "psd_sqrt",
    "scaled_gradient",
    "w2_1d",
]

#: Nominal level recorded with the exact fits (no statistics are used: every number
#: below is exact up to float64 rounding or quadrature error, so α is not spent).
ALPHA = 0.01

ChainFactory = Callable[[GaussianQuadratic, float], em.AffineChain]


# --------------------------------------------------------------------------------------
# W2 machinery
# --------------------------------------------------------------------------------------


def psd_sqrt(C: np.ndarray) -> np.ndarray:
    """Symmetric square root of a symmetric PSD matrix (eigh; negative rounding clipped)."""
    C = 0.5 * (np.asarray(C, float) + np.asarray(C, float).T)
    w, V = np.linalg.eigh(C)
    return (V * np.sqrt(np.clip(w, 0.0, None))) @ V.T


def gaussian_w2(m1, C1, m2, C2) -> float:
    """``W2(N(m1, C1), N(m2, C2))``, closed form.

    ``W2² = ‖m1 − m2‖² + tr C1 + tr C2 − 2 tr (C2^{1/2} C1 C2^{1/2})^{1/2}``.  For
    any laws with these means and covariances it is a lower bound on their W2
    (Gelbrich 1990).
    """
    m1, m2 = np.atleast_1d(np.asarray(m1, float)), np.atleast_1d(np.asarray(m2, float))
    C1, C2 = np.atleast_2d(np.asarray(C1, float)), np.atleast_2d(np.asarray(C2, float))
    S2 = psd_sqrt(C2)
    cross = psd_sqrt(S2 @ C1 @ S2)
    val = float(np.sum((m1 - m2) ** 2) + np.trace(C1) + np.trace(C2) - 2 * np.trace(cross))
    return math.sqrt(max(val, 0.0))


def w2_1d(x: np.ndarray, F: np.ndarray, G: np.ndarray) -> float:
    """``W2`` between two 1-D laws from their CDFs on a common increasing grid ``x``.

    Both CDFs are taken piecewise linear in ``x`` (so their quantile functions
    are piecewise linear in ``u``); ``∫_0^1 (F^{-1}(u) − G^{-1}(u))² du`` is then
    integrated exactly on the union of the breakpoints.  The error is that of the
    linear interpolation of the CDFs, ``O(Δx²)``; mass outside the grid must be
    negligible (the CDFs are renormalised to ``[0, 1]`` on the grid).
    """
    x = np.asarray(x, float)
    F = np.maximum.accumulate(np.clip(np.asarray(F, float), 0, None))
    G = np.maximum.accumulate(np.clip(np.asarray(G, float), 0, None))
    F = (F - F[0]) / (F[-1] - F[0])
    G = (G - G[0]) / (G[-1] - G[0])
    u = np.union1d(F, G)
    # Quantile at u: np.interp on the strictly increasing part of each CDF.
    qf = _quantile(u, F, x)
    qg = _quantile(u, G, x)
    diff = qf - qg
    a, b = diff[:-1], diff[1:]
    du = np.diff(u)
    return math.sqrt(max(float(np.sum(du * (a * a + a * b + b * b) / 3.0)), 0.0))


def _quantile(u, F, x):
    keep = np.concatenate(([True], np.diff(F) > 0))
    return np.interp(u, F[keep], x[keep])


def _density_cdf(x: np.ndarray, logdens: np.ndarray) -> np.ndarray:
    """CDF on ``x`` of the density ``∝ exp(logdens)`` (cumulative trapezoid, normalised)."""
    p = np.exp(logdens - logdens.max())
    c = scipy.integrate.cumulative_trapezoid(p, x, initial=0.0)
    return c / c[-1]


# --------------------------------------------------------------------------------------
# Chains and their W2 to the target
# --------------------------------------------------------------------------------------


def scaled_gradient(chain: em.AffineChain, factor: float) -> em.AffineChain:
    """Planted bug: every gradient estimate multiplied by ``factor`` (overdamped chains).

    ``θ' = θ − h·factor·g + √(2h) ξ`` — e.g. a forgotten ``N/n`` weight (factor
    ``n/N``).  The chain then targets ``N(μ, (factor·Λ)^{-1})``.
    """
    d = chain.d

    def step(S, phase):
        M, c, B = chain.step(S, phase)
        M, c = M.copy(), c.copy()
        eye = np.eye(M.shape[0])
        M[:d] = eye[:d] + factor * (M[:d] - eye[:d])
        c[:d] = factor * c[:d]
        return M, c, B

    return dataclasses.replace(chain, step=step, description=chain.description + f" ×{factor}")


def _default_chains(names, n: int) -> dict[str, ChainFactory]:
    out = {}
    for name in names:
        kw = {} if name == "lmc" else {"n": n}
        out[name] = lambda p, h, name=name, kw=kw: em.affine_chain(name, p, h=h, **kw)
    return out


def _exact_law(name: str) -> bool:
    """Whether the chain's law is Gaussian (full gradient from a point start): W2 exact."""
    return name == "lmc"


def _stationary_w2(chain: em.AffineChain, problem: GaussianQuadratic) -> float:
    """Largest over the period's phases of (Gelbrich) W2 of the stationary law to ``p*``."""
    st = em.stationary_moments(chain)
    mu, cov = problem.exact["mean"].value, problem.exact["cov"].value
    return max(gaussian_w2(m, C, mu, cov) for m, C in zip(st.mean, st.cov, strict=True))


def _w2_path(chain, problem, steps: int, theta0) -> np.ndarray:
    """(Gelbrich) W2 of the law of ``x^(k)`` to ``p*`` for ``k = 0..steps``."""
    tm = em.transient_moments(chain, range(steps + 1), theta0=theta0)
    mu, cov = problem.exact["mean"].value, problem.exact["cov"].value
    S2 = psd_sqrt(cov)
    out = np.empty(steps + 1)
    tr2 = np.trace(cov)
    for k in range(steps + 1):
        C1 = tm.cov[k]
        cross = psd_sqrt(S2 @ C1 @ S2)
        v = np.sum((tm.mean[k] - mu) ** 2) + np.trace(C1) + tr2 - 2 * np.trace(cross)
        out[k] = math.sqrt(max(v, 0.0))
    return out


def _mixing_time(chain, problem, eps: float, theta0, lam_min: float) -> dict[str, Any]:
    """``K(ε)``: one plus the last ``k`` with W2 > ε, on a horizon past the crossing."""
    h = chain.h
    R = float(np.linalg.norm(np.asarray(theta0) - problem.exact["mean"].value)) + 1.0
    horizon = math.ceil(3.0 * math.log(10 * R / eps) / (h * lam_min)) + 2 * chain.period
    stat = _stationary_w2(chain, problem)
    if not stat < 0.9 * eps:
        return {"K": None, "stationary_w2": stat, "horizon": horizon}
    w = _w2_path(chain, problem, horizon, theta0)
    above = np.nonzero(w > eps)[0]
    if w[-1] > 0.9 * eps:
        return {"K": None, "stationary_w2": stat, "horizon": horizon}
    return {"K": int(above[-1]) + 1 if above.size else 0, "stationary_w2": stat, "horizon": horizon}


def _local_slope(x, y) -> float:
    return float(np.log(y[-1] / y[-2]) / np.log(x[-1] / x[-2]))


def _bias_part(
    claim: str,
    problem: GaussianQuadratic,
    chains: Mapping[str, ChainFactory],
    etas: np.ndarray,
    implied: float,
) -> list[Part]:
    """Stationary W2 bias against η for each chain; the claim needs slope ≥ ``implied``."""
    parts = []
    for name, make in chains.items():
        bias = np.array([_stationary_w2(make(problem, float(h)), problem) for h in etas])
        exact = _exact_law(name)
        kind = "exact W2 (Gaussian law)" if exact else "Gelbrich lower bound on W2"
        if np.all(bias > 0):
            fit = fit_order(etas, bias, alpha=ALPHA)
            slope, local = fit.slope, _local_slope(etas, bias)
        else:
            slope = local = math.inf
        # Refute when the (lower bound on the) bias decays more slowly than the claim allows.
        if local < implied - 0.1:
            verdict = "refuted"
            reading = (
                f"the {kind} decays like η^{local:.2f} at the smallest η, slower than the "
                f"η^{implied:g} the claim needs: the chain does not reach ε at the prescribed η"
            )
        elif exact:
            verdict = "confirmed"
            reading = (
                f"exact bias ∝ η^{local:.2f} ≥ η^{implied:g}: consistent; the bound is not tight "
                "here (on Gaussians η = O(ε) already suffices for the stationary bias)"
            )
        else:
            verdict = "not-checkable"
            reading = (
                f"the Gelbrich lower bound decays like η^{local:.2f} ≥ η^{implied:g}: it does not "
                "refute the claim, but a lower bound cannot confirm it (the law is a Gaussian "
                "mixture, its exact W2 is not available)"
            )
        parts.append(
            Part(
                f"stationary bias: {name}",
                verdict,
                f"{claim}: stationary W2 bias = O(η^{implied:g})",
                {
                    "eta": Measurement(etas.tolist()),
                    "w2_bias": Measurement(bias.tolist(), note=kind + ", max over phases"),
                    "fitted slope": Measurement(slope, note="exact values, least squares"),
                    "local slope (two smallest η)": Measurement(local),
                },
                reading,
                None
                if verdict != "refuted"
                else {"chain": name, "eta": etas.tolist(), "w2_bias": bias.tolist()},
            )
        )
    return parts


def _mixing_part(
    claim: str,
    problem: GaussianQuadratic,
    chains: Mapping[str, ChainFactory],
    epss: np.ndarray,
    eta_of_eps: Callable[[float], float],
    claimed: Callable[[np.ndarray], np.ndarray],
    claimed_text: str,
    theta0,
) -> list[Part]:
    """``K(ε)`` with ``η = eta_of_eps(ε)``; compared with the claimed rate ``claimed(ε)``."""
    lam = np.linalg.eigvalsh(problem.precision)
    lam_min = float(lam[0])
    mu = problem.exact["mean"].value
    v_min = np.linalg.eigh(problem.precision)[1][:, 0]
    r = abs(float(v_min @ (np.asarray(theta0) - mu)))
    parts = []
    for name, make in chains.items():
        exact = _exact_law(name)
        kind = "exact K (W2 exact)" if exact else "K_LB ≤ K (from the Gelbrich lower bound)"
        res = [
            _mixing_time(make(problem, eta_of_eps(e)), problem, e, theta0, lam_min) for e in epss
        ]
        Ks = [x["K"] for x in res]
        if any(k is None or k == 0 for k in Ks):
            parts.append(
                Part(
                    f"mixing time: {name}",
                    "refuted" if not exact or any(k is None for k in Ks) else "not-checkable",
                    f"{claim}: K(ε) = {claimed_text}",
                    {
                        "eps": Measurement(epss.tolist()),
                        "stationary_w2": Measurement([x["stationary_w2"] for x in res]),
                    },
                    "the chain never gets within ε of p* at the prescribed η "
                    "(stationary W2 or its lower bound ≥ 0.9ε)",
                    {"chain": name, "eps": epss.tolist(), "K": Ks},
                )
            )
            continue
        K = np.array(Ks, float)
        fit = fit_order(epss, K, alpha=ALPHA)
        ratio = K / claimed(epss)
        # Mean lower bound along the slowest direction: exact for every chain whose mean
        # follows E x' = E x − ηΛ(E x − μ) (LMC and all unbiased RA schemes).
        mean_lb = np.array([math.log(r / e) / -math.log1p(-eta_of_eps(e) * lam_min) for e in epss])
        grows = ratio[-1] > 1.2 * ratio[0]
        if grows:
            verdict = "qualified" if exact or ratio[-1] / ratio[0] < 5 else "refuted"
            reading = (
                f"{kind} grows like ε^{fit.slope:.2f}; K/({claimed_text}) rises from "
                f"{ratio[0]:.3g} to {ratio[-1]:.3g} as ε falls, tracking log(r/ε): "
                f"K = Θ({claimed_text}·log(1/ε)).  The log factor is unavoidable at this η: "
                "the mean alone needs k ≥ log(r/ε)/(−log(1−ηλ_min)) iterations "
                f"(r = {r:.3g} the start's distance along the slowest direction).  "
                "The claim holds only with the log factor hidden (Õ)"
            )
        else:
            verdict = "confirmed" if exact else "not-checkable"
            reading = f"{kind} grows like ε^{fit.slope:.2f}, no faster than {claimed_text}" + (
                "" if exact else "; a lower bound on K cannot confirm an upper bound"
            )
        parts.append(
            Part(
                f"mixing time: {name}",
                verdict,
                f"{claim}: K(ε) = O({claimed_text}) with the prescribed η",
                {
                    "eps": Measurement(epss.tolist()),
                    "eta": Measurement([eta_of_eps(e) for e in epss]),
                    "K": Measurement(Ks, note=kind),
                    "fitted exponent of K in ε": Measurement(
                        fit.slope, note="exact values, least squares (no CI: nothing random)"
                    ),
                    f"K / ({claimed_text})": Measurement(ratio.tolist()),
                    "mean-only lower bound on K": Measurement(
                        mean_lb.tolist(), note="exact for LMC and unbiased RA chains"
                    ),
                    "stationary_w2": Measurement([x["stationary_w2"] for x in res]),
                },
                reading,
                {"chain": name, "eps": epss.tolist(), "K": Ks} if verdict == "refuted" else None,
            )
        )
    return parts


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
    chains = dict(_default_chains(bias_names, n) if chains is None else chains)
    mixing = dict(_default_chains(mix_names, n) if mixing_chains is None else mixing_chains)
    etas = np.array([0.08, 0.04, 0.02, 0.01] + ([] if quick else [0.005]))
    epss = np.array([0.4, 0.28, 0.2, 0.14] + ([] if quick else [0.1]))
    theta0 = problem.exact["mean"].value + 2.0
    parts = _bias_part("AGLD-T1", problem, chains, etas, 0.5)
    parts += _mixing_part(
        "AGLD-T1",
        problem,
        mixing,
        epss,
        lambda e: 0.5 * e * e,
        lambda e: e**-2.0,
        "ε⁻²",
        theta0,
    )
    return parts, {
        "problem": "gaussian_differing(N=4, d=2, seed=3)",
        "n": n,
        "eta": etas.tolist(),
        "eps": epss.tolist(),
        "eta_of_eps": "ε²/2",
        "theta0": "μ + (2, 2)",
        "alpha": None,
        "note": "exact moments; no statistical test (α not spent)",
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
    chains = dict(_default_chains(names, 2) if chains is None else chains)
    etas = np.array([0.08, 0.04, 0.02, 0.01])
    parts = _bias_part("AGLD-T2", problem, chains, etas, 1.0)
    b = _stationary_w2(em.affine_chain("lmc", problem, h=0.01), problem) / 0.01
    c = min(0.25 / (4 * b), 0.2)
    epss = np.array([0.3, 0.2, 0.14, 0.1] if profile == "quick" else [0.3, 0.2, 0.14, 0.1, 0.07])
    theta0 = problem.exact["mean"].value + 2.0
    parts += _mixing_part(
        "AGLD-T2",
        problem,
        chains,
        epss,
        lambda e: c * e,
        lambda e: np.log(1 / e) / e,
        "log(1/ε)/ε",
        theta0,
    )
    return parts, {
        "problem": "gaussian_differing(N=4, d=2, seed=3)",
        "n": 2,
        "eta": etas.tolist(),
        "eps": epss.tolist(),
        "eta_of_eps": f"{c:.4g}·ε",
        "alpha": None,
    }


# --------------------------------------------------------------------------------------
# AGLD-T3
# --------------------------------------------------------------------------------------


def _mean_lb_K(eps: float, eta: float, lam_min: float, r: float) -> int:
    """Smallest k with ``r(1 − ηλ_min)^k ≤ ε``: exact lower bound on K for unbiased RA."""
    return max(0, math.ceil(math.log(r / eps) / -math.log1p(-eta * lam_min)))


def check_t3(*, profile: str = "quick", seed: int = 0) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 3: TMU-RA, K = O(κ^{3/2}√d/(nε)) with η < εn√μ/(M√d N), n ≥ 9, D = N.

    TMU-RA's estimator is unbiased given the past (``S_k`` is fresh), and on a
    Gaussian-quadratic target the gradient is affine, so ``E x^(k)`` follows
    ``E x' = E x − ηΛ(E x − μ)`` exactly, whatever n, N, D.  Hence
    ``W2(p^(k), p*) ≥ ‖E x^(k) − μ‖`` and ``K ≥ log(r/ε)/(−log(1 − ηλ_min))`` with
    the largest permitted η: an exact lower bound on the true K (no enumeration
    of the ``C(N+n−1, n)`` batches needed, so n ≥ 9 is no obstacle).  Targets:
    ``Λ = diag(μ, M̄, …)``-type precisions with controlled κ, start ``x0 = μ* + 1``.
    """
    n, N = 9, 9

    def K_lb(eps, mu, Mbar, d):
        # κ = M̄/μ with M̄ = N·M the smoothness of f (per-component M = M̄/N), so the
        # prescribed η < εn√μ/(M√d N) = εn√μ/(M̄√d); capped at 1/M̄ for stability.
        eta = min(eps * n * math.sqrt(mu) / ((Mbar / N) * math.sqrt(d) * N), 1.0 / Mbar)
        return _mean_lb_K(eps, eta, mu, 1.0)  # x0 − μ* = (1, …, 1): r = 1

    epss = np.array([0.1, 0.05, 0.02, 0.01, 0.005])
    kappas = np.array([10.0, 30.0, 100.0, 300.0, 1000.0])
    ds = np.array([1, 4, 16, 64, 256])
    K_eps = np.array([K_lb(e, 1.0, 100.0, 4) for e in epss], float)
    K_kmu = np.array([K_lb(0.01, 100.0 / k, 100.0, 4) for k in kappas], float)
    K_kM = np.array([K_lb(0.01, 1.0, k, 4) for k in kappas], float)
    K_d = np.array([K_lb(0.01, 1.0, 100.0, int(d)) for d in ds], float)
    f_kmu = fit_order(kappas, K_kmu, alpha=ALPHA)
    f_kM = fit_order(kappas, K_kM, alpha=ALPHA)
    f_d = fit_order(ds.astype(float), K_d, alpha=ALPHA)
    f_eps = fit_order(epss, K_eps, alpha=ALPHA)
    ratio_eps = K_eps * epss
    # Reading κ = M/μ with M the per-component smoothness: vary N at fixed M, μ.
    Ns = np.array([9, 18, 36, 72])
    K_N = []
    for NN in Ns:
        eta = 0.01 * n * 1.0 / (10.0 * 2.0 * NN)  # M = 10, μ = 1, d = 4
        K_N.append(_mean_lb_K(0.01, eta, 1.0, 1.0))
    f_N = fit_order(Ns.astype(float), np.array(K_N, float), alpha=ALPHA)
    parts = [
        Part(
            "kappa and d dependence",
            "confirmed" if max(f_kmu.slope, f_kM.slope) <= 1.55 and f_d.slope <= 0.6 else "refuted",
            "K = O(κ^{3/2}√d/(nε)): exponent ≤ 3/2 in κ, ≤ 1/2 in d",
            {
                "kappa": Measurement(kappas.tolist()),
                "K_LB(kappa), kappa via mu": Measurement(
                    K_kmu.tolist(), note="M̄ = 100, μ = 100/κ, ε = 0.01, d = 4"
                ),
                "exponent in kappa via mu": Measurement(f_kmu.slope, note="exact lower bound"),
                "K_LB(kappa), kappa via M": Measurement(
                    K_kM.tolist(), note="μ = 1, M̄ = κ, ε = 0.01, d = 4"
                ),
                "exponent in kappa via M": Measurement(f_kM.slope, note="exact lower bound"),
                "d": Measurement(ds.tolist()),
                "K_LB(d)": Measurement(K_d.tolist(), note="ε = 0.01, κ = 100"),
                "exponent in d": Measurement(f_d.slope, note="exact lower bound"),
            },
            "with κ = M̄/μ (f's condition number) and the largest permitted η the exact mean "
            f"lower bound scales as κ^{f_kmu.slope:.2f} when κ grows through μ, "
            f"κ^{f_kM.slope:.2f} through M̄, and d^{f_d.slope:.2f}: never faster than κ^{{3/2}}√d, "
            "and κ^{3/2}√d is attained (through μ), so it cannot be improved at this η; being "
            "a lower bound, it matches rather than certifies the upper bound",
        ),
        Part(
            "epsilon dependence",
            "qualified" if ratio_eps[-1] > 1.2 * ratio_eps[0] else "confirmed",
            "K = O(1/ε) at η ∝ ε",
            {
                "eps": Measurement(epss.tolist()),
                "K_LB": Measurement(K_eps.tolist(), note="κ = 100, d = 4, exact lower bound"),
                "exponent in eps": Measurement(f_eps.slope),
                "K_LB·ε": Measurement(ratio_eps.tolist()),
            },
            f"K_LB·ε grows from {ratio_eps[0]:.3g} to {ratio_eps[-1]:.3g} like log(1/ε): "
            "K ≥ log(r/ε)/(ημ) with η ∝ ε, so the literal O(1/ε) fails; it holds as "
            "O(κ^{3/2}√d·log(1/ε)/(nε)) (the log of Theorem 2 is missing from Theorem 3)",
            {"eps": epss.tolist(), "K_LB": K_eps.tolist()},
        ),
        Part(
            "N dependence (reading of κ)",
            "qualified",
            "no N in K = O(κ^{3/2}√d/(nε))",
            {
                "N": Measurement(Ns.tolist()),
                "K_LB(N)": Measurement(K_N, note="M = 10 per component, μ = 1, d = 4, ε = 0.01"),
                "exponent in N": Measurement(f_N.slope),
            },
            "η < εn√μ/(M√d N) carries 1/N; with κ = M/μ read with the per-component M the "
            f"exact lower bound grows like N^{f_N.slope:.2f} at fixed κ, contradicting an "
            "N-free K; with κ = M̄/μ, M̄ = NM (f's smoothness) the N cancels.  The claim "
            "holds only with κ the condition number of f",
        ),
        Part(
            "TMU-RA chain itself",
            "not-checkable",
            "W2(p^(k), p*) ≤ ε for TMU-RA with n ≥ 9, D = N",
            {"batches per step (N = n = 9, RA)": Measurement(math.comb(17, 9))},
            "exact moments of TMU-RA with n ≥ 9 need the C(N+n−1, n) = 24310 batch maps of a "
            "(1 + (N+1)d)²-dimensional moment recursion per step; only the exact mean "
            "recursion (valid for any unbiased RA scheme) is used",
        ),
    ]
    return parts, {"n": n, "N": N, "D": N, "mu": 1.0, "alpha": None}


# --------------------------------------------------------------------------------------
# AGLD-T4
# --------------------------------------------------------------------------------------


def _lam_paper(eps: float, U_hat: float, d: int) -> float:
    return 4 * eps * eps / (U_hat * d * d)


def _quartic_w2(lam: float, x: np.ndarray) -> float:
    F = _density_cdf(x, -(x**4) / 4)
    G = _density_cdf(x, -(x**4) / 4 - lam * x * x / 2)
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
        Part(
            "Gaussian, tiny curvature",
            "confirmed" if gmax <= 1 else "refuted",
            "W2(p̂*, p*) ≤ ε/2",
            {
                "eps": Measurement(epss.tolist()),
                **{
                    f"W2/(ε/2), curvature {k:g}": Measurement(
                        v, note="exact (Gaussian closed form)"
                    )
                    for k, v in worst.items()
                },
            },
            f"largest ratio {gmax:.3g}" + (" ≤ 1" if gmax <= 1 else " > 1"),
            None if gmax <= 1 else {"ratios": worst},
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
    parts.append(
        Part(
            "Gaussian worst case (1-D search)",
            "confirmed" if r1 <= 1 else "refuted",
            "W2(p̂*, p*) ≤ ε/2 for every N(m, σ²)",
            {
                "sup W2/(ε/2)": Measurement(r1, note="Nelder–Mead from 9 starts, exact W2"),
                "at (m/σ, ε/σ)": Measurement([float(best.x[0]), math.exp(best.x[1])]),
            },
            f"largest ratio {r1:.3g} over the search",
            None if r1 <= 1 else {"m": float(best.x[0]), "eps": math.exp(best.x[1]), "ratio": r1},
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
        Part(
            "U = x⁴/4",
            "confirmed" if qmax <= 1 else "refuted",
            "W2(p̂*, p*) ≤ ε/2 with Û = E x⁴ = 1",
            {
                "eps": Measurement(epss.tolist()),
                "W2/(ε/2)": Measurement(qr, note="quantile functions, grid [−7, 7], Δx = 3.5e-4"),
            },
            f"largest ratio {qmax:.3g}; W2 ∝ λ ∝ ε², far below ε/2 for small ε",
            None if qmax <= 1 else {"eps": epss.tolist(), "ratio": qr},
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


def check_t5(
    *,
    profile: str = "quick",
    seed: int = 0,
    chain_problem: Any = None,
) -> tuple[list[Part], dict[str, Any]]:
    """Theorem 5 (nonconvex, dissipative): K = O(ε⁻⁴) with η = O(ε⁴).

    On the SGNHT double well (``N = 1``: every AGLD variant's estimator (6) is
    then ``∇f_1(x) − α_1 + α_1 = ∇U(x)``, i.e. AGLD *is* LMC), the stationary law of
    LMC is computed by Nyström (:mod:`sgmcmc_verify.exact.nystrom`) and its W2 to
    ``p*`` exactly from the quantile functions.  The theorem needs stationary
    bias = O(η^{1/4}).  ``chain_problem`` (default: the target) is the potential
    the chain actually follows: a wrong one is the power check.
    """
    target = double_well()
    chain_problem = target if chain_problem is None else chain_problem
    etas = np.array([0.04, 0.02, 0.01] if profile == "quick" else [0.04, 0.02, 0.01, 0.005])
    x = np.linspace(-9, 8, 20001)
    F = _density_cdf(x, -DoubleWell._U(x))
    bias = []
    for h in etas:
        law = stationary_expectations(chain_problem, float(h), scheme="lmc")
        bias.append(w2_1d(x, law.cdf(x), F))
    bias = np.array(bias)
    fit = fit_order(etas, bias, alpha=ALPHA)
    local = _local_slope(etas, bias)
    ok = local >= 0.25 - 0.1
    parts = [
        Part(
            "stationary bias (LMC = AGLD with N = 1)",
            "confirmed" if ok else "refuted",
            "stationary W2 bias = O(η^{1/4})",
            {
                "eta": Measurement(etas.tolist()),
                "w2_bias": Measurement(
                    bias.tolist(), note="Nyström law vs exact p*, quantile functions; exact"
                ),
                "fitted slope": Measurement(fit.slope, note="least squares, exact values"),
                "local slope": Measurement(local),
            },
            f"bias ∝ η^{local:.2f}"
            + (
                " ≥ η^{1/4}: consistent; the bound is not tight here"
                if ok
                else ": the bias does not vanish as η → 0"
            ),
            None if ok else {"eta": etas.tolist(), "w2_bias": bias.tolist()},
        ),
        Part(
            "mixing time K(ε)",
            "not-checkable",
            "K = O(ε⁻⁴)",
            {},
            "the transient law of a nonconvex chain is not available exactly (Nyström gives "
            "the stationary law only; a transient 1-D Nyström propagation would be possible "
            "but is not implemented); the stationary part above is the checkable necessary "
            "condition",
        ),
    ]
    return parts, {"problem": "double-well (SGNHT §3), N = 1", "eta": etas.tolist(), "alpha": None}


def wrong_double_well(scale: float = 0.8) -> PolynomialSum1D:
    """The double-well potential multiplied by ``scale``: a chain following the wrong U."""
    return PolynomialSum1D([scale * _dw_coeffs()], name=f"double-well×{scale}")
