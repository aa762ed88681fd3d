"""Data-Accessing strategies (ALG-ACCESS): AGLD §3.1, Algorithm 1 line 3.

Each strategy draws the index set ``S_k`` of iteration ``k`` for every chain:

* **RA** (random access): ``n`` indices uniformly from ``[N]`` *with replacement*.
* **RR** (random reshuffle): indices read sequentially from a random permutation
  of ``[N]``, reshuffled at the start of every data pass.
* **CA** (cyclic access): indices read sequentially from ``0, 1, ..., N−1, 0, ...``.
* **WOR**: ``n`` distinct indices uniformly at random (the without-replacement
  minibatch of SGLD; not one of AGLD's three).

RR and CA read a *stream* of indices in batches of ``n``; when ``n`` does not
divide ``N`` a batch straddles two passes (for RR, two permutations).  The paper
does not say what happens in that case; the stream reading keeps every batch at
size ``n`` and is the one the Requirement 1 checks analyse.

The strategies are pure: ``draw(state, rng) -> (indices, new_state)`` with all
randomness taken from the ``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._validation import choice, positive_int

__all__ = ["CA", "RA", "RR", "WOR", "AccessState", "DataAccess", "make_access"]


class AccessState(NamedTuple):
    """Per-run state of a data-access strategy.

    Attributes
    ----------
    k : int
        Iteration counter (number of batches drawn so far).
    pos : int
        Position in the current pass (RR, CA), in ``[0, N)``.
    perm : ndarray or None, shape (chains, N)
        The current permutation of each chain (RR only).
    """

    k: int
    pos: int
    perm: np.ndarray | None


@dataclass(frozen=True)
class DataAccess:
    """Base class. ``n`` is the number of indices per iteration."""

    n: int
    name = "access"

    def __post_init__(self) -> None:
        positive_int("n (indices per iteration)", self.n)

    def check(self, N: int) -> None:
        """Raise ``ValueError`` if this strategy cannot run on ``N`` data terms."""
        if self.n > N and not self.with_replacement:
            raise ValueError(f"{self.name} draws n={self.n} distinct indices but N={N}")

    with_replacement = False

    def init(self, chains: int, N: int, rng: np.random.Generator) -> AccessState:
        self.check(N)
        return AccessState(0, 0, None)

    def draw(
        self, state: AccessState, chains: int, N: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, AccessState]:
        raise NotImplementedError


@dataclass(frozen=True)
class RA(DataAccess):
    """Random access: ``S_k`` = ``n`` i.i.d. uniform indices (AGLD §3.1)."""

    name = "RA"
    with_replacement = True

    def draw(self, state, chains, N, rng):
        return rng.integers(0, N, size=(chains, self.n)), state._replace(k=state.k + 1)


@dataclass(frozen=True)
class WOR(DataAccess):
    """``n`` distinct indices, uniform over subsets (without-replacement minibatch)."""

    name = "WOR"

    def draw(self, state, chains, N, rng):
        # The n smallest of N i.i.d. uniforms index a uniform random n-subset.
        keys = rng.random((chains, N))
        idx = (
            np.argpartition(keys, self.n - 1, axis=1)[:, : self.n]
            if self.n < N
            else (np.argsort(keys, axis=1))
        )
        return idx, state._replace(k=state.k + 1)


@dataclass(frozen=True)
class RR(DataAccess):
    """Random reshuffle: sequential reads of a permutation redrawn every pass (AGLD §3.1)."""

    name = "RR"

    def init(self, chains, N, rng):
        self.check(N)
        return AccessState(0, 0, rng.permuted(np.broadcast_to(np.arange(N), (chains, N)), axis=1))

    def draw(self, state, chains, N, rng):
        perm, pos = state.perm, state.pos
        take = min(self.n, N - pos)
        parts = [perm[:, pos : pos + take]]
        pos += take
        if pos == N:
            perm = rng.permuted(np.broadcast_to(np.arange(N), (chains, N)), axis=1)
            pos = self.n - take
            parts.append(perm[:, :pos])
        return np.concatenate(parts, axis=1), AccessState(state.k + 1, pos, perm)


@dataclass(frozen=True)
class CA(DataAccess):
    """Cyclic access: ``S_k = {kn, kn+1, ..., kn+n−1} mod N`` (AGLD §3.1)."""

    name = "CA"

    def draw(self, state, chains, N, rng):
        idx = (state.pos + np.arange(self.n)) % N
        return (
            np.broadcast_to(idx, (chains, self.n)).copy(),
            AccessState(state.k + 1, (state.pos + self.n) % N, None),
        )


ACCESS = {"RA": RA, "RR": RR, "CA": CA, "WOR": WOR}


def make_access(name: str, n: int) -> DataAccess:
    """Build an access strategy by name (``"RA"``, ``"RR"``, ``"CA"``, ``"WOR"``)."""
    return ACCESS[choice("data-access strategy", name, ACCESS)](n)
