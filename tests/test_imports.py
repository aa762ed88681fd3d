"""Importing the package is cheap: heavy dependencies load where they are used (issue 13).

Each check runs in a fresh interpreter (``sys.executable -c ...``) and asserts *which*
modules got loaded, never how long it took: the time is measured by
``benchmarks/bench_imports.py``.
"""

import json
import subprocess
import sys

import pytest

import sgmcmc_verify as sv
from sgmcmc_verify import claims

#: Packages that cost ~0.2-1 s each to import and that ``import sgmcmc_verify`` must not
#: load: the symbolic and plotting stacks, scipy (special: 0.2 s, stats: 0.5 s), and the
#: optional peers.
HEAVY = (
    "sympy",
    "matplotlib",
    "scipy",
    "statsmodels",
    "pandas",
    "jax",
    "blackjax",
    "numba",
    "dask",
    "distributed",
    "mpmath",
)


def _loaded_after(code: str) -> dict[str, list[str]]:
    """Run ``code`` in a fresh interpreter; the heavy, non-stdlib and own modules it loaded."""
    probe = f"""
import json, sys
before = set(sys.modules)
{code}
new = set(sys.modules) - before
heavy = sorted(m for m in new if m.split(".")[0] in {HEAVY!r})
third = sorted({{m.split(".")[0] for m in new}} - set(sys.stdlib_module_names))
own = sorted(m for m in new if m.split(".")[0] == "sgmcmc_verify")
print(json.dumps({{"heavy": heavy, "third_party": third, "own": own}}))
"""
    r = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(r.stdout.splitlines()[-1])


def test_import_loads_numpy_and_nothing_heavy():
    loaded = _loaded_after("import sgmcmc_verify")
    assert loaded["heavy"] == []
    assert set(loaded["third_party"]) <= {"numpy", "sgmcmc_verify"}


def test_importing_the_claims_catalogue_loads_nothing_heavy():
    # what `sgmcmc-verify list` and the CLI's argument parser need: INFO, CHECKS, PROFILES
    loaded = _loaded_after(
        "from sgmcmc_verify import claims; claims.INFO; claims.CHECKS; claims.PROFILES"
    )
    assert loaded["heavy"] == []


def test_sampling_loads_scipy_special_but_not_the_symbolic_or_statistics_stacks():
    loaded = _loaded_after(
        "import sgmcmc_verify as sv\n"
        "p = sv.problems.get('gaussian-identical-1d')\n"
        "sv.run('sgld', p, h=0.01, n_steps=5, chains=2, seed=0)"
    )
    # at most scipy.special (the gradient estimators' logsumexp)
    assert {m.split(".")[0] for m in loaded["heavy"]} <= {"scipy"}
    assert not {"scipy.stats", "scipy.optimize"} & set(loaded["heavy"])


def test_a_step_validation_loads_neither_scipy_stats_nor_sympy():
    # `sgmcmc-verify validate MODULE:FUNCTION` runs in a fresh child per call: scipy.stats
    # alone took 0.44 s of its 0.63 s of imports (the harness's normal quantiles come from
    # scipy.special instead)
    loaded = _loaded_after(
        "import numpy as np\n"
        "from sgmcmc_verify.validation import validate\n"
        "def step(state, *, h, noise, indices, problem, randomness=None):\n"
        "    th = state['theta']\n"
        "    g = problem.prior_grad(th) + problem.N / indices.shape[1] * "
        "problem.component_grads(th, indices).sum(1)\n"
        "    return {'theta': th - h * g + np.sqrt(2 * h) * noise}\n"
        "assert validate(step, 'sgld', mode='step').verdict == 'pass'"
    )
    assert not {"scipy.stats", "sympy", "statsmodels", "matplotlib"} & set(loaded["heavy"])


def test_lazy_names_are_imported_on_first_access_only():
    assert not {"sgmcmc_verify.validation", "sgmcmc_verify.registry", "sgmcmc_verify.driver"} & set(
        _loaded_after("import sgmcmc_verify")["own"]
    )
    assert (
        "sgmcmc_verify.validation" in _loaded_after("import sgmcmc_verify as s; s.validate")["own"]
    )
    assert "sgmcmc_verify.registry" in _loaded_after("import sgmcmc_verify as s; s.registry")["own"]


@pytest.mark.parametrize("name", sv.__all__)
def test_every_public_name_resolves(name):
    assert getattr(sv, name) is not None
    assert name in dir(sv)


def test_public_names_are_the_objects_of_their_modules():
    from sgmcmc_verify import driver, registry, validation

    assert sv.registry is registry
    assert (sv.run, sv.run_sampler, sv.RunResult) == (
        driver.run,
        driver.run_sampler,
        driver.RunResult,
    )
    assert sv.validate is validation.validate
    assert sv.ValidationReport is validation.ValidationReport
    assert isinstance(sv.__version__, str)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        sv.not_a_name  # noqa: B018


def test_star_import_gives_all_public_names():
    ns: dict = {}
    exec("from sgmcmc_verify import *", ns)
    assert set(sv.__all__) <= set(ns)


def test_every_lazy_check_resolves_to_its_module_function():
    for claim_id, check in claims.CHECKS.items():
        fn = check.resolve()
        assert callable(fn), claim_id
        assert fn.__module__ == f"sgmcmc_verify.claims.{check.module}", claim_id
        assert fn.__name__ == check.name, claim_id
    assert set(claims.SUBMODULES) == {c.module for c in claims.CHECKS.values()}
    assert claims.rates.__name__ == "sgmcmc_verify.claims.rates"
    with pytest.raises(AttributeError):
        claims.not_a_module  # noqa: B018
