"""Chain-steps of HARNESS-POWER (quick) before and after issue 13's reductions.

Before: every bug validated at the former grid (0.2, 0.1, 0.05) with every check run, the
reference draws of two-sample checks recomputed per bug; 30 reference validations for
the size.  The count per validation is measured with ``settings["chain_steps"]`` on one
validation of each kind and multiplied by the catalogue's composition (the count depends
on the plan only, not on the draws).  After: the count HARNESS-POWER itself records
(``params["chain_steps"]``), from a run of the claim (about 25 s of CPU).

Run: ``python benchmarks/harness_power_chain_steps.py [--after]``.
"""

from __future__ import annotations

import collections
import sys

from sgmcmc_verify import bugs
from sgmcmc_verify.validation import core, targets

OLD_GRID = (0.2, 0.1, 0.05)


def _steps(alg: str, hs: tuple[float, ...]) -> int:
    core._REFERENCE_CACHE.clear()  # before: no reuse across bugs
    rep = core.validate(core.reference_sample_function(alg), alg, hs=hs)
    return sum(rep.settings["chain_steps"].values())


def before() -> dict[str, int]:
    kinds = collections.Counter(alg for alg, _, _ in bugs.CATALOGUE.values())
    per_alg = {}
    for alg in kinds:
        thermo = targets.plan(alg).hs == targets.H_GRID_THERMOSTAT
        hs = targets.H_GRID_THERMOSTAT if thermo else OLD_GRID
        per_alg[alg] = _steps(alg, hs)
    kill = sum(n * per_alg[alg] for alg, n in kinds.items())
    size = sum(10 * _steps(alg, OLD_GRID) for alg in ("sgld", "svrg-hmc", "uld-em"))
    return {"kill": kill, "size": size}


def after() -> dict[str, int]:
    from sgmcmc_verify.claims import check

    return check("HARNESS-POWER", profile="quick", seed=0).params["chain_steps"]


if __name__ == "__main__":
    b = before()
    print(f"before: kill {b['kill'] / 1e6:.1f}M + size {b['size'] / 1e6:.1f}M chain-steps")
    if "--after" in sys.argv:
        a = after()
        print(f"after:  kill {a['kill'] / 1e6:.1f}M + size {a['size'] / 1e6:.1f}M chain-steps")
        print(f"ratio {(a['kill'] + a['size']) / (b['kill'] + b['size']):.3f}")
