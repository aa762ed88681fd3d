"""What the harness checks an algorithm against: problem, parameters, exact discrete law.

For each registry algorithm :func:`plan` picks

* a Gaussian validation problem and the registry parameters the implementation must use
  (a batch of one index, the noisiest case, as X-INV does);
* the source of the exact law of the *discrete* chain at ``h``:

  - random-index linear chains (SGLD, the AGLD grid, SVRG/SAGA for LD and HMC):
    periodic-stationary moments from the moment equations
    (:mod:`sgmcmc_verify.exact.moments`) on ``N = 4`` terms with differing curvatures;
  - other linear schemes (LMC, ULD-EM, EWSG, SGHMC-Chen with injected noise, the
    splittings): the Lyapunov solve of :mod:`sgmcmc_verify.exact.linear` on a single
    data term (where every estimator is exact);
  - thermostats: no closed-form discrete law; the exact discrete invariant
    ``E[pᵀp]/d = 1`` (stationarity of ``E ξ`` under ``ξ' = ξ + (pᵀp/d − 1)h``) and a
    two-sample comparison with the reference implementation.

* where the exact law does not see the estimator (single data term), a two-sample
  comparison with the reference implementation on ``N = 4`` terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import registry
from ..exact import linear, moments
from ..problems import GaussianQuadratic, gaussian_differing

__all__ = [
    "ExactLaw",
    "Plan",
    "exact_law",
    "plan",
    "problem_p1",
    "problem_p4",
    "problem_step",
    "step_params",
]


#: Shift of the validation problem's centres: the target sits ~3 standard deviations away
#: from ``θ_0 = 0``, so a snapshot or table stuck at ``θ_0`` costs visible variance.
SHIFT = 3.0


def problem_p4(d: int = 1) -> GaussianQuadratic:
    """``N = 4`` quadratic terms with differing curvatures (state-dependent gradient noise).

    The centres of :func:`~sgmcmc_verify.problems.gaussian_differing` (``N = 4``,
    ``curvature_spread = 1.5``, ``seed = 1``) shifted by :data:`SHIFT`.
    """
    base = gaussian_differing(N=4, d=d, curvature_spread=1.5, seed=1)
    return GaussianQuadratic(base.centres + SHIFT, base.precisions, name=f"gauss-N4-d{d}-shifted")


#: The step-mode problem's Gaussian prior: correlated, not a multiple of any data term.
PRIOR_PRECISION = np.array([[0.5, 0.2], [0.2, 0.3]])
PRIOR_MEAN = np.array([-1.0, 2.0])

#: The step-mode batch: two indices with replacement, so a batch sum scaled by N or by
#: 1, a batch of one hard-coded, or a shared index differ from N/n·Σ.
STEP_BATCH = 2


def problem_step() -> GaussianQuadratic:
    """The step-mode validation problem: no parameter is degenerate (issue 11 item 5).

    ``d = 2`` with differing, rotated curvatures (so per-coordinate and off-diagonal
    slips show), ``N = 4`` data terms centred :data:`SHIFT` away from ``θ_0 = 0``, and a
    correlated Gaussian prior (:data:`PRIOR_PRECISION`, :data:`PRIOR_MEAN`) that every
    estimator must add once, exactly.  Target eigenvalues 1.38 and 2.32: every scheme
    here is stable at h ≤ 0.2.
    """
    base = problem_p4(d=2)
    return GaussianQuadratic(
        base.centres,
        base.precisions,
        prior_precision=PRIOR_PRECISION,
        prior_mean=PRIOR_MEAN,
        name="gauss-N4-d2-prior",
    )


def step_params(algorithm: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Registry parameters of the step mode: the plan's, with a batch of :data:`STEP_BATCH`.

    A batch of one hides every slip in the batch scaling (N/n = N), so step mode uses two
    indices wherever the algorithm takes a batch (``n`` or ``b``); ``params`` override.
    """
    spec = registry.get(algorithm)
    full = dict(_PARAMS.get(algorithm, {}))
    for key in ("n", "b"):
        if key in spec.params:
            full[key] = STEP_BATCH
    full.update(params or {})
    return full


def problem_p1() -> GaussianQuadratic:
    """A single data term, ``a = 1``: every estimator returns the exact gradient."""
    return GaussianQuadratic(np.zeros((1, 1)), np.ones((1, 1, 1)), name="gauss-1d-N1")


_PARAMS: dict[str, dict[str, Any]] = {
    **{n: {"n": 1} for n in registry.names("overdamped") if n != "lmc" and "ewsg" not in n},
    "sghmc-svr": {"b": 1},
    "svrg-hmc": {"b": 1},
    "saga-hmc": {"b": 1},
    "svrg2-hmc": {"b": 1},
    "saga2-hmc": {"b": 1},
    "sghmc-chen": {"gradient": "injected", "B": 0.5, "B_hat": 0.5},
    "ewsg": {"M": 2},
    "ewsg-lmc": {"M": 2},
    "sgnht": {"n": 1},
    "sgnht-2": {"n": 1},
    "sgnht-mat": {"n": 1},
}

#: Step sizes of the default (quick) profile, per family.
H_GRID = {"overdamped": (0.2, 0.1, 0.05), "underdamped": (0.2, 0.1, 0.05)}
H_GRID_THERMOSTAT = (0.1, 0.05)


@dataclass(frozen=True)
class ExactLaw:
    """Exact stationary moments of ``θ`` (and of ``p`` when known) of the discrete chain."""

    mean: np.ndarray
    var: np.ndarray
    p2: float | None
    burn_in: int
    period: int
    source: str


@dataclass
class Plan:
    """What to run for one algorithm."""

    algorithm: str
    params: dict[str, Any]
    exact_problem: GaussianQuadratic | None
    reference_problem: GaussianQuadratic | None
    hs: tuple[float, ...]
    target_var: float | None
    scheme_order: int | None
    notes: list[str] = field(default_factory=list)


def plan(algorithm: str, params: dict[str, Any] | None = None) -> Plan:
    """The validation plan of registry ``algorithm`` (parameters override the defaults)."""
    spec = registry.get(algorithm)
    full = dict(_PARAMS.get(algorithm, {}))
    full.update(params or {})
    if spec.family == "thermostat":
        return Plan(algorithm, full, None, problem_p4(d=2), H_GRID_THERMOSTAT, None, None)
    hs = H_GRID[spec.family]
    if algorithm in moments.SUPPORTED:
        p4 = problem_p4()
        order = 1
        return Plan(algorithm, full, p4, None, hs, float(p4.exact["cov"].value[0, 0]), order)
    p1 = problem_p1()
    ref = None
    if "stochastic" in spec.marks and full.get("gradient") != "injected":
        ref = problem_p4()
    order = 2 if algorithm in ("svrg2-hmc", "saga2-hmc") else 1
    if algorithm == "sghmc-chen" and full.get("gradient") == "injected":
        order = 1
    return Plan(algorithm, full, p1, ref, hs, 1.0, order)


def exact_law(algorithm: str, problem: GaussianQuadratic, h: float, params: dict) -> ExactLaw:
    """The exact law of ``algorithm``'s discrete chain at ``h`` on ``problem``."""
    d = problem.d
    if algorithm in moments.SUPPORTED and problem.N > 1:
        sm = moments.stationary_moments(moments.affine_chain(algorithm, problem, h=h, **params))
        rho = max(float(sm.spectral_radius), 1e-3)
        periods = math.ceil(math.log(1e-9) / math.log(rho)) if rho < 1 else 10**6
        return ExactLaw(
            np.asarray(sm.time_mean, dtype=float),
            np.diag(np.asarray(sm.time_cov, dtype=float)).copy(),
            None,
            periods * sm.period,
            int(sm.period),
            f"moment equations (periodic-stationary, period {sm.period}); {sm.description}",
        )
    sm = linear.algorithm_moments(algorithm, problem, h, **params)
    rho = float(sm.spectral_radius)
    burn = math.ceil(math.log(1e-9) / math.log(rho))
    p2 = None
    if sm.mean.shape[0] == 2 * d:
        p2 = float(np.trace(sm.p_cov)) / d
    return ExactLaw(
        np.asarray(sm.theta_mean, dtype=float),
        np.diag(sm.theta_cov).copy(),
        p2,
        burn,
        1,
        f"Lyapunov solve of the {sm.scheme} scheme, float64 (ρ(M) = {rho:.4f})",
    )
