"""Hypothesis tests with stated error rates, returning :class:`TestOutcome`.

Every function takes the significance level ``alpha`` as a required keyword,
derives its critical value from it, and returns the decision with the numbers
behind it.  Tests of vector observables test each coordinate at
``alpha / d`` (Bonferroni), so ``alpha`` bounds the probability of any false
rejection among the ``d`` coordinates whatever their correlation.

Array layout: MCMC output is ``(chains, draws, *event)`` (ArviZ); independent
draws are ``(chains, 1, *event)``.

References
----------
.. [1] C. J. Geyer, "Practical Markov chain Monte Carlo", Statistical Science
   7(4):473-483, 1992.
.. [2] A. Vehtari et al., "Rank-normalization, folding, and localization: an
   improved R-hat for assessing convergence of MCMC", Bayesian Analysis
   16(2):667-718, 2021.
.. [3] W. G. Cochran, "Some methods for strengthening the common chi-square
   tests", Biometrics 10(4):417-451, 1954.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import scipy.special

from .._validation import choice, positive
from .ess import as_samples, mcse_and_ess
from .multiplicity import check_alpha
from .outcome import TestOutcome

# scipy.stats (~0.3 s on top of scipy.special) is imported inside the three functions
# that need it, so importing the statistics does not pay for it (issue 13).

__all__ = [
    "TestOutcome",
    "chisquare_gof",
    "ks_test",
    "pool_bins",
    "variance_test",
    "z_test_mean",
]


def _event_array(name: str, value: Any, event: tuple[int, ...]) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    try:
        out = np.broadcast_to(arr, event)
    except ValueError:
        raise ValueError(
            f"{name} must broadcast to the event shape {event}, got shape {arr.shape}"
        ) from None
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must be finite")
    return out


def _bonferroni_outcome(
    *,
    p: np.ndarray,
    statistic: np.ndarray,
    alpha: float,
    threshold: float | tuple[float, float],
    description: str,
    details: dict[str, Any],
) -> TestOutcome:
    """Combine per-coordinate p-values by Bonferroni into one outcome."""
    p_flat = np.atleast_1d(p).ravel()
    d = p_flat.size
    worst = int(np.argmin(p_flat))
    p_adj = min(1.0, d * float(p_flat[worst]))
    details = {**details, "p_per_coordinate": p, "alpha_per_coordinate": alpha / d}
    return TestOutcome(
        statistic=float(np.atleast_1d(statistic).ravel()[worst]),
        p_value=p_adj,
        alpha=alpha,
        threshold=threshold,
        reject=p_adj <= alpha,
        description=description,
        details=details,
    )


def z_test_mean(
    samples: np.ndarray,
    expected: float | np.ndarray,
    *,
    alpha: float,
    method: Literal["ess", "chain_means"] = "ess",
    expected_stderr: float | np.ndarray | None = None,
) -> TestOutcome:
    """Two-sided test that the stationary mean equals ``expected``.

    Per coordinate,

    .. math::

        z = \\frac{\\bar x - \\mu}{\\sqrt{\\mathrm{MCSE}^2 + s_\\mu^2}}, \\qquad
        p = 2\\,\\bar F(|z|),

    with :math:`\\bar x` the grand mean over chains and draws, MCSE from
    :func:`~sgmcmc_verify.stats.mcse_mean`, :math:`s_\\mu` the standard error
    of a Monte Carlo reference value (``expected_stderr``, default 0), and
    :math:`\\bar F` the standard normal survival function (``method="ess"``) or
    Student t with ``chains - 1`` degrees of freedom (``method="chain_means"``).
    Each of the ``d`` coordinates is tested at ``alpha / d``.

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)
    expected : float or array_like broadcastable to ``event``
    alpha : float in (0, 1)
        Probability of a false rejection (over all coordinates).
    method : {"ess", "chain_means"}
        How the MCSE is estimated; see :func:`~sgmcmc_verify.stats.mcse_mean`.
        ``"ess"`` is asymptotic: it relies on a central limit theorem for the
        chain and on the ESS estimate, so it wants ESS in the hundreds and
        ``draws`` well above the integrated autocorrelation time (for chains
        only a few autocorrelation times long the ESS is biased; see the Notes
        of :func:`~sgmcmc_verify.stats.ess`).
        ``"chain_means"`` relies only on independent chains and a CLT for the
        chain means, and is the better choice for many short chains.
    expected_stderr : float or array_like, optional
        Standard error of ``expected`` when it is itself an estimate; treated
        as known and independent of ``samples``.

    Returns
    -------
    TestOutcome
        ``statistic`` is the largest ``|z|``; ``threshold`` is the critical
        value at ``alpha / (2 d)``; ``details`` holds per-coordinate ``mean``,
        ``mcse``, ``z``, ``ess`` (method "ess").

    Raises
    ------
    ValueError
        If the samples have zero variance in some coordinate (the test is
        undefined), or on bad shapes or levels.
    """
    alpha = check_alpha(alpha)
    method = choice("method", method, ("ess", "chain_means"))
    x = as_samples(samples)
    event = x.shape[2:]
    mu = _event_array("expected", expected, event)
    s_mu = (
        0.0 if expected_stderr is None else _event_array("expected_stderr", expected_stderr, event)
    )
    if np.any(s_mu < 0):
        raise ValueError("expected_stderr must be >= 0")

    mcse, ess_x = mcse_and_ess(x, method)
    se = np.sqrt(mcse**2 + s_mu**2)
    if not np.all(np.isfinite(mcse) & (mcse > 0)):
        raise ValueError(
            "samples have zero variance in some coordinate; the z-test is undefined there"
        )
    mean = x.mean(axis=(0, 1))
    z = (mean - mu) / se
    d = int(np.prod(event))
    m = x.shape[0]
    q = alpha / (2 * d)
    # scipy.special rather than frozen scipy.stats objects: these tests run
    # thousands of times in the calibration checks, and freezing costs ~0.3 ms.
    if method == "ess":
        p = 2.0 * scipy.special.ndtr(-np.abs(z))
        threshold = float(-scipy.special.ndtri(q))
        ref = "normal"
    else:
        p = 2.0 * scipy.special.stdtr(m - 1, -np.abs(z))
        threshold = float(-scipy.special.stdtrit(m - 1, q))
        ref = f"Student t({m - 1})"
    details: dict[str, Any] = {"mean": mean, "expected": mu, "mcse": mcse, "z": z}
    if ess_x is not None:
        details["ess"] = ess_x
    return _bonferroni_outcome(
        p=p,
        statistic=np.abs(z),
        alpha=alpha,
        threshold=threshold,
        description=(
            f"two-sided test of the mean, {d} coordinate(s), MCSE by {method}, {ref} "
            f"reference, level {alpha:g} (Bonferroni {alpha / d:g} per coordinate); "
            f"reject if max|z| > {threshold:.4g}"
        ),
        details=details,
    )


def variance_test(
    samples: np.ndarray,
    expected_var: float | np.ndarray,
    *,
    alpha: float,
    mean: float | np.ndarray | None = None,
    method: Literal["ess", "chain_means", "chi2"] = "ess",
) -> TestOutcome:
    """Two-sided test that the stationary variance equals ``expected_var``.

    Methods
    -------
    ``"ess"`` and ``"chain_means"`` (default ``"ess"``)
        A mean test (:func:`z_test_mean`) on the centred squares
        :math:`y = (x - c)^2`, with ``c = mean`` when it is known, else the
        grand mean.  Its MCSE involves the fourth moment, estimated from the
        data, so no normality is assumed; it needs finite fourth moments and
        the same conditions as :func:`z_test_mean`.  With an estimated centre,
        :math:`E[y] = \\sigma^2 (1 - \\mathrm{Var}(\\bar x)/\\sigma^2)`, and the
        target is scaled by the estimate :math:`1 - \\mathrm{MCSE}^2/s^2`
        (:math:`1 - 1/\\mathrm{ESS}` for ``"ess"``; for iid draws this is the
        usual ``n - 1`` correction).  Squares are skewed, so the two tails of
        the test are unequal at moderate ESS (the two-sided size stays close to
        nominal; see ``tests/test_stats.py``).
    ``"chi2"``
        Exact for **independent normal** draws, i.e. ``draws == 1`` (many
        independent chains, one draw each) from a Gaussian stationary law,
        which the discretised chains on Gaussian targets have.  The statistic
        is :math:`\\sum (x - \\mu)^2 / \\sigma^2 \\sim \\chi^2_n` with known
        mean, or :math:`(n-1) s^2 / \\sigma^2 \\sim \\chi^2_{n-1}` without; the
        p-value is two-sided, :math:`2 \\min(F, 1 - F)`.  It is not robust to
        non-normality (heavy tails inflate its size): use ``"ess"`` then.

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)
    expected_var : float or array_like broadcastable to ``event``, > 0
    alpha : float in (0, 1)
        Probability of a false rejection (over all coordinates; Bonferroni).
    mean : float or array_like, optional
        The known stationary mean; more powerful and free of centring bias.
    method : {"ess", "chain_means", "chi2"}

    Returns
    -------
    TestOutcome
        For ``"chi2"``, ``statistic`` is the chi-square value of the most
        extreme coordinate and ``threshold`` the acceptance interval
        ``(lo, hi)`` at ``alpha / (2 d)`` per tail.
    """
    alpha = check_alpha(alpha)
    method = choice("method", method, ("ess", "chain_means", "chi2"))
    x = as_samples(samples)
    m, n = x.shape[:2]
    event = x.shape[2:]
    var0 = _event_array("expected_var", expected_var, event)
    if np.any(var0 <= 0):
        raise ValueError("expected_var must be > 0")
    mu = None if mean is None else _event_array("mean", mean, event)
    d = int(np.prod(event))

    if method == "chi2":
        if n != 1:
            raise ValueError(
                "method='chi2' assumes independent draws: samples must have draws == 1 "
                f"(one draw from each of many chains), got draws = {n}; use method='ess'"
            )
        flat = x[:, 0]
        if mu is None:
            if m < 2:
                raise ValueError("method='chi2' with unknown mean needs chains >= 2")
            df = m - 1
            stat = flat.var(axis=0, ddof=1) * df / var0
        else:
            df = m
            stat = np.sum((flat - mu) ** 2, axis=0) / var0
        q = alpha / (2 * d)
        p = np.minimum(
            1.0, 2.0 * np.minimum(scipy.special.chdtr(df, stat), scipy.special.chdtrc(df, stat))
        )
        lo, hi = float(scipy.special.chdtri(df, 1.0 - q)), float(scipy.special.chdtri(df, q))
        return _bonferroni_outcome(
            p=p,
            statistic=stat,
            alpha=alpha,
            threshold=(lo, hi),
            description=(
                f"two-sided chi-square test of the variance (iid normal draws), "
                f"{d} coordinate(s), df {df}, level {alpha:g} (Bonferroni {alpha / d:g} "
                f"per coordinate); reject if the statistic is outside [{lo:.4g}, {hi:.4g}]"
            ),
            details={"chi2": stat, "df": df, "sample_var": flat.var(axis=0, ddof=1)},
        )

    if mu is None:
        centre = x.mean(axis=(0, 1))
        # E[(x - mean)²] = σ² (1 - Var(grand mean)/σ²); the ratio is estimated by
        # MCSE²/s², which is 1/ESS for method 'ess' and 1/m for iid draws.
        mcse, _ = mcse_and_ess(x, method)
        s2 = x.reshape(m * n, *event).var(axis=0, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            target = var0 * (1.0 - np.where(s2 > 0, mcse**2 / s2, 0.0))
    else:
        centre = mu
        target = var0
    y = (x - centre) ** 2
    inner = z_test_mean(y, target, alpha=alpha, method=method)
    centring = "known mean" if mu is not None else "grand mean (target scaled by 1 - MCSE²/s²)"
    return TestOutcome(
        statistic=inner.statistic,
        p_value=inner.p_value,
        alpha=alpha,
        threshold=inner.threshold,
        reject=inner.reject,
        description=(
            f"two-sided test of the variance as a mean of squares centred at the {centring}; "
            + inner.description
        ),
        details={**inner.details, "sample_var": y.mean(axis=(0, 1)), "expected_var": var0},
    )


def pool_bins(
    observed: np.ndarray, expected: np.ndarray, min_expected: float
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """Pool adjacent bins so that every pooled expected count is >= ``min_expected``.

    The bins are taken to be ordered (a histogram, or the support of a discrete
    law).  The left tail is pooled from the left until it reaches
    ``min_expected``, the right tail likewise from the right; interior bins are
    then pooled greedily left to right, and an interior remainder below
    ``min_expected`` joins the right-tail group.

    Parameters
    ----------
    observed, expected : 1-d arrays of equal length
        Counts and expected counts (same total).
    min_expected : float > 0

    Returns
    -------
    observed_pooled, expected_pooled : ndarray
    groups : list of (start, stop)
        Half-open index ranges of the original bins in each pooled bin.

    Raises
    ------
    ValueError
        If fewer than two pooled bins can be formed.
    """
    obs = np.asarray(observed, dtype=np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    if exp.ndim != 1 or obs.shape != exp.shape:
        raise ValueError(
            f"observed and expected must be 1-d of equal length, got {obs.shape}, {exp.shape}"
        )
    if not (np.all(np.isfinite(exp)) and np.all(exp >= 0)):
        raise ValueError("expected counts must be finite and >= 0")
    min_expected = positive("min_expected", min_expected)
    k = exp.size
    cum = np.concatenate([[0.0], np.cumsum(exp)])

    def total(a: int, b: int) -> float:
        return float(cum[b] - cum[a])

    i = 0
    while i < k and total(0, i) < min_expected:
        i += 1
    j = k
    while j > i and total(j, k) < min_expected:
        j -= 1
    if total(0, i) < min_expected or total(j, k) < min_expected:
        raise ValueError(
            f"cannot form two bins with expected count >= {min_expected}: the total expected "
            f"count is {total(0, k):.4g}; collect more samples or lower min_expected"
        )
    groups = [(0, i)]
    start = i
    for b in range(i, j):
        if total(start, b + 1) >= min_expected:
            groups.append((start, b + 1))
            start = b + 1
    groups.append((start, k))  # right tail plus any interior remainder
    obs_p = np.array([obs[a:b].sum() for a, b in groups])
    exp_p = np.array([exp[a:b].sum() for a, b in groups])
    return obs_p, exp_p, groups


def chisquare_gof(
    observed_counts: np.ndarray,
    expected_probs: np.ndarray,
    *,
    alpha: float,
    min_expected: float = 5,
    ddof: int = 0,
) -> TestOutcome:
    """Pearson chi-square goodness-of-fit test with tail pooling.

    Bins are pooled (:func:`pool_bins`) until each expected count
    :math:`N p_j` is at least ``min_expected`` (the usual rule of thumb for
    the :math:`\\chi^2_{k-1-\\mathrm{ddof}}` approximation; Cochran 1954), then
    :func:`scipy.stats.chisquare` is applied.

    An observation in a bin of probability zero is impossible under the null
    hypothesis: the test then rejects with ``p_value = 0`` and an infinite
    statistic, before any pooling could hide it.

    Parameters
    ----------
    observed_counts : 1-d array_like of non-negative integers
        Counts of **independent** draws (e.g. one draw from each of many
        chains); autocorrelated draws make the test anti-conservative.
    expected_probs : 1-d array_like, same length, summing to 1 (within 1e-6)
        Cell probabilities in the same (ordered) bins; include the tails so that
        they sum to one.  They are renormalised to sum exactly to one.
    alpha : float in (0, 1)
    min_expected : float, default 5
    ddof : int, default 0
        Parameters estimated from the data (reduces the degrees of freedom).

    Returns
    -------
    TestOutcome
        ``details`` holds the pooled observed and expected counts and the bin
        groups.
    """
    alpha = check_alpha(alpha)
    min_expected = positive("min_expected", min_expected)
    if isinstance(ddof, bool) or not isinstance(ddof, int | np.integer) or ddof < 0:
        raise ValueError(f"ddof must be a non-negative integer, got {ddof!r}")
    obs = np.asarray(observed_counts, dtype=np.float64)
    p = np.asarray(expected_probs, dtype=np.float64)
    if obs.ndim != 1 or p.shape != obs.shape:
        raise ValueError(
            f"observed_counts and expected_probs must be 1-d of equal length, got shapes "
            f"{obs.shape} and {p.shape}"
        )
    if not (np.all(np.isfinite(obs)) and np.all(obs >= 0) and np.all(obs == np.round(obs))):
        raise ValueError("observed_counts must be non-negative integers")
    if not (np.all(np.isfinite(p)) and np.all(p >= 0)):
        raise ValueError("expected_probs must be finite and >= 0")
    if abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(
            f"expected_probs must sum to 1 (within 1e-6), got {p.sum():.10g}; add tail bins"
        )
    n_total = obs.sum()
    if n_total <= 0:
        raise ValueError("observed_counts must not all be zero")

    if np.any((p == 0) & (obs > 0)):
        return TestOutcome(
            statistic=float("inf"),
            p_value=0.0,
            alpha=alpha,
            threshold=float("nan"),
            reject=True,
            description="chi-square GOF: observations in a bin of probability zero",
            details={"impossible_bins": np.flatnonzero((p == 0) & (obs > 0))},
        )
    expected = n_total * (p / p.sum())
    obs_p, exp_p, groups = pool_bins(obs, expected, min_expected)
    df = len(groups) - 1 - int(ddof)
    if df < 1:
        raise ValueError(f"{len(groups)} pooled bins and ddof={ddof} leave no degrees of freedom")
    import scipy.stats

    res = scipy.stats.chisquare(obs_p, exp_p, ddof=int(ddof))
    threshold = float(scipy.special.chdtri(df, alpha))  # chi2.isf(alpha, df)
    pval = float(res.pvalue)
    return TestOutcome(
        statistic=float(res.statistic),
        p_value=pval,
        alpha=alpha,
        threshold=threshold,
        reject=pval <= alpha,
        description=(
            f"Pearson chi-square goodness of fit, {obs.size} bins pooled to {len(groups)} "
            f"(expected >= {min_expected:g}), df {df}, level {alpha:g}; "
            f"reject if statistic > {threshold:.4g}"
        ),
        details={"observed": obs_p, "expected": exp_p, "groups": groups, "df": df},
    )


@functools.lru_cache(maxsize=256)
def _ks_critical_value(alpha: float, n: int) -> float:
    # Inverting the exact law of D_n costs ~1 ms; calibration loops repeat (alpha, n).
    import scipy.stats

    return float(scipy.stats.kstwo.isf(alpha, n))


def ks_test(
    samples_1d_iid: np.ndarray,
    cdf: Callable[[np.ndarray], np.ndarray] | Any,
    *,
    alpha: float,
) -> TestOutcome:
    """Two-sided one-sample Kolmogorov-Smirnov test, via :func:`scipy.stats.kstest`.

    Parameters
    ----------
    samples_1d_iid : 1-d array_like
        **Independent** draws (e.g. ``samples[:, 0, j]`` from many chains, one
        draw each).  Autocorrelated draws make the test anti-conservative.
    cdf : callable or object with a ``cdf`` method
        The continuous null distribution function, e.g. a frozen
        ``scipy.stats`` distribution.  (For discrete laws use
        :func:`chisquare_gof`.)
    alpha : float in (0, 1)

    Returns
    -------
    TestOutcome
        ``statistic`` is :math:`D_n = \\sup_x |F_n(x) - F(x)|`; ``threshold``
        is the ``1 - alpha`` quantile of its exact null distribution
        (``scipy.stats.kstwo``).
    """
    alpha = check_alpha(alpha)
    x = np.asarray(samples_1d_iid, dtype=np.float64)
    if x.ndim != 1 or x.size < 1:
        raise ValueError(f"samples_1d_iid must be a non-empty 1-d array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("samples_1d_iid must be finite")
    f = getattr(cdf, "cdf", cdf)
    if not callable(f):
        raise TypeError("cdf must be callable or have a .cdf method")
    import scipy.stats

    res = scipy.stats.kstest(x, f)
    n = x.size
    threshold = _ks_critical_value(alpha, n)
    pval = float(res.pvalue)
    return TestOutcome(
        statistic=float(res.statistic),
        p_value=pval,
        alpha=alpha,
        threshold=threshold,
        reject=pval <= alpha,
        description=(
            f"two-sided one-sample Kolmogorov-Smirnov, n = {n}, level {alpha:g}; "
            f"reject if D > {threshold:.4g}"
        ),
        details={"n": n},
    )
