"""Planted bugs: realistic variants of correct samplers, to show that checks have power.

Each function takes a correct :class:`~sgmcmc_verify.algorithms.Sampler` and returns
one with a single, realistic mistake; drive it with
:func:`sgmcmc_verify.run_sampler`.  The tests use them to show that every kind of
check rejects a buggy implementation (DESIGN.md, "Power matters as much as size").
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from .algorithms import Sampler

__all__ = [
    "HalfNoise",
    "bhat_ignored",
    "half_noise",
    "saga_refresh_before_use",
    "splitting_missing_decay",
]


class HalfNoise:
    """An integrator whose Gaussian noise is scaled by 1/√2.

    For Euler–Maruyama this is the bug "√h in place of √(2h)"; for SGHMC "√(Dh) in
    place of √(2Dh)".  All other attributes are the wrapped integrator's.
    """

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def advance(self, state, grad, noise):
        return self.inner.advance(state, grad, noise / math.sqrt(2))


def half_noise(sampler: Sampler) -> Sampler:
    """``sampler`` with its integrator's noise scaled by 1/√2 (:class:`HalfNoise`)."""
    return dataclasses.replace(sampler, integrator=HalfNoise(sampler.integrator))


class _SagaRefreshFirst:
    """SAGA whose table is refreshed *before* the estimate uses it (SVRHMC Alg. 2 lines 7, 10
    swapped): the estimate then collapses to ``g`` with the batch entries at θ, a biased
    estimator."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def estimate(self, problem, theta, state, rand, context=None):
        _, cache = self.inner.estimate(problem, theta, state, rand, context)
        state = self.inner.update(problem, state, theta, theta, rand, cache)
        return self.inner.estimate(problem, theta, state, rand, context)

    def update(self, problem, state, x, x_next, rand, cache):
        return state  # already refreshed


def saga_refresh_before_use(sampler: Sampler) -> Sampler:
    """``sampler`` (a SAGA-based algorithm) with its table refreshed before use."""
    return dataclasses.replace(sampler, estimator=_SagaRefreshFirst(sampler.estimator))


class _MissingDecay:
    """Symmetric splitting without the second ``e^{−Dh/2}`` (SVRHMC eq. (15) dropped)."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def advance(self, state, grad, noise):
        h, decay = self.inner.h, math.exp(-self.inner.D * self.inner.h / 2)
        theta1 = state.theta + 0.5 * h * state.p
        p = decay * state.p - h * grad + math.sqrt(2 * self.inner.D * h) * noise
        return state._replace(theta=theta1 + 0.5 * h * p, p=p)


def splitting_missing_decay(sampler: Sampler) -> Sampler:
    """``sampler`` (a splitting algorithm) with eq. (15)'s ``e^{−Dh/2}`` missing."""
    return dataclasses.replace(sampler, integrator=_MissingDecay(sampler.integrator))


def bhat_ignored(sampler: Sampler) -> Sampler:
    """SGHMC-Chen injecting ``N(0, 2Ah)`` instead of ``N(0, 2(A − B̂)h)``: B̂ ignored."""
    return dataclasses.replace(
        sampler, integrator=dataclasses.replace(sampler.integrator, B_hat=0.0)
    )
