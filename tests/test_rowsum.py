"""sum_last is numpy's ``x.sum(axis=-1)`` bit for bit, at every length and layout; middle_sum
is its ``x.sum(axis=1)`` over a batch axis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sgmcmc_verify._rowsum import middle_sum, sum_last

_FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=300, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12),
        elements=_FLOATS,
    )
)
def test_same_bits_as_numpy_sum(x):
    # huge and tiny magnitudes, signed zeros, every last-axis length 0–12 (both sides of 8);
    # a sum past the largest float is inf in both (numpy warns of it in both)
    with np.errstate(over="ignore"):
        assert sum_last(x).tobytes() == x.sum(axis=-1).tobytes()


@pytest.mark.parametrize("d", range(1, 11))
def test_same_bits_on_strided_and_transposed_rows(d):
    rng = np.random.default_rng(d)
    base = rng.standard_normal((64, 2 * d)) * np.exp(rng.uniform(-30, 30, (64, 2 * d)))
    for x in (base[:, ::2], np.asfortranarray(base[:, :d]), base[:, :d][::-1]):
        assert sum_last(x).tobytes() == x.sum(axis=-1).tobytes()


@pytest.mark.parametrize("d", range(1, 13))
def test_a_row_of_negative_zeros_sums_to_positive_zero_as_in_numpy(d):
    # numpy starts its left-to-right loop from +0.0 (found in review: −0.0 + −0.0 kept −0.0)
    x = np.full((3, d), -0.0)
    assert sum_last(x).tobytes() == x.sum(axis=-1).tobytes()


def test_rounding_is_left_to_right_below_eight():
    # 1 + 2⁻⁵³ + 2⁻⁵³: left to right each tiny term is lost; summed pairwise-first (or any
    # other order) it is not.  numpy and sum_last agree on the left-to-right answer.
    x = np.array([[1.0, 2.0**-53, 2.0**-53]])
    assert sum_last(x)[0] == 1.0 == x.sum(axis=-1)[0]


def test_other_dtypes_fall_back_to_numpy():
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 7
    assert sum_last(x).dtype == np.float32
    assert sum_last(x).tobytes() == x.sum(axis=-1).tobytes()


@pytest.mark.parametrize("shape", [(1, 10, 2), (7, 10, 3), (64, 33, 10), (5, 1, 4), (9, 10, 1)])
def test_middle_sum_is_numpys_sum_over_the_batch_bit_for_bit(shape):
    """``middle_sum`` stands for ``x.sum(axis=1)`` in the estimators and in
    ``Problem.component_grad_sum``, so it must give the same
    bits, C-contiguous or not, d = 1 (numpy's pairwise sum) included.  Terms of magnitudes
    1e−8 … 1e8 make any other summation order round differently."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)
    strided = np.ascontiguousarray(x.transpose(1, 0, 2)).transpose(1, 0, 2)
    for a in (x, strided, x.astype(np.float32), (x * 1e-8).astype(np.int32)):
        got, want = middle_sum(a), a.sum(axis=1)
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
