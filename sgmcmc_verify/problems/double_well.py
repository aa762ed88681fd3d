"""SGNHT §3: the one-dimensional double-well potential.

Paper (SGNHT, Ding et al. 2014, §3 "Illustrations of a Double-well Potential"):

.. math::

    U(\\theta) = (\\theta + 4)(\\theta + 1)(\\theta - 1)(\\theta - 3)/14 + 0.5,
    \\qquad \\rho(\\theta) \\propto \\exp(-U(\\theta)).

Mapped onto this package's convention with ``d = 1``, ``N = 1``, a single data
term ``f_1 = U`` and a flat prior (``U_0 ≡ 0``).  Expanded,
``U = (θ⁴ + θ³ − 13θ² − θ + 19)/14`` and ``U' = (4θ³ + 3θ² − 26θ − 1)/14``.
The wells are unequal: minima at ``θ ≈ −2.9354`` (``U ≈ −2.9377``) and
``θ ≈ 2.2237`` (``U ≈ −0.8614``), barrier at ``θ ≈ −0.0383`` (``U ≈ 1.3585``),
so about 87 % of the mass lies in the left well.

In the paper the gradient noise is *injected*, not subsampled:
``∇Ũ(θ)h = ∇U(θ)h + N(0, 2Bh)`` with ``h = 0.01``, ``B = 1``, ``A = 0`` and
``10⁶`` samples (:attr:`DoubleWell.paper_setup`).  With ``N = 1`` there is no
minibatch; samplers reproduce §3 with an additive-noise gradient estimator.

Exact values (log normaliser, mean, variance, ``E θ⁴``, left-well mass) are
integrals of ``exp(−U)`` by ``mpmath.quad`` (tanh–sinh) at 50 significant digits,
split at the roots of ``U`` and of ``U'``, then converted to float64.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .base import Exact, Problem

if TYPE_CHECKING:
    import mpmath

__all__ = ["DoubleWell", "double_well"]

#: Coefficients of ``14·U`` in increasing powers of θ: ``19 − θ − 13θ² + θ³ + θ⁴``.
_COEFFS_14U = (19, -1, -13, 1, 1)

_PROVENANCE = "mpmath quad, 50 digits"


def _U_mp(t):
    import mpmath

    return (t + 4) * (t + 1) * (t - 1) * (t - 3) / 14 + mpmath.mpf(1) / 2


@functools.lru_cache(maxsize=1)
def _exact_mp() -> dict[str, mpmath.mpf]:
    """Integrals of ``exp(−U)`` at 50 digits (cached; ≈0.4 s the first time)."""
    import mpmath  # imported on first use, like the integrals themselves

    with mpmath.workdps(50):
        # Stationary points of U: roots of 4θ³ + 3θ² − 26θ − 1.
        crit = sorted(mpmath.re(r) for r in mpmath.polyroots([4, 3, -26, -1], maxsteps=200))
        pts = sorted({-4, -1, 1, 3, *crit})
        pts = [-mpmath.inf, *pts, mpmath.inf]

        def integral(g, between=pts):
            val, err = mpmath.quad(lambda t: g(t) * mpmath.exp(-_U_mp(t)), between, error=True)
            if not err < mpmath.mpf(10) ** -40 * abs(val):
                raise RuntimeError(f"mpmath quad error estimate too large: {err}")
            return val

        Z = integral(lambda t: 1)
        m1 = integral(lambda t: t) / Z
        m2 = integral(lambda t: t**2) / Z
        m4 = integral(lambda t: t**4) / Z
        barrier = crit[1]
        left = integral(lambda t: 1, [p for p in pts if p < barrier] + [barrier]) / Z
        return {
            "log_normaliser": mpmath.log(Z),
            "mean": m1,
            "var": m2 - m1**2,
            "fourth_moment": m4,
            "left_well_mass": left,
            "minima": (crit[0], crit[2]),
            "barrier": barrier,
        }


class DoubleWell(Problem):
    """SGNHT §3 double well: ``U = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5``, ``d = N = 1``.

    ``exact`` holds ``"log_normaliser"`` (of ``exp(−U)``, the +0.5 included),
    ``"mean"`` (shape (1,)), ``"cov"`` (shape (1, 1)), ``"var"``,
    ``"fourth_moment"`` (``E θ⁴``) and ``"left_well_mass"`` (``P(θ < barrier)``).

    Notes
    -----
    SGNHT §3; see the module docstring.
    """

    def __init__(self):
        ex = _exact_mp()
        f = {k: float(v) for k, v in ex.items() if k not in ("minima", "barrier")}
        super().__init__(
            name="double-well",
            N=1,
            d=1,
            citation="SGNHT §3 (double-well potential); f_1 = U, flat prior",
            exact={
                "log_normaliser": Exact(f["log_normaliser"], _PROVENANCE + ": log ∫exp(−U)"),
                "mean": Exact(np.array([f["mean"]]), _PROVENANCE + ": E θ"),
                "cov": Exact(np.array([[f["var"]]]), _PROVENANCE + ": Var θ"),
                "var": Exact(f["var"], _PROVENANCE + ": Var θ = E θ² − (E θ)²"),
                "fourth_moment": Exact(f["fourth_moment"], _PROVENANCE + ": E θ⁴"),
                "left_well_mass": Exact(
                    f["left_well_mass"],
                    _PROVENANCE + ": P(θ < barrier), barrier = middle root of U'",
                ),
            },
        )
        self.minima = tuple(float(v) for v in ex["minima"])
        self.barrier = float(ex["barrier"])
        #: The paper's experimental settings (SGNHT §3, Figure 1).
        self.paper_setup = {
            "h": 0.01,
            "B": 1.0,
            "A": 0.0,
            "gradient_noise": "∇Ũ(θ)h = ∇U(θ)h + N(0, 2Bh), i.e. Var[∇Ũ] = 2B/h",
            "samples": 1_000_000,
            "fixed_xi": [0.1, 1.0, 10.0],
        }

    @staticmethod
    def _U(t: np.ndarray) -> np.ndarray:
        return (t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5

    @staticmethod
    def _dU(t: np.ndarray) -> np.ndarray:
        return (((4.0 * t + 3.0) * t - 26.0) * t - 1.0) / 14.0

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        return self._U(theta[:, 0])

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        g = self._dU(theta)  # (chains, 1)
        return np.broadcast_to(g[:, None, :], (theta.shape[0], idx.shape[1], 1)).copy()

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        return self._dU(theta)

    def density(self, theta) -> np.ndarray:
        """Normalised density ``ρ(θ) = exp(−U(θ) − log Z)``, elementwise.

        Parameters
        ----------
        theta : array_like
            Points θ, any shape (e.g. a grid, or a ``(chains, 1)`` state array).

        Returns
        -------
        ndarray, same shape as ``theta``
        """
        t = np.asarray(theta, dtype=np.float64)
        return np.exp(-self._U(t) - self.exact["log_normaliser"].value)


def double_well() -> DoubleWell:
    """SGNHT §3 double-well problem (``d = 1``, ``N = 1``); no parameters."""
    return DoubleWell()
