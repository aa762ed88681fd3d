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


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("b", [1, 2, 5])
def test_component_gradients_and_their_batch_sum_have_the_einsums_bits(d, b):
    base = gaussian_differing(N=7, d=d, curvature_spread=1.5, seed=d)
    prob = GaussianQuadratic(
        base.centres * 3.0, base.precisions, prior_precision=np.eye(d), prior_mean=np.ones(d)
    )
    rng = np.random.default_rng(10 * d + b)
    for _ in range(20):
        # magnitudes 1e-6 … 1e6: any other order of the products' sums rounds differently
        theta = rng.standard_normal((300, d)) * 10.0 ** rng.integers(-6, 7, (300, 1))
        idx = rng.integers(0, prob.N, (300, b))
        want = _defining_einsum(prob, theta, idx)
        got = prob.component_grads(theta, idx)
        assert got.tobytes() == want.tobytes() and got.shape == want.shape
        assert prob.component_grad_sum(theta, idx).tobytes() == want.sum(axis=1).tobytes()


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
