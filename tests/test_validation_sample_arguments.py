"""Both peer adapters check ``sample(problem, h, n_steps, n_chains, seed)``'s arguments with
the shared ``_validation.sample_arguments``: garbage is a one-line error before any draw.

Zero steps or chains used to return empty draws, h = NaN or 0 ran a chain, and blackjax
raised an IndexError for n_steps = 0.
"""

from __future__ import annotations

import math

import pytest

from sgmcmc_verify.validation import blackjax_adapter, posteriors_adapter, targets

GARBAGE = [
    (0.1, 0, 10, 0, "n_steps"),
    (0.1, 10, 0, 0, "n_chains"),
    (0.1, 2.5, 10, 0, "n_steps"),
    (math.nan, 10, 10, 0, "h"),
    (-0.1, 10, 10, 0, "h"),
    (0.0, 10, 10, 0, "h"),
    (0.1, 10, 10, -1, "seed"),
]


@pytest.mark.peers
@pytest.mark.parametrize(
    "adapter", [blackjax_adapter, posteriors_adapter], ids=["blackjax", "posteriors"]
)
@pytest.mark.parametrize(("h", "n_steps", "n_chains", "seed", "what"), GARBAGE)
def test_garbage_sample_arguments_are_one_line_errors(adapter, h, n_steps, n_chains, seed, what):
    if not adapter.AVAILABLE:
        pytest.skip(f"{adapter.__name__} needs its peer installed")
    sample = adapter.sample_function("sgld")
    problem = targets.plan("sgld").exact_problem
    with pytest.raises((ValueError, TypeError), match=rf"^{what} must"):
        sample(problem, h, n_steps, n_chains, seed)
