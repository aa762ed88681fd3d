"""Statistical tests with stated error rates, effective sample sizes, rate fits.

Modules, one job each:

- :mod:`~sgmcmc_verify.stats.ess`: effective sample size (Geyer 1992 initial
  monotone sequence, multi-chain form of Vehtari et al. 2021) and the MCSE of a
  mean, for ``(chains, draws, *event)`` arrays.
- :mod:`~sgmcmc_verify.stats.outcome`: :class:`TestOutcome`, the result of a test.
- :mod:`~sgmcmc_verify.stats.hypothesis_tests`: mean, variance, chi-square and
  Kolmogorov-Smirnov tests, each at a caller-stated level ``alpha``.
- :mod:`~sgmcmc_verify.stats.multiplicity`: Bonferroni, Holm, and
  :class:`AlphaBudget`, the ledger of levels spent across a suite.
- :mod:`~sgmcmc_verify.stats.rates`: :func:`fit_order`, convergence orders from
  exact or Monte Carlo values.
"""

from __future__ import annotations

from .ess import autocovariance, ess, ess_per_chain, mcse_mean
from .hypothesis_tests import chisquare_gof, ks_test, pool_bins, variance_test, z_test_mean
from .multiplicity import AlphaBudget, AlphaSpend, bonferroni, check_alpha, holm
from .outcome import TestOutcome
from .rates import MAX_RELATIVE_STDERR, OrderFit, fit_order

__all__ = [
    "MAX_RELATIVE_STDERR",
    "AlphaBudget",
    "AlphaSpend",
    "OrderFit",
    "TestOutcome",
    "autocovariance",
    "bonferroni",
    "check_alpha",
    "chisquare_gof",
    "ess",
    "ess_per_chain",
    "fit_order",
    "holm",
    "ks_test",
    "mcse_mean",
    "pool_bins",
    "variance_test",
    "z_test_mean",
]
