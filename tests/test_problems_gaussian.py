"""GaussianQuadratic: the component gradients are Λ_i (θ − c_i), bit for bit the einsum
that defines them, at every dimension (the entrywise path at d ≤ 2, the einsum above)."""

from __future__ import annotations

import numpy as np
import pytest

from sgmcmc_verify.problems import GaussianQuadratic, gaussian_differing


def _defining_einsum(prob, theta, idx):
    """``∇f_i(θ) = Λ_i (θ − c_i)`` for ``i = idx[c, j]``, written as its definition."""
    diff = theta[:, None, :] - prob.centres[idx]
    return np.einsum("cbij,cbj->cbi", prob.precisions[idx], diff)


@pytest.mark.parametrize("d", [1, 2, 3])  # d = 3: the einsum itself, kept there
@pytest.mark.parametrize("b", [1, 2, 5, 9])  # b ≥ 8: numpy's pairwise blocks in the sum
def test_component_gradients_and_their_batch_sum_have_the_einsums_bits(d, b):
    base = gaussian_differing(N=7, d=d, curvature_spread=1.5, seed=d)
    prob = GaussianQuadratic(
        base.centres * 3.0, base.precisions, prior_precision=np.eye(d), prior_mean=np.ones(d)
    )
    rng = np.random.default_rng(10 * d + b)
    for _ in range(20):
        # magnitudes 1e-6 … 1e6: any other order of the products' sums rounds differently
        theta = rng.standard_normal((300, d)) * 10.0 ** rng.integers(-6, 7, (300, 1))
        c_order = rng.integers(0, prob.N, (300, b))
        # the layouts callers pass: RR's batches are transposed, some are int32
        for idx in (c_order, np.asfortranarray(c_order), c_order.astype(np.int32)):
            want = _defining_einsum(prob, theta, idx)
            got = prob.component_grads(theta, idx)
            assert got.tobytes() == want.tobytes() and got.shape == want.shape
            assert prob.component_grad_sum(theta, idx).tobytes() == want.sum(axis=1).tobytes()
        every = np.broadcast_to(np.arange(prob.N), (300, prob.N))
        assert prob.all_component_grads(theta).tobytes() == (
            _defining_einsum(prob, theta, every).tobytes()
        )


def test_the_problem_keeps_read_only_copies_of_its_arrays():
    # its content keys the exact-law caches and _entries caches the precisions' entries:
    # a caller changing its own arrays afterwards must not change the problem
    P, c = np.stack([np.eye(2), 2 * np.eye(2)]), np.zeros((2, 2))
    prob = GaussianQuadratic(c, P, prior_precision=np.eye(2))
    before = prob.component_grads(np.ones((1, 2)), np.array([[1]]))
    P[1] *= 5.0
    c += 1.0
    assert prob.component_grads(np.ones((1, 2)), np.array([[1]])).tobytes() == before.tobytes()
    for a in (prob.centres, prob.precisions, prob.precision, prob.prior_precision):
        assert not a.flags.writeable


@pytest.mark.parametrize("d", [1, 2])
def test_a_negative_zero_gradient_is_positive_zero_as_in_the_einsum(d):
    # θ = −0.0 at c = +0.0: θ − c = −0.0, every product is −0.0, and the einsum's sum from
    # +0.0 returns +0.0; without its final + 0.0 the entrywise path would return −0.0
    prob = GaussianQuadratic(np.zeros((2, d)), np.stack([np.eye(d), 2 * np.eye(d)]))
    theta = np.full((3, d), -0.0)
    idx = np.array([[0, 1], [1, 1], [0, 0]])
    want = _defining_einsum(prob, theta, idx)
    assert not np.signbit(want).any()
    assert prob.component_grads(theta, idx).tobytes() == want.tobytes()
