"""Bayesian linear regression with a Gaussian prior (conjugate, exact posterior).

Model (AGLD §6.2 with separate noise and prior scales):

.. math::

    y_i \\mid w \\sim N(x_i^\\top w, \\sigma^2), \\qquad w \\sim N(0, \\tau^2 I),

so ``f_i(w) = (y_i − x_iᵀw)² / (2σ²)``, ``U_0(w) = ‖w‖²/(2τ²)`` and the posterior
is ``N(m, P⁻¹)`` with ``P = XᵀX/σ² + I/τ²`` and ``m = P⁻¹ Xᵀy/σ²``.
``∇f_i(w) = s_i(w)·x_i`` with ``s_i = (x_iᵀw − y_i)/σ²``: a GLM, so a PPU
snapshot needs only N scalars (AGLD §3.2).
"""

from __future__ import annotations

import numpy as np

from .._validation import finite_array, positive, positive_int
from .base import Exact, GLMProblem

__all__ = ["LinearRegression", "linear_regression_synthetic"]


class LinearRegression(GLMProblem):
    """Conjugate Bayesian linear regression.

    Parameters
    ----------
    X : ndarray, shape (N, d)
    y : ndarray, shape (N,)
    noise_sd : float
        ``σ``.
    prior_sd : float
        ``τ``.
    """

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        *,
        noise_sd: float = 1.0,
        prior_sd: float = 10.0,
        name: str = "linear-regression",
    ):
        X = finite_array("X", X)
        y = finite_array("y", y)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ValueError(
                f"need X of shape (N, d) and y of shape (N,); got {X.shape}, {y.shape}"
            )
        self.sigma2 = positive("noise_sd", noise_sd) ** 2
        self.tau2 = positive("prior_sd", prior_sd) ** 2
        N, d = X.shape
        P = X.T @ X / self.sigma2 + np.eye(d) / self.tau2
        cov = np.linalg.inv(P)
        mean = np.linalg.solve(P, X.T @ y / self.sigma2)
        super().__init__(
            name=name,
            N=N,
            d=d,
            citation="AGLD §6.2 (Bayesian ridge regression); conjugate posterior",
            exact={
                "mean": Exact(mean, "conjugate Gaussian posterior m = P⁻¹Xᵀy/σ², float64 solve"),
                "cov": Exact(cov, "conjugate Gaussian posterior P⁻¹, float64 inverse"),
            },
        )
        self.Z = X
        self.y = y
        self.precision = P

    def prior_potential(self, theta):
        return 0.5 * np.sum(theta**2, axis=1) / self.tau2

    def prior_grad(self, theta):
        return theta / self.tau2

    def data_potential(self, theta):
        r = theta @ self.Z.T - self.y
        return 0.5 * np.sum(r**2, axis=1) / self.sigma2

    def _scalars(self, Zi, theta, idx):
        return ((Zi @ theta[..., None])[..., 0] - self.y[idx]) / self.sigma2

    def _grad(self, theta):
        return (theta - self.exact["mean"].value) @ self.precision


def linear_regression_synthetic(
    N: int = 100, d: int = 3, *, noise_sd: float = 1.0, prior_sd: float = 10.0, seed: int = 0
) -> LinearRegression:
    """Synthetic data: ``x_i ~ N(0, I)``, ``w* ~ N(0, I)``, ``y = Xw* + σε``."""
    N, d = positive_int("N", N), positive_int("d", d)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, d))
    w = rng.standard_normal(d)
    y = X @ w + noise_sd * rng.standard_normal(N)
    return LinearRegression(
        X, y, noise_sd=noise_sd, prior_sd=prior_sd, name=f"linear-regression-{d}d"
    )
