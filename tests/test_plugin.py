"""The pytest plugin: fixtures, the diagnosis in the failure text, --sgmcmc-seed/--sgmcmc-profile.

Each test runs a small pytest session in this process (pytester); the validations are
small: one step size (sampler mode) or the step comparison.
"""

from __future__ import annotations

import numpy.fft  # noqa: F401
import pytest

# pytester's in-process runs drop the modules they import afterwards, and numpy's C
# extensions cannot load twice: import what a validation uses before any run.
import sgmcmc_verify.validation.core  # noqa: F401

pytest_plugins = ["pytester"]

# An SGLD whose noise is √h instead of √(2h) (the harness's canonical bug), and a
# correct one; one step size keeps each validation around a tenth of a second.
SAMPLERS = """
import math

import numpy as np

from sgmcmc_verify.validation import targets


def sgld(problem, h, n_steps, n_chains, seed, noise=math.sqrt(2)):
    # the harness's batch (targets.STEP_BATCH, with replacement), prior added once
    rng = np.random.default_rng(seed)
    n = targets.STEP_BATCH
    th = np.zeros((n_chains, problem.d))
    out = np.empty((n_chains, n_steps, problem.d))
    for t in range(n_steps):
        idx = rng.integers(0, problem.N, (n_chains, n))
        g = problem.prior_grad(th) + problem.N / n * problem.component_grads(th, idx).sum(1)
        th = th - h * g + noise * math.sqrt(h) * rng.standard_normal(th.shape)
        out[:, t] = th
    return out


def half_noise(problem, h, n_steps, n_chains, seed):
    return sgld(problem, h, n_steps, n_chains, seed, noise=1.0)
"""


def _diagnosis_of_half_noise(pytester) -> str:
    """What validate() itself says about the half-noise sampler (the plugin must show it)."""
    import importlib

    from sgmcmc_verify.validation import validate

    samplers = importlib.import_module("samplers")
    rep = validate(samplers.half_noise, "sgld", hs=(0.2,), seed=0, profile="quick")
    (diag,) = [c for c in rep.checks if c.name == "diagnosis"]
    return diag.message


@pytest.fixture
def suite(pytester):
    pytester.makepyfile(samplers=SAMPLERS)
    pytester.syspathinsert()
    return pytester


def test_failure_text_carries_the_diagnosis_and_the_settings(suite):
    suite.makepyfile(
        """
        from samplers import half_noise, sgld

        def test_correct(sgmcmc_assert_valid):
            sgmcmc_assert_valid(sgld, "sgld", hs=(0.2,))

        def test_half_noise(sgmcmc_assert_valid):
            sgmcmc_assert_valid(half_noise, "sgld", hs=(0.2,))
        """
    )
    diagnosis = _diagnosis_of_half_noise(suite)
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*sgld implementation rejected (fail):",
            "*[[]fail] exact law at h=0.2: *",
            "*(mode = sampler, seed = 0, profile = quick, alpha = 0.01; a correct sampler*",
        ]
    )
    assert f"  [inconclusive] diagnosis: {diagnosis}" in result.stdout.str()


def test_an_error_verdict_names_what_went_wrong(suite):
    suite.makepyfile(
        """
        def test_broken(sgmcmc_assert_valid):
            sgmcmc_assert_valid(lambda p, h, n, c, s: None, "lmc", hs=(0.2,))
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*lmc implementation rejected (error):", "*[[]error] *"])


def test_seed_and_profile_options_are_the_fixture_defaults(suite):
    suite.makepyfile(
        """
        from samplers import sgld

        def test_defaults(sgmcmc_validate, request):
            sgmcmc_validate(sgld, "sgld", hs=(0.2,))
            sgmcmc_validate(sgld, "sgld", hs=(0.2,), seed=5)
            settings = [v for k, v in request.node.user_properties if k == "sgmcmc"]
            print("SETTINGS", [(s["seed"], s["profile"]) for s in settings])
        """
    )
    result = suite.runpytest("-p", "no:cacheprovider", "-s", "--sgmcmc-seed", "7")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*SETTINGS [[](7, 'quick'), (5, 'quick')]*"])
    result = suite.runpytest("-p", "no:cacheprovider", "-s")
    result.stdout.fnmatch_lines(["*SETTINGS [[](0, 'quick'), (5, 'quick')]*"])


def test_the_seed_changes_the_draws_the_validation_sees(suite):
    # the seed reaches the sampler: the recorded first draw differs between seeds
    suite.makepyfile(
        """
        from samplers import sgld

        SEEDS = []

        def spy(problem, h, n, c, seed):
            SEEDS.append(seed)
            return sgld(problem, h, n, c, seed)

        def test_spy(sgmcmc_validate):
            sgmcmc_validate(spy, "sgld", hs=(0.2,))
            print("FIRST", SEEDS[0])
        """
    )
    a = suite.runpytest("-p", "no:cacheprovider", "-s", "--sgmcmc-seed", "3")
    b = suite.runpytest("-p", "no:cacheprovider", "-s", "--sgmcmc-seed", "4")
    first = [next(ln.split("FIRST")[1] for ln in r.outlines if "FIRST" in ln) for r in (a, b)]
    assert first[0] != first[1]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (("--sgmcmc-seed", "-1"), "seeds must be non-negative integers, got '-1'"),
        (("--sgmcmc-profile", "slow"), "invalid choice: 'slow'"),
    ],
)
def test_bad_options_are_usage_errors(suite, option, message):
    suite.makepyfile("def test_nothing():\n    pass\n")
    result = suite.runpytest("-p", "no:cacheprovider", *option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}*"])


def test_help_lists_the_options(suite):
    result = suite.runpytest("--help")
    result.stdout.fnmatch_lines(["*--sgmcmc-seed=S*", "*--sgmcmc-profile=*"])
