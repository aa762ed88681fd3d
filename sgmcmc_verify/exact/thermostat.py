"""Exact moment identities of the discrete thermostat chains (SGNHT Alg. 1, §5.2, (11); BADODAB).

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

``badodab`` (Leimkuhler & Shang 2016, the splitting B-A-D-O-D-A-B)
    Each step has two half-step thermostat updates (:class:`~sgmcmc_verify.integrators.BADODAB`):
    ``ξ_1 = ξ + (h/2μ)(|p_a|² − d)`` before the O step and ``ξ' = ξ_1 + (h/2μ)(|p_b|² − d)``
    after it, with ``p_a`` the momentum entering O and ``p_b`` the one leaving it.  Hence
    ``ξ_t − ξ_{t−1} = (h/2μ)(|p_{a,t}|² + |p_{b,t}|² − 2d)`` pathwise and, summing as above,
    ``E[|p_a|² + |p_b|²]/(2d) = 1`` exactly at every ``h``; neither ``E|p_a|²/d`` nor
    ``E|p_b|²/d`` alone is 1 (they differ by the B kick).  The driver records
    ``p_b = p_t`` and the step's gradient ``g_t``; ``p_{a,t} = p_{t−1} − h g_t`` (the merged
    B(h) kick), so the identity needs consecutive draws and ``grad`` (``pinned(...,
    grad=, h=)``).  Only the average over coordinates is pinned.

What the identities cannot see: a thermostat fed the *old* momentum ``p_{t−1}``
telescopes just as well, and stationarity makes ``p_{t−1}`` and ``p_t`` equal in
law, so ``E|p|²/n = 1`` still holds.  The pathwise form with the new momentum
then fails by ``h(|p_{s+T}|² − |p_s|²)/n``; :func:`telescoping_residual`
measures it (zero up to rounding for a correct implementation).
"""

from __future__ import annotations

import numpy as np

from .._validation import choice

__all__ = ["IDENTITIES", "NEEDS_GRAD", "labels", "pinned", "telescoping_residual"]

#: The exact identity of each registry thermostat, in the driver's units.
IDENTITIES: dict[str, str] = {
    "sgnht": "E[pᵀp]/n = 1 (SGNHT Algorithm 1, eq. (6): ξ-update telescopes)",
    "sgnht-2": "E[uᵀu]/n = η, i.e. E[pᵀp]/n = 1 with p = u/h (SGNHT §5.2: α-update telescopes)",
    "sgnht-mat": "E[p pᵀ] = I, every entry (SGNHT eq. (11): Ξ-update telescopes)",
    "badodab": "E[|p_a|² + |p_b|²]/(2d) = 1, p_a/p_b the momenta entering/leaving O "
    "(Leimkuhler & Shang 2016, BADODAB: the two D half-steps telescope)",
}

#: Thermostats whose identity pairs consecutive draws through the recorded gradient.
NEEDS_GRAD = frozenset({"badodab"})


def labels(name: str, d: int) -> list[str]:
    """The labels of :func:`pinned`'s columns for thermostat ``name`` in dimension ``d``."""
    name = choice("thermostat", name, IDENTITIES)
    if name == "badodab":
        return ["E[|p_a|² + |p_b|²]/(2d) − 1"]
    if name != "sgnht-mat":
        return ["E[pᵀp]/n − 1"]
    iu, ju = np.triu_indices(d)
    return [f"E[p{i + 1}p{j + 1}] − {int(i == j)}" for i, j in zip(iu, ju, strict=True)]


def _pre_o(p: np.ndarray, grad: np.ndarray | None, h: float | None) -> np.ndarray:
    """BADODAB's momentum entering O at steps 1…T−1: ``p_{t−1} − h g_t``."""
    if grad is None or h is None:
        raise ValueError(
            "badodab's identity needs the recorded gradient ('grad', same shape as p) and h: "
            "the momentum entering O is p_{t-1} - h g_t"
        )
    grad = np.asarray(grad, dtype=np.float64)
    if grad.shape != p.shape or p.ndim < 2:
        raise ValueError(f"grad {grad.shape} must match p {p.shape}, with a draws axis (..., T, d)")
    return p[..., :-1, :] - h * grad[..., 1:, :]


def pinned(
    name: str, p: np.ndarray, *, grad: np.ndarray | None = None, h: float | None = None
) -> tuple[list[str], np.ndarray]:
    """The observables the thermostat pins, minus their exact expectation.

    Parameters
    ----------
    name : {"sgnht", "sgnht-2", "sgnht-mat", "badodab"}
    p : ndarray, shape (..., d)
        Momenta as the driver records them (``u/h`` for ``sgnht-2``); for ``badodab``
        consecutive draws ``(..., T, d)``.
    grad, h : ndarray (..., T, d) and float
        ``badodab`` only (``ValueError`` without them): the recorded gradient of each
        step and the step size; its pinned observable at ``t = 1, …, T−1`` is
        ``(|p_{t−1} − h g_t|² + |p_t|²)/(2d) − 1`` (the draws axis shrinks by one).

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
    if name == "badodab":
        pa, pb = _pre_o(p, grad, h), p[..., 1:, :]
        dev = (np.sum(pa * pa, axis=-1) + np.sum(pb * pb, axis=-1)) / (2 * d) - 1.0
        return labels(name, d), dev[..., None]
    if name != "sgnht-mat":
        return labels(name, d), np.mean(p * p, axis=-1, keepdims=True) - 1.0
    iu, ju = np.triu_indices(d)
    return labels(name, d), p[..., iu] * p[..., ju] - (iu == ju)


def telescoping_residual(
    name: str,
    p: np.ndarray,
    xi: np.ndarray,
    h: float,
    *,
    mu: float = 1.0,
    grad: np.ndarray | None = None,
) -> np.ndarray:
    """Per-chain residual of the pathwise identity: zero up to rounding for the papers' update.

    For consecutive recorded states ``t = 0, …, T−1`` (``thin = 1``), returns
    ``max |(ξ_{T−1} − ξ_0) − c·Σ_{t=1}^{T−1} dev_t|`` over the pinned entries,
    with ``dev`` from :func:`pinned` (all ``d²`` entries for the matrix
    thermostat) and ``c = h`` (``sgnht``, ``sgnht-2`` in driver units) or
    ``c = h/μ`` (``sgnht-mat``); for ``badodab`` the increments are
    ``(h/2μ)(|p_{t−1} − h g_t|² + |p_t|² − 2d)`` (``grad`` required).  Rounding makes it
    of order ``T·ε·max|ξ|`` (``ε`` the float64 epsilon).

    Parameters
    ----------
    name : {"sgnht", "sgnht-2", "sgnht-mat", "badodab"}
    p : ndarray, shape (chains, T, d)
    xi : ndarray, shape (chains, T) or (chains, T, d, d)
        The recorded thermostat (``α/h`` for ``sgnht-2``, ``Ξ`` for ``sgnht-mat``).
    h : float
        Step size (``√η`` for ``sgnht-2``).
    mu : float
        Thermostat mass (``sgnht-mat`` and ``badodab``).
    grad : ndarray, shape (chains, T, d), optional
        The recorded gradient of each step (``badodab`` only).

    Returns
    -------
    ndarray, shape (chains,)
    """
    name = choice("thermostat", name, IDENTITIES)
    p = np.asarray(p, dtype=np.float64)
    xi = np.asarray(xi, dtype=np.float64)
    if name == "badodab":
        d = p.shape[-1]
        pa, pb = _pre_o(p, grad, h), p[:, 1:]
        inc = (0.5 * h / mu) * (np.sum(pa * pa, axis=-1) + np.sum(pb * pb, axis=-1) - 2 * d)
        return np.abs((xi[:, -1] - xi[:, 0]) - inc.sum(axis=1))
    if name == "sgnht-mat":
        d = p.shape[-1]
        dev = p[:, 1:, :, None] * p[:, 1:, None, :] - np.eye(d)
        res = (xi[:, -1] - xi[:, 0]) - (h / mu) * dev.sum(axis=1)
        return np.abs(res).reshape(res.shape[0], -1).max(axis=1)
    dev = np.mean(p[:, 1:] ** 2, axis=-1) - 1.0
    return np.abs((xi[:, -1] - xi[:, 0]) - h * dev.sum(axis=1))
