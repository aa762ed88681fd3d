"""Comparison baselines: samplers the papers compare against but do not propose.

These are *not* algorithms of the four papers (so they are not in
:mod:`sgmcmc_verify.registry`, whose entries carry CLAIMS.md IDs); they exist so that
a paper's comparison can be measured.  Each is built from the same parts as the
registry's samplers — an integrator with ``init``/``eval_point``/``advance`` and an
estimator from :mod:`sgmcmc_verify.estimators` — and bound in a
:class:`~sgmcmc_verify.algorithms.Sampler`, so :func:`sgmcmc_verify.driver.run_sampler`
runs it and the planted bugs of :mod:`sgmcmc_verify.bugs` wrap it like any other.

pSGLD
-----
Preconditioned SGLD, C. Li, C. Chen, D. Carlson, L. Carin, "Preconditioned stochastic
gradient Langevin dynamics for deep neural networks", AAAI 2016, Algorithm 1
(RMSprop preconditioner).  With ``ḡ_t = (1/n) Σ_{i∈S_t} ∇_θ log p(x_i | θ_t)``:

.. math::

    V_t = \\alpha V_{t-1} + (1-\\alpha)\\, \\bar g_t \\odot \\bar g_t, \\qquad
    G_t = \\operatorname{diag}\\bigl(1 \\oslash (\\lambda 1 + \\sqrt{V_t})\\bigr),

    \\theta_{t+1} = \\theta_t + \\tfrac{\\epsilon}{2}\\, G_t \\Bigl(\\nabla\\log p(\\theta_t)
        + \\tfrac{N}{n} \\sum_{i\\in S_t} \\nabla\\log p(x_i \\mid \\theta_t)\\Bigr)
        + \\mathcal N(0, \\epsilon G_t),

with ``V_0 = 0``.  The exact preconditioned dynamics also carries a drift
``(ε/2) Γ(θ)``, ``Γ_i = Σ_j ∂G_ij/∂θ_j``; Li et al. drop it in their practical
Algorithm 1 (and argue the resulting bias is small when α is close to 1, i.e. when
the preconditioner changes slowly).  It is omitted here too.  (The Li et al. text is
not among the papers in ``shared/papers``; the algorithm is taken as stated in the
issue brief and its Algorithm 1 as cited.)  Measured in ``tests/test_baselines.py``: on a
1-D Gaussian with full gradients and ``ηGP = 0.02``, the stationary variance is ≈ 19 %
too large at α = 0.99 and ≈ 3 % at α = 0.999 (1 % of it the Euler bias) — with full
gradients ``V`` follows ``(θ − μ)²`` over ≈ 1/(1 − α) steps, so at α = 0.99 the
preconditioner is a function of the recent state and the missing Γ matters.

Step-size convention.  The package writes overdamped Langevin as Euler–Maruyama
``θ' = θ − h ∇U + √(2h) ξ`` (AGLD eqs. (3)–(5);
:func:`~sgmcmc_verify.integrators.overdamped_em`), and EWSG §5.1's "step size 5 × 10⁻³
for SGLD" is this ``h`` (:func:`sgmcmc_verify.claims.experiments.check_ewsg_exp_gauss`).
Li et al.'s ``ε`` is Welling & Teh's (drift ``ε/2``, noise variance ``ε``), so
``ε = 2h``.  In the package's terms, with ``∇U = −∇log p(θ) − Σ_i ∇log p(x_i | θ)``
and ``ξ ~ N(0, I)``:

.. math::

    \\theta' = \\theta - h\\, G\\, \\widetilde{\\nabla U} + \\sqrt{2h\\, G}\\,\\xi,

i.e. SGLD with the per-coordinate step ``h·G``.  EWSG §5 states pSGLD's
hyper-parameters as "λ = 10^{-?} and α = 0.99, as suggested in Li et al. (2016)" (the
exponent is lost in our text); Li et al. suggest ``λ = 10⁻⁵``, the default here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._validation import choice, positive, positive_int
from .algorithms import Sampler
from .estimators import FullGradient, Minibatch
from .problems.base import Problem

__all__ = ["BASELINES", "PSGLD", "PSGLDState", "make_baseline", "make_psgld"]

#: Li et al. (2016) defaults, also EWSG §5's setting (α = 0.99, λ = 1e-5).
PSGLD_ALPHA = 0.99
PSGLD_LAMBDA = 1e-5


class PSGLDState(NamedTuple):
    """pSGLD state: ``theta`` and the RMSprop average ``V`` (both (chains, d))."""

    theta: np.ndarray
    V: np.ndarray
    est: Any = None


@dataclass(frozen=True)
class PSGLD:
    """pSGLD step (Li et al. 2016, Algorithm 1, Γ omitted) in the package's convention.

    Parameters
    ----------
    h : float
        Step size in the package's convention, ``h = ε/2`` with Li et al.'s ``ε``.
    N : int
        Number of data (``ḡ`` is recovered from the estimate as ``(∇̃U − ∇U_0)/N``).
    prior_grad : callable
        ``∇U_0(θ)`` (the problem's :meth:`~sgmcmc_verify.problems.base.Problem.prior_grad`).
    alpha : float
        RMSprop decay, ``0 ≤ α ≤ 1`` (Li et al.: ``α ∈ [0, 1)``; ``α = 1`` freezes
        ``V`` at ``V0``, the fixed-preconditioner limit).
    lam : float
        ``λ > 0``, the regulariser of ``G = 1/(λ + √V)``.
    V0 : float
        Initial ``V`` (Algorithm 1: 0).

    Notes
    -----
    ``advance`` receives the estimate ``∇̃U = ∇U_0 + (N/n) Σ_{i∈S} ∇f_i``
    (:class:`~sgmcmc_verify.estimators.Minibatch`), so
    ``(∇̃U − ∇U_0)/N = (1/n) Σ_{i∈S} ∇f_i = −ḡ`` (its sign is irrelevant to ``ḡ ⊙ ḡ``).
    With :class:`~sgmcmc_verify.estimators.FullGradient` it is ``(1/N) Σ_i ∇f_i``.
    """

    h: float
    N: int
    prior_grad: Callable[[np.ndarray], np.ndarray]
    alpha: float = PSGLD_ALPHA
    lam: float = PSGLD_LAMBDA
    V0: float = 0.0
    family = "overdamped"

    def __post_init__(self) -> None:
        positive("h", self.h)
        positive_int("N", self.N)
        positive("lam (λ)", self.lam)
        if not (0.0 <= self.alpha <= 1.0):
            raise ValueError(f"alpha must be in [0, 1], got {self.alpha}")
        if not (np.isfinite(self.V0) and self.V0 >= 0):
            raise ValueError(f"V0 must be finite and >= 0, got {self.V0}")

    def init(self, theta0, rng, d):
        return PSGLDState(theta0, np.full_like(theta0, float(self.V0)))

    def eval_point(self, state):
        return state.theta

    def preconditioner(self, V: np.ndarray) -> np.ndarray:
        """The diagonal of ``G = diag(1 ⊘ (λ1 + √V))``, shape of ``V``."""
        return 1.0 / (self.lam + np.sqrt(V))

    def advance(self, state, grad, noise):
        gbar = (grad - self.prior_grad(state.theta)) / self.N
        V = self.alpha * state.V + (1.0 - self.alpha) * gbar * gbar
        G = self.preconditioner(V)
        theta = state.theta - self.h * G * grad + np.sqrt(2.0 * self.h * G) * noise
        return state._replace(theta=theta, V=V)


def make_psgld(
    problem: Problem,
    *,
    h: float,
    n: int = 1,
    alpha: float = PSGLD_ALPHA,
    lam: float = PSGLD_LAMBDA,
    V0: float = 0.0,
    gradient: str = "minibatch",
    replace: bool = True,
) -> Sampler:
    """pSGLD (Li et al. 2016, Algorithm 1) bound to ``problem``.

    Parameters
    ----------
    problem : Problem
    h : float
        Step size, package convention (``ε = 2h``; see the module docstring).
    n : int
        Minibatch size (EWSG §5.1: 1).
    alpha, lam, V0 : float
        See :class:`PSGLD`; defaults α = 0.99, λ = 1e-5 (Li et al.; EWSG §5).
    gradient : {"minibatch", "full"}
        ``"full"`` uses the exact ``∇U`` (the ``ḡ`` of all ``N`` data).
    replace : bool
        Minibatch with replacement (as the package's SGLD).

    Returns
    -------
    Sampler
        Named ``"psgld"``; runs with :func:`sgmcmc_verify.driver.run_sampler`.
    """
    kind = choice("gradient", gradient, ("minibatch", "full"))
    est = FullGradient() if kind == "full" else Minibatch(positive_int("n", n), replace=replace)
    integ = PSGLD(float(h), problem.N, problem.prior_grad, float(alpha), float(lam), float(V0))
    return Sampler("psgld", problem, integ, est)


#: Baseline name → factory ``f(problem, *, h, **params) -> Sampler``.
BASELINES: dict[str, Callable[..., Sampler]] = {"psgld": make_psgld}


def make_baseline(name: str, problem: Problem, *, h: float, **params: Any) -> Sampler:
    """The baseline ``name`` (a key of :data:`BASELINES`) bound to ``problem``."""
    return BASELINES[choice("baseline", name, BASELINES)](problem, h=h, **params)
