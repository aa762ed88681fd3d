"""Per-step sums with numpy's bits and without its reduction overhead.

* :func:`sum_last`: over a state's ``d`` coordinates (a short last axis);
* :func:`middle_sum`: over a minibatch's ``b`` component gradients (the middle axis of a
  ``(chains, b, d)`` array; ``b`` up to ``N``), in the estimators and in
  :meth:`Problem.component_grad_sum <sgmcmc_verify.problems.base.Problem.component_grad_sum>`.

The first kind is over a state's ``d`` coordinates: ``|p|²`` in the
thermostat updates (SGNHT Alg. 1 line 5) and the recorded kinetic energy, with
``d`` = 1–10 and thousands of chains.  ``x.sum(axis=-1)`` on a (chains, d) array runs
numpy's reduction machinery once per row: at d = 2 it costs 14–60 µs for 1000–5000
chains, where adding the d columns costs 1.6–4.7 µs (measured on the 2-core CI
machine).  The column adds give the **same bits**: numpy sums a row of fewer than 8
elements left to right (its pairwise summation only splits blocks of ≥ 8), and so do
they.  At d ≥ 8 numpy's unrolled partial sums take over, so the reduction is kept there.
"""

from __future__ import annotations

import numpy as np

__all__ = ["middle_sum", "sum_last"]

#: Below this length numpy's float sum of a row is a left-to-right loop (pairwise_sum in
#: numpy/_core/src/umath/loops_utils.h.src sums n < 8 sequentially).
_SEQUENTIAL = 8


def sum_last(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=-1)`` for a float array, bit for bit, faster when the last axis is short.

    Parameters
    ----------
    x : ndarray of float64, shape (..., d)

    Returns
    -------
    ndarray, shape (...)
        The sum over the last axis: the same bits as ``x.sum(axis=-1)`` (a sum of an
        empty axis is 0).
    """
    d = x.shape[-1]
    if d >= _SEQUENTIAL or d == 0 or x.dtype != np.float64:
        return x.sum(axis=-1)
    if d == 1:
        # numpy adds the one element to 0.0: the same value, and −0.0 becomes +0.0
        return x[..., 0] + 0.0
    acc = x[..., 0] + x[..., 1]
    for j in range(2, d):
        acc += x[..., j]
    # numpy's loop starts from +0.0, so a row of −0.0 sums to +0.0; adding +0.0 changes
    # exactly that case and no other value
    acc += 0.0
    return acc


def middle_sum(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=1)`` of a ``(chains, b, d)`` array, bit for bit, 2–4× faster.

    For a C-contiguous float64 or float32 ``x`` with ``d ≥ 2`` numpy adds the ``b`` rows one
    after another from 0 (its pairwise summation runs only along an inner reduced axis),
    and so does this einsum: the same sums, checked over shapes.  Otherwise (and for
    integers, which numpy's sum widens) numpy's sum is used.
    """
    if x.ndim == 3 and x.shape[2] >= 2 and x.flags.c_contiguous and x.dtype.char in "fd":
        return np.einsum("cbi->ci", x)
    return x.sum(axis=1)
