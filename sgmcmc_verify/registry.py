"""The one list of algorithms: name, catalogue ID, citation, defaults and test marks.

Modelled on scipy.stats' ``_distr_params.py``: generic tests iterate over
:data:`ALGORITHMS`, so a new algorithm needs one estimator or integrator, one
entry here, and the generic tests cover it.  IDs are those of
``shared/CLAIMS.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import integrators as integ
from ._validation import choice, positive, positive_int
from .access import make_access
from .algorithms import Sampler
from .estimators import (
    AGLD,
    EWSG,
    SAGA,
    SVRG,
    ControlVariate,
    Estimator,
    FullGradient,
    InjectedNoise,
    Minibatch,
)
from .problems.base import Problem
from .problems.gaussian import GaussianQuadratic
from .snapshots import make_snapshot

__all__ = ["ALGORITHMS", "AlgorithmSpec", "get", "make_sampler", "names"]


def _batch(problem: Problem, params: Mapping[str, Any], key: str = "n", default: int = 10) -> int:
    # an integer ≥ 1 (int() would silently truncate a batch size of 2.5 to 2)
    return positive_int(f"{key} (batch size)", params.get(key, min(default, problem.N)))


def _epoch(problem: Problem, params: Mapping[str, Any], key: str = "D", batch: str = "n") -> int:
    """Default epoch length ``⌈N/n⌉`` (one data pass; SVRHMC §5 uses K = n/b)."""
    default = math.ceil(problem.N / _batch(problem, params, batch))
    return positive_int(f"{key} (epoch length)", params.get(key, default))


@dataclass(frozen=True)
class AlgorithmSpec:
    """One registry entry.

    Attributes
    ----------
    name : str
        Registry name, the papers' name where one exists (``ptu-ra``, ``svrg-ld``).
    alg_id : str
        The CLAIMS.md catalogue ID it implements.
    citation : str
        Paper and Algorithm/equation number.
    family : str
        ``"overdamped"``, ``"underdamped"`` or ``"thermostat"``.
    build : callable
        ``build(problem, h, params) -> (integrator, estimator)``.
    params : dict
        Parameter names → (default, description); ``None`` marks a default
        computed from the problem (said in the description).  Names follow the
        paper of the algorithm: AGLD's ``n``/``D`` (batch, epoch), SVRHMC's
        ``b``/``K``/``D`` (batch, epoch, friction), SGNHT's ``A``, EWSG's ``γ``, ``M``.
    marks : tuple of str
        Test marks, e.g. ``("stochastic", "variance-reduced")``.
    limit_temperature : callable, optional
        ``limit_temperature(params) -> T``: the scheme's stationary law tends, as h → 0 at
        fixed ``params``, to the target at temperature ``T`` (covariance ×T on a
        Gaussian).  ``None``: the scheme is consistent (T = 1).  Generic checks of "the
        bias shrinks as h → 0" measure the bias against this declared limit, so a scheme
        that is inconsistent by construction is judged by what its paper implies, and the
        inconsistency is stated, not hidden (:meth:`temperature`).
    """

    name: str
    alg_id: str
    citation: str
    family: str
    build: Callable[[Problem, float, Mapping[str, Any]], tuple[Any, Estimator]]
    params: dict[str, tuple[Any, str]] = field(default_factory=dict)
    marks: tuple[str, ...] = ()
    limit_temperature: Callable[[Mapping[str, Any]], float] | None = None

    def temperature(self, params: Mapping[str, Any] | None = None) -> float:
        """The h → 0 limit's temperature at ``params`` (defaults filled in): 1 if consistent."""
        if self.limit_temperature is None:
            return 1.0
        full = {k: v[0] for k, v in self.params.items()} | dict(params or {})
        return float(self.limit_temperature(full))

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "id": self.alg_id,
            "citation": self.citation,
            "family": self.family,
            "params": {k: {"default": v[0], "doc": v[1]} for k, v in self.params.items()},
            "marks": list(self.marks),
        }


_N_PARAM = {"n": (None, "minibatch size; default min(10, N)")}
_D_PARAM = {"D": (None, "epoch length (iterations); default ⌈N/n⌉, one data pass")}
_SVR_PARAMS = {
    "b": (None, "minibatch size; default min(10, N) (SVRHMC §5)"),
    "D": (1.0, "friction D; Algorithms 1-4 require D ≥ 1 and Dh < 1"),
    "replace": (True, "minibatch with replacement (SVRHMC §2)"),
    "p0": ("zeros", "initial momentum: 'zeros' (Algorithms 1-4 line 2) or 'normal'"),
}
_K_PARAM = {"K": (None, "epoch length; default ⌈N/b⌉ (K = n/b, SVRHMC §5)")}
_GRAD_PARAMS = {
    "gradient": (
        "minibatch",
        "'minibatch' (n uniform indices), 'full', or 'injected' (∇U + N(0, 2B/h))",
    ),
    "n": (None, "minibatch size Ñ; default min(10, N)"),
    "B": (1.0, "injected-noise covariance B (gradient='injected'; SGNHT §3)"),
}
_ULD_PARAMS = {
    "gamma": (1.0, "friction γ; σ² = 2γ (EWSG §3, T = 1)"),
    "p0": ("zeros", "initial momentum: 'zeros' or 'normal'"),
}


def _overdamped(make_est) -> Callable[[Problem, float, Mapping[str, Any]], tuple[Any, Estimator]]:
    return lambda p, h, q: (integ.OverdampedEM(h), make_est(p, h, q))


def _agld(snapshot: str, access: str):
    def make(problem, h, params):
        n = _batch(problem, params)
        snap = make_snapshot(
            snapshot, D=_epoch(problem, params), saga_set=params.get("saga_set"), N=problem.N
        )
        return AGLD(make_access(access, n), snap, storage=params.get("storage", "auto"))

    return _overdamped(make)


def _sg_gradient(problem: Problem, h: float, q: Mapping[str, Any]) -> Estimator:
    """The gradient of the SGNHT/SGHMC-Chen family: minibatch, full or injected noise."""
    kind = choice("gradient", q.get("gradient", "minibatch"), ("minibatch", "full", "injected"))
    if kind == "full":
        return FullGradient()
    if kind == "injected":
        return InjectedNoise(q.get("B", 1.0), h)
    return Minibatch(_batch(problem, q))


def _cv_centre(problem: Problem, q: Mapping[str, Any]) -> Any:
    """The control-variate centre θ̂: ``centre`` if given, else the posterior mode.

    Baker et al. (2019, §3.1) take θ̂ a posterior mode found by stochastic optimisation;
    the default uses the mode where the problem knows it exactly (a Gaussian's mean, or
    an exact ``"mode"``), so no optimiser's error enters the chain.
    """
    if q.get("centre") is not None:
        return q["centre"]
    if "mode" in problem.exact:
        return problem.exact["mode"].value
    if isinstance(problem, GaussianQuadratic):
        return problem.exact["mean"].value  # a Gaussian's mode
    raise ValueError(
        f"cv-sgld on {problem.name}: give centre=θ̂ (Baker et al. 2019 §3.1: a posterior "
        "mode); the default is known exactly only for Gaussian problems"
    )


def _ewsg_x_rule(kind: str, h: float, gamma: float):
    """The §5.1 choices of x for EWSG on ULD-EM (σ = √(2γ))."""
    sigma = math.sqrt(2 * gamma)
    rules = {
        "hat": lambda st: math.sqrt(h) * gamma * st.p / sigma,  # x̂ = √h γ r_k/σ (§4.3)
        "zero": lambda st: np.zeros_like(st.p),
        "one": lambda st: np.ones_like(st.p),
        "alt": lambda st: (-1 + h * gamma) * st.p / (sigma * math.sqrt(h)),
    }
    return rules[choice("EWSG x", kind, rules)]


def _svr(estimator: str, integrator: str):
    def build(p, h, q):
        b = _batch(p, q, "b")
        rep = q.get("replace", True)
        est = (
            SVRG(b, _epoch(p, q, "K", "b"), replace=rep)
            if estimator == "svrg"
            else (SAGA(b, replace=rep) if estimator == "saga" else Minibatch(b, replace=rep))
        )
        cls = integ.SymmetricSplitting if integrator == "split" else integ.SGHMCEuler
        return cls(h, p0=q.get("p0", "zeros"), D=float(q.get("D", 1.0))), est

    return build


def _entries() -> list[AlgorithmSpec]:
    out = [
        AlgorithmSpec(
            "lmc",
            "ALG-LMC",
            "AGLD eq. (3) (Langevin Monte Carlo)",
            "overdamped",
            _overdamped(lambda p, h, q: FullGradient()),
            {},
            ("exact-gradient",),
        ),
        AlgorithmSpec(
            "sgld",
            "ALG-SGLD",
            "AGLD eq. (4); Welling & Teh 2011 (minibatch with replacement)",
            "overdamped",
            _overdamped(lambda p, h, q: Minibatch(_batch(p, q), replace=True)),
            dict(_N_PARAM),
            ("stochastic",),
        ),
        AlgorithmSpec(
            "sgld-wor",
            "ALG-SGLD",
            "AGLD eq. (4) with a without-replacement minibatch",
            "overdamped",
            _overdamped(lambda p, h, q: Minibatch(_batch(p, q), replace=False)),
            dict(_N_PARAM),
            ("stochastic",),
        ),
    ]
    for snap in ("PTU", "PPU", "TMU", "HSAG"):
        for acc in ("RA", "RR", "CA"):
            params = dict(_N_PARAM)
            if snap != "PPU":
                params |= _D_PARAM
            if snap == "HSAG":
                params["saga_set"] = (None, "indices updated SAGA-style; default first N//2")
            params["storage"] = ("auto", "snapshot storage: auto, table, scalar (GLM), point (PTU)")
            strategy = {"PTU": "Strategy 2", "PPU": "Strategy 3", "TMU": "Strategy 4"}.get(
                snap, "HSAG (Reddi et al. 2015), AGLD §3.2 Remark 1"
            )
            out.append(
                AlgorithmSpec(
                    f"{snap.lower()}-{acc.lower()}",
                    "ALG-SNAP" if snap == "HSAG" else "ALG-AGLD-9",
                    f"AGLD Algorithm 1, eqs. (5)-(6); {strategy}; {acc} (§3.1)",
                    "overdamped",
                    _agld(snap, acc),
                    params,
                    ("stochastic", "variance-reduced", "agld", acc.lower()),
                )
            )
    out += [
        AlgorithmSpec(
            "svrg-ld",
            "ALG-SVRG-LD",
            "Dubey et al. 2016 as restated in AGLD §2.2 / SVRHMC §1; estimator of SVRHMC Alg. 1",
            "overdamped",
            _overdamped(lambda p, h, q: SVRG(_batch(p, q), _epoch(p, q), q.get("replace", True))),
            dict(_N_PARAM) | _D_PARAM | {"replace": (True, "minibatch with replacement")},
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "cv-sgld",
            "PEER-CV-SGLD",
            "Baker, Fearnhead, Fox & Nemeth 2019 (Stat. Comput. 29), §3.1 and Algorithm 1 "
            "(SGLD-CV): AGLD eq. (5) with a control variate at a fixed centre",
            "overdamped",
            _overdamped(
                lambda p, h, q: ControlVariate(_batch(p, q), centre=_cv_centre(p, q), replace=True)
            ),
            dict(_N_PARAM)
            | {
                "centre": (
                    None,
                    "fixed control-variate centre θ̂ (d,); default the posterior mode "
                    "(exact for Gaussian problems)",
                )
            },
            ("stochastic", "variance-reduced", "control-variate"),
        ),
        AlgorithmSpec(
            "psgld-fixed",
            "PEER-PSGLD-FIXED",
            "Li, Chen, Carlson & Carin 2016 (AAAI), Algorithm 1 (pSGLD) with G held fixed "
            "(Γ = 0), ε = 2h: θ' = θ − h G ∇̃U + √(2h) G^(1/2) ξ",
            "overdamped",
            lambda p, h, q: (
                integ.PreconditionedEM(h, G=q.get("G", 0.5)),
                Minibatch(_batch(p, q), replace=True),
            ),
            dict(_N_PARAM)
            | {
                "G": (
                    0.5,
                    "fixed preconditioner G: a positive scalar (G·I), a positive diagonal "
                    "(d,) or an SPD (d, d) matrix",
                )
            },
            ("stochastic", "preconditioned"),
        ),
        AlgorithmSpec(
            "saga-ld",
            "ALG-SAGA-LD",
            "Dubey et al. 2016 as restated in AGLD §2.2 / SVRHMC §1; estimator of SVRHMC Alg. 2",
            "overdamped",
            _overdamped(lambda p, h, q: SAGA(_batch(p, q), replace=q.get("replace", True))),
            dict(_N_PARAM) | {"replace": (True, "minibatch with replacement")},
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "ewsg-lmc",
            "ALG-EWSG-LMC",
            "EWSG §4.2 applied to overdamped EM (appendix F not in text; derived as Thm 2)",
            "overdamped",
            _overdamped(
                lambda p, h, q: EWSG(
                    math.sqrt(h / 2),
                    M=int(q.get("M", 1)),
                    b=int(q.get("b", 1)),
                    mode=q.get("mode", "mh"),
                    x=float(q.get("x", 0.0)),
                )
            ),
            {
                "M": (1, "Metropolis index-chain length (eq. (5))"),
                "b": (1, "batch size"),
                "mode": ("mh", "'mh' (Algorithm 1) or 'ideal' (exact eq. (4) weights)"),
                "x": (0.0, "the x used in the weights; 0 is the analogue of x̂ = √h γ r/σ"),
            },
            ("stochastic", "ewsg"),
        ),
        # -- underdamped family -------------------------------------------------------
        AlgorithmSpec(
            "uld-em",
            "ALG-ULD-EM",
            "EWSG eqs. (1), (3): underdamped Langevin, Euler-Maruyama",
            "underdamped",
            lambda p, h, q: (
                integ.ULDEulerMaruyama(
                    h, p0=q.get("p0", "zeros"), gamma=float(q.get("gamma", 1.0))
                ),
                FullGradient(),
            ),
            dict(_ULD_PARAMS),
            ("exact-gradient",),
        ),
        AlgorithmSpec(
            "baoa",
            "PEER-BAOA",
            "Leimkuhler & Matthews 2015, p. 271 (Alg. BAOA): BAOAB's theta-chain, one "
            "gradient per step; posteriors.sgmcmc.baoa",
            "underdamped",
            lambda p, h, q: (
                integ.BAOA(h, p0=q.get("p0", "zeros"), gamma=float(q.get("gamma", 1.0))),
                _sg_gradient(p, h, q),
            ),
            {**_ULD_PARAMS, **_GRAD_PARAMS},
            ("stochastic",),
        ),
        AlgorithmSpec(
            "obabo",
            "PEER-OBABO",
            "Leimkuhler & Matthews 2015, §7 (Alg. OBABO), cut after A: one gradient and "
            "one O(h) per step",
            "underdamped",
            lambda p, h, q: (
                integ.OBABO(h, p0=q.get("p0", "zeros"), gamma=float(q.get("gamma", 1.0))),
                _sg_gradient(p, h, q),
            ),
            {**_ULD_PARAMS, **_GRAD_PARAMS},
            ("stochastic",),
        ),
        AlgorithmSpec(
            "sghmc-ewsg",
            "ALG-SGHMC-EWSG",
            "EWSG §1 footnote: ULD-EM (eq. (3)) with a uniform stochastic gradient",
            "underdamped",
            lambda p, h, q: (
                integ.ULDEulerMaruyama(
                    h, p0=q.get("p0", "zeros"), gamma=float(q.get("gamma", 1.0))
                ),
                Minibatch(int(q.get("b", 1))),
            ),
            dict(_ULD_PARAMS) | {"b": (1, "minibatch size (EWSG uses 1)")},
            ("stochastic",),
        ),
        AlgorithmSpec(
            "ewsg",
            "ALG-EWSG",
            "EWSG Algorithm 1, eqs. (4)-(5), §4.3 (x̂ = √h γ r_k/σ), §5.1 (alternatives of x)",
            "underdamped",
            lambda p, h, q: (
                integ.ULDEulerMaruyama(
                    h, p0=q.get("p0", "zeros"), gamma=float(q.get("gamma", 1.0))
                ),
                EWSG(
                    math.sqrt(h) / math.sqrt(2 * float(q.get("gamma", 1.0))),
                    M=int(q.get("M", 1)),
                    b=int(q.get("b", 1)),
                    mode=q.get("mode", "mh"),
                    x_rule=_ewsg_x_rule(q.get("x", "hat"), h, float(q.get("gamma", 1.0))),
                ),
            ),
            dict(_ULD_PARAMS)
            | {
                "M": (1, "Metropolis index-chain length (eq. (5)); 0 is uniform SG"),
                "b": (1, "batch size (appendix E, reconstructed)"),
                "mode": ("mh", "'mh' (Algorithm 1) or 'ideal' (exact eq. (4) weights)"),
                "x": ("hat", "'hat' √hγr/σ (§4.3), 'zero', 'one', 'alt' (−1+hγ)r/(σ√h) (§5.1)"),
            },
            ("stochastic", "ewsg"),
        ),
        AlgorithmSpec(
            "sghmc-chen",
            "ALG-SGHMC-CHEN",
            "SGNHT eq. (3) (Chen et al. 2014), discretised as SGNHT Algorithm 1 with ξ = A",
            "underdamped",
            lambda p, h, q: (
                integ.SGHMCChen(
                    h, p0=q.get("p0", "zeros"), A=float(q.get("A", 1.0)), B_hat=q.get("B_hat", 0.0)
                ),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "friction A"),
                "B_hat": (0.0, "noise estimate B̂ (scalar or matrix); A·I − B̂ ⪰ 0"),
                "p0": ("zeros", "initial momentum: 'zeros' or 'normal'"),
            },
            ("stochastic",),
        ),
        AlgorithmSpec(
            "sghmc-refresh",
            "PEER-SGHMC-REFRESH",
            "Chen, Fox & Guestrin 2014 (ICML), Algorithm 2 with M = I, C = A and the optional "
            "momentum resampling every L steps; observed as sghmc-chen (SGNHT Alg. 1 order); "
            "at fixed L not consistent as h → 0 (temperature L/(L − 1))",
            "underdamped",
            lambda p, h, q: (
                integ.SGHMCRefresh(
                    h,
                    p0=q.get("p0", "zeros"),
                    A=float(q.get("A", 1.0)),
                    B_hat=q.get("B_hat", 0.0),
                    L=q.get("L", 10),
                ),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "friction A (Chen et al.'s C)"),
                "B_hat": (0.0, "noise estimate B̂ (scalar or matrix); A·I − B̂ ⪰ 0"),
                "L": (10, "steps per momentum refresh p ~ N(0, I) (Algorithm 2's m)"),
                "p0": ("zeros", "initial momentum (replaced by the first refresh)"),
            },
            ("stochastic", "periodic"),
            # Over one period θ moves Σ_k h p_k = Lh p₀ − h²∇U·L(L−1)/2 + o(h²) (θ is updated
            # before p, Algorithm 2's inner loop): diffusion L²h² against drift h²L(L−1)/2,
            # i.e. exp(−U·(L−1)/L) as h → 0 at fixed L.  L = 1 never sees the gradient.
            limit_temperature=lambda q: (
                math.inf if int(q["L"]) <= 1 else int(q["L"]) / (int(q["L"]) - 1)
            ),
        ),
        AlgorithmSpec(
            "sgnht",
            "ALG-SGNHT",
            "SGNHT Algorithm 1, eqs. (5)-(6)",
            "thermostat",
            lambda p, h, q: (
                integ.SGNHT(h, A=float(q.get("A", 1.0)), xi0=q.get("xi0")),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "injected diffusion A ≥ 0"),
                "xi0": (None, "initial ξ; default A (Algorithm 1)"),
            },
            ("stochastic", "thermostat"),
        ),
        AlgorithmSpec(
            "sgnht-2",
            "ALG-SGNHT-2",
            "SGNHT §5.2: Algorithm 1 with u = ph, η = h², α = ξh, a = Ah (Alg. 2 derived)",
            "thermostat",
            lambda p, h, q: (
                integ.SGNHTReparam(
                    h * h,
                    a=float(q.get("A", 1.0)) * h,
                    alpha0=None if q.get("xi0") is None else float(q["xi0"]) * h,
                ),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "injected diffusion A ≥ 0 (a = Ah)"),
                "xi0": (None, "initial ξ (α_0 = ξ_0 h); default A"),
            },
            ("stochastic", "thermostat"),
        ),
        AlgorithmSpec(
            "sgnht-mat",
            "ALG-SGNHT-MAT",
            "SGNHT §4.2 eq. (11): matrix thermostat Ξ",
            "thermostat",
            lambda p, h, q: (
                integ.SGNHTMatrix(
                    h, A=q.get("A", 1.0), mu=float(q.get("mu", 1.0)), Xi0=q.get("Xi0")
                ),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "injected diffusion (scalar or PSD matrix)"),
                "mu": (1.0, "thermostat mass μ"),
                "Xi0": (None, "initial Ξ; default A"),
            },
            ("stochastic", "thermostat"),
        ),
        AlgorithmSpec(
            "badodab",
            "PEER-BADODAB",
            "Leimkuhler & Shang 2016 (SIAM J. Sci. Comput. 38(2), A712-A736), Alg. BADODAB: "
            "the adaptive Langevin thermostat by the splitting B-A-D-O-D-A-B, σ_A² = 2A, M = I; "
            "the two half kicks around each θ share one gradient (as BAOA for BAOAB)",
            "thermostat",
            lambda p, h, q: (
                integ.BADODAB(
                    h, A=float(q.get("A", 1.0)), mu=float(q.get("mu", 1.0)), xi0=q.get("xi0")
                ),
                _sg_gradient(p, h, q),
            ),
            dict(_GRAD_PARAMS)
            | {
                "A": (1.0, "injected diffusion A = σ_A²/2 ≥ 0"),
                "mu": (1.0, "thermostat mass μ"),
                "xi0": (None, "initial ξ; default A"),
            },
            ("stochastic", "thermostat", "splitting"),
        ),
        AlgorithmSpec(
            "sghmc-svr",
            "ALG-SGHMC-SVR",
            "SVRHMC §2 eqs. (1)-(2) with a uniform minibatch",
            "underdamped",
            _svr("minibatch", "euler"),
            dict(_SVR_PARAMS),
            ("stochastic",),
        ),
        AlgorithmSpec(
            "svrg-hmc",
            "ALG-SVRG-HMC",
            "SVRHMC Algorithm 1",
            "underdamped",
            _svr("svrg", "euler"),
            dict(_SVR_PARAMS) | _K_PARAM,
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "saga-hmc",
            "ALG-SAGA-HMC",
            "SVRHMC Algorithm 2",
            "underdamped",
            _svr("saga", "euler"),
            dict(_SVR_PARAMS),
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "svrg2-hmc",
            "ALG-SVRG2-HMC",
            "SVRHMC Algorithm 3, eqs. (12)-(18) (SVRG2nd-HMC; line 9's p_t read as p_{tK+k})",
            "underdamped",
            _svr("svrg", "split"),
            dict(_SVR_PARAMS) | _K_PARAM,
            ("stochastic", "variance-reduced", "splitting"),
        ),
        AlgorithmSpec(
            "saga2-hmc",
            "ALG-SAGA2-HMC",
            "SVRHMC Algorithm 4, eqs. (12)-(18) (SAGA2nd-HMC; snapshot at the first θ + h/2 p)",
            "underdamped",
            _svr("saga", "split"),
            dict(_SVR_PARAMS),
            ("stochastic", "variance-reduced", "splitting"),
        ),
    ]
    return out


#: Every algorithm, by name.
ALGORITHMS: dict[str, AlgorithmSpec] = {a.name: a for a in _entries()}


def names(family: str | None = None) -> list[str]:
    """Registry names, optionally only those of one family."""
    return [n for n, a in ALGORITHMS.items() if family is None or a.family == family]


def get(name: str) -> AlgorithmSpec:
    """The registry entry for ``name`` (``ValueError`` with a suggestion if unknown)."""
    return ALGORITHMS[choice("algorithm", name, ALGORITHMS)]


def make_sampler(name: str, problem: Problem, *, h: float, **params: Any) -> Sampler:
    """Bind algorithm ``name`` to ``problem`` with step size ``h`` and parameters.

    Unknown parameter names and invalid values raise ``ValueError`` before any work.
    """
    spec = get(name)
    if not isinstance(problem, Problem):
        # anything else fails later inside a builder with an AttributeError
        raise TypeError(
            f"problem must be a sgmcmc_verify Problem (e.g. sgmcmc_verify.problems.get(...)), "
            f"got {type(problem).__name__}"
        )
    h = positive("h", h)
    unknown = set(params) - set(spec.params)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)} for {name}; "
            f"accepted: {sorted(spec.params) or 'none'}"
        )
    integrator, estimator = spec.build(problem, h, params)
    return Sampler(name, problem, integrator, estimator)
