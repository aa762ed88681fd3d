"""Exact moment identities of the discrete thermostat chains (SGNHT Alg. 1, §5.2, eq. (11)).

The stationary law of a discrete SGNHT chain is not known in closed form: the
thermostat multiplies the momentum, so the chain is not linear
(:func:`sgmcmc_verify.exact.linear.scheme_for` refuses it).  One family of
moments is nevertheless known *exactly*, at every step size and for any
gradient noise, because the thermostat update is a telescoping sum of the
kinetic-energy deviations.  The derivation for Algorithm 1 is that of
SGNHT-THERMAL (:mod:`sgmcmc_verify.claims.sgnht_thermostat`); here it is
restated for each registry thermostat, in the units the driver records
(:data:`sgmcmc_verify.driver.RECORDABLE`).

``sgnht`` (SGNHT Algorithm 1, eqs. (5)–(6))
    ``ξ_t = ξ_{t−1} + h(p_tᵀp_t/n − 1)`` with ``p_t`` the *new* momentum (the
    one ``θ_t`` moves with, :class:`~sgmcmc_verify.integrators.SGNHT`).  Summing
    over ``t = s+1, …, s+T``,

    .. math::

        \\frac1T \\sum_{t=s+1}^{s+T} \\Bigl(\\frac{|p_t|^2}{n} - 1\\Bigr)
        = \\frac{\\xi_{s+T} - \\xi_s}{hT} \\qquad \\text{(pathwise)},

    so at stationarity with ``E|ξ| < ∞`` the expectation of the right side is 0:
    ``E[|p_t|²/n] = 1`` exactly.  Only the average over coordinates is pinned;
    single ``E p_i²`` and ``E p_i p_j`` are not.
``sgnht-2`` (SGNHT §5.2: ``u = ph``, ``η = h²``, ``α = ξh``, ``a = Ah``)
    ``α_t = α_{t−1} + |u_t|²/n − η`` (:class:`~sgmcmc_verify.integrators.SGNHTReparam`,
    the same new ``u_t``), hence ``E[|u_t|²/n] = η`` exactly.  The driver records
    ``p = u/h`` and ``ξ = α/h``; in those units the identity and its pathwise form
    are the ``sgnht`` ones (divide by ``η = h²`` and by ``h``).
``sgnht-mat`` (SGNHT §4.2, eq. (11), discretised like Algorithm 1)
    ``Ξ_t = Ξ_{t−1} + (h/μ)(p_t p_tᵀ − I)``
    (:class:`~sgmcmc_verify.integrators.SGNHTMatrix`): *every* entry telescopes,
    so ``E[p pᵀ] = I`` exactly: ``E p_i² = 1`` for each ``i`` and ``E p_i p_j = 0``
    for ``i ≠ j``.  ``Ξ`` stays symmetric, so the ``d(d+1)/2`` entries ``i ≤ j``
    are the distinct identities.

What the identities cannot see: a thermostat fed the *old* momentum ``p_{t−1}``
telescopes just as well, and stationarity makes ``p_{t−1}`` and ``p_t`` equal in
law, so ``E|p|²/n = 1`` still holds.  The pathwise form with the new momentum
then fails by ``h(|p_{s+T}|² − |p_s|²)/n``; :func:`telescoping_residual`
measures it (zero up to rounding for a correct implementation).
"""

from __future__ import annotations

import numpy as np

from .._validation import choice

__all__ = ["IDENTITIES", "pinned", "telescoping_residual"]

#: The exact identity of each registry thermostat, in the driver's units.
IDENTITIES: dict[str, str] = {
    "sgnht": "E[pᵀp]/n = 1 (SGNHT Algorithm 1, eq. (6): ξ-update telescopes)",
    "sgnht-2": "E[uᵀu]/n = η, i.e. E[pᵀp]/n = 1 with p = u/h (SGNHT §5.2: α-update telescopes)",
    "sgnht-mat": "E[p pᵀ] = I, every entry (SGNHT eq. (11): Ξ-update telescopes)",
}


def pinned(name: str, p: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The observables the thermostat pins, minus their exact expectation.

    Parameters
    ----------
    name : {"sgnht", "sgnht-2", "sgnht-mat"}
    p : ndarray, shape (..., d)
        Momenta as the driver records them (``u/h`` for ``sgnht-2``).

    Returns
    -------
    labels : list of str
    dev : ndarray, shape (..., k)
        ``|p|²/n − 1`` (``k = 1``) for ``sgnht`` and ``sgnht-2``; the entries
        ``i ≤ j`` of ``p pᵀ − I`` (``k = d(d+1)/2``) for ``sgnht-mat``.  Each has
        expectation exactly 0 at stationarity, at every ``h`` (module docstring).
    """
    name = choice("thermostat", name, IDENTITIES)
    p = np.asarray(p, dtype=np.float64)
    d = p.shape[-1]
    if name != "sgnht-mat":
        return ["E[pᵀp]/n − 1"], np.mean(p * p, axis=-1, keepdims=True) - 1.0
    iu, ju = np.triu_indices(d)
    dev = p[..., iu] * p[..., ju] - (iu == ju)
    labels = [f"E[p{i + 1}p{j + 1}] − {int(i == j)}" for i, j in zip(iu, ju, strict=True)]
    return labels, dev


def telescoping_residual(
    name: str, p: np.ndarray, xi: np.ndarray, h: float, *, mu: float = 1.0
) -> np.ndarray:
    """Per-chain residual of the pathwise identity: zero up to rounding for the papers' update.

    For consecutive recorded states ``t = 0, …, T−1`` (``thin = 1``), returns
    ``max |(ξ_{T−1} − ξ_0) − c·Σ_{t=1}^{T−1} dev_t|`` over the pinned entries,
    with ``dev`` from :func:`pinned` (all ``d²`` entries for the matrix
    thermostat) and ``c = h`` (``sgnht``, ``sgnht-2`` in driver units) or
    ``c = h/μ`` (``sgnht-mat``).  Rounding makes it of order
    ``T·ε·max|ξ|`` (``ε`` the float64 epsilon).

    Parameters
    ----------
    name : {"sgnht", "sgnht-2", "sgnht-mat"}
    p : ndarray, shape (chains, T, d)
    xi : ndarray, shape (chains, T) or (chains, T, d, d)
        The recorded thermostat (``α/h`` for ``sgnht-2``, ``Ξ`` for ``sgnht-mat``).
    h : float
        Step size (``√η`` for ``sgnht-2``).
    mu : float
        Thermostat mass (``sgnht-mat`` only).

    Returns
    -------
    ndarray, shape (chains,)
    """
    name = choice("thermostat", name, IDENTITIES)
    p = np.asarray(p, dtype=np.float64)
    xi = np.asarray(xi, dtype=np.float64)
    if name == "sgnht-mat":
        d = p.shape[-1]
        dev = p[:, 1:, :, None] * p[:, 1:, None, :] - np.eye(d)
        res = (xi[:, -1] - xi[:, 0]) - (h / mu) * dev.sum(axis=1)
        return np.abs(res).reshape(res.shape[0], -1).max(axis=1)
    dev = np.mean(p[:, 1:] ** 2, axis=-1) - 1.0
    return np.abs((xi[:, -1] - xi[:, 0]) - h * dev.sum(axis=1))
