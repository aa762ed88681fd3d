"""Effective sample size and Monte Carlo standard error of a mean.

Array layout follows ArviZ: ``samples`` has shape ``(chains, draws, *event)``;
every function is vectorised over chains and over the trailing ``event`` axes,
and returns one value per event coordinate (shape ``event``).

The estimator is the multi-chain one of Stan and ArviZ (Vehtari et al. 2021,
§3.2, without rank normalisation, i.e. ArviZ's ``method="mean"``): autocovariances by
FFT, combined across chains with the between-chain variance, summed with
Geyer's (1992) initial monotone sequence.

References
----------
.. [1] C. J. Geyer, "Practical Markov chain Monte Carlo", Statistical Science
   7(4):473-483, 1992.
.. [2] A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner,
   "Rank-normalization, folding, and localization: an improved R-hat for
   assessing convergence of MCMC", Bayesian Analysis 16(2):667-718, 2021.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.fft

from .._validation import choice

__all__ = ["autocovariance", "ess", "ess_per_chain", "mcse_mean"]

#: The autocorrelation estimator needs a few lags to say anything; Stan and
#: ArviZ use the same minimum.
MIN_DRAWS_FOR_AUTOCORRELATION = 4


def as_samples(samples: np.ndarray, *, name: str = "samples") -> np.ndarray:
    """Validate a ``(chains, draws, *event)`` array: float64, finite, non-empty.

    Raises
    ------
    ValueError
        If ``samples`` has fewer than two axes, an empty chains or draws axis,
        or holds NaN or inf.
    """
    arr = np.asarray(samples, dtype=np.float64)
    if arr.ndim < 2:
        raise ValueError(
            f"{name} must have shape (chains, draws, *event), got shape {arr.shape}; "
            "for independent draws use shape (chains, 1, ...)"
        )
    if arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} needs at least one chain and one draw, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    return arr


def _check_draws(n: int) -> None:
    if 1 < n < MIN_DRAWS_FOR_AUTOCORRELATION:
        raise ValueError(
            f"ESS needs draws == 1 (independent chains) or draws >= "
            f"{MIN_DRAWS_FOR_AUTOCORRELATION} (autocorrelation), got draws = {n}"
        )


def autocovariance(samples: np.ndarray) -> np.ndarray:
    """Biased autocovariance of each chain along the draws axis, by FFT.

    .. math::

        \\hat\\gamma_{c,t} = \\frac{1}{n} \\sum_{s=0}^{n-1-t}
        (x_{c,s} - \\bar x_c)(x_{c,s+t} - \\bar x_c), \\qquad t = 0, \\dots, n-1.

    The divisor ``n`` (not ``n - t``) keeps the sequence positive semi-definite,
    which Geyer's estimator relies on (Geyer 1992).

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)

    Returns
    -------
    ndarray, shape (chains, draws, *event)
    """
    x = as_samples(samples)
    n = x.shape[1]
    xc = _centred_draws_last(x)
    acov = scipy.fft.irfft(_power(xc), n=_nfft(n), axis=-1)[..., :n] / n
    return np.moveaxis(acov, -1, 1)


def _nfft(n: int) -> int:
    # Zero-pad to >= 2n so the circular correlation equals the linear one.
    return scipy.fft.next_fast_len(2 * n, real=True)


def _centred_draws_last(x: np.ndarray) -> np.ndarray:
    """``x`` as ``(chains, *event, draws)``, contiguous, each chain's mean removed."""
    # FFTs along a contiguous last axis are several times faster than along
    # axis 1 of a (chains, draws, reps) array.
    xt = np.moveaxis(x, 1, -1)
    # a new array: ascontiguousarray returns ``x`` itself when the moved view is already
    # contiguous (2-D input), and centring that in place corrupted the caller's draws
    return np.ascontiguousarray(xt - xt.mean(axis=-1, keepdims=True))


def _power(xc: np.ndarray) -> np.ndarray:
    """Periodogram ``|FFT|^2`` of zero-padded rows (last axis)."""
    f = scipy.fft.rfft(xc, n=_nfft(xc.shape[-1]), axis=-1)
    return f.real**2 + f.imag**2


def ess(samples: np.ndarray) -> np.ndarray:
    """Effective sample size of the grand mean, pooled over chains.

    With ``m`` chains of ``n`` draws, autocovariances :math:`\\hat\\gamma_{c,t}`
    (:func:`autocovariance`), within-chain variance :math:`W` (mean over chains
    of the ``ddof=1`` chain variances) and between-chain variance of the chain
    means :math:`B/n` (zero when ``m = 1``), Vehtari et al. (2021, §3.2)
    define

    .. math::

        \\widehat{\\mathrm{var}}^+ = \\tfrac{n-1}{n} W + \\tfrac{B}{n}, \\qquad
        \\hat\\rho_t = 1 - \\frac{W - \\tfrac1m \\sum_c \\hat\\gamma_{c,t}}
                                 {\\widehat{\\mathrm{var}}^+}\\ (t \\ge 1),
        \\quad \\hat\\rho_0 = 1,

    .. math::

        \\hat P_k = \\hat\\rho_{2k} + \\hat\\rho_{2k+1}, \\qquad
        \\hat\\tau = -1 + 2 \\sum_{k=0}^{K} \\min_{j \\le k} \\hat P_j, \\qquad
        \\widehat{\\mathrm{ESS}} = \\frac{m n}{\\hat\\tau},

    where ``K`` is the last index of the initial run of positive
    :math:`\\hat P_k` (Geyer's initial positive sequence) and the running
    minimum makes it monotone (Geyer's initial monotone sequence, Geyer 1992).
    ``P_0`` is always kept.  As in ArviZ, the estimate is capped at
    :math:`m n \\max(1, \\log_{10}(m n))`: antithetic chains can legitimately
    exceed ``m n``, but not by an unbounded factor.

    Special case ``draws == 1``: many independent chains, one draw each, are
    independent draws, so ``ESS = chains`` exactly (no estimation).

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)
        ``draws`` must be 1 or at least 4.

    Returns
    -------
    ndarray, shape event
        ESS of each event coordinate; ``nan`` where the samples are constant
        (the autocorrelation is undefined).

    Notes
    -----
    The estimate is for the mean of the raw values (no rank normalisation), so
    it is the right one for MCSEs of means (Vehtari et al. 2021, §3.2); it
    assumes finite variance and chains started in (or run long past) the
    stationary regime.  Between-chain disagreement lowers it, which is the
    conservative direction.

    Differences from Stan/ArviZ: their loop stops the pairs before lag
    ``n - 3`` and adds one extra positive even-lag term after the truncation
    point; here the pairs run to lag ``2 (n // 2) - 1`` and the sum is Geyer's,
    unmodified.  Constant samples give ``nan`` here (ArviZ returns ``m n``).

    Finite-sample bias: centring each chain at its own mean biases every
    :math:`\\hat\\rho_t` by :math:`-O(1/n)`, so for chains only a few
    autocorrelation times long the estimate runs high (about +10% for iid
    chains of 20 draws); and the asymptotic ESS understates the precision of
    the mean of short stationary chains (by a factor of about 1.7 for AR(1) with
    :math:`\\rho = 0.9` and 20 draws, making the z-test conservative).  For many
    short chains use ``mcse_mean(..., method="chain_means")``.

    References
    ----------
    Geyer (1992); Vehtari et al. (2021); see the module docstring.
    """
    x = as_samples(samples)
    m, n = x.shape[:2]
    event = x.shape[2:]
    _check_draws(n)
    if n == 1:
        return np.full(event, float(m))

    xc = _centred_draws_last(x)  # (m, *event, n)
    w = np.einsum("...i,...i->...", xc, xc).mean(axis=0) / (n - 1.0)  # mean ddof=1 variance
    # The chain average of the autocovariances is linear in the periodograms,
    # so average those and invert once.
    mean_acov = scipy.fft.irfft(_power(xc).mean(axis=0), n=_nfft(n), axis=-1)[..., :n] / n
    var_plus = w * ((n - 1.0) / n)
    if m > 1:
        var_plus = var_plus + x.mean(axis=1).var(axis=0, ddof=1)
    degenerate = ~(var_plus > 0)
    safe_var_plus = np.where(degenerate, 1.0, var_plus)[..., None]

    rho = 1.0 - (w[..., None] - mean_acov) / safe_var_plus  # (*event, n)
    rho[..., 0] = 1.0
    n_pairs = n // 2
    pairs = rho[..., : 2 * n_pairs : 2] + rho[..., 1 : 2 * n_pairs : 2]  # (*event, n_pairs)
    # Initial positive sequence: keep P_0..P_K, K the last index before the
    # first non-positive pair; P_0 is kept unconditionally.
    positive = pairs > 0
    positive[..., 0] = True
    keep = np.logical_and.accumulate(positive, axis=-1)
    monotone = np.minimum.accumulate(pairs, axis=-1)
    tau = -1.0 + 2.0 * np.sum(np.where(keep, monotone, 0.0), axis=-1)

    total = float(m * n)
    cap = total * max(1.0, np.log10(total))
    with np.errstate(divide="ignore"):
        out = np.where(tau > total / cap, total / np.where(tau > 0, tau, 1.0), cap)
    return np.where(degenerate, np.nan, out)


def ess_per_chain(samples: np.ndarray) -> np.ndarray:
    """Effective sample size of each chain on its own.

    ``ess_per_chain(x)[c]`` equals ``ess(x[c:c+1])``: the estimator of
    :func:`ess` with one chain (no between-chain term).  With ``draws == 1``
    every chain has ESS 1.

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)

    Returns
    -------
    ndarray, shape (chains, *event)
    """
    x = as_samples(samples)
    # Treat the chains axis as one more event axis of a single chain.
    return ess(np.moveaxis(x, 0, 1)[None])


def mcse_mean(samples: np.ndarray, *, method: Literal["ess", "chain_means"] = "ess") -> np.ndarray:
    """Monte Carlo standard error of the grand mean over chains and draws.

    Parameters
    ----------
    samples : array_like, shape (chains, draws, *event)
    method : {"ess", "chain_means"}
        ``"ess"`` (default): :math:`s / \\sqrt{\\widehat{\\mathrm{ESS}}}`,
        with ``s`` the ``ddof=1`` standard deviation of all ``chains * draws``
        values and ESS from :func:`ess` (as ArviZ's ``mcse_mean``).  With
        ``draws == 1`` this is the iid standard error :math:`s/\\sqrt{m}`.

        ``"chain_means"``: the standard error of the mean of the ``m``
        independent chain means, ``std(chain_means, ddof=1) / sqrt(m)``.  It
        assumes only that the chains are independent and identically started,
        so it stays valid for short, strongly autocorrelated chains; it needs
        ``chains >= 2`` and has ``m - 1`` degrees of freedom (use a Student t
        reference, as :func:`~sgmcmc_verify.stats.z_test_mean` does).

    Returns
    -------
    ndarray, shape event
    """
    method = choice("method", method, ("ess", "chain_means"))
    return mcse_and_ess(as_samples(samples), method)[0]


def mcse_and_ess(x: np.ndarray, method: str) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`mcse_mean` of validated samples, and the ESS it used (``None`` for chain means)."""
    m, n = x.shape[:2]
    if method == "chain_means":
        if m < 2:
            raise ValueError(f"method='chain_means' needs chains >= 2, got {m}")
        return x.mean(axis=1).std(axis=0, ddof=1) / np.sqrt(m), None
    _check_draws(n)
    if m * n < 2:
        raise ValueError("mcse_mean needs at least two values in total")
    sd = x.reshape(m * n, *x.shape[2:]).std(axis=0, ddof=1)
    ess_x = ess(x)
    return sd / np.sqrt(ess_x), ess_x
