"""The exact law of *any* step function on a Gaussian target, by probing it.

On a target whose data terms are quadratic (:class:`~sgmcmc_verify.problems.gaussian.
GaussianQuadratic`) every SG-MCMC step that is built from gradients, linear
algebra and injected Gaussian noise is, for each fixed draw of the data indices
``S``, an affine map of the state and the noise,

.. math::

    z_{k+1} = M_S z_k + c_S + B_S \\xi_k, \\qquad \\xi_k \\sim N(0, I_m).

The map can therefore be read off the step function itself, without knowing
its formula: evaluate it at the zero state with zero noise (``c_S``), at each
basis vector of the state (columns of ``M_S``) and of the noise (columns of
``B_S``).  All of these are chains of one vectorised call, so identifying the
map costs one call per index draw.  The map is then *verified*: the step is
called on random states and noises and the prediction ``c + Mz + Bξ`` must
match to float64 rounding; a step that is not affine (a thermostat's ``ξ·p``,
a state-dependent index law, a clipped gradient) is reported as such, never
silently linearised.

Averaged over the law of ``S`` the probed maps are an
:class:`~sgmcmc_verify.exact.moments.AffineChain`, whose stationary and
k-step means and covariances :mod:`sgmcmc_verify.exact.moments` computes exactly
(one linear solve).  This is the issue-11 "exact law of any step function":
BAOAB, OBABO, BAOA, explicit-Euler SGHMC, a preconditioned SGLD, a
control-variate SGLD — whatever the user wrote — get their exact discrete law
in milliseconds.

The state is the user's dict of arrays: ``theta`` (chains, d) first, then
``p``, then any other float arrays (gradient caches, control-variate centres,
tables), each flattened per chain.  Integer or boolean entries (counters,
phases) make the map depend on the phase and are rejected with that reason.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .moments import AccessLaw, AffineChain, ChainMoments, StationaryMoments
from .moments import stationary_moments as _stationary
from .moments import transient_moments as _transient

__all__ = [
    "NotAffineError",
    "ProbedChain",
    "StateLayout",
    "index_law",
    "probe_chain",
]

#: Relative size of a nonlinear term the affinity check detects.  Probing and the
#: verification both evaluate the same float64 code, so an affine step reproduces
#: its prediction to a few ulps times the number of terms (≲ 1e-13 here); a
#: nonlinearity larger than this fraction of the state's scale is reported.
AFFINE_RTOL = 1e-9

#: Largest number of index draws enumerated (ordered tuples ``N^n``).
MAX_INDEX_SETS = 4096


class NotAffineError(ValueError):
    """The step is not affine in (state, noise) for fixed indices: probing does not apply."""


@dataclass(frozen=True)
class StateLayout:
    """How the user's state dict maps onto the flat vector ``z``.

    Attributes
    ----------
    keys : tuple of str
        Dict keys in ``z`` order: ``theta``, then ``p``, then the rest sorted.
    shapes : tuple of tuple of int
        Per-chain shape of each entry.
    """

    keys: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]

    @classmethod
    def of(cls, state: Mapping[str, Any], chains: int) -> StateLayout:
        """The layout of ``state`` (arrays with ``chains`` leading rows)."""
        if "theta" not in state:
            raise ValueError("the state has no 'theta' entry")
        rest = sorted(k for k in state if k not in ("theta", "p"))
        keys = ("theta",) + (("p",) if "p" in state else ()) + tuple(rest)
        shapes = []
        for k in keys:
            v = np.asarray(state[k])
            if v.dtype.kind not in "f":
                raise NotAffineError(
                    f"state[{k!r}] has dtype {v.dtype}: a counter or flag makes the step's "
                    "map depend on the phase; probing handles float states only"
                )
            if v.ndim == 0 or v.shape[0] != chains:
                raise ValueError(f"state[{k!r}] has shape {v.shape}; chains ({chains}) first")
            shapes.append(tuple(v.shape[1:]))
        return cls(keys, tuple(shapes))

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(math.prod(s) for s in self.shapes)

    @property
    def nz(self) -> int:
        return sum(self.sizes)

    def labels(self) -> tuple[str, ...]:
        out = []
        for k, s in zip(self.keys, self.shapes, strict=True):
            out += [f"{k}[{i}]" for i in range(math.prod(s))]
        return tuple(out)

    def flatten(self, state: Mapping[str, Any]) -> np.ndarray:
        """``(chains, nz)`` from a state dict; :class:`ValueError` on a changed layout."""
        parts = []
        for k, s in zip(self.keys, self.shapes, strict=True):
            if k not in state:
                raise ValueError(f"the step dropped the state entry {k!r}")
            v = np.asarray(state[k])
            if v.shape[1:] != s:
                raise ValueError(f"the step changed state[{k!r}]'s shape to {v.shape}")
            parts.append(v.reshape(v.shape[0], -1))
        extra = sorted(set(state) - set(self.keys))
        if extra:
            raise ValueError(f"the step added state entries {extra}; return the same keys")
        return np.concatenate(parts, axis=1).astype(np.float64, copy=False)

    def unflatten(self, z: np.ndarray) -> dict[str, np.ndarray]:
        out, at = {}, 0
        for k, s, n in zip(self.keys, self.shapes, self.sizes, strict=True):
            out[k] = z[:, at : at + n].reshape((z.shape[0], *s)).copy()
            at += n
        return out

    def block(self, key: str) -> slice:
        """Coordinates of ``key`` in ``z``."""
        at = 0
        for k, n in zip(self.keys, self.sizes, strict=True):
            if k == key:
                return slice(at, at + n)
            at += n
        raise KeyError(key)


def index_law(
    N: int, n: int | None, *, replace: bool = True
) -> tuple[tuple[tuple[int, ...] | None, float], ...]:
    """The law of one step's data indices: ``((S, probability), ...)``.

    ``n=None``: no indices (full gradient), one draw ``None``.  Otherwise ``n``
    uniform indices, i.i.d. (``replace=True``: all ``N^n`` ordered tuples) or
    distinct (all ``N!/(N−n)!`` ordered tuples), each equally likely; ordered, so
    a step that is not symmetric in the batch order is still represented exactly.
    """
    if n is None:
        return ((None, 1.0),)
    if not (isinstance(n, int | np.integer) and 1 <= n):
        raise ValueError(f"the batch size n must be a positive integer, got {n!r}")
    if not replace and n > N:
        raise ValueError(f"n = {n} distinct indices from N = {N} data")
    count = N**n if replace else math.perm(N, n)
    if count > MAX_INDEX_SETS:
        raise ValueError(
            f"{count} index draws to enumerate (N = {N}, n = {n}); at most {MAX_INDEX_SETS}"
        )
    sets = itertools.product(range(N), repeat=n) if replace else itertools.permutations(range(N), n)
    return tuple((tuple(S), 1.0 / count) for S in sets)


@dataclass(frozen=True)
class ProbedChain:
    """The probed affine maps of a step and the exact laws they imply.

    Attributes
    ----------
    layout : StateLayout
    maps : dict
        ``S -> (M, c, B)`` per index draw.
    law : tuple
        ``((S, probability), ...)``.
    h : float
    d : int
    noise_dim : int
    affinity_residual : float
        Largest relative mismatch of the verification calls (≤ :data:`AFFINE_RTOL`).
    calls : int
        Calls of the step function made (one per index draw, probing and verifying).
    """

    layout: StateLayout
    maps: dict[Any, tuple[np.ndarray, np.ndarray, np.ndarray]]
    law: tuple[tuple[Any, float], ...]
    h: float
    d: int
    noise_dim: int
    affinity_residual: float
    calls: int
    description: str = "probed step"

    def chain(self) -> AffineChain:
        """The :class:`AffineChain` averaging the maps over the index law."""
        law = self.law
        trans = tuple((p, S, None) for S, p in law)
        access = AccessLaw("probed", None, 1, lambda a: trans)
        return AffineChain(
            description=self.description,
            problem=None,  # type: ignore[arg-type]  # the maps carry the problem
            h=self.h,
            d=self.d,
            labels=self.layout.labels(),
            period=1,
            access=access,
            step=lambda S, phase: self.maps[S],
        )

    def mean_map(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``E_S M_S``, ``E_S c_S`` and ``E_S B_S B_Sᵀ`` (the drift and noise of the mean)."""
        M = sum(p * self.maps[S][0] for S, p in self.law)
        c = sum(p * self.maps[S][1] for S, p in self.law)
        BB = sum(p * self.maps[S][2] @ self.maps[S][2].T for S, p in self.law)
        return M, c, BB

    def stationary(self) -> StationaryMoments:
        """Exact stationary moments (:func:`sgmcmc_verify.exact.moments.stationary_moments`)."""
        return _stationary(self.chain())

    def transient(self, steps: Sequence[int], z0: np.ndarray) -> ChainMoments:
        """Exact moments after each of ``steps`` steps from the deterministic state ``z0``."""
        return _transient(self.chain(), steps, z0=np.asarray(z0, dtype=np.float64))


def probe_chain(
    step: Callable[..., Mapping[str, Any]],
    state: Mapping[str, Any],
    *,
    h: float,
    law: Sequence[tuple[Any, float]],
    noise_dim: int | None = None,
    kwargs: Mapping[str, Any] | None = None,
    seed: int = 0,
    call: Callable[[Callable[[], Any]], Any] | None = None,
) -> ProbedChain:
    """Identify and verify the affine maps of ``step`` for every index draw of ``law``.

    Parameters
    ----------
    step : callable
        ``step(state, *, h, noise, indices, **kwargs) -> state`` vectorised over chains
        (the :class:`~sgmcmc_verify.validation.StepFunction` protocol).
    state : mapping
        A template state of one chain (leading axis of length 1 or more): its keys
        and per-chain shapes fix the layout; its values are not used.
    h : float
    law : sequence of (S, probability)
        From :func:`index_law`.
    noise_dim : int, optional
        Standard normals per chain and step (default ``d``: one vector, as the
        reference samplers draw; OBABO-type schemes with two O steps need ``2d``).
    kwargs : mapping, optional
        Passed to ``step`` (``problem=...``, ``randomness=None``).
    seed : int
        Seed of the random verification states.
    call : callable, optional
        ``call(thunk)`` runs one step call (e.g. with a timeout); default direct.

    Returns
    -------
    ProbedChain

    Raises
    ------
    NotAffineError
        If a verification call differs from the probed affine prediction.
    ValueError
        If the step returns something that is not a state of the same layout.
    """
    template = {k: np.asarray(v) for k, v in state.items()}
    chains0 = next(iter(template.values())).shape[0]
    layout = StateLayout.of(template, chains0)
    d = layout.shapes[0][0] if layout.shapes[0] else 1
    m = d if noise_dim is None else int(noise_dim)
    if m < 1:
        raise ValueError(f"noise_dim must be ≥ 1, got {noise_dim!r}")
    nz = layout.nz
    n_check = 4
    rows = 1 + nz + m + n_check
    rng = np.random.default_rng(seed)
    Z = np.zeros((rows, nz))
    X = np.zeros((rows, m))
    Z[1 : 1 + nz] = np.eye(nz)
    X[1 + nz : 1 + nz + m] = np.eye(m)
    Z[-n_check:] = 2.0 * rng.standard_normal((n_check, nz))
    X[-n_check:] = rng.standard_normal((n_check, m))
    kw = dict(kwargs or {})
    run = call or (lambda thunk: thunk())
    maps, worst, calls = {}, 0.0, 0
    for S, _ in law:
        idx = None if S is None else np.tile(np.asarray(S, dtype=np.intp), (rows, 1))
        st = layout.unflatten(Z)
        out = run(lambda st=st, idx=idx: step(st, h=h, noise=X.copy(), indices=idx, **kw))
        calls += 1
        if not isinstance(out, Mapping):
            raise ValueError(f"the step returned {type(out).__name__}, expected a state dict")
        extra = sorted(set(out) - set(layout.keys))
        if extra:
            raise ValueError(
                f"the step added state entries {extra} that the harness did not pass: "
                "state it keeps must be declared in the template (float arrays)"
            )
        low = sorted(k for k, v in out.items() if np.asarray(v).dtype != np.float64)
        if low:
            raise ValueError(
                f"the step returned {low} as {np.asarray(out[low[0]]).dtype}; float64 is "
                "required (lower precision would look like a nonlinearity to the probe)"
            )
        F = layout.flatten({k: np.asarray(v) for k, v in out.items()})
        if F.shape[0] != rows:
            raise ValueError(f"the step returned {F.shape[0]} chains for {rows}")
        if not np.all(np.isfinite(F)):
            raise ValueError(f"the step returned NaN or inf at h = {h:g} (indices {S})")
        c = F[0]
        M = (F[1 : 1 + nz] - c).T
        B = (F[1 + nz : 1 + nz + m] - c).T
        pred = c + Z[-n_check:] @ M.T + X[-n_check:] @ B.T
        scale = 1.0 + np.abs(F[-n_check:]).max() + np.abs(pred).max()
        resid = float(np.abs(F[-n_check:] - pred).max() / scale)
        worst = max(worst, resid)
        if resid > AFFINE_RTOL:
            raise NotAffineError(
                f"the step is not affine in (state, noise) at h = {h:g}, indices {S}: "
                f"a random state's update differs from the probed affine map by {resid:.2g} "
                f"(relative; affine steps agree to {AFFINE_RTOL:g}), so its exact law cannot "
                "be read off by probing (a thermostat ξ·p term, clipping, or an index law "
                "that depends on the state)"
            )
        maps[S] = (M, c, B)
    return ProbedChain(layout, maps, tuple(law), float(h), d, m, worst, calls)
