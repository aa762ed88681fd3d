"""Named algorithms: a gradient estimator composed with an integrator.

A :class:`Sampler` is an algorithm bound to a problem, an integrator (with its
step size and friction) and an estimator.  It follows the blackjax
``init``/``step`` shape, except that the randomness of a step is an *argument*
(``draw`` produces it), so two formulations of one algorithm can be compared
under identical noise and indices (DESIGN.md, "Samplers are pure functions,
with noise injected").

One step, for every family:

1. ``x = integrator.eval_point(state)`` — ``θ``, or ``θ + h/2 p`` for the splitting;
2. ``g = estimator.estimate(x)``;
3. ``state' = integrator.advance(state, g, noise)``;
4. ``estimator.update(x, integrator.eval_point(state'))`` — snapshot refreshes
   happen at evaluation points, which is what SVRHMC Algorithms 3–4 (lines 4–5,
   10) and AGLD Strategies 2–4 prescribe.

Per step the random numbers are drawn in a fixed order — first the estimator's
(indices, uniforms), then the integrator's Gaussian noise — so a seed fixes the
trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .estimators import Estimator
from .integrators import validate_theta0
from .problems.base import Problem

__all__ = ["Sampler", "StepInfo", "StepRandomness"]


class StepInfo(NamedTuple):
    """What a step computed besides the new state: the gradient estimate and indices used."""

    grad: np.ndarray
    indices: np.ndarray | None


class StepRandomness(NamedTuple):
    """Everything random in one step: the estimator's draw and the Gaussian noise."""

    est: Any
    noise: np.ndarray


@dataclass(frozen=True)
class Sampler:
    """An algorithm bound to a problem, an integrator and an estimator.

    Parameters
    ----------
    name : str
        Registry name.
    problem : Problem
    integrator
        One of :mod:`sgmcmc_verify.integrators` (it carries ``h``).
    estimator : Estimator
    """

    name: str
    problem: Problem
    integrator: Any
    estimator: Estimator

    @property
    def h(self) -> float:
        return self.integrator.h

    @property
    def family(self) -> str:
        return self.integrator.family

    def init(self, theta0: np.ndarray, rng: np.random.Generator):
        """Initial state from ``theta0`` of shape (chains, d)."""
        theta = validate_theta0(theta0, self.problem.d)
        state = self.integrator.init(theta, rng, self.problem.d)
        est = self.estimator.init(self.problem, self.integrator.eval_point(state), rng)
        return state._replace(est=est)

    def draw(self, state, rng: np.random.Generator):
        """Draw one step's randomness; returns ``(StepRandomness, state)``.

        The state is returned because some estimators keep their access state
        there (RR's permutation, CA's position).
        """
        chains = state.theta.shape[0]
        est_rand, est_state = self.estimator.draw(self.problem, state.est, chains, rng)
        noise = rng.standard_normal((chains, self.problem.d))
        return StepRandomness(est_rand, noise), state._replace(est=est_state)

    def step(self, state, rand: StepRandomness):
        """One step (see the module docstring); returns ``(new_state, StepInfo)``.

        ``state`` is consumed: estimators holding a snapshot table (SAGA, PPU, TMU, HSAG,
        the SVRHMC SAGA variants) update it in place rather than copy O(chains·N·d) numbers
        every step (:mod:`sgmcmc_verify.estimators`).  To replay a step from the same state
        (common random numbers, pinned trajectories), pass ``copy.deepcopy(state)``.
        """
        x = self.integrator.eval_point(state)
        g, cache = self.estimator.estimate(self.problem, x, state.est, rand.est, context=state)
        new = self.integrator.advance(state, g, rand.noise)
        est = self.estimator.update(
            self.problem, state.est, x, self.integrator.eval_point(new), rand.est, cache
        )
        info = StepInfo(g, self.estimator.chosen_indices(rand.est, cache))
        return new._replace(est=est), info
