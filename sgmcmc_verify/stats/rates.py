"""Fitting convergence orders: ``|value| ≈ C h^k`` on a log-log scale.

Exact values (from :mod:`sgmcmc_verify.exact`) are fitted by ordinary least
squares: there is no sampling error, so no confidence interval, and the
residual measures how far the data are from a pure power law (higher-order
terms in ``h``).  Monte Carlo values with standard errors are fitted by
weighted least squares (statsmodels) with the delta-method standard deviation
:math:`\\operatorname{sd}(\\log|v|) \\approx \\operatorname{se}(v)/|v|`, and the
slope gets a ``1 - alpha`` confidence interval.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .._validation import choice
from .multiplicity import check_alpha

__all__ = ["MAX_RELATIVE_STDERR", "OrderFit", "fit_order"]

#: Largest relative standard error ``stderr / |value|`` accepted.  The delta
#: method's error in :math:`E\\log|v|` is about :math:`-r^2/2` for relative
#: error ``r`` (0.045 at 0.3, i.e. 15% of the standard deviation it is compared
#: with), and at larger ``r`` the sign of ``v`` itself becomes uncertain.
MAX_RELATIVE_STDERR = 0.3


@dataclass(frozen=True)
class OrderFit:
    """Result of :func:`fit_order`: ``log|value| = intercept + slope * log h``.

    Parameters
    ----------
    slope
        The fitted order ``k``.
    intercept
        The fitted ``c = log C``.
    slope_ci, intercept_ci
        ``1 - alpha`` confidence intervals; ``None`` for exact data.
    slope_stderr
        Standard error of the slope; ``None`` for exact data.
    alpha
        The level the intervals were computed at (recorded also for exact data).
    method
        ``"exact-lstsq"``, ``"wls-known-scale"`` or ``"wls-estimated-scale"``.
    n_points
        Number of step sizes.
    residual_rms, max_abs_residual
        Unweighted residuals of ``log|value|`` about the fitted line.
    lack_of_fit_p
        For ``"wls-known-scale"`` with at least three points: the p-value of
        the weighted residual sum of squares against
        :math:`\\chi^2_{n-2}`.  A small value says the points do not lie on
        one line within their errors (curvature from higher-order terms, or
        understated errors), and the slope CI should not be trusted.
    note
        A sentence for the report on how to read the fit.
    """

    slope: float
    intercept: float
    slope_ci: tuple[float, float] | None
    intercept_ci: tuple[float, float] | None
    slope_stderr: float | None
    alpha: float
    method: str
    n_points: int
    residual_rms: float
    max_abs_residual: float
    lack_of_fit_p: float | None
    note: str

    def covers(self, order: float) -> bool:
        """Whether ``order`` lies in :attr:`slope_ci` (raises for exact fits)."""
        if self.slope_ci is None:
            raise ValueError("an exact fit has no confidence interval; compare slope directly")
        lo, hi = self.slope_ci
        return lo <= order <= hi


def fit_order(
    h: np.ndarray,
    values: np.ndarray,
    stderr: np.ndarray | None = None,
    *,
    alpha: float,
    scale: Literal["known", "estimated"] = "known",
) -> OrderFit:
    """Fit :math:`\\log|v| = c + k \\log h` and return the order ``k``.

    Parameters
    ----------
    h : 1-d array_like, > 0
        Step sizes (at least two distinct values; three for a CI with
        ``scale="estimated"``).
    values : 1-d array_like, nonzero
        The quantity whose order is wanted (a bias, an error, ...), same length.
    stderr : 1-d array_like, > 0, optional
        Monte Carlo standard errors of ``values``.  ``None`` means the values
        are exact (up to rounding): plain least squares, no CI.  Each must be at
        most :data:`MAX_RELATIVE_STDERR` times ``|value|``, or the log
        transform is meaningless.
    alpha : float in (0, 1)
        ``1 - alpha`` is the confidence level of the intervals.
    scale : {"known", "estimated"}
        ``"known"`` (default): the standard errors are taken at face value;
        the CI uses the normal distribution, and ``lack_of_fit_p`` checks
        that assumption.  ``"estimated"``: the errors are taken as relative
        weights only, the residual variance is estimated, and the CI uses
        Student t with ``n - 2`` degrees of freedom (wider and robust to a
        common misstatement of the errors, but needs ``n >= 3``).

    Returns
    -------
    OrderFit

    Notes
    -----
    The model is a pure power law.  When higher-order terms matter over the
    range of ``h`` the fitted slope is a weighted average of local orders;
    choose ``h`` small enough that they do not.  The delta method also ignores
    the bias :math:`-r^2/2` of :math:`\\log|v|` at relative error ``r``.
    """
    alpha = check_alpha(alpha)
    scale = choice("scale", scale, ("known", "estimated"))
    hh = np.asarray(h, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if hh.ndim != 1 or v.shape != hh.shape:
        raise ValueError(
            f"h and values must be 1-d of equal length, got shapes {hh.shape} and {v.shape}"
        )
    if not (np.all(np.isfinite(hh)) and np.all(hh > 0)):
        raise ValueError("h must be finite and > 0")
    if np.unique(hh).size < 2:
        raise ValueError("h needs at least two distinct values")
    if not (np.all(np.isfinite(v)) and np.all(v != 0)):
        raise ValueError("values must be finite and nonzero (their log is fitted)")
    x = np.log(hh)
    y = np.log(np.abs(v))
    design = np.column_stack([np.ones_like(x), x])
    n = hh.size

    if stderr is None:
        coef, *_ = np.linalg.lstsq(design, y, rcond=None)
        resid = y - design @ coef
        return OrderFit(
            slope=float(coef[1]),
            intercept=float(coef[0]),
            slope_ci=None,
            intercept_ci=None,
            slope_stderr=None,
            alpha=alpha,
            method="exact-lstsq",
            n_points=n,
            residual_rms=float(np.sqrt(np.mean(resid**2))),
            max_abs_residual=float(np.max(np.abs(resid))),
            lack_of_fit_p=None,
            note=(
                "exact values: least squares on log|v|, no statistical confidence interval; "
                "the residual measures departure from a pure power law"
            ),
        )

    se = np.asarray(stderr, dtype=np.float64)
    if se.shape != v.shape:
        raise ValueError(f"stderr must have the shape of values {v.shape}, got {se.shape}")
    if not (np.all(np.isfinite(se)) and np.all(se > 0)):
        raise ValueError("stderr must be finite and > 0 (pass stderr=None for exact values)")
    rel = se / np.abs(v)
    if np.any(rel > MAX_RELATIVE_STDERR):
        worst = int(np.argmax(rel))
        raise ValueError(
            f"relative standard error {rel[worst]:.3g} at h = {hh[worst]:g} exceeds "
            f"{MAX_RELATIVE_STDERR}; the delta method for log|v| is unreliable there "
            "(use more replications or drop that step size)"
        )
    if scale == "estimated" and n < 3:
        raise ValueError("scale='estimated' needs at least three points")

    # Deferred: statsmodels takes about a second to import (scipy.stats ~0.3 s).
    import scipy.stats
    from statsmodels.regression.linear_model import WLS

    weights = 1.0 / rel**2
    model = WLS(y, design, weights=weights)
    if scale == "known":
        res = model.fit(cov_type="fixed scale", cov_kwds={"scale": 1.0})
    else:
        res = model.fit()
    ci = np.asarray(res.conf_int(alpha=alpha))
    coef = np.asarray(res.params)
    resid = y - design @ coef
    lack_of_fit_p = None
    if scale == "known" and n >= 3:
        wrss = float(np.sum(weights * resid**2))
        lack_of_fit_p = float(scipy.stats.chi2.sf(wrss, n - 2))
    level = f"{100 * (1 - alpha):.6g}%"
    return OrderFit(
        slope=float(coef[1]),
        intercept=float(coef[0]),
        slope_ci=(float(ci[1, 0]), float(ci[1, 1])),
        intercept_ci=(float(ci[0, 0]), float(ci[0, 1])),
        slope_stderr=float(np.asarray(res.bse)[1]),
        alpha=alpha,
        method=f"wls-{scale}-scale",
        n_points=n,
        residual_rms=float(np.sqrt(np.mean(resid**2))),
        max_abs_residual=float(np.max(np.abs(resid))),
        lack_of_fit_p=lack_of_fit_p,
        note=(
            f"Monte Carlo values: weighted least squares on log|v| with delta-method errors "
            f"se/|v|, {scale} scale; {level} confidence interval for the slope"
        ),
    )
