"""Test problems: targets with their data terms and everything known exactly about them.

See :mod:`sgmcmc_verify.problems.base` for the convention ``π ∝ exp(-U)``,
``U = U_0 + Σ_i f_i`` used throughout.  :func:`get` builds a problem by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._validation import choice
from .base import Exact, GLMProblem, Problem
from .double_well import DoubleWell, double_well
from .gaussian import GaussianQuadratic, gaussian_differing, gaussian_identical
from .linear_regression import LinearRegression, linear_regression_synthetic
from .logistic import (
    LogisticRegression,
    logistic_regression_spector,
    logistic_regression_synthetic,
)
from .mixture import AGLDMixture, agld_gmm
from .sgnht_models import NormalGamma, NormalMean, normal_gamma, normal_mean

__all__ = [
    "PROBLEMS",
    "AGLDMixture",
    "DoubleWell",
    "Exact",
    "GLMProblem",
    "GaussianQuadratic",
    "LinearRegression",
    "LogisticRegression",
    "NormalGamma",
    "NormalMean",
    "Problem",
    "agld_gmm",
    "double_well",
    "gaussian_differing",
    "gaussian_identical",
    "get",
    "linear_regression_synthetic",
    "logistic_regression_spector",
    "logistic_regression_synthetic",
    "normal_gamma",
    "normal_mean",
]

#: Named problem factories; each accepts keyword overrides of its defaults.
PROBLEMS: dict[str, Callable[..., Problem]] = {
    "gaussian-identical-1d": lambda **kw: gaussian_identical(**{"d": 1, **kw}),
    "gaussian-identical-2d": lambda **kw: gaussian_identical(**{"d": 2, **kw}),
    "gaussian-identical-10d": lambda **kw: gaussian_identical(**{"d": 10, **kw}),
    "gaussian-differing-1d": lambda **kw: gaussian_differing(**{"d": 1, **kw}),
    "gaussian-differing-2d": lambda **kw: gaussian_differing(**{"d": 2, **kw}),
    "gaussian-differing-10d": lambda **kw: gaussian_differing(**{"d": 10, **kw}),
    "linear-regression": linear_regression_synthetic,
    "logistic-regression-spector": logistic_regression_spector,
    "logistic-regression": logistic_regression_synthetic,
    "agld-gmm": agld_gmm,
    "double-well": double_well,
    "sgnht-normal-mean": normal_mean,
    "sgnht-normal-gamma": normal_gamma,
}


def get(name: str, **kwargs: Any) -> Problem:
    """Build the named problem; ``kwargs`` override its defaults."""
    choice("problem", name, PROBLEMS)
    return PROBLEMS[name](**kwargs)
