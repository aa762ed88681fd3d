"""Snapshot-Updating strategies (ALG-SNAP): AGLD §3.2, Strategies 2–4, and HSAG.

A strategy only says *which* snapshot entries are refreshed after iteration
``k``, and *at which iterate*; :mod:`sgmcmc_verify.estimators` stores the entries.
Two kinds of refresh exist in the paper:

* **partial** — entries ``i ∈ S_k`` set to ``∇f_i(x^{(k)})`` (the current
  iterate, whose component gradients were just computed for ``g^{(k)}``);
* **total** — entries set to ``∇f_i(x^{(k+1)})`` (the new iterate) when
  ``mod(k+1, D) = 0``.

==========  ======================================  ==================================
strategy    partial (at ``x^{(k)}``)                total (at ``x^{(k+1)}``)
==========  ======================================  ==================================
PTU         none                                     all entries, if ``(k+1) % D == 0``
PPU         ``i ∈ S_k``                               none
TMU         ``i ∈ S_k``                               all entries, if ``(k+1) % D == 0``
HSAG        ``i ∈ S_k ∩ H``                           entries ``∉ H``, if ``(k+1) % D == 0``
==========  ======================================  ==================================

PTU is Strategy 2 (SVRG-LD), PPU Strategy 3 (SAGA-LD), TMU Strategy 4.  HSAG
(Reddi et al. 2015, "On variance reduction in stochastic gradient descent and its
asynchronous variants", §3) is named but not written out in AGLD §3.2: a fixed set
``H ⊂ [N]`` of entries is updated SAGA-style when visited, the others SVRG-style
once per epoch of length ``D``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import choice, positive_int

__all__ = ["HSAG", "PPU", "PTU", "TMU", "SnapshotStrategy", "make_snapshot"]


@dataclass(frozen=True)
class SnapshotStrategy:
    """Base class for snapshot-updating strategies."""

    name = "snapshot"

    def partial(self, indices: np.ndarray, N: int) -> np.ndarray | None:
        """Which batch entries ``S_k[c, j]`` refresh at ``x^{(k)}``: bool ``(chains, n)``.

        ``None`` means none do.
        """
        return None

    def total(self, k: int, N: int) -> np.ndarray | None:
        """Which entries refresh at ``x^{(k+1)}`` after iteration ``k``: bool ``(N,)`` or None."""
        return None


@dataclass(frozen=True)
class PTU(SnapshotStrategy):
    """Periodically Total Update, AGLD Strategy 2: refresh all at ``x^{(k+1)}`` every ``D``."""

    D: int
    name = "PTU"

    def __post_init__(self) -> None:
        positive_int("D (epoch length)", self.D)

    def total(self, k, N):
        return np.ones(N, dtype=bool) if (k + 1) % self.D == 0 else None


@dataclass(frozen=True)
class PPU(SnapshotStrategy):
    """Per-iteration Partial Update, AGLD Strategy 3: ``α_i ← ∇f_i(x^{(k)})`` for ``i ∈ S_k``."""

    name = "PPU"

    def partial(self, indices, N):
        return np.ones(indices.shape, dtype=bool)


@dataclass(frozen=True)
class TMU(SnapshotStrategy):
    """Time-based Mixture Update, AGLD Strategy 4: PPU each iteration, total every ``D``."""

    D: int
    name = "TMU"

    def __post_init__(self) -> None:
        positive_int("D (epoch length)", self.D)

    def partial(self, indices, N):
        return np.ones(indices.shape, dtype=bool)

    def total(self, k, N):
        return np.ones(N, dtype=bool) if (k + 1) % self.D == 0 else None


@dataclass(frozen=True)
class HSAG(SnapshotStrategy):
    """Hybrid SAG (Reddi et al. 2015): SAGA-style on ``H``, SVRG-style off ``H``.

    Parameters
    ----------
    D : int
        Epoch length of the SVRG-style part.
    saga_set : tuple of int
        The indices ``H`` updated when visited.
    """

    D: int
    saga_set: tuple[int, ...]
    name = "HSAG"

    def __post_init__(self) -> None:
        positive_int("D (epoch length)", self.D)
        if any(i < 0 for i in self.saga_set):
            raise ValueError("HSAG saga_set indices must be >= 0")

    def _mask(self, N: int) -> np.ndarray:
        m = np.zeros(N, dtype=bool)
        if self.saga_set and max(self.saga_set) >= N:
            raise ValueError(f"HSAG saga_set has an index >= N={N}")
        m[list(self.saga_set)] = True
        return m

    def partial(self, indices, N):
        return self._mask(N)[indices]

    def total(self, k, N):
        return ~self._mask(N) if (k + 1) % self.D == 0 else None


def make_snapshot(name: str, *, D: int | None = None, saga_set=None, N: int | None = None):
    """Build a strategy by name.  ``D`` defaults to ``N`` (one data pass) where needed.

    For HSAG, ``saga_set`` defaults to the first half of the indices.
    """
    choice("snapshot-updating strategy", name, ("PTU", "PPU", "TMU", "HSAG"))
    if name == "PPU":
        return PPU()
    if D is None:
        if N is None:
            raise ValueError(f"{name} needs the epoch length D (or N to default D = N)")
        D = N
    if name == "PTU":
        return PTU(D)
    if name == "TMU":
        return TMU(D)
    if saga_set is None:
        if N is None:
            raise ValueError("HSAG needs saga_set (or N to default to the first half)")
        saga_set = tuple(range(N // 2))
    return HSAG(D, tuple(int(i) for i in saga_set))
