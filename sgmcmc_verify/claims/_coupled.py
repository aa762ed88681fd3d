"""A scheme and its exact-gradient base scheme run in lockstep on the same noise.

X-ORDER's EWSG rows measure the stationary bias of ``E[(θ − μ)ᵀΛ(θ − μ)]/d``, which has no
exact law for ``N > 1`` (the index weights of EWSG eqs. (4)-(5) depend on the state).  The
full-gradient base scheme (LMC, AGLD eq. (3); ULD-EM, EWSG eq. (3)) is affine on a Gaussian
target, so its expectation over the measured window is exact
(:func:`base_window_mean`).  Driven by the *same* Gaussian noise from the same start, the
two chains stay close (EWSG's step differs from its base's only by the ``O(h)`` gradient
error), so the per-chain difference of the time averages has a much smaller variance than
the scheme's own time average, and the control-variate estimate

.. math::

    \\hat b(h) = \\overline{v_{\\text{scheme}} - v_{\\text{base}}} + E[v_{\\text{base}}]

(coefficient 1: unbiased for the scheme's window expectation whatever the coupling) needs
far fewer chains for the same standard error.  The base is built by the registry, never
from the implementation under test, so a bug in the scheme's own code shows in the
difference in full; a bug in code it shares with the base (their integrator) cancels from
the difference, and is caught by testing the base's Monte Carlo mean against its exact
window mean (X-ORDER does, at every h: ``cross._base_parts``).
"""

from __future__ import annotations

import numpy as np

from ..algorithms import Sampler, StepRandomness
from ..exact import linear
from ..problems import GaussianQuadratic

__all__ = ["base_window_mean", "quadratic_form_averages"]


def _quadratic(x: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``xᵀΛx`` per chain, column by column: ``d`` is small here, and a (chains, d)·(d, d)
    product at 10⁴ chains would start multithreaded BLAS for nothing."""
    d = x.shape[1]
    q = lam[0, 0] * x[:, 0] * x[:, 0]
    for i in range(1, d):
        q += lam[i, i] * x[:, i] * x[:, i]
        for j in range(i):
            q += (2.0 * lam[i, j]) * x[:, i] * x[:, j]
    return q


def quadratic_form_averages(
    scheme: Sampler,
    base: Sampler | None = None,
    *,
    n_steps: int,
    burn_in: int,
    seed: int,
    theta0: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per-chain time averages of ``(θ − μ)ᵀΛ(θ − μ)/d`` of a scheme and, coupled, its base.

    The scheme is driven exactly as :func:`sgmcmc_verify.driver.run_sampler` drives it
    (``default_rng(seed)``, ``init`` then ``draw``/``step`` per iteration), so its chains
    are the driver's, bit for bit; only the observable is accumulated, not the driver's
    per-chain ``θθᵀ`` (2.5× cheaper per step at d = 2).  The base, when given, takes each
    step with the scheme's Gaussian noise (:class:`~sgmcmc_verify.algorithms.StepRandomness`,
    no estimator randomness: a full gradient), from the same ``θ_0`` and, for momentum
    schemes, the scheme's initial ``p``.  The average runs over the states after steps
    ``burn_in + 1 … n_steps`` (the driver's kept draws).

    Parameters
    ----------
    scheme : Sampler
        On a :class:`~sgmcmc_verify.problems.GaussianQuadratic`.
    base : Sampler, optional
        On the same problem, with a full gradient and, if it has a momentum,
        ``p0 = "zeros"`` (its ``p`` is replaced by the scheme's).
    n_steps, burn_in : int
    seed : int
    theta0 : ndarray (chains, d)

    Returns
    -------
    v_scheme : ndarray (chains,)
    v_base : ndarray (chains,) or None
    """
    problem = scheme.problem
    if not isinstance(problem, GaussianQuadratic):
        raise TypeError(f"the problem must be a GaussianQuadratic, got {type(problem).__name__}")
    if base is not None and base.problem is not problem:
        raise ValueError("scheme and base must share one problem")
    if not 0 <= burn_in < n_steps:
        raise ValueError(f"need 0 <= burn_in < n_steps, got {burn_in}, {n_steps}")
    mu = problem.exact["mean"].value
    lam = np.linalg.inv(problem.exact["cov"].value)
    rng = np.random.default_rng(seed)
    state = scheme.init(theta0, rng)
    chains = state.theta.shape[0]
    qs = np.zeros(chains)
    qb = None
    if base is not None:
        # the base's own init draws nothing (full gradient, p0 = "zeros"): a throwaway rng
        bstate = base.init(np.array(theta0, dtype=float), np.random.default_rng(0))
        if "p" in bstate._fields:
            integ = scheme.integrator
            p = integ.momentum(state) if hasattr(integ, "momentum") else state.p
            bstate = bstate._replace(p=np.array(p, dtype=float))
        qb = np.zeros(chains)
    for t in range(n_steps):
        rand, state = scheme.draw(state, rng)
        state, _ = scheme.step(state, rand)
        if base is not None:
            bstate, _ = base.step(bstate, StepRandomness(None, rand.noise))
        if t >= burn_in:
            qs += _quadratic(state.theta - mu, lam)
            if base is not None:
                qb += _quadratic(bstate.theta - mu, lam)
    scale = 1.0 / ((n_steps - burn_in) * problem.d)
    return qs * scale, (None if qb is None else qb * scale)


def base_window_mean(
    scheme: str,
    problem: GaussianQuadratic,
    h: float,
    *,
    n_steps: int,
    burn_in: int,
    momentum_start: bool,
    params: dict | None = None,
    noise_cov: np.ndarray | None = None,
) -> float:
    """Exact ``E`` of the window average of ``(θ − μ)ᵀΛ(θ − μ)/d`` of a linear scheme.

    The chain starts from the target, ``θ_0 ~ N(μ, Λ⁻¹)`` (with ``p_0 ~ N(0, I)``
    independent of it when ``momentum_start``, else ``p_0 = 0``), and its mean and
    covariance are propagated through the scheme's affine map
    (:func:`~sgmcmc_verify.exact.linear.affine_map`, built from the papers' equations,
    not from the implementation): ``m' = Mm + c``, ``P' = MPMᵀ + BBᵀ``.  The average is
    over the states after steps ``burn_in + 1 … n_steps``, as
    :func:`quadratic_form_averages` and the driver keep them.  Exact up to float64
    rounding: the transient from the start is included, not assumed to have died out.

    Parameters
    ----------
    scheme : str
        A scheme of :data:`sgmcmc_verify.exact.linear.SCHEMES` (``"lmc"``, ``"uld-em"``...).
    problem : GaussianQuadratic
    h : float
    n_steps, burn_in : int
    momentum_start : bool
    params : dict, optional
        Scheme parameters (``gamma`` for ULD-EM).
    noise_cov : ndarray, optional
        State-independent gradient-noise covariance (as :func:`linear.affine_map`).

    Returns
    -------
    float
        ``E[window average] − 1`` (the relative bias: ``0`` for the exact target).
    """
    mu = problem.exact["mean"].value
    cov = problem.exact["cov"].value
    lam = np.linalg.inv(cov)
    d = problem.d
    M, c, B = linear.affine_map(scheme, h, lam, params, mu=mu, noise_cov=noise_cov)
    nz = M.shape[0]
    m = np.zeros(nz)
    m[:d] = mu
    P = np.zeros((nz, nz))
    P[:d, :d] = cov
    if nz > d:
        P[d:, d:] = np.eye(nz - d) if momentum_start else 0.0
    BB = B @ B.T
    total = 0.0
    for t in range(n_steps):
        m = M @ m + c
        P = M @ P @ M.T + BB
        if t >= burn_in:
            e = m[:d] - mu
            total += float(np.sum(lam * P[:d, :d]) + e @ lam @ e)
    return total / ((n_steps - burn_in) * d) - 1.0
