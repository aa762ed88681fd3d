"""sgmcmc-verify: theory verification and property testing for stochastic-gradient MCMC.

Reference float64 samplers (AGLD, EWSG, SGNHT, SVR-HMC and their baselines),
targets that carry their exact answers, and checks of the papers' claims that
return honest verdicts.

>>> import sgmcmc_verify as sv
>>> prob = sv.problems.get("gaussian-identical-1d")
>>> res = sv.run("sgld", prob, h=0.01, n_steps=100, chains=10, seed=0)
>>> res.draws["theta"].shape
(10, 100, 1)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Only the problems are imported eagerly (numpy and nothing else).  The samplers pull in
# scipy.special and the harness pulls in sympy and scipy.stats (together ~1.5 s), so
# those names are resolved on first access (PEP 562): ``import sgmcmc_verify`` and
# ``sgmcmc-verify --help`` stay fast (issue 13), and the public API is unchanged.
from . import problems

if TYPE_CHECKING:
    from . import registry
    from .driver import RunResult, run, run_sampler
    from .validation import ValidationReport, validate

__all__ = [
    "RunResult",
    "ValidationReport",
    "__version__",
    "problems",
    "registry",
    "run",
    "run_sampler",
    "validate",
]
__version__ = "0.1.0"

#: Lazily resolved public name → (module relative to this package, attribute or None for
#: the module itself).  ``sgmcmc_verify.validate`` is the harness's entry point (the
#: function); the subpackage stays importable as ``from sgmcmc_verify.validation import ...``.
_LAZY: dict[str, tuple[str, str | None]] = {
    "registry": (".registry", None),
    "RunResult": (".driver", "RunResult"),
    "run": (".driver", "run"),
    "run_sampler": (".driver", "run_sampler"),
    "ValidationReport": (".validation", "ValidationReport"),
    "validate": (".validation", "validate"),
}


def __getattr__(name: str) -> Any:
    """Import a lazily exported name on first access and cache it in the module."""
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    module = importlib.import_module(module_name, __name__)
    value = module if attr is None else getattr(module, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
