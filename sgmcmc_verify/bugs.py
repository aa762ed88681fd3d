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

__all__ = ["HalfNoise", "half_noise"]


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
