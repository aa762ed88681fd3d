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

from ._validation import choice, positive
from .access import make_access
from .algorithms import Sampler
from .estimators import AGLD, EWSG, SAGA, SVRG, Estimator, FullGradient, Minibatch
from .problems.base import Problem
from .snapshots import make_snapshot

__all__ = ["ALGORITHMS", "AlgorithmSpec", "get", "make_sampler", "names"]


def _batch(problem: Problem, params: Mapping[str, Any]) -> int:
    return int(params.get("n", min(10, problem.N)))


def _epoch(problem: Problem, params: Mapping[str, Any]) -> int:
    """Default epoch length ``D = ⌈N/n⌉`` (one data pass; SVRHMC §5 uses K = n/b)."""
    return int(params.get("D", math.ceil(problem.N / _batch(problem, params))))


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
        ``"overdamped"`` for now.
    build : callable
        ``build(problem, h, params) -> Estimator``.
    params : dict
        Parameter names and their defaults, with a description; ``None`` marks a
        default computed from the problem (documented in the description).
    marks : tuple of str
        Test marks, e.g. ``("stochastic", "variance-reduced")``.
    """

    name: str
    alg_id: str
    citation: str
    family: str
    build: Callable[[Problem, float, Mapping[str, Any]], Estimator]
    params: dict[str, tuple[Any, str]] = field(default_factory=dict)
    marks: tuple[str, ...] = ()

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


def _agld(snapshot: str, access: str) -> Callable[[Problem, float, Mapping[str, Any]], Estimator]:
    def build(problem, h, params):
        n = _batch(problem, params)
        snap = make_snapshot(
            snapshot, D=_epoch(problem, params), saga_set=params.get("saga_set"), N=problem.N
        )
        return AGLD(make_access(access, n), snap, storage=params.get("storage", "auto"))

    return build


def _entries() -> list[AlgorithmSpec]:
    out = [
        AlgorithmSpec(
            "lmc",
            "ALG-LMC",
            "AGLD eq. (3) (Langevin Monte Carlo)",
            "overdamped",
            lambda p, h, q: FullGradient(),
            {},
            ("exact-gradient",),
        ),
        AlgorithmSpec(
            "sgld",
            "ALG-SGLD",
            "AGLD eq. (4); Welling & Teh 2011 (minibatch with replacement)",
            "overdamped",
            lambda p, h, q: Minibatch(_batch(p, q), replace=True),
            dict(_N_PARAM),
            ("stochastic",),
        ),
        AlgorithmSpec(
            "sgld-wor",
            "ALG-SGLD",
            "AGLD eq. (4) with a without-replacement minibatch",
            "overdamped",
            lambda p, h, q: Minibatch(_batch(p, q), replace=False),
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
            lambda p, h, q: SVRG(_batch(p, q), _epoch(p, q), replace=q.get("replace", True)),
            dict(_N_PARAM) | _D_PARAM | {"replace": (True, "minibatch with replacement")},
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "saga-ld",
            "ALG-SAGA-LD",
            "Dubey et al. 2016 as restated in AGLD §2.2 / SVRHMC §1; estimator of SVRHMC Alg. 2",
            "overdamped",
            lambda p, h, q: SAGA(_batch(p, q), replace=q.get("replace", True)),
            dict(_N_PARAM) | {"replace": (True, "minibatch with replacement")},
            ("stochastic", "variance-reduced"),
        ),
        AlgorithmSpec(
            "ewsg-lmc",
            "ALG-EWSG-LMC",
            "EWSG §4.2 applied to overdamped EM (appendix F not in text; derived as Thm 2)",
            "overdamped",
            lambda p, h, q: EWSG(
                math.sqrt(h / 2),
                M=int(q.get("M", 1)),
                b=int(q.get("b", 1)),
                mode=q.get("mode", "mh"),
                x=float(q.get("x", 0.0)),
            ),
            {
                "M": (1, "Metropolis index-chain length (eq. (5))"),
                "b": (1, "batch size"),
                "mode": ("mh", "'mh' (Algorithm 1) or 'ideal' (exact eq. (4) weights)"),
                "x": (0.0, "the x used in the weights; 0 is the analogue of x̂ = √h γ r/σ"),
            },
            ("stochastic", "ewsg"),
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

    Unknown parameter names raise ``ValueError`` before any work.
    """
    spec = get(name)
    h = positive("h", h)
    unknown = set(params) - set(spec.params)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)} for {name}; "
            f"accepted: {sorted(spec.params) or 'none'}"
        )
    return Sampler(name, problem, h, spec.build(problem, h, params), spec.family)
