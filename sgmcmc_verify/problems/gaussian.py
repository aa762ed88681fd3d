"""Gaussian targets built from quadratic data terms.

.. math::

    f_i(\\theta) = \\tfrac12 (\\theta - c_i)^\\top \\Lambda_i (\\theta - c_i),
    \\qquad U = U_0 + \\sum_i f_i,

with an optional Gaussian prior ``U_0 = ½ (θ − μ_0)ᵀ Λ_0 (θ − μ_0)`` (default flat,
``Λ_0 = 0``), so ``π = N(μ, Λ^{-1})`` with ``Λ = Λ_0 + Σ Λ_i`` and
``μ = Λ^{-1}(Λ_0 μ_0 + Σ Λ_i c_i)``.  The prior is evaluated exactly by every
estimator (SVRHMC §2's convention), so a prior makes visible any bug that scales
it like a data term.

* **Identical curvatures** (``Λ_i = Λ/N``): the minibatch gradient error
  ``(N/n) Σ_{i∈S} ∇f_i − ∇U = Λ(c̄ − c̄_S)`` does not depend on θ
  (state-independent gradient noise), the setting of the sanity anchor
  ``a·Var = (2 + h s²)/(2 − h a)`` for Euler SGLD (DESIGN.md).
* **Differing curvatures**: the error depends on θ (state-dependent noise).
"""

from __future__ import annotations

import numpy as np

from .._validation import finite_array, frozen, positive, positive_int
from .base import Exact, Problem

__all__ = ["GaussianQuadratic", "gaussian_differing", "gaussian_identical"]


#: Up to this dimension :meth:`GaussianQuadratic._component_grads` forms ``Λ_i (θ − c_i)``
#: from gathered scalar entries.  numpy's einsum contracts ``j`` as a sequential sum from
#: 0 when the contraction has at most 2 terms; from 3 on its SIMD kernel adds in another
#: order (checked bit for bit: d = 1, 2 agree, d = 3…10 do not), so the einsum is kept there.
_ENTRYWISE_MAX_D = 2


class GaussianQuadratic(Problem):
    """Target ``N(μ, Λ^{-1})`` from quadratic components ``f_i``.

    Parameters
    ----------
    centres : ndarray, shape (N, d)
        ``c_i``.
    precisions : ndarray, shape (N, d, d)
        Symmetric positive semi-definite ``Λ_i``; with the prior's, their sum is
        positive definite.
    name : str
    prior_precision : ndarray (d, d), optional
        ``Λ_0`` of the Gaussian prior (symmetric positive semi-definite); default flat.
    prior_mean : ndarray (d,), optional
        ``μ_0``; default 0.
    """

    def __init__(
        self,
        centres: np.ndarray,
        precisions: np.ndarray,
        *,
        name: str = "gaussian",
        prior_precision: np.ndarray | None = None,
        prior_mean: np.ndarray | None = None,
    ):
        c = finite_array("centres", centres)
        P = finite_array("precisions", precisions)
        if c.ndim != 2:
            raise ValueError(f"centres must have shape (N, d), got {c.shape}")
        N, d = c.shape
        if P.shape != (N, d, d):
            raise ValueError(f"precisions must have shape ({N}, {d}, {d}), got {P.shape}")
        if not np.allclose(P, np.swapaxes(P, 1, 2), rtol=0, atol=1e-12 * max(1.0, abs(P).max())):
            raise ValueError("precisions must be symmetric")
        L0 = (
            np.zeros((d, d))
            if prior_precision is None
            else finite_array("prior_precision", prior_precision)
        )
        m0 = np.zeros(d) if prior_mean is None else finite_array("prior_mean", prior_mean)
        tol = 1e-12 * (1 + abs(L0).max())
        if L0.shape != (d, d) or not np.allclose(L0, L0.T, rtol=0, atol=tol):
            raise ValueError(f"prior_precision must be a symmetric ({d}, {d}) matrix")
        if np.linalg.eigvalsh(L0).min() < -tol:
            raise ValueError("prior_precision must be positive semi-definite")
        if m0.shape != (d,):
            raise ValueError(f"prior_mean must have shape ({d},), got {m0.shape}")
        Lam = L0 + P.sum(axis=0)
        eig = np.linalg.eigvalsh(Lam)
        if eig.min() <= 0:
            raise ValueError("the summed precision Λ_0 + Σ Λ_i must be positive definite")
        cov = np.linalg.inv(Lam)
        mean = cov @ (L0 @ m0 + np.einsum("nij,nj->i", P, c))
        super().__init__(
            name=name,
            N=N,
            d=d,
            citation="quadratic data terms; DESIGN.md 'Problems carry their answers'",
            exact={
                "mean": Exact(
                    mean, "closed form μ = Λ⁻¹(Λ_0 μ_0 + Σ Λ_i c_i), float64 linear solve"
                ),
                "cov": Exact(cov, "closed form Λ⁻¹ with Λ = Λ_0 + Σ Λ_i, float64 inverse"),
                "log_normaliser": Exact(
                    float(self._log_normaliser(c, P, Lam, mean, L0, m0)),
                    "closed form: log ∫ exp(-U) = d/2·log 2π − ½ log det Λ − U(μ)",
                ),
            },
        )
        # read-only copies: the caller's arrays may change later, the problem may not (its
        # content keys the exact-law caches, and _entries holds the precisions' entries)
        self.centres = frozen(c)
        self.precisions = frozen(P)
        self.precision = frozen(Lam)
        self.prior_precision = frozen(L0)
        self.prior_mean = frozen(m0)
        self.has_prior = bool(np.any(L0 != 0))
        self.identical_curvature = bool(np.allclose(P, P[0], rtol=0, atol=0))
        # Λ_i[r, j] over i as contiguous (N,) arrays, indexed [r][j], for _component_grads
        self._entries = (
            [[np.ascontiguousarray(self.precisions[:, r, j]) for j in range(d)] for r in range(d)]
            if d <= _ENTRYWISE_MAX_D
            else None
        )

    def content_key(self) -> tuple:
        """A hashable key of the target's content (problems are not hashable), for caches of
        exact laws computed on it."""
        arrays = (self.centres, self.precisions, self.prior_precision, self.prior_mean)
        return (self.name, *(a.tobytes() for a in arrays))

    @staticmethod
    def _log_normaliser(c, P, Lam, mean, L0, m0) -> float:
        diff = mean[None, :] - c
        u_min = 0.5 * np.einsum("ni,nij,nj->", diff, P, diff)
        u_min += 0.5 * (mean - m0) @ L0 @ (mean - m0)
        d = c.shape[1]
        return 0.5 * d * np.log(2 * np.pi) - 0.5 * np.linalg.slogdet(Lam)[1] - u_min

    def prior_potential(self, theta: np.ndarray) -> np.ndarray:
        diff = theta - self.prior_mean
        return 0.5 * np.einsum("ci,ij,cj->c", diff, self.prior_precision, diff)

    def prior_grad(self, theta: np.ndarray) -> np.ndarray:
        return (theta - self.prior_mean) @ self.prior_precision

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        diff = theta[:, None, :] - self.centres[None]
        return 0.5 * np.einsum("cni,nij,cnj->c", diff, self.precisions, diff)

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        diff = theta[:, None, :] - self.centres[idx]
        if self.d > _ENTRYWISE_MAX_D:
            return np.einsum("cbij,cbj->cbi", self.precisions[idx], diff)
        # Row r of Λ_i (θ − c_i) from the gathered scalars Λ_i[r, j]: the einsum's own
        # products and sums in its order, (0 + Λ[r,0]·δ_0) + Λ[r,1]·δ_1, so the same bits,
        # without gathering a (chains, b, d, d) block (1.2-1.9× faster, measured at
        # 1e3-1e4 chains and b = 1-10; the batch sum after it 1.7× at d = 2)
        entries = self._entries
        out = np.empty_like(diff)
        for r in range(self.d):
            acc = entries[r][0][idx] * diff[..., 0]
            for j in range(1, self.d):
                acc += entries[r][j][idx] * diff[..., j]
            acc += 0.0  # the einsum starts from +0.0: a −0.0 result is +0.0 there
            out[..., r] = acc
        return out

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        # Closed form Λ(θ − μ): O(d²) per chain instead of O(N d²).
        return (theta - self.exact["mean"].value) @ self.precision

    def minibatch_noise_cov(self, theta: np.ndarray, n: int) -> np.ndarray:
        """Exact covariance of the with-replacement minibatch estimator at θ.

        ``Cov[(N/n) Σ_{j=1}^n ∇f_{I_j}(θ)] = (N²/n) Cov_{I~U[N]}[∇f_I(θ)]``,
        shape ``(chains, d, d)``.
        """
        g = self.all_component_grads(theta)  # (chains, N, d)
        dev = g - g.mean(axis=1, keepdims=True)
        return (self.N**2 / n) * np.einsum("cni,cnj->cij", dev, dev) / self.N


def _spd(rng: np.random.Generator, d: int, spread: float) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (q * np.exp(spread * rng.uniform(-1, 1, d))) @ q.T


def gaussian_identical(
    N: int = 20,
    d: int = 1,
    *,
    precision: float | np.ndarray = 1.0,
    spread: float = 1.0,
    seed: int = 0,
) -> GaussianQuadratic:
    """Identical curvatures ``Λ_i = Λ/N``: state-independent gradient noise.

    Parameters
    ----------
    N, d : int
    precision : float or ndarray (d, d)
        The target precision ``Λ`` (a scalar means ``Λ = precision·I``).
    spread : float
        Standard deviation of the centres ``c_i ~ N(0, spread² I)``; it sets the
        minibatch-noise scale.
    seed : int
        Seed for the centres.
    """
    N, d = positive_int("N", N), positive_int("d", d)
    spread = positive("spread", spread)
    Lam = np.eye(d) * precision if np.ndim(precision) == 0 else np.asarray(precision, float)
    rng = np.random.default_rng(seed)
    c = spread * rng.standard_normal((N, d))
    P = np.broadcast_to(Lam / N, (N, d, d)).copy()
    return GaussianQuadratic(c, P, name=f"gaussian-identical-{d}d")


def gaussian_differing(
    N: int = 20, d: int = 1, *, spread: float = 1.0, curvature_spread: float = 1.0, seed: int = 0
) -> GaussianQuadratic:
    """Differing curvatures ``Λ_i``: state-dependent gradient noise.

    ``Λ_i = Q_i diag(exp(u_i)) Q_iᵀ / N`` with random rotations ``Q_i`` and
    ``u_i ~ U(-curvature_spread, curvature_spread)``, centres ``c_i ~ N(0, spread² I)``.
    """
    N, d = positive_int("N", N), positive_int("d", d)
    spread = positive("spread", spread)
    rng = np.random.default_rng(seed)
    c = spread * rng.standard_normal((N, d))
    P = np.stack([_spd(rng, d, curvature_spread) for _ in range(N)]) / N
    return GaussianQuadratic(c, P, name=f"gaussian-differing-{d}d")
