"""Named algorithms: a gradient estimator composed with an integrator.

A :class:`Sampler` is an algorithm bound to a problem, a step size and its
parameters.  It follows the blackjax ``init``/``step`` shape, except that the
randomness of a step is an *argument* (``draw`` produces it), so two
formulations of one algorithm can be compared under identical noise and indices
(DESIGN.md, "Samplers are pure functions, with noise injected").

Per step the random numbers are drawn in a fixed order — first the estimator's
(indices, uniforms), then the integrator's Gaussian noise — so a seed fixes the
trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._validation import as_theta, finite_array, positive
from .estimators import Estimator
from .integrators import overdamped_em
from .problems.base import Problem

__all__ = ["OverdampedState", "Sampler", "StepInfo", "StepRandomness"]


class OverdampedState(NamedTuple):
    """State of an overdamped chain: ``theta`` (chains, d) and the estimator's state."""

    theta: np.ndarray
    est: Any


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
    """An algorithm bound to a problem, step size ``h`` and estimator.

    Parameters
    ----------
    name : str
        Registry name.
    problem : Problem
    h : float
        Step size (``η`` in AGLD, ``h`` elsewhere).
    estimator : Estimator
    family : str
        ``"overdamped"`` (this module so far).
    """

    name: str
    problem: Problem
    h: float
    estimator: Estimator
    family: str = "overdamped"

    def __post_init__(self) -> None:
        positive("h", self.h)

    def init(self, theta0: np.ndarray, rng: np.random.Generator) -> OverdampedState:
        """Initial state from ``theta0`` of shape (chains, d)."""
        theta = finite_array("theta0", as_theta(theta0, self.problem.d)).copy()
        return OverdampedState(theta, self.estimator.init(self.problem, theta, rng))

    def draw(self, state: OverdampedState, rng: np.random.Generator):
        """Draw one step's randomness; returns ``(StepRandomness, state)``.

        The state is returned because some estimators keep their access state
        there (RR's permutation, CA's position).
        """
        chains = state.theta.shape[0]
        est_rand, est_state = self.estimator.draw(self.problem, state.est, chains, rng)
        noise = rng.standard_normal((chains, self.problem.d))
        return StepRandomness(est_rand, noise), state._replace(est=est_state)

    def step(self, state: OverdampedState, rand: StepRandomness):
        """One step; returns ``(new_state, StepInfo)``.

        .. math::

            g^{(k)} = \\text{estimator}(x^{(k)}), \\quad
            x^{(k+1)} = x^{(k)} - h g^{(k)} + \\sqrt{2h}\\,\\xi^{(k)}
        """
        g, cache = self.estimator.estimate(self.problem, state.theta, state.est, rand.est)
        theta_new = overdamped_em(state.theta, g, rand.noise, self.h)
        est = self.estimator.update(
            self.problem, state.est, state.theta, theta_new, rand.est, cache
        )
        info = StepInfo(g, self.estimator.chosen_indices(rand.est, cache))
        return OverdampedState(theta_new, est), info
