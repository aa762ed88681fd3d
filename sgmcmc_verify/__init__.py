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

from . import problems, registry
from .driver import RunResult, run, run_sampler

# ``sgmcmc_verify.validate(...)`` is the harness's entry point (the function); the
# subpackage stays importable as ``from sgmcmc_verify.validation import ...``.
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
