"""One-step discretisations, separate from the gradient estimators.

Each integrator is a pure function of the state, a gradient estimate and the
standard-normal noise, so trajectories can be pinned by passing the noise in.
Temperature is 1 throughout (``k_B T = 1``, SGNHT §3; ``T = 1`` in EWSG eq. (1)).
"""

from __future__ import annotations

import numpy as np

__all__ = ["overdamped_em"]


def overdamped_em(theta: np.ndarray, grad: np.ndarray, noise: np.ndarray, h: float) -> np.ndarray:
    """Euler–Maruyama step of overdamped Langevin dynamics, AGLD eqs. (3) and (5).

    .. math::

        x^{(k+1)} = x^{(k)} - \\eta\\, g^{(k)} + \\sqrt{2\\eta}\\, \\xi^{(k)},
        \\qquad \\xi^{(k)} \\sim N(0, I_d)

    Parameters
    ----------
    theta, grad, noise : ndarray, shape (chains, d)
        Current state, gradient estimate ``g^{(k)}`` and standard-normal ``ξ^{(k)}``.
    h : float
        Step size ``η``.

    Returns
    -------
    ndarray, shape (chains, d)
    """
    return theta - h * grad + np.sqrt(2.0 * h) * noise
