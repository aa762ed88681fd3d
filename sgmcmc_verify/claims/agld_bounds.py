"""The exact W2 machinery and the analytic bounds on K(ε) behind AGLD-T1 … T5
(:mod:`sgmcmc_verify.claims.agld_theory`).

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
  time.  A lower bound can refute an upper-bound claim, never confirm it.
* The matching *upper bound* comes from the synchronous coupling with LMC
  (:func:`coupled_with_lmc`): the AGLD chain and an LMC chain driven by the same
  Gaussian noise form one affine chain, so ``E‖θ_k − θ̃_k‖²`` is exact from the
  moment equations, and ``W2(p^(k), p*) ≤ √E‖θ_k − θ̃_k‖² + W2(LMC_k, p*)`` with
  the last term exact (Gaussian); hence ``K ≤ K_UB``.  With both bounds a part is
  confirmed when the upper bound meets the claimed rate, refuted when the lower
  bound misses it, and not checkable only in between; each Part says which
  numbers it carries.
* In 1-D, ``W2`` is exact from the quantile functions (:func:`w2_1d`): used for
  the double-well stationary laws of :mod:`sgmcmc_verify.exact.nystrom` (T5) and
  for the regularised quartic target (T4); and for T5's *transient* laws, which
  :func:`sgmcmc_verify.exact.nystrom.w2_mixing_time` propagates by Nyström with
  ``W2`` from the monotone map ``G⁻¹∘F_k``, so T5's ``K(ε)`` is exact.

Analytic limits (sympy, in the small parameter :data:`EPS_SYM`) of bounds on ``K/rate``
decide the rates (:func:`mean_bound_limit`, from :mod:`sgmcmc_verify.proofs.agld_theorem1`;
:class:`LmcUpperBound`; :func:`diffusion_time_limit`); the grid values only illustrate.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.integrate
import sympy as sp

from ..exact import moments as em
from ..problems.gaussian import GaussianQuadratic
from ..proofs.agld_theorem1 import mean_lower_bound_expr
from .decide import rounding_tolerance

__all__ = [
    "EPS_SYM",
    "ChainFactory",
    "LmcUpperBound",
    "as_float",
    "coupled_with_lmc",
    "default_chains",
    "density_cdf",
    "diffusion_time_limit",
    "exact_law",
    "fmt_limit",
    "gaussian_w2",
    "gaussian_w2_many",
    "lmc_k_upper",
    "lmc_mean_gap",
    "mean_bound_limit",
    "mixing_time",
    "psd_sqrt",
    "scaled_gradient",
    "stationary_bounds",
    "stationary_w2",
    "unbiased_mean",
    "w2_1d",
    "w2_bounds",
    "w2_bounds_path",
    "w2_path",
]

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


def gaussian_w2_many(means: np.ndarray, covs: np.ndarray, m2, C2) -> np.ndarray:
    """:func:`gaussian_w2` of many ``N(means[k], covs[k])`` to one ``N(m2, C2)``, batched.

    ``tr (S C1 S)^{1/2} = Σ √λ_i(S C1 S)`` with ``S = C2^{1/2}``: one batched
    ``eigvalsh`` instead of a matrix square root per ``k``.
    """
    S2 = psd_sqrt(np.atleast_2d(np.asarray(C2, float)))
    M = S2 @ covs @ S2
    M = 0.5 * (M + np.swapaxes(M, -1, -2))
    cross = np.sqrt(np.clip(np.linalg.eigvalsh(M), 0.0, None)).sum(axis=-1)
    d2 = np.sum((means - np.asarray(m2, float)) ** 2, axis=-1)
    val = d2 + np.trace(covs, axis1=-2, axis2=-1) + np.trace(S2 @ S2) - 2 * cross
    return np.sqrt(np.clip(val, 0.0, None))


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


def density_cdf(x: np.ndarray, logdens: np.ndarray) -> np.ndarray:
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


def default_chains(names, n: int) -> dict[str, ChainFactory]:
    out = {}
    for name in names:
        kw = {} if name == "lmc" else {"n": n}
        out[name] = lambda p, h, name=name, kw=kw: em.affine_chain(name, p, h=h, **kw)
    return out


def exact_law(name: str) -> bool:
    """Whether the chain's law is Gaussian (full gradient from a point start): W2 exact."""
    return name == "lmc"


def stationary_w2(chain: em.AffineChain, problem: GaussianQuadratic) -> float:
    """Largest over the period's phases of (Gelbrich) W2 of the stationary law to ``p*``."""
    st = em.stationary_moments(chain)
    mu, cov = problem.exact["mean"].value, problem.exact["cov"].value
    return max(gaussian_w2(m, C, mu, cov) for m, C in zip(st.mean, st.cov, strict=True))


def w2_path(chain, problem, steps: int, theta0) -> np.ndarray:
    """(Gelbrich) W2 of the law of ``x^(k)`` to ``p*`` for ``k = 0..steps``."""
    tm = em.transient_moments(chain, range(steps + 1), theta0=theta0)
    mu, cov = problem.exact["mean"].value, problem.exact["cov"].value
    return gaussian_w2_many(tm.mean, tm.cov, mu, cov)


def coupled_with_lmc(chain: em.AffineChain) -> em.AffineChain:
    """The synchronous coupling of an overdamped chain with LMC, as one affine chain.

    The joint state is ``(z, θ̃)``: ``z`` the chain's own state, ``θ̃`` an LMC chain
    (AGLD eq. (3)) on the same problem with the same ``h``, both driven by the same
    Gaussian ``ξ_k`` of AGLD eq. (5); the index draws ``S_k`` do not touch ``θ̃``.
    Any coupling bounds the W2 of its marginals, so

    .. math::

        W_2(p^{(k)}, p^*) \\le \\bigl(E\\|\\theta_k - \\tilde\\theta_k\\|^2\\bigr)^{1/2}
        + W_2(\\mathrm{law}\\,\\tilde\\theta_k, p^*),

    where the first term is exact from the joint chain's moment equations (the
    joint recursion is still affine given ``S_k``: block-diagonal maps, stacked
    noise) and the second is the exact Gaussian W2 of LMC.  ``θ̃`` is stored as one
    more snapshot slot, so :func:`~sgmcmc_verify.exact.moments.transient_moments`
    starts it at ``θ_0`` like the snapshots.

    Parameters
    ----------
    chain : AffineChain
        Overdamped (AGLD eq. (5)); its ``step`` may be a planted bug.

    Returns
    -------
    AffineChain
        ``labels`` end with ``lmc[0..d−1]``.
    """
    if chain.momentum:
        raise ValueError("the LMC coupling is for overdamped chains (AGLD eq. (5))")
    lmc = em.affine_chain("lmc", chain.problem, h=chain.h)
    nz, d = chain.nz, chain.d

    def step(S, phase):
        M, c, B = chain.step(S, phase)
        Ml, cl, Bl = lmc.step((), 0)
        J = np.zeros((nz + d, nz + d))
        J[:nz, :nz] = M
        J[nz:, nz:] = Ml
        return J, np.concatenate([c, cl]), np.vstack([B, Bl])

    return dataclasses.replace(
        chain,
        step=step,
        labels=chain.labels + tuple(f"lmc[{a}]" for a in range(d)),
        slots=chain.slots + 1,
        description=chain.description + " ⊗ LMC (synchronous coupling)",
    )


def w2_bounds(means: np.ndarray, covs: np.ndarray, d: int, problem) -> np.ndarray:
    """(Gelbrich lower, coupling upper) bounds on W2(law θ, p*) from the joint moments.

    ``means`` (K, nz), ``covs`` (K, nz, nz): of the joint state of
    :func:`coupled_with_lmc` (θ first, ``θ̃`` last).  Upper:
    ``√(E‖θ − θ̃‖²) + W2(N(E θ̃, Cov θ̃), p*)``.  Returns shape (K, 2).
    """
    mu, Cp = problem.exact["mean"].value, problem.exact["cov"].value
    lower = gaussian_w2_many(means[:, :d], covs[:, :d, :d], mu, Cp)
    D = np.zeros((d, means.shape[1]))
    D[:, :d] = np.eye(d)
    D[:, -d:] = -np.eye(d)
    dm = means @ D.T
    msd = np.sum(dm * dm, axis=-1) + np.trace(D @ covs @ D.T, axis1=-2, axis2=-1)
    lmc = gaussian_w2_many(means[:, -d:], covs[:, -d:, -d:], mu, Cp)
    return np.stack([lower, np.sqrt(np.clip(msd, 0.0, None)) + lmc], axis=-1)


def stationary_bounds(chain: em.AffineChain, problem, exact: bool) -> tuple[float, float]:
    """(lower, upper) bounds on the stationary W2 to ``p*``, max over the period's phases.

    Exact chains (Gaussian law) give the exact W2 twice.
    """
    if exact:
        w = stationary_w2(chain, problem)
        return w, w
    st = em.stationary_moments(coupled_with_lmc(chain))
    b = w2_bounds(st.state_mean, st.state_cov, chain.d, problem)
    return float(b[:, 0].max()), float(b[:, 1].max())


def w2_bounds_path(chain, problem, steps: int, theta0, exact: bool):
    """(lower, upper) bounds on W2 of the law of ``x^(k)`` to ``p*``, ``k = 0..steps``."""
    if exact:
        w = w2_path(chain, problem, steps, theta0)
        return w, w
    tm = em.transient_moments(coupled_with_lmc(chain), range(steps + 1), theta0=theta0)
    b = w2_bounds(tm.state_mean, tm.state_cov, chain.d, problem)
    return b[:, 0], b[:, 1]


def mixing_time(chain, problem, eps: float, theta0, lam_min: float, exact: bool) -> dict:
    """``K(ε)`` bounds: one plus the last ``k`` with W2 (bound) > ε, on a horizon past it.

    ``K`` from the lower bound on W2 is a lower bound ``K_LB`` on the true ``K``;
    from the upper bound, an upper bound ``K_UB`` (``None`` when the bound does not
    get below ``0.9ε``, stationary or on the horizon).  Exact chains: both equal
    the exact ``K``.
    """
    h = chain.h
    R = float(np.linalg.norm(np.asarray(theta0) - problem.exact["mean"].value)) + 1.0
    horizon = math.ceil(3.0 * math.log(10 * R / eps) / (h * lam_min)) + 2 * chain.period
    lo_st, up_st = stationary_bounds(chain, problem, exact)
    out: dict[str, Any] = {"K": None, "K_UB": None, "stationary_w2": lo_st}
    out |= {"stationary_w2_upper": up_st, "horizon": horizon}
    if not lo_st < 0.9 * eps:
        return out
    lo, up = w2_bounds_path(chain, problem, horizon, theta0, exact)

    def last_above(w):
        if w[-1] > 0.9 * eps:
            return None
        above = np.nonzero(w > eps)[0]
        return int(above[-1]) + 1 if above.size else 0

    out["K"] = last_above(lo)
    if up_st < 0.9 * eps:
        out["K_UB"] = last_above(up)
    return out


# --------------------------------------------------------------------------------------
# Analytic limits of bounds on K(ε)
# --------------------------------------------------------------------------------------

#: The small parameter ε of the mixing-time theorems, for the analytic limits.
EPS_SYM = sp.Symbol("epsilon", positive=True)


#: Iterations over which :func:`lmc_mean_gap` compares a chain's exact mean with LMC's.
MEAN_CHECK_STEPS = 20


def lmc_mean_gap(
    chain: em.AffineChain, problem: GaussianQuadratic, theta0, steps: int = MEAN_CHECK_STEPS
) -> tuple[float, float]:
    """How far the chain's exact mean is from LMC's mean recursion, and the rounding tolerance.

    Returns ``(gap, tol)``: ``gap = max_(k ≤ steps) ‖E x^(k) − m_k‖_∞`` with
    ``m_(k+1) = m_k − hΛ(m_k − μ)``, ``m_0 = θ_0`` (the mean of LMC, AGLD eq. (3), on the
    Gaussian target), ``E x^(k)`` from the chain's exact moment recursion
    (:func:`sgmcmc_verify.exact.moments.transient_moments`, snapshots at ``θ_0``); ``tol``
    bounds float64 rounding of both: each step is one product of the ``(nz + 1)``-square
    mean map with the state mean, and the reference's own step is shorter, so
    ``4(nz + 1)`` operations per step (a multiply and an add each, for two recursions) on
    magnitudes ≤ the largest mean entry; both maps contract, so errors do not grow.

    The step "E[g | F_k] = ∇f(x_k) for RA, hence the LMC mean recursion"
    (:func:`sgmcmc_verify.proofs.agld_theorem1.theorem1_steps`) says ``gap`` is rounding
    for every RA scheme, whatever the snapshot rule; this measures it on the implementation.
    """
    tm = em.transient_moments(chain, range(steps + 1), theta0=theta0)
    mu = np.asarray(problem.exact["mean"].value, float)
    lam = np.asarray(problem.precision, float)
    m = np.asarray(theta0, float).copy()
    ref = [m]
    for _ in range(steps):
        m = m - chain.h * (lam @ (m - mu))
        ref.append(m)
    ref_arr = np.array(ref)
    gap = float(np.abs(tm.mean - ref_arr).max())
    scale = max(float(np.abs(tm.state_mean).max()), float(np.abs(ref_arr).max()), 1.0)
    return gap, rounding_tolerance(scale, 4 * (chain.nz + 1) * steps)


def unbiased_mean(chain: em.AffineChain, problem: GaussianQuadratic, theta0) -> bool:
    """Whether the chain's mean follows ``E x' = E x − ηΛ(E x − μ)`` (LMC's), as measured by
    :func:`lmc_mean_gap` to rounding: true for LMC and every RA scheme (proved in
    :mod:`sgmcmc_verify.proofs.agld_theorem1`, "RA: E[g | F_k] = ∇f(x_k)"), false for the
    CA and RR schemes, whose estimators are biased given the past."""
    gap, tol = lmc_mean_gap(chain, problem, theta0)
    return gap <= tol


def as_float(v: Any) -> float | None:
    """A sympy limit as a float (``inf`` for ``oo``); ``None`` stays ``None``."""
    if v is None:
        return None
    return math.inf if v in (sp.oo, sp.zoo) else float(v)


@functools.lru_cache(maxsize=64)
def diffusion_time_limit(eta: sp.Expr, claimed: sp.Expr) -> sp.Expr | None:
    """``∞`` when ``K(ε) = O(claimed)`` would keep the diffusion time ``K·η`` bounded, else None.

    From a point start the Langevin diffusion's law p_T is at ``W2(p_T, p*) > 0`` for every
    finite T (p_T = p* would force p_s = p* for all s < T — the semigroup is injective — against
    p_s → δ_x), and an Euler-type chain whose gradient noise vanishes with η converges to
    p_T at k = T/η as η → 0 (W2 is lower semicontinuous).  So for every T, K(ε)η > T once ε
    is small: ``K·η → ∞``.  If ``lim 1/(η(ε)·claimed(ε)) > 0`` then
    ``K/claimed ≥ (Kη)/(η·claimed) → ∞``.
    """
    q = sp.limit(1 / (eta * claimed), EPS_SYM, 0, "+")
    return sp.oo if q > 0 else None


def fmt_limit(v: Any) -> str:
    """A sympy limit for a reading: ``∞`` or 4 significant digits."""
    f = as_float(v)
    if f is None:
        return "none (no such bound)"
    return "∞" if f == math.inf else f"{f:.4g}"


@functools.lru_cache(maxsize=64)
def mean_bound_limit(r: float, lam_min: float, eta: sp.Expr, claimed: sp.Expr) -> sp.Expr:
    """``lim_(ε→0) [log(r/ε)/(−log(1 − η(ε)λ_min))] / claimed(ε)`` (sympy).

    The bracket is a lower bound on ``K(ε)`` for every chain whose mean contracts like
    LMC's (:func:`unbiased_mean`): along the slowest eigendirection the mean is
    ``r(1 − ηλ_min)^k`` and ``W2 ≥ |mean − μ|``.  An infinite limit proves that ``K`` is
    not ``O(claimed)``.
    """
    lo = mean_lower_bound_expr(sp.nsimplify(r), sp.nsimplify(lam_min), eta, EPS_SYM)
    return sp.limit(lo / claimed, EPS_SYM, 0, "+")


@dataclasses.dataclass(frozen=True)
class LmcUpperBound:
    """A closed-form upper bound on LMC's ``K(ε)`` on a Gaussian target, from a point start.

    In the eigenbasis of the precision Λ, LMC's law is Gaussian with mean
    ``a_j ρ_jᵏ`` (``ρ_j = 1 − ηλ_j``) and variance ``v_∞,j(1 − ρ_j^{2k})``,
    ``v_∞,j = 1/(λ_j(1 − ηλ_j/2))``.  With ``ηλ_max ≤ 1``:
    ``W2 ≤ Σ_j(|m_j| + |√v_k − σ_j|) ≤ Cρᵏ + Bη``, ``ρ = 1 − ηλ_min``,
    ``C = Σ_j(|a_j| + √2 σ_j)``, ``B = Σ_j √λ_j`` (``|√v_∞ − σ| ≤ σηλ`` and
    ``√v_∞ − √v_k ≤ √v_∞ ρ^{2k}``).  Hence ``K(ε) ≤ ⌈log(C/(ε − Bη))/(−log ρ)⌉`` when
    ``Bη < ε``.
    """

    C: float
    B: float
    lam_min: float
    lam_max: float

    def at(self, eta: float, eps: float) -> float:
        """The bound at one (η, ε); ``inf`` where it does not apply (``Bη ≥ ε``)."""
        if self.B * eta >= eps or eta * self.lam_max > 1:
            return math.inf
        return float(max(0, math.ceil(math.log(self.C / (eps - self.B * eta))
                                      / -math.log1p(-eta * self.lam_min))))  # fmt: skip

    def limit(self, eta: sp.Expr, claimed: sp.Expr) -> sp.Expr | None:
        """``lim_(ε→0)`` of the bound over ``claimed`` (``None`` if ``Bη(ε) < ε`` fails as
        ε → 0, where the bound does not apply)."""
        e = EPS_SYM
        B = sp.nsimplify(self.B)
        if sp.limit(B * eta / e, e, 0, "+") >= 1:
            return None
        ub = sp.log(sp.nsimplify(self.C) / (e - B * eta)) / -sp.log(
            1 - eta * sp.nsimplify(self.lam_min)
        )
        return sp.limit(ub / claimed, e, 0, "+")


def lmc_k_upper(problem: GaussianQuadratic, theta0) -> LmcUpperBound:
    """The :class:`LmcUpperBound` of ``problem`` from the point ``theta0``."""
    lam, V = np.linalg.eigh(problem.precision)
    a = V.T @ (np.asarray(theta0, float) - problem.exact["mean"].value)
    sig = 1 / np.sqrt(lam)
    C = float(np.sum(np.abs(a) + math.sqrt(2) * sig))
    return LmcUpperBound(C, float(np.sum(np.sqrt(lam))), float(lam[0]), float(lam[-1]))
