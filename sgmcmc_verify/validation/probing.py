"""Step-mode validation by the exact law of the user's own step (issue 11 items 1–3).

A step function with its noise and indices passed in is probed on the harness's
step-mode problem (:func:`sgmcmc_verify.validation.targets.problem_step`: d = 2,
correlated, differing curvatures, a Gaussian prior, N = 4, a batch of n = 2), at a
ladder of step sizes; :mod:`sgmcmc_verify.exact.probe` gives the *exact* stationary
law of the chain at each.  No reference is needed to judge it, because every correct
SG-MCMC scheme shares one property:

**consistency** — the stationary law converges to the target as ``h → 0``: the
mean to ``μ``, the covariance to ``Λ⁻¹``, and, for a momentum, ``E ppᵀ → I`` and
``Cov(θ, p) → 0``.  The limit is extrapolated from exact values (Richardson, two
polynomial degrees); the difference between the two extrapolants bounds what the
check can resolve, and that bound is stated with the verdict.

When the chain is not consistent, the probed maps say *why*: the drift and the
diffusion of the limiting SDE, ``lim (E M_S − I)/h`` and ``lim E B_S B_Sᵀ/h``, are
compared with the Langevin diffusion of π term by term (prior and data weights of the
gradient, friction against noise for fluctuation–dissipation, isotropy of the noise),
and the stationary law is compared with the exact law of every registry scheme to name
the discretisation the step implements.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from ..exact import moments, probe
from ..problems import GaussianQuadratic
from .report import CheckResult

__all__ = [
    "EXACT_HS",
    "MIN_HS",
    "ExactLadder",
    "SchemeMatch",
    "consistency_check",
    "diagnose_generator",
    "exact_ladder",
    "identify_scheme",
    "probe_checks",
    "same_kernel",
    "sampler_step",
]

#: Step sizes of the exact ladder (each law is one linear solve, so small h are cheap).
EXACT_HS = (0.2, 0.1, 0.05, 0.025, 0.0125, 0.00625)

#: Rounding floor of the consistency check: the stationary solve's relative error at the
#: smallest h (its conditioning grows like 1/h), with margin.
ROUNDING_FLOOR = 1e-9

#: Step sizes the h → 0 limit rests on (the smallest ones; they must all be stable), and
#: the least a step-mode ladder may have (validate checks it before the step runs).
MIN_HS = 4

#: The resolution factor: the truncation error of the higher-degree extrapolant is taken as
#: at most this multiple of its difference from the next lower degree's (whose own error
#: that difference estimates).
RESOLUTION_FACTOR = 3.0

#: Above this resolution (relative to the target's scales) a consistency check decides
#: nothing: "inconclusive", never a pass.
RESOLUTION_CEILING = 1e-2


@dataclass(frozen=True)
class ExactLadder:
    """Exact stationary laws of a probed step along a ladder of step sizes.

    Attributes
    ----------
    hs : tuple of float
    chains : list of ProbedChain
    mean, cov : ndarray
        Stationary mean and covariance of the public state (θ, and p when present),
        shape (len(hs), m) and (len(hs), m, m).
    keys : tuple of str
        Public keys in order (``("theta",)`` or ``("theta", "p")``).
    d : int
    calls : int
        Calls of the step function (one per index draw and step size).
    unstable : tuple of float
        Step sizes left out because the chain has no stationary law there (only allowed
        above the :data:`MIN_HS` smallest).
    """

    hs: tuple[float, ...]
    chains: list[probe.ProbedChain]
    mean: np.ndarray
    cov: np.ndarray
    keys: tuple[str, ...]
    d: int
    calls: int
    unstable: tuple[float, ...] = ()


#: Two equal chains' exact laws differ by the moment equations' rounding only (≲ 1e-12):
#: a relative gap at most this is "the same law".
SAME_LAW_GAP = 1e-8


def exact_ladder(
    step: Callable[..., Mapping[str, Any]],
    state: Mapping[str, np.ndarray],
    *,
    problem: GaussianQuadratic,
    hs: Sequence[float],
    law: Sequence[tuple[Any, float]],
    noise_dim: int | None = None,
    call: Callable[[Callable[[], Any]], Any] | None = None,
) -> ExactLadder:
    """Probe ``step`` at each ``h`` and solve for its exact stationary law.

    Raises
    ------
    sgmcmc_verify.exact.probe.NotAffineError
        The step is not affine on this Gaussian target.
    ValueError
        No stationary law at some ``h`` (the spectral radius of the moment map is ≥ 1),
        or a malformed state.
    """
    chains, means, covs, calls, kept, unstable = [], [], [], 0, [], []
    keys: tuple[str, ...] = ()
    d = problem.d
    for h in sorted(hs, reverse=True):
        pc = probe.probe_chain(
            step,
            state,
            h=h,
            law=law,
            noise_dim=noise_dim,
            kwargs={"problem": problem, "randomness": None},
            call=call,
        )
        calls += pc.calls
        keys = tuple(k for k in ("theta", "p") if k in pc.layout.keys)
        if "p" in keys and pc.layout.shapes[1] != (d,):
            raise ValueError(f"state['p'] has per-chain shape {pc.layout.shapes[1]}, not ({d},)")
        try:
            st = pc.stationary()
        except ValueError as err:
            # a step size the harness chose may be too large for the user's friction: only
            # an unstable chain at the small step sizes the limit rests on is a finding
            unstable.append((h, str(err)))
            continue
        m = len(keys) * d
        pub = slice(0, m)  # θ then p lead the layout (StateLayout.of)
        means.append(st.state_mean[0, pub])
        covs.append(st.state_cov[0, pub, pub])
        chains.append(pc)
        kept.append(h)
    smallest = sorted(hs)[:MIN_HS]
    bad = [(h, e) for h, e in unstable if h in smallest]
    if bad:
        raise ValueError(f"at h = {bad[0][0]:g}: {bad[0][1]}")
    return ExactLadder(
        tuple(kept), chains, np.array(means), np.array(covs), keys, d, calls,
        tuple(h for h, _ in unstable),
    )  # fmt: skip


def _target(problem: GaussianQuadratic, keys: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    d = problem.d
    mu, Sig = problem.exact["mean"].value, problem.exact["cov"].value
    if keys == ("theta",):
        return mu, Sig
    mean = np.concatenate([mu, np.zeros(d)])
    cov = np.zeros((2 * d, 2 * d))
    cov[:d, :d], cov[d:, d:] = Sig, np.eye(d)  # unit mass, T = 1
    return mean, cov


def _relative_gap(mean, cov, tmean, tcov) -> float:
    """Largest deviation of a law from another, in units of the target's scales.

    Means in target standard deviations, covariances relative to ``sd_i sd_j``: one
    number that is 0.01 for a 1 % variance error and for a 0.01 sd mean shift.
    """
    sd = np.sqrt(np.diag(tcov))
    dm = np.abs(mean - tmean) / sd
    dc = np.abs(cov - tcov) / np.outer(sd, sd)
    return float(max(dm.max(), dc.max()))


def _extrapolate(hs: np.ndarray, vals: np.ndarray, degree: int) -> np.ndarray:
    """Value at ``h = 0`` of the degree-``degree`` polynomial through the last points."""
    k = degree + 1
    x, y = hs[-k:], vals[-k:].reshape(k, -1)
    V = np.vander(x, k, increasing=True)
    return np.linalg.solve(V, y)[0].reshape(vals.shape[1:])


def _judged(lad: ExactLadder, unit_mass: bool) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The keys judged against the target and their laws along the ladder.

    θ always; p only when the scheme claims unit mass (``E ppᵀ = I``): a correct scheme
    with another mass, or in a (θ, v = hp) parametrisation, must not be called inconsistent.
    """
    if unit_mass or lad.keys == ("theta",):
        return lad.keys, lad.mean, lad.cov
    d = lad.d
    return ("theta",), lad.mean[:, :d], lad.cov[:, :d, :d]


def consistency_check(
    lad: ExactLadder, problem: GaussianQuadratic, *, unit_mass: bool = False
) -> CheckResult:
    """Does the exact stationary law converge to the target as ``h → 0``?

    The limit is the polynomial extrapolant of degree ``k = min(4, len(hs) − 1)`` through
    the ladder; the extrapolant of degree ``k − 1`` differs from it by about the lower
    one's truncation error, and :data:`RESOLUTION_FACTOR` times that difference (floored at
    rounding) bounds the higher one's: the verdict's resolution, stated with it.  A gap
    above the resolution fails; a resolution above :data:`RESOLUTION_CEILING` decides
    nothing (inconclusive).
    """
    hs = np.array(lad.hs)
    keys, means, covs = _judged(lad, unit_mass)
    tmean, tcov = _target(problem, keys)
    hi = min(4, len(hs) - 1)
    lim = {deg: (_extrapolate(hs, means, deg), _extrapolate(hs, covs, deg)) for deg in (hi - 1, hi)}
    gap = _relative_gap(*lim[hi], tmean, tcov)
    resolution = max(RESOLUTION_FACTOR * _relative_gap(*lim[hi], *lim[hi - 1]), ROUNDING_FLOOR)
    biases = [_relative_gap(m, c, tmean, tcov) for m, c in zip(means, covs, strict=True)]
    order = None
    if biases[-1] > 100 * ROUNDING_FLOOR and biases[-2] > 0:
        order = math.log(biases[-2] / biases[-1]) / math.log(hs[-2] / hs[-1])
    nums = {
        "h": list(lad.hs),
        "left out (no stationary law)": list(lad.unstable),
        "judged": list(keys),
        "stationary bias (relative, exact)": biases,
        "h → 0 limit: mean": lim[hi][0],
        "h → 0 limit: covariance": lim[hi][1],
        "target mean": tmean,
        "target covariance": tcov,
        "limit gap (relative)": gap,
        "resolution (relative)": resolution,
        "bias order at the smallest h": order,
        "step calls": lad.calls,
        "source": "exact law by probing the step (moment equations, float64)",
    }
    what = "θ" if keys == ("theta",) else "(θ, p)"
    name = "consistency (exact, h → 0)"
    if resolution > RESOLUTION_CEILING:
        return CheckResult(
            name,
            "inconclusive",
            f"the extrapolation to h → 0 resolves only {resolution:.2g} of the target's scales "
            f"(above {RESOLUTION_CEILING:g}): the bias is not yet polynomial at these h — give "
            "smaller step sizes (hs=...)",
            nums,
        )
    if gap > resolution:
        lm, lc = lim[hi]
        d = lad.d
        ratio = np.diag(lc)[:d] / np.diag(tcov)[:d]
        msg = (
            f"inconsistent: as h → 0 the stationary law of {what} tends to mean "
            f"{np.round(lm[:d], 4).tolist()} and Var θ {np.round(np.diag(lc)[:d], 4).tolist()} "
            f"({np.round(ratio, 3).tolist()}× the target's), not the target N(μ = "
            f"{np.round(tmean[:d], 4).tolist()}, Λ⁻¹): a gap of {gap:.3g} (relative) against "
            f"a resolution of {resolution:.2g}"
        )
        return CheckResult(name, "fail", msg, nums)
    zero = biases[-1] <= 100 * ROUNDING_FLOOR
    tail = (
        "its stationary bias is zero to rounding at every h"
        if zero and max(biases) <= 100 * ROUNDING_FLOOR
        else f"bias {biases[-1]:.2g} at h = {hs[-1]:g}"
        + (f", order {order:.2f}" if order is not None else "")
    )
    msg = (
        f"consistent: the exact stationary law of {what} converges to the target as h → 0 "
        f"(limit gap {gap:.2g} ≤ resolution {resolution:.2g}: any inconsistency larger than "
        f"{resolution:.2g} of the target's scales would have been detected); {tail}"
    )
    return CheckResult(name, "pass", msg, nums)


def diagnose_generator(
    lad: ExactLadder, problem: GaussianQuadratic, n: int, *, unit_mass: bool = False
) -> tuple[list[str], dict]:
    """Read the limiting SDE off the probed maps and say which term breaks the target.

    Drift ``A = lim (E M − I)/h``, constant ``b = lim E c/h`` and diffusion
    ``D = lim E BBᵀ/h`` on the public state, each extrapolated to h → 0 by the quadratic
    through the three smallest step sizes; the linear extrapolant through the two smallest
    differs from it by about its own truncation error, and :data:`RESOLUTION_FACTOR` times
    that difference (floored at 1e-9) is the tolerance below which no term is named.
    Overdamped (state θ): Langevin needs ``A = −(Λ_0 + Σ Λ_i)``, ``b = Λ_0 μ_0 + Σ Λ_i c_i``,
    ``D = 2I``.  Underdamped (θ, p): ``A_θp = M⁻¹`` (the mass; ``I`` when ``unit_mass``),
    ``A_pθ = −Λ``, and fluctuation–dissipation at T = 1 needs ``D_pp = −(A_pp M + M A_ppᵀ)``
    (``2Γ`` for unit mass and friction ``Γ = −A_pp``).  The gradient
    part is decomposed as ``w_0 Λ_0 + w_1 Σ Λ_i``: the weights the step gives the prior and
    the data; ``n`` is the batch size the harness passed, for naming batch-scaling slips.
    Returns the findings (sentences) and the identified numbers.
    """
    if len(lad.chains) < 3 or set(lad.chains[-1].layout.keys) - {"theta", "p"}:
        return [], {}
    d = lad.d
    m = len(lad.keys) * d
    hs = np.array([pc.h for pc in lad.chains[-3:]])
    per_h = []
    for pc in lad.chains[-3:]:
        M, c, BB = pc.mean_map()
        per_h.append(np.concatenate([((M[:m, :m] - np.eye(m)) / pc.h).ravel(), c[:m] / pc.h,
                                     (BB[:m, :m] / pc.h).ravel()]))  # fmt: skip
    per_h = np.array(per_h)
    quad = _extrapolate(hs, per_h, 2)
    lin = _extrapolate(hs, per_h, 1)
    tol = max(RESOLUTION_FACTOR * float(np.abs(quad - lin).max()), 1e-9)
    A = quad[: m * m].reshape(m, m)
    b = quad[m * m : m * m + m]
    D = quad[m * m + m :].reshape(m, m)
    L0 = problem.prior_precision
    Ld = problem.precisions.sum(axis=0)
    bd = np.einsum("nij,nj->i", problem.precisions, problem.centres)
    b0 = L0 @ problem.prior_mean
    findings: list[str] = []
    if lad.keys == ("theta",):
        G, gconst, Dn = -A, b, D
        friction = None
    else:
        G, gconst = -A[d:, :d], b[d:]
        Dn = D[d:, d:]
        friction = -A[d:, d:]
        mass_inv = A[:d, d:]
        if unit_mass and not np.allclose(mass_inv, np.eye(d), rtol=0, atol=tol):
            findings.append(
                f"θ moves with {np.round(np.diag(mass_inv), 4).tolist()}·p per unit time "
                "(unit mass requires 1): a step-size factor on the position update"
            )
        if np.abs(D[:d, :]).max() > tol:
            findings.append("noise enters θ directly as h → 0 (it should enter p only)")
    # gradient weights: least squares of G = w0 Λ0 + w1 Λd, and of the constant term
    basis = np.stack([L0.ravel(), Ld.ravel()], axis=1)
    cbasis = np.stack([b0, bd], axis=1)
    X = np.vstack([basis, cbasis])
    y = np.concatenate([G.ravel(), gconst])
    w, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = float(np.abs(X @ w - y).max() / (1 + np.abs(y).max()))
    nums: dict[str, Any] = {
        "drift A (limit)": A,
        "diffusion D (limit)": D,
        "gradient weights (prior w0, data w1)": w,
        "weights fit residual": resid,
        "tolerance": tol,
    }
    # an overdamped drift −P∇U with a constant preconditioner P (pSGLD): consistent with
    # noise 2P, so the noise is judged against 2P, not 2I
    precond = (
        _preconditioner(G, gconst, L0 + Ld, b0 + bd, tol)
        if resid > tol and friction is None
        else None
    )
    per_term = _term_weights(G, gconst, problem, tol) if resid > tol and precond is None else None
    if precond is not None:
        nums["preconditioner P (drift −P∇U)"] = precond
    elif per_term is not None:
        nums["data term weights"] = per_term
        findings.append(
            f"the data terms are weighted {[_num(x, tol) for x in per_term]} in expectation "
            "(1 each required): the step reads some data terms more often than others — an "
            "index mapped to the wrong term (off by one, clipped, or a fixed term)"
        )
    elif resid > tol:
        findings.append(
            "the drift is not −∇U for any weighting of prior and data: the gradient is "
            "evaluated at the wrong point or mixes coordinates"
        )
    else:
        if abs(w[0] - 1) > tol and problem.has_prior:
            Nn = _num(problem.N / n, tol)
            causes = [
                text
                for value, text in (
                    (problem.N / n, f"N/n: the prior is scaled like the minibatch (N/n = {Nn})"),
                    (n, f"n: the prior is added once per batch element (n = {n})"),
                )
                if abs(w[0] - value) < tol
            ]
            findings.append(
                f"the prior's gradient is weighted {_num(w[0], tol)} (1 required)"
                + (" = " + ", or = ".join(causes) if causes else "")
                + (" — the validation problem cannot tell these apart" if len(causes) > 1 else "")
            )
        if abs(w[1] - 1) > tol:
            findings.append(
                f"the data gradient is weighted {_num(w[1], tol)} in expectation (1 required)"
                + _data_weight_hint(w[1], problem.N, n, tol)
            )
    if friction is None and precond is not None:
        findings += _preconditioned_noise(precond, Dn, tol)
        nums["noise variance per unit time"] = Dn
    elif friction is None:
        want = 2 * np.eye(d)
        if not np.allclose(Dn, want, rtol=0, atol=tol):
            findings.append(_noise_finding(Dn, want, "√(2h)·ξ", tol))
        nums["noise variance per unit time"] = Dn
    else:
        nums["friction Γ"] = friction
        nums["momentum diffusion D_pp"] = Dn
        try:
            mass = np.linalg.inv(mass_inv)
        except np.linalg.LinAlgError:
            findings.append("θ does not move with p as h → 0 (A_θp is singular)")
            return findings, nums
        need = friction @ mass + mass @ friction.T  # D_pp at T = 1
        if not np.allclose(Dn, need, rtol=0, atol=tol):
            temps = np.diag(Dn) / np.diag(need)
            scalar = np.allclose(Dn, temps[0] * need, rtol=0, atol=tol)
            findings.append(
                f"fluctuation–dissipation fails: friction Γ = "
                f"{np.round(np.diag(friction), 4).tolist()}, momentum noise D = "
                f"{np.round(np.diag(Dn), 4).tolist()} per unit time, but T = 1 requires "
                f"D = {np.round(np.diag(need), 4).tolist()} (2Γ at unit mass)"
                + (f"; the chain samples π at temperature {temps[0]:.4g}" if scalar else "")
            )
    return findings, nums


def _preconditioned_noise(P: np.ndarray, Dn: np.ndarray, tol: float) -> list[str]:
    """Findings on the noise of an overdamped step whose drift is ``−P∇U``.

    Such a step samples π exactly when its noise covariance is ``2P`` per unit time.  Named:
    ``2P²`` (the noise multiplied by P instead of P^½); the plain ``2I`` of unpreconditioned
    Langevin (the drift or the noise is wrong, the numbers cannot say which); ``s·2P`` (the
    right shape, the wrong scale).  The shape is judged against 2P, never against I.
    """
    want = 2 * P
    if np.allclose(Dn, want, rtol=0, atol=tol):
        return []
    drift = f"the drift is −P∇U with the preconditioner P = {np.round(P, 4).tolist()}"
    if np.allclose(Dn, 2 * P @ P, rtol=0, atol=tol):
        return [
            f"{drift}, and the noise covariance is 2P²·h where 2P·h is required: the noise "
            "is multiplied by P instead of P^½"
        ]
    if np.allclose(Dn, 2 * np.eye(len(P)), rtol=0, atol=tol):
        return [
            f"{drift}, while the noise is √(2h)·ξ: either the gradient is scaled per "
            "coordinate (the drift should be −∇U) or, for a preconditioned scheme, the noise "
            "should be √(2h)·P^½ξ"
        ]
    s = float(np.trace(Dn) / np.trace(want))
    if np.allclose(Dn, s * want, rtol=0, atol=tol):
        return [
            f"{drift}, and the noise covariance is {s:.4g} × the 2P·h required: the noise "
            "has the right shape and the wrong scale"
        ]
    return [
        f"{drift}, and the noise covariance {np.round(Dn, 4).tolist()}·h is not "
        "proportional to the 2P·h it requires"
    ]


def _term_weights(
    G: np.ndarray, g: np.ndarray, problem: GaussianQuadratic, tol: float
) -> np.ndarray | None:
    """Per-data-term weights ``w_i`` when the drift is ``−(Λ_0 θ − b_0) − Σ w_i ∇f_i`` with
    the prior weighted 1, else None.

    The drift matrix and constant give ``d² + d`` equations for the ``N`` weights; the fit is
    made only where they determine the weights (full column rank) and is accepted only to
    the tolerance: otherwise the drift is not a reweighting of the data terms.
    """
    P, C = problem.precisions, problem.centres
    X = np.stack([np.concatenate([P[i].ravel(), P[i] @ C[i]]) for i in range(problem.N)], axis=1)
    L0, b0 = problem.prior_precision, problem.prior_precision @ problem.prior_mean
    y = np.concatenate([(G - L0).ravel(), g - b0])
    if np.linalg.matrix_rank(X) < problem.N:
        return None
    w, *_ = np.linalg.lstsq(X, y, rcond=None)
    if float(np.abs(X @ w - y).max() / (1 + np.abs(y).max())) > tol:
        return None
    return w


def _preconditioner(
    G: np.ndarray, g: np.ndarray, Lam: np.ndarray, b: np.ndarray, tol: float
) -> np.ndarray | None:
    """``P`` when the overdamped drift ``−Gθ + g`` is ``−P∇U = −P(Λθ − b)``, else None.

    ``P = GΛ⁻¹`` must be symmetric positive definite and the constant must be ``Pb`` (the
    drift vanishes at the target's mean): a preconditioned Langevin drift (Li et al. 2016's
    pSGLD with a fixed G).  A gradient evaluated at a wrong point moves the drift's zero
    and is not taken for a preconditioner.  The tolerances carry ``tol`` through Λ⁻¹.
    """
    inv = np.linalg.inv(Lam)
    P = G @ inv
    scale = 10 * tol * (1 + np.abs(inv).sum(axis=0).max())
    if np.abs(P - P.T).max() > scale or np.abs(P @ b - g).max() > scale * (1 + np.abs(b).max()):
        return None
    P = 0.5 * (P + P.T)
    return P if np.linalg.eigvalsh(P).min() > scale else None


def _num(x: float, tol: float) -> str:
    """A fitted weight for a message, to the digits its tolerance resolves."""
    digits = max(0, min(12, -math.floor(math.log10(tol))))
    return f"{round(float(x), digits) + 0.0:g}"


def _data_weight_hint(w: float, N: int, n: int, tol: float) -> str:
    """Name the batch-scaling slip a data weight ``w`` corresponds to, if one does."""
    for value, text in (
        (n, f" = n: the batch sum is scaled by N instead of N/n (n = {n})"),
        (n / N, f" = n/N: the batch sum is not scaled by N/n (n = {n}, N = {N})"),
        (1 / n, f" = 1/n: the batch mean is scaled by N/n again (n = {n})"),
    ):
        if abs(w - value) < tol:
            return text
    return ""


def _noise_finding(Dn: np.ndarray, want: np.ndarray, required: str, tol: float) -> str:
    diag = np.diag(Dn)
    off = np.abs(Dn - np.diag(diag)).max()
    if off > tol or not np.allclose(diag, diag[0], rtol=0, atol=tol):
        return (
            f"the injected noise has covariance {np.round(Dn, 4).tolist()}·h per step where "
            f"{required} gives {np.round(want, 4).tolist()}·h: not isotropic (a per-coordinate "
            "noise scale, or noise shared across coordinates)"
        )
    s = diag[0] / want[0, 0]
    hint = ""
    if abs(s - 0.5) < tol:
        hint = ": noise √h·ξ where √(2h)·ξ is required"
    elif abs(s - 2) < tol:
        hint = ": noise 2√h·ξ where √(2h)·ξ is required"
    return f"the injected noise variance is {s:.4g}× what {required} gives{hint}"


def sampler_step(name: str, problem: GaussianQuadratic, *, h: float, **params: Any):
    """A registry algorithm whose estimator keeps no state, as a probe-able step function.

    Returns ``(step, state_template, index_law, noise_dim)``: the step takes the public
    state (θ, and p for underdamped schemes), the harness's noise and indices; an
    injected-noise gradient (SGNHT §3) takes its standard normals from the second half of
    a ``2d`` noise vector.  :class:`ValueError` for thermostats and for estimators with a
    state (SVRG/SAGA tables, EWSG's index chain): their exact laws come from
    :mod:`sgmcmc_verify.exact.moments` or not at all.
    """
    from ..algorithms import StepRandomness
    from ..estimators import FullGradient, InjectedNoise, Minibatch

    s = registry.make_sampler(name, problem, h=h, **params)
    est = s.estimator
    if not isinstance(est, Minibatch | FullGradient | InjectedNoise) or s.family == "thermostat":
        raise ValueError(f"{name}: its estimator or thermostat keeps state; not probed")
    d = problem.d
    init = s.init(np.zeros((1, d)), np.random.default_rng(0))
    keys = ("theta", "p") if s.family == "underdamped" else ("theta",)
    injected = isinstance(est, InjectedNoise)

    def step(state, *, h, noise, indices, problem, randomness=None):
        st = init._replace(**{k: state[k] for k in keys}, est=None)
        if injected:
            rand = StepRandomness(noise[:, d:], noise[:, :d])
        else:
            rand = StepRandomness(indices if isinstance(est, Minibatch) else None, noise)
        new, _ = s.step(st, rand)
        return {k: getattr(new, k) for k in keys}

    law = (
        probe.index_law(problem.N, est.n, replace=est.replace)
        if isinstance(est, Minibatch)
        else probe.index_law(problem.N, None)
    )
    return step, {k: np.zeros((1, d)) for k in keys}, law, (2 * d if injected else d)


def same_kernel(
    step: Callable[..., Mapping[str, Any]],
    name: str,
    problem: GaussianQuadratic,
    *,
    h: float,
    n: int,
    params: Mapping[str, Any],
    noise_dim: int | None = None,
    call: Callable[[Callable[[], Any]], Any] | None = None,
) -> tuple[float, float] | None:
    """Does ``step`` have the Markov kernel of registry ``name``'s step?  ``(gap, tol)``.

    For every index draw ``S`` both steps are affine, ``z' = M_S z + c_S + B_S ξ``, and the
    chain's law (transient and stationary, from any start) is fixed by the triples
    ``(M_S, c_S, B_S B_Sᵀ)`` averaged over the index law.  Equal triples for every ``S``
    mean the same kernel even when the trajectories under the same ``ξ`` differ: the noise
    then enters through another factorisation (``B_impl = B_ref Q``, ``Q`` orthogonal — a
    Cholesky instead of a symmetric square root, a permuted or sign-flipped noise), which
    is not a bug.  ``gap`` is the largest entrywise difference over all ``S`` and the
    three terms; ``tol`` the rounding of two probes of maps of that scale.  ``None`` where
    either step cannot be probed (not affine, a stateful estimator or thermostat, an error).
    """
    law = probe.index_law(problem.N, n)
    try:
        ref, template, ref_law, ref_dim = sampler_step(name, problem, h=h, n=n, **params)
        if dict(ref_law) != dict(law):
            return None
        got = probe.probe_chain(
            step, template, h=h, law=law, noise_dim=noise_dim or ref_dim,
            kwargs={"problem": problem}, call=call,
        )  # fmt: skip
        want = probe.probe_chain(
            ref, template, h=h, law=law, noise_dim=ref_dim, kwargs={"problem": problem}
        )
    except (probe.NotAffineError, ValueError, TypeError, RuntimeError):
        return None
    gap, scale = 0.0, 1.0
    for S in want.maps:
        (M1, c1, B1), (M2, c2, B2) = got.maps[S], want.maps[S]
        for a, b in ((M1, M2), (c1, c2), (B1 @ B1.T, B2 @ B2.T)):
            gap = max(gap, float(np.max(np.abs(a - b))))
            scale = max(scale, float(np.max(np.abs(b))))
    # each probed entry carries the affinity check's relative error; the products B Bᵀ
    # sum noise_dim terms: ample room above rounding, far below any parameter slip (≳ 1e-3)
    return gap, probe.AFFINE_RTOL * scale


def reference_law(
    name: str,
    problem: GaussianQuadratic,
    h: float,
    n: int,
    keys: tuple[str, ...],
    params: Mapping[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact stationary (mean, cov) of the public state of registry ``name``, or ``None``.

    ``params`` are passed where ``name`` accepts them (a friction ``gamma`` means nothing
    to SGLD); the batch is ``n``.  ``None`` for thermostats, for a different state layout,
    and where no exact law is available (EWSG's state-dependent index law, parameters the
    scheme rejects).  Cached per (name, h, n, layout, params, problem content).
    """
    known = registry.get(name).params
    accepted = {k: v for k, v in (params or {}).items() if k in known}
    # repr: list- or array-valued parameters (a matrix G, a centre) key the cache too
    frozen = tuple(sorted((k, repr(np.asarray(v).tolist())) for k, v in accepted.items()))
    key = (name, problem.content_key(), float(h), int(n), tuple(keys), frozen)
    if key not in _REFERENCE_LAWS:
        if len(_REFERENCE_LAWS) > 4096:
            _REFERENCE_LAWS.clear()
        _REFERENCE_LAWS[key] = _reference_law(
            name, problem, float(h), int(n), tuple(keys), accepted
        )
    return _REFERENCE_LAWS[key]


#: Exact reference laws already solved (the step-mode problem is the same every call).
_REFERENCE_LAWS: dict[tuple, tuple[np.ndarray, np.ndarray] | None] = {}


def _reference_law(name, problem, h, n, keys, params):
    spec = registry.get(name)
    if spec.family == "thermostat":
        return None
    fam_keys = ("theta", "p") if spec.family == "underdamped" else ("theta",)
    if fam_keys != keys:
        return None
    kw = {k: n for k in ("n", "b") if k in spec.params} | dict(params)
    try:
        if name in moments.SUPPORTED:
            st = moments.stationary_moments(moments.affine_chain(name, problem, h=h, **kw))
        else:
            step, state, law, noise_dim = sampler_step(name, problem, h=h, **kw)
            pc = probe.probe_chain(
                step, state, h=h, law=law, noise_dim=noise_dim, kwargs={"problem": problem}
            )
            st = pc.stationary()
    except ValueError:  # no exact law here (stateful estimator, unstable h, bad params)
        return None
    m = len(keys) * problem.d
    return st.state_mean[0, :m], st.state_cov[0, :m, :m]


@dataclass(frozen=True)
class SchemeMatch:
    """A registry scheme (with extra parameters) and its θ-law's distance from the step's."""

    name: str
    extra: dict[str, Any]
    gap: float

    @property
    def label(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.extra.items())
        return self.name + (f" ({opts})" if opts else "")

    def call(self) -> str:
        """How to validate against it: ``algorithm='baoa', params={'gradient': 'full'}``."""
        return f"algorithm={self.name!r}" + (f", params={self.extra!r}" if self.extra else "")


def identify_scheme(
    lad: ExactLadder,
    problem: GaussianQuadratic,
    n: int,
    params: Mapping[str, Any] | None = None,
) -> list[SchemeMatch]:
    """Registry schemes ranked by the distance of their exact θ-laws from the step's.

    The distance is the largest relative gap (:func:`_relative_gap`, reference scales) of
    the stationary law of θ over the ladder's three largest step sizes, where schemes
    differ most; ``≲ 1e-12`` means the same θ-chain (schemes may expose their momentum
    at different points of the step: BAOA's p is BAOAB's plus a half kick).  Schemes
    with a ``gradient`` option are tried with the minibatch and with the full gradient.
    """
    d = lad.d
    out = []
    for name in registry.names():
        variants: list[dict[str, Any]] = [{}]
        if "gradient" in registry.get(name).params:
            variants.append({"gradient": "full"})
        for extra in variants:
            gaps = []
            for i, h in enumerate(lad.hs[:3]):
                ref = reference_law(name, problem, h, n, lad.keys, {**(params or {}), **extra})
                if ref is None:
                    break
                m, c = ref
                gaps.append(_relative_gap(lad.mean[i][:d], lad.cov[i][:d, :d], m[:d], c[:d, :d]))
            if len(gaps) == 3:
                out.append(SchemeMatch(name, extra, max(gaps)))
    return sorted(out, key=lambda t: t.gap)


def _named(matches: Sequence[SchemeMatch]) -> str:
    """Every tied match, named with its citation."""
    return "; ".join(f"`{m.label}` ({registry.get(m.name).citation})" for m in matches)


def law_diagnosis(lad: ExactLadder, problem: GaussianQuadratic, limit) -> list[str]:
    """What the h → 0 limit of the stationary law itself says (no generator needed).

    A limit ``N(μ, T Λ⁻¹)`` (and ``E ppᵀ = T I``) is the target at temperature ``T``: the
    noise-to-drift balance is off by ``T``.  A shifted mean with the right covariance is
    a biased drift constant (a prior or data term mis-weighted, a wrong centre).
    """
    d = lad.d
    lm, lc = limit
    mu, Sig = problem.exact["mean"].value, problem.exact["cov"].value
    out = []
    sd = np.sqrt(np.diag(Sig))
    if np.abs(lm[:d] - mu).max() / sd.min() > 1e-4:
        out.append(
            f"the limiting mean is off by {np.round((lm[:d] - mu) / sd, 4).tolist()} standard "
            "deviations (the drift's fixed point is not the target's mode)"
        )
    T = np.linalg.solve(Sig, lc[:d, :d])  # Σ⁻¹ C: T·I when C = T Σ
    if np.allclose(T, T[0, 0] * np.eye(d), rtol=0, atol=1e-4) and abs(T[0, 0] - 1) > 1e-4:
        pT = ""
        if "p" in lad.keys and lc.shape[0] == 2 * d:
            pp = lc[d:, d:]
            if np.allclose(pp, pp[0, 0] * np.eye(d), rtol=0, atol=1e-4):
                pT = f" and E ppᵀ → {pp[0, 0]:.4g}·I"
        out.append(
            f"Cov θ → {T[0, 0]:.4g}·Λ⁻¹{pT}: the chain samples the target at temperature "
            f"{T[0, 0]:.4g} — the injected noise variance and the drift (gradient scale, "
            "friction) are out of the fluctuation–dissipation balance by that factor"
        )
    elif not np.allclose(T, np.eye(d), rtol=0, atol=1e-4):
        out.append(
            f"Σ⁻¹·Cov θ → {np.round(T, 4).tolist()} (I required): the covariance is distorted, "
            "not just scaled"
        )
    return out


def _parameter_slip(
    lad: ExactLadder,
    problem: GaussianQuadratic,
    n: int,
    algorithm: str,
    params: Mapping[str, Any] | None,
) -> str:
    """Name a parameter-mapping slip: the step is ``algorithm`` at another friction or h.

    Two slips are common when a library's parameters are mapped onto a reference: the
    friction (posteriors' ``alpha`` is not the friction under its "mean" convention) and
    the step-size convention (Li et al.'s ε is 2h here).  The friction ``Γ = −A_pp`` is
    read off the probed limiting SDE (:func:`diagnose_generator`); the step size is tried
    at h/2 and 2h.  The slip is named only when the reference's exact law *at the slipped
    value* equals the step's at every h (gap ≤ 1e-8, the solves' rounding), so a
    different discretisation is never mistaken for one.  ``""`` when neither matches.
    """
    spec = registry.get(algorithm)
    full = dict(params or {})
    keys = lad.keys
    candidates: list[tuple[str, dict[str, Any], Callable[[float], float]]] = []
    friction = next(
        (
            k
            for k, (_, doc) in spec.params.items()
            if k in ("gamma", "D", "A") and "friction" in doc
        ),
        None,
    )
    if friction is not None and keys == ("theta", "p"):
        _, gen = diagnose_generator(lad, problem, n, unit_mass=True)
        gamma = gen.get("friction Γ")
        if gamma is not None:
            c = float(np.trace(gamma)) / len(gamma)
            scalar = np.allclose(gamma, c * np.eye(len(gamma)), atol=1e-6)
            declared = full.get(friction, spec.params[friction][0])
            if scalar and c > 0 and not math.isclose(c, float(declared), rel_tol=1e-6):
                # the limit Γ carries an O(h²) extrapolation error: snap to the value the
                # exact laws then confirm (or not) to rounding
                c = float(f"{c:.6g}")
                candidates.append((f"{friction} = {c:g} instead of {declared:g}",
                                   {friction: c}, lambda h: h))  # fmt: skip
    for factor, word in ((0.5, "h/2"), (2.0, "2h")):
        candidates.append((f"step size {word} (a step-size convention slip: is your ε 2h or h?)",
                           {}, lambda h, f=factor: f * h))  # fmt: skip
    for label, change, h_of in candidates:
        try:
            refs = [
                reference_law(algorithm, problem, h_of(h), n, keys, {**full, **change})
                for h in lad.hs[:3]
            ]
        except (ValueError, TypeError):
            continue
        if any(r is None for r in refs):
            continue
        gaps = [_relative_gap(lad.mean[i], lad.cov[i], *refs[i]) for i in range(len(refs))]
        if max(gaps) <= SAME_LAW_GAP:
            return (
                f"it is exactly {algorithm}'s law with {label} (largest gap {max(gaps):.1g}): "
                "a parameter-mapping slip, not a different discretisation"
            )
    return ""


def probe_checks(
    step: Callable[..., Mapping[str, Any]],
    state: Mapping[str, np.ndarray],
    *,
    problem: GaussianQuadratic,
    n: int,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    hs: Sequence[float] = EXACT_HS,
    noise_dim: int | None = None,
    call: Callable[[Callable[[], Any]], Any] | None = None,
    unit_mass: bool = False,
) -> list[CheckResult]:
    """The exact-law checks of a step function (see the module docstring).

    Parameters
    ----------
    step, state
        The step function and a one-chain template of its state (keys, shapes).
    problem : GaussianQuadratic
    n : int
        Indices passed per step (uniform, with replacement).
    algorithm : str, optional
        A registry name the step claims to be: its exact law must equal the step's.
    params : mapping, optional
        Scheme parameters (e.g. the friction ``gamma``), used for the named algorithm
        and for identifying the scheme among the registry's.
    hs, noise_dim, call
        See :func:`exact_ladder`.
    unit_mass : bool
        The scheme claims ``E ppᵀ = I``: judge p against it too (default θ only).
    """
    law = probe.index_law(problem.N, n)
    name = "exact law by probing"
    try:
        lad = exact_ladder(
            step, state, problem=problem, hs=hs, law=law, noise_dim=noise_dim, call=call
        )
    except probe.NotAffineError as err:
        return [
            CheckResult(
                name,
                "error",
                f"{err}; this mode cannot judge it: use mode='sampler' (statistical checks)",
            )
        ]
    except RuntimeError as err:  # the user's step raised or timed out (ImplementationError)
        return [CheckResult(name, "error", f"the step could not be probed: {err}")]
    except ValueError as err:
        msg = str(err)
        if "spectral radius" in msg:
            return [CheckResult(name, "fail", f"no stationary law: {msg}")]
        if algorithm is not None:
            # the trajectory comparison still judges a named algorithm; say why this did not
            return [CheckResult(name, "inconclusive", f"not probed: {msg}")]
        return [CheckResult(name, "error", msg)]
    out = [
        CheckResult(
            name,
            "pass",
            f"the step is affine on the Gaussian target (verified to {probe.AFFINE_RTOL:g}); "
            f"exact stationary law at h = {', '.join(f'{h:g}' for h in lad.hs)} from "
            f"{lad.calls} vectorised calls",
            {"keys": list(lad.chains[0].layout.keys), "calls": lad.calls},
        )
    ]
    cons = consistency_check(lad, problem, unit_mass=unit_mass)
    ranked = identify_scheme(lad, problem, n, params)
    # two equal chains' exact laws differ by the solves' rounding only (≲ 1e-12)
    same = [r for r in ranked if r.gap <= SAME_LAW_GAP]
    cons.numbers["closest registry schemes (θ-law gap)"] = [(r.label, r.gap) for r in ranked[:3]]
    if cons.verdict == "fail":
        limit = (cons.numbers["h → 0 limit: mean"], cons.numbers["h → 0 limit: covariance"])
        findings = law_diagnosis(lad, problem, limit)
        sde, gen = diagnose_generator(lad, problem, n, unit_mass=unit_mass)
        cons.numbers.update(gen)
        if findings or sde:  # the limiting SDE's terms first: they name the cause
            cons.message += ". Diagnosis: " + "; ".join(sde + findings)
    elif same and algorithm is None:
        cons.message += f"; its θ-chain is that of {_named(same)}"
    out.append(cons)
    if algorithm is None:
        return out
    refs = [reference_law(algorithm, problem, h, n, lad.keys, params) for h in lad.hs[:3]]
    if any(r is None for r in refs):
        return out  # no exact law of the reference here: the trajectory comparison judges
    gaps = [_relative_gap(lad.mean[i], lad.cov[i], *refs[i]) for i in range(len(refs))]
    hs_txt = ", ".join(f"{h:g}" for h in lad.hs[:3])
    spec = registry.get(algorithm)
    # Two equal chains' exact laws differ by the solves' rounding only (≲ 1e-12).
    if max(gaps) <= SAME_LAW_GAP:
        out.append(
            CheckResult(
                f"exact law of {algorithm}",
                "pass",
                f"the step's exact stationary law equals {algorithm}'s ({spec.citation}) at "
                f"h = {hs_txt} (largest gap {max(gaps):.1g})",
                {"gaps": gaps},
            )
        )
        return out
    msg = (
        f"the step's exact stationary law differs from {algorithm}'s by up to {max(gaps):.3g} "
        f"of the target's scales (h = {hs_txt})"
    )
    other = [m for m in same if m.name != algorithm]
    slip = _parameter_slip(lad, problem, n, algorithm, params) if cons.verdict == "pass" else ""
    theta_same = False
    if "p" in lad.keys and not slip:
        # the θ marginals of the two (θ, p) laws: equal means only the momentum differs
        d = problem.d
        theta_same = (
            max(
                _relative_gap(lad.mean[i][:d], lad.cov[i][:d, :d], r[0][:d], r[1][:d, :d])
                for i, r in enumerate(refs)
            )
            <= SAME_LAW_GAP
        )
    if slip:
        msg += f"; {slip}"
    elif theta_same:
        msg += (
            f"; its θ-chain is {algorithm}'s exactly, so only the momentum's law differs: p is "
            "read at another point of the step (BAOAB's p after its closing half-kick is not "
            "BAOA's), or a momentum error that does not reach θ"
        )
    elif other and cons.verdict == "pass":
        msg += (
            f"; its θ-chain is that of {_named(other)}, and it is consistent: a valid "
            f"different discretisation, not a bug — validate with {other[0].call()}"
        )
    elif cons.verdict == "pass":
        # consistency says the step samples π as h → 0, not that it is the scheme meant: a
        # BAOAB taking its new gradient at the old θ is consistent and a bug
        msg += (
            f"; the step is consistent (it samples π as h → 0) but its θ-chain is neither "
            f"{algorithm}'s nor any registry scheme's: another discretisation, or a bug "
            "that keeps consistency (e.g. a gradient taken at a stale point)"
        )
    out.append(CheckResult(f"exact law of {algorithm}", "fail", msg, {"gaps": gaps}))
    return out
