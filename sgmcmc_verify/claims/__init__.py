"""Claims as data: each claim ID of ``shared/CLAIMS.md`` → a check returning a ClaimResult.

>>> from sgmcmc_verify import claims
>>> r = claims.check("AGLD-R1", profile="quick", seed=0)   # doctest: +SKIP
>>> r.verdict, [(p.name, p.verdict) for p in r.parts]       # doctest: +SKIP

pytest asserts on these results and the report renders the same objects: one
source of truth, two readers.  A check that raises becomes an ``error``
verdict carrying its traceback; it never takes other checks down with it.
"""

from __future__ import annotations

import importlib
import time
import traceback
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .._validation import choice
from .catalogue import CATALOGUE, INFO, ClaimInfo
from .result import VERDICTS, ClaimResult, Measurement, Part, combine_verdicts

__all__ = [
    "CATALOGUE",
    "CHECKS",
    "INFO",
    "PROFILES",
    "SUBMODULES",
    "VERDICTS",
    "ClaimInfo",
    "ClaimResult",
    "LazyCheck",
    "Measurement",
    "Part",
    "check",
    "ids",
    "run_check",
]

PROFILES = ("quick", "full")

CheckFn = Callable[..., tuple[list[Part], dict[str, Any]]]

#: The check modules of this package; each is imported when one of its checks first runs
#: (or on attribute access, ``claims.rates``), because together they pull in sympy,
#: scipy.stats and the samplers (> 1 s), which ``sgmcmc-verify --help`` or ``list`` and
#: ``import sgmcmc_verify.claims`` do not need (issue 13).
SUBMODULES = (
    "agld",
    "agld_theory",
    "cross",
    "ewsg",
    "experiments",
    "harness",
    "kernels",
    "rates",
    "sgnht",
    "sgnht_mt",
    "sgnht_thermostat",
    "svrhmc",
)


class LazyCheck:
    """A check function named by its module and attribute, imported on first call.

    Calling it is calling the function; :meth:`resolve` returns the function itself.

    Parameters
    ----------
    module : str
        One of :data:`SUBMODULES`.
    name : str
        The check function's name in that module.
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def resolve(self) -> CheckFn:
        """Import the module and return the check function."""
        fn: CheckFn = getattr(importlib.import_module(f".{self.module}", __name__), self.name)
        return fn

    def __call__(self, **kwargs: Any) -> tuple[list[Part], dict[str, Any]]:
        return self.resolve()(**kwargs)

    def __repr__(self) -> str:
        return f"LazyCheck({self.module!r}, {self.name!r})"


def __getattr__(name: str) -> ModuleType:
    """``claims.<module>`` for a check module not imported yet (PEP 562)."""
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Claim ID → check function ``f(*, profile, seed, **implementation) -> (parts, params)``,
#: as a :class:`LazyCheck` (module, function name) so that no check module is imported
#: until its check runs.
CHECKS: dict[str, CheckFn] = {
    claim_id: LazyCheck(module, name)
    for claim_id, (module, name) in {
        "AGLD-R1": ("agld", "check_r1"),
        "AGLD-R2": ("agld", "check_r2"),
        "AGLD-UNB": ("agld", "check_unb"),
        "AGLD-MEM": ("agld", "check_mem"),
        "EWSG-MH": ("ewsg", "check_mh"),
        "SVRHMC-SPLIT": ("svrhmc", "check_split"),
        "SVRHMC-COR2": ("svrhmc", "check_cor2"),
        "SGNHT-MT": ("sgnht_mt", "check_mt"),
        "SGNHT-ALG2": ("sgnht", "check_alg2"),
        "EWSG-T1": ("ewsg", "check_t1"),
        "EWSG-T3": ("ewsg", "check_t3"),
        "SVRHMC-L1": ("svrhmc", "check_l1"),
        "SVRHMC-COR3": ("svrhmc", "check_cor3"),
        "X-INV": ("cross", "check_inv"),
        "X-ORDER": ("cross", "check_order"),
        "SVRHMC-T2": ("rates", "check_t2"),
        "SVRHMC-T4": ("rates", "check_t4"),
        "SVRHMC-T5": ("rates", "check_t5"),
        "SVRHMC-T6": ("rates", "check_t6"),
        "EWSG-T4": ("rates", "check_ewsg_t4"),
        "X-VR": ("rates", "check_vr"),
        "EWSG-ULD": ("kernels", "check_ewsg_uld"),
        "SVRHMC-INV": ("kernels", "check_svrhmc_inv"),
        "EWSG-T2": ("kernels", "check_ewsg_t2"),
        **{f"AGLD-T{k}": ("agld_theory", f"check_t{k}") for k in range(1, 6)},
        "SGNHT-GAUSS": ("experiments", "check_sgnht_gauss"),
        "EWSG-EXP-GAUSS": ("experiments", "check_ewsg_exp_gauss"),
        "AGLD-EXP-GMM": ("experiments", "check_agld_exp_gmm"),
        "AGLD-EXP-TMU": ("experiments", "check_agld_exp_tmu"),
        "SVRHMC-EXP": ("experiments", "check_svrhmc_exp"),
        "SVRHMC-EXP-SUB": ("experiments", "check_svrhmc_exp_sub"),
        "SGNHT-THERMAL": ("sgnht_thermostat", "check_thermal"),
        "SGNHT-XI": ("sgnht_thermostat", "check_xi"),
        "SGNHT-DW": ("sgnht_thermostat", "check_dw"),
        "HARNESS-POWER": ("harness", "check_power"),
    }.items()
}

#: What each check measures, in one line (the expectation the verdict is judged against).
EXPECTATIONS: dict[str, str] = {
    "AGLD-R1": "CA: staleness ≤ ⌈N/n⌉; RR: ≤ 2N/n; RA: coupon-collector law, C = O(N log N) w.h.p.",
    "AGLD-R2": "snapshot ages ≤ D: PTU epoch, PPU from Req. 1, TMU the min, HSAG bounded",
    "AGLD-UNB": "E[g | past] = ∇U for RA (exact enumeration); ≠ ∇U for CA and RR",
    "AGLD-MEM": "snapshot bytes per chain: PTU ∝ d, PPU ∝ N d, PPU on a GLM ∝ N",
    "EWSG-MH": "the eq. (5) index chain has the eq. (4) weights as stationary law; mixing vs M",
    "SVRHMC-SPLIT": "(12)-(16) = (17)-(18) in sympy; printed Algorithms 1-4 agree line by line",
    "SVRHMC-COR2": "E‖∇̃ − ∇f‖² = (n²/b)·Var_i ∇f_i ≤ n²G²/b, exactly (closed form and enumeration)",
    "SGNHT-MT": "eq. (9) residual ≡ 0 for Langevin, SGHMC (B̂ = B), SGNHT (ξ and Ξ); ≢ 0 otherwise",
    "SGNHT-ALG2": "sympy: substitution ≡ the derived Alg. 2; trajectories equal to a "
    "propagated float64 rounding bound",
    "EWSG-T1": "LP (2) minimiser has ≤ d+1 nonzeros, certified exactly; optimal faces on "
    "degenerate sets",
    "EWSG-T3": "E[Δ] < 0 for x = O(√h) (exact three-point law + Monte Carlo); smallest C of the "
    "bound vs n, h",
    "SVRHMC-L1": "R^HMC ≤ max{1/D², L/(nK)}·R^LD (9) and (10) on the paper's region, exactly",
    "SVRHMC-COR3": "R^HMC ≤ (bL/n²)·R^LD with K = n/b (11), exactly",
    "X-INV": "every algorithm's Monte Carlo matches the exact law of its discrete chain (α); "
    "the stationary bias shrinks as h → 0",
    "X-ORDER": "bias order in h ≥ the claimed order (1, 2 for the splitting, ≤ 1 with gradient "
    "noise) for every registry algorithm: exact values, or Monte Carlo WLS slopes with CIs "
    "(half-width ≤ 0.15 in full) for the thermostats and EWSG on N > 1",
    "SVRHMC-T2": "svrg-hmc: stationary bias order 1 (MSE h²) or better; the 1/(Th) term exact",
    "SVRHMC-T4": "saga-hmc: stationary bias order 1 (MSE h²) or better; the 1/(Th) term exact",
    "SVRHMC-T5": "svrg2-hmc: stationary bias order 2 (MSE h⁴); the 1/(Th) term exact",
    "SVRHMC-T6": "saga2-hmc: stationary bias order 2 (MSE h⁴); the 1/(Th) term exact",
    "EWSG-T4": "MSE slopes: −1 in T at fixed h; 2 in h as T → ∞",
    "X-VR": "SVRG/SAGA stationary variance below SG's (exact), and MSE per data pass",
    "EWSG-ULD": "Fokker-Planck residual of eq. (1) ≡ 0 for exp(−(V + ‖r‖²/2)/T) iff σ² = 2γT",
    "SVRHMC-INV": "Fokker-Planck residual of eqs. (3)-(4) ≡ 0 for exp(−f − pᵀp/2)",
    "EWSG-T2": "in what sense the eq. (4) kernel equals the full-gradient kernel; TV/KL of the "
    "practical schemes vs uniform SG",
    "AGLD-T1": "stationary W2 bias vs η and K(ε) with η ∝ ε² (exact for LMC; for AGLD the "
    "Gelbrich lower bound and the LMC-coupling upper bound from exact moments)",
    "AGLD-T2": "K(ε) = O(log(1/ε)/ε) with η ∝ ε under a Lipschitz Hessian",
    "AGLD-T3": "TMU-RA: K(ε) scaling in κ, d, n, ε",
    "AGLD-T4": "W2(p̂*, p*) ≤ ε/2 with λ = 4ε²/(Ûd²)",
    "AGLD-T5": "nonconvex: stationary W2 bias vs η (Nyström, exact 1-D W2); K(ε) = O(ε⁻⁴) with "
    "η ∝ ε⁴ from the transient Nyström law",
    "SGNHT-GAUSS": "§5.1 orderings: SGNHT accurate where SGHMC is not; ξ ≈ A at h = 0.001, ≫ A "
    "at h = 0.01, = A + B_eff; Normal–Gamma τ vs accuracy on an assumed grid",
    "EWSG-EXP-GAUSS": "§5.1 orderings in KL at equal data passes (incl. pSGLD baseline); x̂ and M",
    "AGLD-EXP-GMM": "§6.1: TMU-RA closest to the mixture target; LMC and SGLD deviate",
    "AGLD-EXP-TMU": "§6.2 (synthetic ridge regression): TMU beats PTU and PPU per access",
    "SVRHMC-EXP": "UCI data sets: not available offline",
    "SVRHMC-EXP-SUB": "SVRG-HMC, SVRG2nd-HMC vs SVRG-LD per data pass (shipped/synthetic data)",
    "SGNHT-THERMAL": "E[pᵀp]/n = 1 at stationarity, across h (extrapolated and per h)",
    "SGNHT-XI": "E[ξ] → A + B, Var ξ → 1/μ, normal law; the O(h) correction; E[Ξ] → A·I + B",
    "SGNHT-DW": "§3 regimes: ξ = 1 correct, ξ = 10 sticks, ξ = 0.1 overheats, SGNHT "
    "correct with K = 0.5",
    "HARNESS-POWER": "kill rate ≥ 95% of the planted bugs per mode; reference reject rate ≤ α "
    "(binomial test)",
}


def ids(*, implemented: bool = True) -> list[str]:
    """Claim IDs: those with a check (default), or the whole catalogue."""
    return [c for c in INFO if not implemented or c in CHECKS]


def run_check(claim_id: str, fn: CheckFn, *, profile: str, seed: int, **impl: Any) -> ClaimResult:
    """Run ``fn`` and wrap its parts into a :class:`ClaimResult` (errors become verdicts)."""
    info = INFO[claim_id]
    t0 = time.perf_counter()
    try:
        parts, params = fn(profile=profile, seed=seed, **impl)
    except Exception:  # a broken check must not lose the others: report it as an error
        return ClaimResult(
            claim_id,
            info.paper,
            info.location,
            info.statement,
            "error",
            expectation=EXPECTATIONS.get(claim_id, ""),
            seed=seed,
            profile=profile,
            runtime_s=time.perf_counter() - t0,
            traceback=traceback.format_exc(),
        )
    verdict = combine_verdicts([p.verdict for p in parts])
    negative = [p for p in parts if p.verdict in ("refuted", "qualified", "not-checkable")]
    reading = "; ".join(f"{p.name}: {p.reading}" for p in negative if p.reading) or "all parts hold"
    counter = next((p.counterexample for p in parts if p.verdict == "refuted"), None)
    return ClaimResult(
        claim_id,
        info.paper,
        info.location,
        info.statement,
        verdict,
        expectation=EXPECTATIONS.get(claim_id, ""),
        reading=reading,
        parts=parts,
        counterexample=counter,
        params={"profile": profile, "seed": seed, **params},
        seed=seed,
        profile=profile,
        alpha=params.get("alpha"),
        runtime_s=time.perf_counter() - t0,
    )


def check(claim_id: str, *, profile: str = "quick", seed: int = 0) -> ClaimResult:
    """Check one claim of CLAIMS.md.

    Parameters
    ----------
    claim_id : str
        An ID from :func:`ids`.
    profile : {"quick", "full"}
        ``quick`` runs in seconds; ``full`` uses larger grids and more chains.
    seed : int
        Seed for every random number the check draws.

    Returns
    -------
    ClaimResult
    """
    choice("profile", profile, PROFILES)
    if claim_id in CATALOGUE and claim_id not in CHECKS:
        raise NotImplementedError(f"{claim_id} is in the catalogue but has no check yet")
    choice("claim ID", claim_id, CHECKS)
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    return run_check(claim_id, CHECKS[claim_id], profile=profile, seed=seed)
