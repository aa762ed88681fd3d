"""Check of the EWSG index-chain claim EWSG-MH (EWSG §4.3, eq. (5), Algorithm 1).

The Metropolis index chain of eq. (5) lives on a finite state space (``N``
indices, or ``N^b`` ordered batches), so everything about it is a matrix: its
transition matrix ``P``, its stationary law, and the law ``u P^M`` of the index
Algorithm 1 hands to the integrator after ``M`` steps from a uniform start ``u``.
The check builds ``P`` twice:

* **derived**: from the acceptance rule of eq. (5), ``P_ij = min(1, e^{E_j − E_i})/S``
  for ``j ≠ i`` with ``E_i = ½‖x + N a_i‖²`` and ``S`` states;
* **implemented**: from :meth:`EWSG.select <sgmcmc_verify.estimators.EWSG.select>`
  itself, by forcing every (start, proposal) pair and finding, by bisection over
  the float64 values of the acceptance uniform ``u``, the exact threshold below
  which the implementation moves.  The acceptance probability of the
  implementation is the length of that set of ``u``, known to one ulp.

The implementation under test is injectable (``estimator``): the tests pass
broken acceptance rules and assert that the verdict turns negative.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.special import logsumexp

from ..estimators import EWSG, EWSGRand
from ..problems.base import Problem
from ..problems.gaussian import gaussian_differing, gaussian_identical
from ..stats import bonferroni, chisquare_gof
from .result import Measurement, Part

__all__ = [
    "ALPHA",
    "GAMMA",
    "STEP_SIZES",
    "check_mh",
    "implemented_kernel",
    "mh_matrix",
    "mixing",
    "paper_gaussian",
]

#: Estimator factory ``estimator(a_scale, *, M, b) -> EWSG``-like (``draw``, ``select``,
#: ``log_weights``); the implementation under test.
EstimatorFactory = Callable[..., EWSG]

#: Total false-alarm budget of the check's statistical part (Bonferroni over its χ² tests).
ALPHA = 1e-3

#: Friction of EWSG §5.1 ("SGHMC and EWSG use γ = 10"); σ = √(2γ) (T = 1, §5 "σ = √2γ").
GAMMA = 10.0

#: Step sizes of the mixing study; 5e-2 is the value §5.1 tuned for EWSG.
STEP_SIZES = (1e-3, 1e-2, 5e-2, 1e-1)

#: Chain lengths at which the law of the selected index is reported.
CHAIN_LENGTHS = (0, 1, 2, 5, 10, 20)

#: "Mixed" means TV(u P^M, p) below this (a stated tolerance on exact numbers, not an α).
TV_MIXED = 0.01

#: Largest M searched for TV < TV_MIXED.
M_SEARCH_MAX = 100_000

_EPS = float(np.finfo(np.float64).eps)
_ONE_BITS = int(np.float64(1.0).view(np.int64))


def paper_gaussian(N: int = 20, d: int = 2, *, seed: int = 0) -> Problem:
    """The Gaussian of EWSG §5.1: ``V_i(θ) = ½‖θ − c_i‖²``, ``c_i ~ N(0, I_d)``, n = 20, d = 2.

    ``gaussian_identical`` with ``Λ = N·I`` gives ``Λ_i = I`` and ``c_i ~ N(0, I)``.
    """
    return gaussian_identical(N, d, precision=float(N), seed=seed)


# --------------------------------------------------------------------------------------
# Exact objects: energies, derived matrix, implemented matrix, mixing
# --------------------------------------------------------------------------------------


def batch_states(N: int, b: int) -> np.ndarray:
    """All ``N^b`` ordered batches (with replacement), shape ``(N^b, b)``; ``b = 1`` gives ``[N]``.

    The implementation draws the ``b`` proposal indices independently and
    uniformly, so the proposal is uniform over these ordered tuples.
    """
    return np.array(list(itertools.product(range(N), repeat=b)), dtype=np.int64).reshape(-1, b)


def energies(
    problem: Problem, theta: np.ndarray, x: np.ndarray, a_scale: float, states: np.ndarray
) -> np.ndarray:
    """``E(I) = ½‖x + (N/b) Σ_{i∈I} a_i‖²`` with ``a_i = a_scale ∇f_i(θ)`` (eq. (5); b > 1 as in
    EWSG appendix E, reconstructed).

    Computed from all component gradients at once, independently of
    :meth:`EWSG._energy`, so that the derived matrix is not the implementation
    read back.
    """
    a = a_scale * problem.all_component_grads(theta[None])[0]  # (N, d)
    b = states.shape[1]
    s = (problem.N / b) * a[states].sum(axis=1)
    return 0.5 * np.sum((x[None, :] + s) ** 2, axis=1)


def mh_matrix(E: np.ndarray) -> np.ndarray:
    """Transition matrix of the Metropolis chain of eq. (5) on ``S = len(E)`` states.

    Uniform proposal over all ``S`` states (itself included, as in Algorithm 1),
    accepted with ``min(1, exp(E_j − E_i))``; a rejected or self proposal stays.
    """
    S = len(E)
    P = np.exp(np.minimum(0.0, E[None, :] - E[:, None])) / S
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices(S)] = 1.0 - P.sum(axis=1)
    return P


def implemented_kernel(
    est: Any,
    problem: Problem,
    theta: np.ndarray,
    x: np.ndarray,
    states: np.ndarray,
    rng: np.random.Generator,
    probes: int = 4,
) -> dict[str, Any]:
    """The exact one-step kernel of ``est.select`` (built with ``M = 1``) on ``states``.

    For every ordered pair (start ``i``, proposal ``j ≠ i``) the acceptance set
    ``{u ∈ [0, 1): select moves to j}`` is located by bisection over the bit
    patterns of float64 ``u`` (positive floats order like their bit patterns),
    which ends, after at most 62 halvings, at two adjacent floats ``lo < hi``
    with ``select`` moving at ``lo`` and staying at ``hi``.  If the acceptance set
    is an interval ``[0, t)`` its length is ``t ∈ (lo, hi]``: ``A_ij = hi`` to
    one ulp.  That the set *is* such an interval is then tested exactly at
    ``probes`` random ``u`` per pair (any disagreement is reported).

    Returns
    -------
    dict
        ``P`` (S, S) the implemented matrix; ``A`` the acceptance probabilities;
        ``threshold_violations`` the number of random probes whose outcome
        contradicts the threshold; ``bad_outputs`` the number of calls that
        returned neither the start nor the proposal.
    """
    S = len(states)
    ii, jj = np.nonzero(~np.eye(S, dtype=bool))
    C = len(ii)
    th = np.repeat(theta[None], C, axis=0)
    xx = np.repeat(x[None], C, axis=0)
    start, prop = states[ii], states[jj]
    bad = 0

    def moved(u: np.ndarray) -> np.ndarray:
        nonlocal bad
        rand = EWSGRand(start=start, proposals=prop[:, None, :], u=u[:, None], v=np.zeros(C))
        out = np.asarray(est.select(problem, th, rand, xx))
        to_prop = np.all(out == prop, axis=1)
        bad += int(np.sum(~to_prop & ~np.all(out == start, axis=1)))
        return to_prop

    lo = np.zeros(C, dtype=np.int64)  # u = 0 is never evaluated (log 0); assumed "moves"
    hi = np.full(C, _ONE_BITS, dtype=np.int64)  # u = 1 is outside [0, 1); assumed "stays"
    while np.any(hi - lo > 1):
        active = hi - lo > 1
        mid = lo + (hi - lo) // 2
        # finished pairs are re-evaluated at their own lo side harmlessly and left unchanged
        u = np.where(active, mid, np.maximum(lo, 1)).view(np.float64)
        acc = moved(u)
        lo = np.where(active & acc, mid, lo)
        hi = np.where(active & ~acc, mid, hi)
    A_pairs = hi.view(np.float64)
    lo_f = lo.view(np.float64)

    # exact test of the threshold model: moves iff u ≤ lo, stays iff u ≥ hi
    violations = 0
    for _ in range(probes):
        u = rng.random(C)
        u = np.where(u == 0.0, 0.5, u)  # u = 0 has probability 2^-53 and log(0) warns
        acc = moved(u)
        violations += int(np.sum(acc & (u >= A_pairs)) + np.sum(~acc & (u <= lo_f)))

    A = np.ones((S, S))
    A[ii, jj] = A_pairs
    P = A / S
    np.fill_diagonal(P, 0.0)
    P[np.diag_indices(S)] = 1.0 - P.sum(axis=1)
    return {"P": P, "A": A, "threshold_violations": violations, "bad_outputs": bad}


def mixing(P: np.ndarray, p: np.ndarray, Ms=CHAIN_LENGTHS) -> dict[str, Any]:
    """Exact mixing of the index chain from the uniform start of Algorithm 1.

    Returns ``TV(u P^M, p)`` for each ``M`` in ``Ms``, the smallest ``M`` with
    ``TV < TV_MIXED`` (``None`` if beyond :data:`M_SEARCH_MAX`), and the spectral
    gap ``1 − λ₂`` and absolute gap ``1 − max(|λ₂|, |λ_min|)`` of ``P``, computed
    from the symmetric ``D^{1/2} P D^{-1/2}`` (``P`` is reversible w.r.t. ``p``).
    """
    S = len(p)
    v = np.full(S, 1.0 / S)
    tv: dict[int, float] = {}
    m_mixed = None
    for m in range(M_SEARCH_MAX + 1):
        d = 0.5 * float(np.abs(v - p).sum())
        if m in Ms:
            tv[m] = d
        if m_mixed is None and d < TV_MIXED:
            m_mixed = m
        if m_mixed is not None and m >= max(Ms):
            break
        v = v @ P
    sq = np.sqrt(p)
    sym = sq[:, None] * P / sq[None, :]
    lam = np.sort(np.linalg.eigvalsh(0.5 * (sym + sym.T)))
    return {
        "tv": tv,
        "M_mixed": m_mixed,
        "gap": float(1.0 - lam[-2]),
        "abs_gap": float(1.0 - max(abs(lam[-2]), abs(lam[0]))),
    }


def _eq4_log_weights(problem, theta, x, a_scale) -> np.ndarray:
    """Normalised log ``p_i`` of eq. (4) written out directly (a cross-check of ``log_weights``)."""
    a = a_scale * problem.all_component_grads(theta[None])[0]
    logw = -0.5 * np.sum((x + a.sum(axis=0)) ** 2) + 0.5 * np.sum(
        (x[None, :] + problem.N * a) ** 2, axis=1
    )
    return logw - logsumexp(logw)


# --------------------------------------------------------------------------------------
# EWSG-MH
# --------------------------------------------------------------------------------------


def _stationarity_cases(profile: str, seed: int):
    """(name, problem, a_scale, θ, x) over which the kernel and stationarity are checked.

    Two problems (the §5.1 Gaussian and a differing-curvature one in d = 3), the
    ULD scales ``a_scale = √h/σ`` for every step size of the study plus two larger
    ones (0.3, 1) where ``p`` is concentrated on a few indices, θ off the mode
    (``c̄ + N(0, I)``) and ``x ~ N(0, I)``.
    """
    rng = np.random.default_rng([seed, 1])
    sigma = math.sqrt(2 * GAMMA)
    n_states = 3 if profile == "quick" else 20
    scales = [math.sqrt(h) / sigma for h in STEP_SIZES] + [0.3, 1.0]
    probs = [
        ("§5.1 Gaussian", paper_gaussian(seed=seed)),
        ("differing d=3, N=12", gaussian_differing(12, 3, seed=seed + 7)),
    ]
    for (pname, prob), a_scale in itertools.product(probs, scales):
        centre = prob.centres.mean(axis=0)
        for _ in range(n_states):
            theta = centre + rng.standard_normal(prob.d)
            x = rng.standard_normal(prob.d)
            yield pname, prob, a_scale, theta, x


def _equilibrium_states(problem, h: float, n: int, rng: np.random.Generator):
    """(θ, x̂) at ULD equilibrium: θ ~ N(μ, Λ⁻¹), r ~ N(0, I), x̂ = √h γ r/σ (EWSG §4.3)."""
    mu = problem.exact["mean"].value
    L = np.linalg.cholesky(problem.exact["cov"].value)
    sigma = math.sqrt(2 * GAMMA)
    for _ in range(n):
        theta = mu + L @ rng.standard_normal(problem.d)
        x = math.sqrt(h) * GAMMA * rng.standard_normal(problem.d) / sigma
        yield theta, x


def check_mh(
    *, profile: str = "quick", seed: int = 0, estimator: EstimatorFactory = EWSG
) -> tuple[list[Part], dict[str, Any]]:
    """EWSG-MH: the index chain of eq. (5) is stationary for the weights of eq. (4) (EWSG §4.3).

    Parts (all exact except "law after M steps"):

    * **kernel = eq. (5)**: the implemented one-step matrix (bisection on ``u``,
      :func:`implemented_kernel`) equals the matrix derived from eq. (5),
      :func:`mh_matrix`, entrywise to rounding.
    * **stationarity**: ``p`` from ``log_weights`` (eq. (4), Theorem 2) satisfies
      ``p P = p`` and detailed balance ``p_i P_ij = p_j P_ji`` for the implemented
      matrix, over states including ones where ``p`` is far from uniform.
    * **law after M steps**: the index frequencies of ``draw`` + ``select`` on
      independent chains are compared with ``u P^M`` by χ² tests at total level
      :data:`ALPHA` (Bonferroni over the tests).
    * **mixing against M**: ``TV(u P^M, p)``, spectral gaps and the ``M`` needed
      for ``TV < 0.01`` on the §5.1 Gaussian at ULD equilibrium, per step size.
    * **index follows p at M = 1**: Algorithm 1 restarts the chain uniformly every
      outer iteration, so the selected index has law ``u P^M``, not ``p``.
    * **b = 2 (reconstruction)**: the ``N^b``-state batch chain is stationary for
      ``∝ exp(½‖x + (N/b)Σ a_i‖²)`` (appendix E is not in our text).

    Rounding tolerance of the exact parts: every matrix entry and weight is an
    exponential of an energy difference with absolute error ``≲ 4ε(1 + |E|)``,
    the bisection adds one ulp, and a sum has at most ``S`` terms; the bound
    ``64·ε·S·(1 + max|E| + max|log p|)`` allows a factor 16 over that.  Broken
    rules miss by the spread of ``p``, many orders of magnitude more.

    Parameters
    ----------
    profile : {"quick", "full"}
    seed : int
    estimator : callable
        ``estimator(a_scale, M=..., b=...)`` returning the EWSG estimator under
        test (default :class:`~sgmcmc_verify.estimators.EWSG`).
    """
    rng = np.random.default_rng(seed)
    parts: list[Part] = []

    # -- exact kernel and stationarity, b = 1 ---------------------------------------------
    worst_kernel, worst_stat, worst_db, worst_lw = 0.0, 0.0, 0.0, 0.0
    worst_derived, max_tv_unif = 0.0, 0.0
    kernel_fail = stat_fail = None
    violations = bad = 0
    n_cases = 0
    for pname, prob, a_scale, theta, x in _stationarity_cases(profile, seed):
        n_cases += 1
        states = batch_states(prob.N, 1)
        E = energies(prob, theta, x, a_scale, states)
        P_der = mh_matrix(E)
        est = estimator(a_scale, M=1, b=1)
        impl = implemented_kernel(est, prob, theta, x, states, rng)
        violations += impl["threshold_violations"]
        bad += impl["bad_outputs"]
        logp = np.asarray(est.log_weights(prob, theta[None], x[None]))[0]
        p = np.exp(logp)
        scale = 1.0 + float(np.abs(E).max()) + float(np.abs(logp).max())
        tol = 64 * _EPS * prob.N * scale
        # entrywise kernel error, relative to each acceptance probability (+ underflow floor)
        acc_der = np.exp(np.minimum(0.0, E[None, :] - E[:, None]))
        k_err = float(np.max(np.abs(impl["A"] - acc_der) / (acc_der * tol + 1e-300)))
        stat = float(np.abs(p @ impl["P"] - p).max())
        flow = p[:, None] * impl["P"]
        db = float(np.abs(flow - flow.T).max())
        lw = float(np.abs(logp - _eq4_log_weights(prob, theta, x, a_scale)).max())
        der = float(np.abs(p @ P_der - p).max())
        case = {"problem": pname, "a_scale": a_scale, "theta": theta, "x": x, "tol": tol}
        worst_kernel = max(worst_kernel, k_err)
        worst_stat, worst_db = max(worst_stat, stat / tol), max(worst_db, db / tol)
        worst_lw, worst_derived = max(worst_lw, lw / tol), max(worst_derived, der / tol)
        max_tv_unif = max(max_tv_unif, 0.5 * float(np.abs(p - 1 / prob.N).sum()))
        if kernel_fail is None and (
            k_err > 1 or impl["threshold_violations"] or impl["bad_outputs"]
        ):
            kernel_fail = case | {
                "max |A_impl − A_eq5| / (A_eq5·tol)": k_err,
                "threshold_violations": impl["threshold_violations"],
                "bad_outputs": impl["bad_outputs"],
            }
        if stat_fail is None and max(stat, db, lw) > tol:
            stat_fail = case | {"|pP − p|_∞": stat, "max detailed-balance residual": db}
            stat_fail["max |log p − log p_eq4|"] = lw
    parts.append(
        Part(
            "kernel = eq. (5)",
            "refuted" if kernel_fail else "confirmed",
            "the implemented one-step matrix equals min(1, exp(E_j − E_i))/N off the diagonal",
            {
                "states checked": Measurement(n_cases, note="2 problems × 6 a_scales × θ, x"),
                "max |A_impl − A_eq5| / (A_eq5 · tol)": Measurement(
                    worst_kernel, note="≤ 1 passes; bisection over float64 u, exact to 1 ulp"
                ),
                "threshold-model violations": Measurement(violations, note="random u probes"),
                "outputs neither start nor proposal": Measurement(bad),
            },
            "every (start, proposal) pair enumerated; the implementation moves exactly when "
            "u < min(1, exp(E_j − E_i))"
            if kernel_fail is None
            else "the implemented acceptance differs from eq. (5)",
            kernel_fail,
        )
    )
    parts.append(
        Part(
            "stationarity",
            "refuted" if stat_fail else "confirmed",
            "p (eq. (4)) satisfies p P = p and detailed balance for the implemented matrix",
            {
                "max |pP − p|_∞ / tol": Measurement(worst_stat),
                "max |p_i P_ij − p_j P_ji| / tol": Measurement(worst_db),
                "max |log_weights − eq. (4)| / tol": Measurement(worst_lw),
                "max |p P_eq5 − p|_∞ / tol (derived matrix)": Measurement(worst_derived),
                "max TV(uniform, p) over states": Measurement(
                    max_tv_unif, note="how far from uniform the tested p are"
                ),
            },
            "exact: p is stationary (and reversible) to rounding, including states where p "
            "is concentrated on a few indices; the first term of eq. (4) is common to all i, "
            "so p_i ∝ exp(E_i) and Metropolis with a symmetric proposal targets it"
            if stat_fail is None
            else "p of eq. (4) is not stationary for the implemented chain",
            stat_fail,
        )
    )

    # -- mixing against M on the §5.1 Gaussian, and the law of the implementation ----------
    prob = paper_gaussian(seed=seed)
    n_mix = 21 if profile == "quick" else 201  # odd: the medians are attained values
    chains = 20_000 if profile == "quick" else 200_000
    Ms_tested = (0, 1, 2, 5) if profile == "quick" else (0, 1, 2, 5, 10, 20)
    n_tests = len(STEP_SIZES) * len(Ms_tested)
    alpha_each = bonferroni(ALPHA, n_tests)
    sigma = math.sqrt(2 * GAMMA)
    tv_med: dict[float, dict[int, float]] = {}
    tv_max: dict[float, dict[int, float]] = {}
    m_mixed: dict[float, Any] = {}
    gaps: dict[float, float] = {}
    abs_gaps: dict[float, float] = {}
    min_p_gof, gof_fail = 1.0, None
    for h in STEP_SIZES:
        a_scale = math.sqrt(h) / sigma
        rows, mm, gp, agp = [], [], [], []
        first = None
        for theta, x in _equilibrium_states(prob, h, n_mix, rng):
            E = energies(prob, theta, x, a_scale, batch_states(prob.N, 1))
            P = mh_matrix(E)
            p = np.exp(E - logsumexp(E))
            mix = mixing(P, p)
            rows.append([mix["tv"][m] for m in CHAIN_LENGTHS])
            mm.append(math.inf if mix["M_mixed"] is None else mix["M_mixed"])
            gp.append(mix["gap"])
            agp.append(mix["abs_gap"])
            if first is None:
                first = (theta, x, P)
        arr = np.array(rows)
        tv_med[h] = dict(zip(CHAIN_LENGTHS, np.median(arr, axis=0).tolist(), strict=True))
        tv_max[h] = dict(zip(CHAIN_LENGTHS, arr.max(axis=0).tolist(), strict=True))
        m_mixed[h] = {"median": float(np.median(mm)), "max": float(np.max(mm))}
        gaps[h] = float(np.median(gp))
        abs_gaps[h] = float(np.median(agp))
        # the implementation, from its own draw(), at the first equilibrium state
        theta, x, P = first
        th = np.repeat(theta[None], chains, axis=0)
        xx = np.repeat(x[None], chains, axis=0)
        for M in Ms_tested:
            est = estimator(a_scale, M=M, b=1)
            rand, _ = est.draw(prob, None, chains, rng)
            idx = np.asarray(est.select(prob, th, rand, xx))[:, 0]
            law = np.linalg.matrix_power(P.T, M) @ np.full(prob.N, 1.0 / prob.N)
            gof = chisquare_gof(np.bincount(idx, minlength=prob.N), law, alpha=alpha_each)
            min_p_gof = min(min_p_gof, gof.p_value)
            if gof.reject and gof_fail is None:
                gof_fail = {"h": h, "M": M, "p_value": gof.p_value, "theta": theta, "x": x}
    parts.append(
        Part(
            "law after M steps",
            "refuted" if gof_fail else "confirmed",
            "draw() + select() give the index law u P^M (u uniform) of Algorithm 1",
            {
                "min χ² p-value": Measurement(
                    min_p_gof,
                    note=f"{n_tests} tests (h × M = {Ms_tested}), {chains} chains each, "
                    f"α = {ALPHA:g} total, {alpha_each:.2g} each",
                ),
            },
            "the implementation's index frequencies match u P^M"
            if gof_fail is None
            else "the implementation's index law differs from u P^M",
            gof_fail,
        )
    )
    ergodic = all(g > 0 for g in gaps.values())
    extra: dict[str, Measurement] = {}
    if profile == "full":
        extra = {
            "M for TV < 0.01 vs N at h = 5e-2 (median)": Measurement(
                _m_mixed_vs_N(rng, (20, 50, 100)),
                note="51 states per N, data c_i drawn with seed N.  §5.1 reports the most "
                "accurate M rising to 19 for n = 50, 100 (Fig. 1g, 1h): a bias–variance optimum "
                "of the sampler, not a mixing time, so not directly comparable",
            )
        }
    parts.append(
        Part(
            "mixing against M",
            "confirmed" if ergodic else "refuted",
            "TV(u P^M, p) → 0 as M grows (positive spectral gap)",
            {
                "TV(u P^M, p), median over states": Measurement(
                    tv_med, note=f"h → {{M → TV}}; {n_mix} ULD-equilibrium (θ, x̂) per h; exact"
                ),
                "TV(u P^M, p), max over states": Measurement(tv_max),
                "M for TV < 0.01": Measurement(m_mixed, note="median and max over states"),
                "spectral gap 1 − λ₂ (median)": Measurement(gaps),
                "absolute gap 1 − max(|λ₂|, |λ_min|) (median)": Measurement(abs_gaps),
                **extra,
            },
            "§5.1 Gaussian (n = 20, d = 2, c_i ~ N(0, I)), ULD-EM with γ = 10, σ = √(2γ), "
            "a_i = √h ∇V_i/σ, x̂ = √h γ r/σ with (θ, r) drawn from equilibrium.  The numbers "
            "depend strongly on the data draw (c_i from `seed`): at h = 5e-2, N a_i = θ − c_i "
            "exactly, so p_i ∝ exp(½‖x̂ + θ − c_i‖²) puts exponentially more weight on the c_i "
            "farthest from θ, and an outlying c_i slows mixing from the uniform start",
        )
    )

    # -- does the selected index follow p under Algorithm 1 as printed? --------------------
    h_paper = 5e-2
    tv1, tv0 = tv_med[h_paper][1], tv_med[h_paper][0]
    follows = tv1 < TV_MIXED
    parts.append(
        Part(
            "index follows p at M = 1",
            "confirmed" if follows else "qualified",
            "the index Algorithm 1 uses (fresh uniform start, M = 1, §5 default) follows p",
            {
                "TV(u P, p) at h = 5e-2 (median)": Measurement(tv1, note="§5.1's EWSG step size"),
                "TV(u, p) at h = 5e-2 (uniform SG, M = 0)": Measurement(tv0),
                "fraction of TV(u, p) left after M = 1": Measurement(tv1 / tv0 if tv0 else 0.0),
                "TV(u P, p) by h (median)": Measurement({h: tv_med[h][1] for h in STEP_SIZES}),
            },
            f"only as M → ∞: Algorithm 1 draws a fresh uniform start every outer iteration, "
            f"so at M = 1 the index has law u P, with median TV(u P, p) = {tv1:.3g} at "
            f"h = 5e-2 (uniform SG: {tv0:.3g}); the median M for TV < 0.01 there is "
            f"{m_mixed[h_paper]['median']:g}.  §4.3's rationale for M = 1 (N outer steps give "
            f"N × M inner steps on the same chain) needs the index carried over between "
            f"iterations, which Algorithm 1 as printed does not do"
            if not follows
            else f"TV(u P, p) = {tv1:.3g} < {TV_MIXED} at h = 5e-2",
            None,
        )
    )

    # -- b = 2: the batch chain (appendix E reconstructed) ---------------------------------
    parts.append(_batch_part(profile, seed, estimator, rng))
    params = {
        "alpha": ALPHA,
        "gamma": GAMMA,
        "step_sizes": STEP_SIZES,
        "mixing_states_per_h": n_mix,
        "chains_per_chi2": chains,
        "stationarity_cases": n_cases,
    }
    return parts, params


def _m_mixed_vs_N(rng, Ns) -> dict[int, float]:
    """Median M for TV < 0.01 on the §5.1 Gaussian with n = N at h = 5e-2 (full profile)."""
    out = {}
    a_scale = math.sqrt(5e-2) / math.sqrt(2 * GAMMA)
    for N in Ns:
        prob = paper_gaussian(N, seed=N)
        mm = []
        for theta, x in _equilibrium_states(prob, 5e-2, 51, rng):
            E = energies(prob, theta, x, a_scale, batch_states(N, 1))
            mix = mixing(mh_matrix(E), np.exp(E - logsumexp(E)))
            mm.append(math.inf if mix["M_mixed"] is None else mix["M_mixed"])
        out[N] = float(np.median(mm))
    return out


def _batch_part(profile, seed, estimator, rng) -> Part:
    """The exact N^b-state batch chain (b = 2) against ``∝ exp(½‖x + (N/b)Σ a_i‖²)``."""
    N, b = 5, 2
    prob = gaussian_differing(N, 2, seed=seed + 3)
    states = batch_states(N, b)
    S = len(states)
    n_states = 3 if profile == "quick" else 15
    worst_k, worst_s, fail = 0.0, 0.0, None
    tv_u = []
    for a_scale in (0.05, 0.3, 1.0):
        for _ in range(n_states):
            theta = prob.centres.mean(axis=0) + rng.standard_normal(2)
            x = rng.standard_normal(2)
            E = energies(prob, theta, x, a_scale, states)
            logpi = E - logsumexp(E)
            pi = np.exp(logpi)
            tol = 64 * _EPS * S * (1.0 + float(np.abs(E).max()) + float(np.abs(logpi).max()))
            impl = implemented_kernel(estimator(a_scale, M=1, b=b), prob, theta, x, states, rng)
            acc = np.exp(np.minimum(0.0, E[None, :] - E[:, None]))
            k_err = float(np.max(np.abs(impl["A"] - acc) / (acc * tol + 1e-300)))
            stat = float(np.abs(pi @ impl["P"] - pi).max())
            flow = pi[:, None] * impl["P"]
            db = float(np.abs(flow - flow.T).max())
            worst_k, worst_s = max(worst_k, k_err), max(worst_s, max(stat, db) / tol)
            tv_u.append(0.5 * float(np.abs(pi - 1 / S).sum()))
            bad = k_err > 1 or impl["threshold_violations"] or impl["bad_outputs"]
            if fail is None and (bad or max(stat, db) > tol):
                fail = {
                    "a_scale": a_scale,
                    "theta": theta,
                    "x": x,
                    "kernel error / tol": k_err,
                    "|πP − π|_∞": stat,
                    "detailed-balance residual": db,
                    "tol": tol,
                    "threshold_violations": impl["threshold_violations"],
                }
    return Part(
        "b = 2 (reconstruction)",
        "refuted" if fail else "confirmed",
        "the batch chain on N^b ordered batches is stationary for ∝ exp(½‖x + (N/b)Σ_{i∈I} a_i‖²)",
        {
            "N, b, states": Measurement((N, b, S)),
            "max kernel error / tol": Measurement(worst_k, note="≤ 1 passes"),
            "max stationarity or detailed-balance residual / tol": Measurement(worst_s),
            "max TV(uniform, π) over states": Measurement(max(tv_u)),
        },
        "the implemented batch chain moves with min(1, exp(E_J − E_I)) and is stationary for "
        "∝ exp(E(I)) to rounding.  This checks the package's reconstruction of appendix E "
        "(not in our text: eq. (5) with N a_i → (N/b) Σ a_i, proposals b i.i.d. uniform "
        "indices), not the paper's own b > 1 scheme"
        if fail is None
        else "the implemented batch chain is not stationary for the reconstructed law",
        fail,
    )
