"""The target-problem interface shared by every sampler and check.

Convention (used everywhere in this package)
--------------------------------------------
Every target is

.. math::

    \\pi(\\theta) \\propto \\exp(-U(\\theta)), \\qquad
    U(\\theta) = U_0(\\theta) + \\sum_{i=1}^{N} f_i(\\theta),

where :math:`U_0` is the prior potential (``-log prior``, zero when there is
none) and :math:`f_i` is the data term of datum *i* (``-log p(z_i | θ)``).
This is SVRHMC §2's convention (``f = Σ f_i − log Pr(θ)``) with the prior kept
separate, so that variance-reduced estimators can treat the cheap prior gradient
exactly.  AGLD eq. (4) folds the prior into each component,
``f_i^AGLD = f_i + U_0/N``; the uniform-minibatch estimator is identical under
both conventions, and every estimator here evaluates ``∇U_0`` exactly.

Papers that scale the sum differently are mapped onto this convention by the
problem, not by the samplers: AGLD §6.1 writes ``exp(-Σ f_i^paper / N)``, so its
problem uses ``f_i = f_i^paper / N``.

Array layout: ``theta`` has shape ``(chains, d)``; component indices have shape
``(chains, b)``; component gradients have shape ``(chains, b, d)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._rowsum import middle_sum
from .._validation import as_theta, check_indices

__all__ = ["Exact", "Problem"]


@dataclass(frozen=True)
class Exact:
    """A reference value with its provenance.

    Parameters
    ----------
    value
        The number or array.
    provenance
        Where it comes from, e.g. ``"closed form (conjugate Gaussian), float64"``
        or ``"importance sampling, 10^6 draws"``.
    stderr
        Monte Carlo standard error of ``value`` (same shape), or ``None`` when the
        value is exact up to floating-point rounding.
    """

    value: Any
    provenance: str
    stderr: Any = None

    @property
    def is_exact(self) -> bool:
        return self.stderr is None


@dataclass
class Problem:
    """Base class: a target ``π ∝ exp(-U)`` with data terms ``f_i``.

    Subclasses implement :meth:`prior_potential`, :meth:`prior_grad`,
    :meth:`data_potential` and :meth:`_component_grads`; they may override
    :meth:`_grad` with a faster closed form (the public :meth:`grad` validates
    its input first).  ``exact`` maps names (``"mean"``,
    ``"cov"``, ``"log_normaliser"``, ...) to :class:`Exact` values of the target.
    """

    name: str
    N: int
    d: int
    citation: str = ""
    exact: dict[str, Exact] = field(default_factory=dict)

    # -- to implement --------------------------------------------------------
    def prior_potential(self, theta: np.ndarray) -> np.ndarray:
        """``U_0(θ)``, shape ``(chains,)``; zero by default (flat prior)."""
        return np.zeros(theta.shape[0])

    def prior_grad(self, theta: np.ndarray) -> np.ndarray:
        """``∇U_0(θ)``, shape ``(chains, d)``; zero by default (flat prior)."""
        return np.zeros_like(theta)

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        """``Σ_i f_i(θ)``, shape ``(chains,)``."""
        raise NotImplementedError

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # -- public, validated -----------------------------------------------------
    def component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Gradients ``∇f_i(θ_c)`` for ``i = idx[c, j]``.

        Parameters
        ----------
        theta : ndarray, shape (chains, d)
        idx : int ndarray, shape (chains, b), entries in ``[0, N)``

        Returns
        -------
        ndarray, shape (chains, b, d)
        """
        theta = as_theta(theta, self.d)
        idx = check_indices(idx, self.N, theta.shape[0])
        return self._component_grads(theta, idx)

    def component_grad_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``Σ_j ∇f_{idx[c, j]}(θ_c)``, shape (chains, d): the minibatch sum.

        Subclasses may override it to avoid materialising ``(chains, b, d)``.
        """
        theta = as_theta(theta, self.d)
        idx = check_indices(idx, self.N, theta.shape[0])
        return self._component_grad_sum(theta, idx)

    def _component_grad_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        # numpy's sum over the batch axis, bit for bit, without its reduction overhead
        return middle_sum(self._component_grads(theta, idx))

    def all_component_grads(self, theta: np.ndarray) -> np.ndarray:
        """``∇f_i(θ)`` for every ``i``: shape ``(chains, N, d)``."""
        theta = as_theta(theta, self.d)
        idx = np.broadcast_to(np.arange(self.N), (theta.shape[0], self.N))
        return self._component_grads(theta, idx)

    def potential(self, theta: np.ndarray) -> np.ndarray:
        """``U(θ) = U_0(θ) + Σ f_i(θ)``, shape ``(chains,)``."""
        theta = as_theta(theta, self.d)
        return self.prior_potential(theta) + self.data_potential(theta)

    def grad(self, theta: np.ndarray) -> np.ndarray:
        """Full gradient ``∇U(θ)``, shape ``(chains, d)``."""
        return self._grad(as_theta(theta, self.d))

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        idx = np.broadcast_to(np.arange(self.N), (theta.shape[0], self.N))
        return self.prior_grad(theta) + self._component_grads(theta, idx).sum(axis=1)

    def describe(self) -> dict[str, Any]:
        """JSON-friendly summary: name, sizes, citation, exact values' provenance."""
        return {
            "name": self.name,
            "N": self.N,
            "d": self.d,
            "citation": self.citation,
            "exact": {k: v.provenance for k, v in self.exact.items()},
        }


class GLMProblem(Problem):
    """A problem whose component gradients are scalar multiples of a data vector.

    ``∇f_i(θ) = s_i(θ) z_i`` with ``z_i`` the rows of :attr:`Z` (shape ``(N, d)``).
    This is the structure AGLD §3.2 uses to store a PPU snapshot in O(N) memory.
    """

    Z: np.ndarray

    def _scalars(self, Zi: np.ndarray, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``s_i(θ_c)`` given the gathered rows ``Zi = Z[idx]`` (chains, b, d)."""
        raise NotImplementedError

    def component_scalars(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``s_i(θ_c)`` for ``i = idx[c, j]``: shape ``(chains, b)``."""
        return self._scalars(self.Z[idx], theta, idx)

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        Zi = self.Z[idx]  # gathered once: the gather dominates the cost
        return self._scalars(Zi, theta, idx)[..., None] * Zi

    def _component_grad_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        Zi = self.Z[idx]
        return (self._scalars(Zi, theta, idx)[:, None, :] @ Zi)[:, 0]
