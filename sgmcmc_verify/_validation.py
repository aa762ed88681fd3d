"""Argument checks shared by problems, estimators, samplers and the driver.

Every public entry point validates before doing any work, and raises
``ValueError`` (bad value or unknown name) or ``TypeError`` (bad type), with one
line that says what was expected.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import numpy as np


def positive(name: str, value: float) -> float:
    """Return ``float(value)`` if it is finite and > 0, else raise ``ValueError``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}") from None
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be finite and > 0, got {value!r}")
    return v


def nonnegative(name: str, value: float) -> float:
    """Return ``float(value)`` if it is finite and >= 0, else raise ``ValueError``."""
    v = float(value)
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return v


def positive_int(name: str, value: int, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an integer >= ``minimum``, else raise."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def as_theta(theta: np.ndarray, d: int) -> np.ndarray:
    """Validate a state array of shape ``(chains, d)`` and return it as float64.

    Finiteness is checked at the entry points (:func:`finite_array` on ``theta0``),
    not here: a chain that diverges mid-run is a result, not an input error.
    """
    arr = np.asarray(theta, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != d:
        raise ValueError(f"theta must have shape (chains, {d}), got {np.shape(theta)}")
    return arr


def sample_arguments(
    h: float, n_steps: int, n_chains: int, seed: int
) -> tuple[float, int, int, int]:
    """The arguments of a ``sample(problem, h, n_steps, n_chains, seed)`` function, checked:
    ``h`` finite and > 0, ``n_steps`` and ``n_chains`` integers ≥ 1, ``seed`` an integer ≥ 0
    (one-line ``ValueError``/``TypeError`` otherwise; the peer adapters share it)."""
    return (
        positive("h", h),
        positive_int("n_steps", n_steps),
        positive_int("n_chains", n_chains),
        positive_int("seed", seed, minimum=0),
    )


def finite_array(name: str, arr: np.ndarray) -> np.ndarray:
    """Raise if ``arr`` holds NaN or inf."""
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    return arr


def frozen(arr: np.ndarray) -> np.ndarray:
    """A read-only float64 copy of ``arr``: a problem's data that nothing can change after
    the problem (and the caches keyed on its content) were built from it."""
    out = np.array(arr, dtype=np.float64)
    out.setflags(write=False)
    return out


def check_indices(idx: np.ndarray, N: int, chains: int) -> np.ndarray:
    """Validate component indices of shape ``(chains, b)`` with entries in ``[0, N)``."""
    idx = np.asarray(idx)
    if idx.ndim != 2 or idx.shape[0] != chains:
        raise ValueError(f"indices must have shape ({chains}, b), got {idx.shape}")
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"indices must be integers, got dtype {idx.dtype}")
    if idx.size and (idx.min() < 0 or idx.max() >= N):
        raise ValueError(f"indices must lie in [0, {N}), got range [{idx.min()}, {idx.max()}]")
    return idx


def choice(name: str, value: str, options: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``options``; else a ``ValueError`` with a suggestion."""
    opts = list(options)
    if value in opts:
        return value
    near = difflib.get_close_matches(str(value), opts, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise ValueError(f"unknown {name} {value!r}{hint} Known: {', '.join(sorted(opts))}")
