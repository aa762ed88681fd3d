"""X-INV's exact part: the law of a registry implementation, read off its own step by probing.

On a Gaussian-quadratic target a linear SG-MCMC step is, for each fixed draw of its
data indices and at each phase of its snapshot epoch, an affine map of its *whole* float
state (θ, p, snapshot tables or points and their sums) and of the Gaussian noise it is
given.  :func:`probed_chain` reads those maps off the implementation's own
:meth:`~sgmcmc_verify.algorithms.Sampler.step` with
:func:`sgmcmc_verify.exact.probe.probe_chain` (which also verifies affinity on random
states), for every index set the scheme's access law can draw at every phase; averaged
over that law they are an :class:`~sgmcmc_verify.exact.moments.AffineChain` whose
transient and stationary moments are exact.  They are compared with the law derived
independently from the papers' equations (:func:`exact_law`): the moment equations of
:mod:`sgmcmc_verify.exact.moments` (AGLD Algorithm 1, SVRHMC Algorithms 1–2), the
splitting chains of :func:`sgmcmc_verify.claims.rates.split_chain` (SVRHMC Algorithms
3–4), or the Lyapunov solve of :func:`sgmcmc_verify.exact.linear.algorithm_moments`.

What probing with passed-in randomness cannot see — how the sampler *draws* its indices
and noise — is left to the Monte Carlo cross-check in :mod:`sgmcmc_verify.claims.cross`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from ..algorithms import StepRandomness
from ..exact import linear, moments, probe
from ..problems import GaussianQuadratic, gaussian_differing, gaussian_identical
from ..validation.targets import PRIOR_MEAN, PRIOR_PRECISION, problem_step
from .rates import split_chain

__all__ = [
    "Law",
    "Setting",
    "exact_law",
    "implementation_law",
    "law_gap",
    "probed_chain",
    "rounding_ops",
    "rounding_scale",
    "setting",
]

#: N = 4, d = 2 with identical (correlated) curvatures and the harness's Gaussian prior: the
#: minibatch noise is state-independent, so the Lyapunov solve covers minibatch
#: BAOA/OBABO/SGHMC-EWSG.
_PI = dict(N=4, d=2, precision=np.array([[1.0, 0.3], [0.3, 0.8]]), spread=1.0)
#: Single correlated 2-D data term: EWSG's index law is trivial (one index, weight 1).
_P2 = GaussianQuadratic(
    np.zeros((1, 2)), np.array([[[1.0, 0.5], [0.5, 1.0]]]), name="gauss-2d-corr-N1"
)

#: Batch of two (RA multisets, RR/CA passes of two steps), non-unit frictions.
_AGLD = {"n": 2}
_SVRHMC = {"b": 2, "D": 1.5}


@dataclass(frozen=True)
class Setting:
    """How one registry algorithm's exact law is derived.

    Attributes
    ----------
    problem : GaussianQuadratic
    params : dict
        Registry parameters (batch ≥ 2 where there is one, non-unit friction).
    source : str
        Where the independent law comes from.
    kind : {"moments", "split", "lyapunov"}
        Moment equations, splitting chain (both transient and stationary) or Lyapunov
        solve (stationary only).
    """

    problem: GaussianQuadratic
    params: dict[str, Any]
    source: str
    kind: str


@functools.cache
def _problems() -> dict[str, GaussianQuadratic]:
    """The harness's non-degenerate problem (:func:`~sgmcmc_verify.validation.targets.
    problem_step`: d = 2, rotated differing curvatures, shifted centres, correlated prior —
    a wrong N/n, prior weight, friction or table entry changes the law), and its
    identical-curvature counterpart with the same prior."""
    gi = gaussian_identical(**_PI)
    identical = GaussianQuadratic(
        gi.centres,
        gi.precisions,
        prior_precision=PRIOR_PRECISION,
        prior_mean=PRIOR_MEAN,
        name="gauss-N4-d2-identical-prior",
    )
    # the splitting chains (rates.split_chain) leave the prior out: flat prior for them
    flat = gaussian_differing(N=4, d=2, curvature_spread=1.5, seed=1)
    return {"differing": problem_step(), "identical": identical, "flat": flat}  # fmt: skip


def setting(name: str) -> Setting:
    """The comparison setting of registry ``name``.

    Raises
    ------
    KeyError
        For an algorithm this module has no independent law for (a thermostat, or an
        algorithm added to the registry since): X-INV must fail loudly, not skip it.
    """
    pd, pi = _problems()["differing"], _problems()["identical"]
    if name in ("svrg2-hmc", "saga2-hmc"):  # split_chain has no prior term: a flat prior
        return Setting(_problems()["flat"], dict(_SVRHMC), "moment equations of the "
                       "splitting (SVRHMC Algorithms 3-4, rates.split_chain)", "split")  # fmt: skip
    if name in moments.SUPPORTED:
        if name == "lmc":
            params: dict[str, Any] = {}
        elif name in ("sghmc-svr", "svrg-hmc", "saga-hmc"):
            params = dict(_SVRHMC)
        else:
            params = dict(_AGLD)
        return Setting(pd, params, f"moment equations ({moments.SUPPORTED[name]})", "moments")
    lyap = {
        "uld-em": (pd, {"gamma": 0.7}),
        "sghmc-chen": (pd, {"gradient": "injected", "B": 0.5, "B_hat": 0.5, "A": 1.5}),
        "baoa": (pi, {"n": 2, "gamma": 0.7}),
        "obabo": (pi, {"n": 2, "gamma": 0.7}),
        "sghmc-ewsg": (pi, {"b": 2, "gamma": 0.7}),
        "ewsg": (_P2, {"gamma": 0.7}),
        "ewsg-lmc": (_P2, {}),
    }
    if name not in lyap:
        raise KeyError(
            f"X-INV has no independent exact law for {name!r}: add its setting to "
            "sgmcmc_verify.claims._inv_exact.setting (or, if its chain is not affine, "
            "a check of its own in cross.check_inv)"
        )
    problem, params = lyap[name]
    note = "; one data term (every estimator exact)" if problem is _P2 else ""
    return Setting(problem, params, f"Lyapunov solve (exact.linear){note}", "lyapunov")


@dataclass(frozen=True)
class Law:
    """Public-state law (θ, and p for underdamped schemes): transient and/or stationary.

    ``mean[j]``/``cov[j]`` after ``steps[j]`` iterations (``steps`` empty when only the
    stationary law is known); ``stat_mean``/``stat_cov`` the stationary law at phase 0
    (``None`` when not computed: an implementation whose state carries a conserved
    redundancy, e.g. a table and its sum, has no unique stationary point, and is compared
    on transients); ``rho`` the spectral radius of the moment map; ``nz`` the dimension of
    the affine state.
    """

    steps: tuple[int, ...]
    mean: np.ndarray
    cov: np.ndarray
    stat_mean: np.ndarray | None
    stat_cov: np.ndarray | None
    rho: float
    nz: int


def _from_chain(chain, m: int, steps, *, stationary: bool, z0=None, theta0=None) -> Law:
    kw = {"z0": z0} if z0 is not None else {"theta0": theta0}
    tr = moments.transient_moments(chain, list(steps), **kw) if steps else None
    mean = tr.state_mean[:, :m] if tr is not None else np.zeros((0, m))
    cov = tr.state_cov[:, :m, :m] if tr is not None else np.zeros((0, m, m))
    if not stationary:
        return Law(tuple(steps), mean, cov, None, None, math.nan, chain.nz)
    st = moments.stationary_moments(chain)
    return Law(tuple(steps), mean, cov, st.state_mean[0, :m], st.state_cov[0, :m, :m],
               float(st.spectral_radius), chain.nz)  # fmt: skip


def _public_size(name: str, problem: GaussianQuadratic) -> int:
    """Dimension of the compared state: θ, and p for underdamped schemes."""
    return problem.d * (2 if registry.get(name).family == "underdamped" else 1)


def exact_law(name: str, h: float, steps: tuple[int, ...], theta0: np.ndarray) -> Law:
    """The independently derived law of registry ``name`` in its :func:`setting`."""
    s = setting(name)
    m = _public_size(name, s.problem)
    if s.kind in ("moments", "split"):  # compared on transients (see implementation_law)
        chain = (
            moments.affine_chain(name, s.problem, h=h, **s.params)
            if s.kind == "moments"
            else split_chain(name[:4], s.problem, h=h, **s.params)
        )
        return _from_chain(chain, m, steps, stationary=not steps, theta0=theta0)
    sm = linear.algorithm_moments(name, s.problem, h, **s.params)
    mean, cov = np.asarray(sm.mean)[:m], np.asarray(sm.cov)[:m, :m]
    return Law((), np.zeros((0, m)), np.zeros((0, m, m)), mean, cov,
               float(sm.spectral_radius), m)  # fmt: skip


# --------------------------------------------------------------------------------------
# Probing a Sampler
# --------------------------------------------------------------------------------------


def _leaves(tree: Any, path: tuple[str, ...] = ()):
    """``(path, value)`` of every leaf of a NamedTuple tree (the samplers' states)."""
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        for f in tree._fields:
            yield from _leaves(getattr(tree, f), (*path, f))
    else:
        yield path, tree


def _replace(tree: Any, path: tuple[str, ...], value: Any) -> Any:
    if not path:
        return value
    return tree._replace(**{path[0]: _replace(getattr(tree, path[0]), path[1:], value)})


def _is_float_leaf(v: Any, chains: int) -> bool:
    return (
        isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.ndim >= 1 and v.shape[0] == chains
    )


def _access_sets(access: moments.AccessLaw, period: int) -> list[list[tuple[int, ...]]]:
    """Index sets the access law can draw at each phase ``0..period−1`` (breadth first)."""
    states, out = {access.initial}, []
    for _ in range(period):
        sets, nxt = {}, set()
        for a in states:
            for _, S, a2 in access.transitions(a):
                sets[tuple(S)] = None
                nxt.add(a2)
        out.append(list(sets))
        states = nxt
    return out


def probed_chain(sampler, name: str, h: float, theta0: np.ndarray):
    """The implementation's exact chain, probed: ``(AffineChain, z0, calls)``.

    The sampler's state tree is split into its float arrays (the affine state ``z``,
    ``theta`` then ``p`` first) and the rest (counters, access state), held fixed; an
    integer counter ``k`` is set to the phase.  The index sets and the period are those
    of the scheme's access law (:func:`sgmcmc_verify.exact.moments.affine_chain`'s, or
    i.i.d. uniform batches for the minibatch schemes): the sampler's own *draw* of them is
    not probed.

    Raises
    ------
    sgmcmc_verify.exact.probe.NotAffineError
        The step is not affine in (state, noise) for fixed indices.
    ValueError
        A periodic scheme whose state has no counter ``k`` to set the phase, or random
        draws that are neither indices nor Gaussian noise on ``N > 1`` data.
    """
    s = setting(name)
    problem, d = s.problem, s.problem.d
    rng = np.random.default_rng(0)

    @functools.cache
    def template(rows: int):
        st = sampler.init(np.tile(theta0, (rows, 1)), rng)
        rand, _ = sampler.draw(st, np.random.default_rng(1))
        return st, rand

    st1, rand1 = template(1)
    float_paths = [p for p, v in _leaves(st1) if _is_float_leaf(v, 1)]
    keys = ["/".join(p) for p in float_paths]
    est = rand1.est
    indexed = isinstance(est, np.ndarray) and est.dtype.kind in "iu"
    injected = isinstance(est, np.ndarray) and est.dtype.kind == "f"
    if not (est is None or indexed or injected) and problem.N != 1:
        raise ValueError(
            f"{name}: its random draw {type(est).__name__} is neither indices nor Gaussian "
            "noise; probing holds it fixed, which is exact only for one data term"
        )
    m = rand1.noise.shape[1] + (est.shape[1] if injected else 0)
    # access law and period
    if s.kind in ("moments", "split"):
        ref = (
            moments.affine_chain(name, problem, h=h, **s.params)
            if s.kind == "moments"
            else split_chain(name[:4], problem, h=h, **s.params)
        )
        access, period = ref.access, ref.period
    else:
        access, period = None, 1
    phase_paths = [p for p, v in _leaves(st1) if p[-1] == "k" and isinstance(v, int | np.integer)]
    if period > 1 and not phase_paths:
        raise ValueError(f"{name}: period {period} but no iteration counter k in its state")
    if not indexed:
        if period != 1:
            raise ValueError(f"{name}: a periodic chain without data indices is not covered")
        access = None
    if access is not None and indexed:
        sets = _access_sets(access, period)
        laws = [tuple((S, 1.0 / len(ss)) for S in ss) for ss in sets]
    elif indexed:
        replace = getattr(sampler.estimator, "replace", None)
        if replace is None:
            raise ValueError(f"{name}: indexed estimator without a 'replace' attribute")
        laws = [probe.index_law(problem.N, est.shape[1], replace=bool(replace))]
    else:
        laws = [probe.index_law(problem.N, None)] * period

    def step_at(phase: int):
        def step(state, *, h, noise, indices, **_):
            rows = noise.shape[0]
            st, rand = template(rows)
            for p, key in zip(float_paths, keys, strict=True):
                st = _replace(st, p, np.asarray(state[key], dtype=np.float64).reshape(
                    _path_get(st, p).shape))  # fmt: skip
            for p in phase_paths:
                st = _replace(st, p, phase)
            nd = rand.noise.shape[1]
            if injected:
                r = StepRandomness(noise[:, nd:], noise[:, :nd])
            elif indexed:
                r = StepRandomness(np.ascontiguousarray(indices), noise)
            else:
                r = StepRandomness(rand.est, noise)
            new, _ = sampler.step(st, r)
            return {key: _path_get(new, p).reshape(rows, -1)
                    for p, key in zip(float_paths, keys, strict=True)}  # fmt: skip

        return step

    tmpl = {key: _path_get(st1, p).reshape(1, -1) for p, key in zip(float_paths, keys,
            strict=True)}  # fmt: skip
    maps, calls, layout = [], 0, None
    for j in range(period):
        pc = probe.probe_chain(step_at(j), tmpl, h=h, law=laws[j % len(laws)], noise_dim=m)
        maps.append(pc.maps)
        calls += pc.calls
        layout = pc.layout
    assert layout is not None
    if access is None:
        law = laws[0]
        trans = tuple((p, S, None) for S, p in law)
        access = moments.AccessLaw("probed", None, 1, lambda a: trans)
    chain = moments.AffineChain(
        description=f"{name} implementation, probed at h = {h:g}",
        problem=problem,
        h=h,
        d=d,
        labels=layout.labels(),
        period=period,
        access=access,
        step=lambda S, phase: maps[phase % period][S if S is None else tuple(S)],
    )
    z0 = layout.flatten(tmpl)[0]
    return chain, z0, calls


def _path_get(tree: Any, path: tuple[str, ...]) -> Any:
    """The leaf at ``path`` of a NamedTuple tree."""
    for f in path:
        tree = getattr(tree, f)
    return tree


def implementation_law(
    make: Callable[..., Any], name: str, h: float, steps, theta0
) -> tuple[Law, int]:
    """The probed law of ``make(name, problem, h=h, **params)`` in :func:`setting`."""
    s = setting(name)
    sampler = make(name, s.problem, h=h, **s.params)
    chain, z0, calls = probed_chain(sampler, name, h, theta0)
    m = _public_size(name, s.problem)
    # transient-law schemes are compared on transients (a table and its sum make the
    # implementation's moment map singular at 1); Lyapunov schemes on the stationary law
    # (their transient is still computed: the Monte Carlo cross-check's target)
    law = _from_chain(chain, m, steps, stationary=s.kind == "lyapunov", z0=z0)
    return law, calls


def law_gap(a: Law, b: Law) -> float:
    """Largest absolute difference of the public laws, over everything both laws have."""
    gaps = []
    if a.stat_mean is not None and b.stat_mean is not None:
        gaps += [np.abs(a.stat_mean - b.stat_mean).max(), np.abs(a.stat_cov - b.stat_cov).max()]
    if a.steps and a.steps == b.steps:
        gaps += [np.abs(a.mean - b.mean).max(), np.abs(a.cov - b.cov).max()]
    if not gaps:
        raise ValueError("the two laws share neither transient steps nor a stationary law")
    return float(max(gaps))


def rounding_scale(law: Law) -> float:
    """Magnitude of the second moments the recursion carries: ``1 + max|Σ| + max|m|²``.

    The moment equations propagate ``E[z̃ z̃ᵀ]`` (mean products included) and the
    covariance is recovered as ``E[zzᵀ] − m mᵀ``, so rounding scales with ``|m|²`` too.
    """
    if law.steps:
        cov, mean = law.cov, law.mean
    else:
        cov, mean = law.stat_cov, law.stat_mean
    return 1.0 + float(np.abs(cov).max()) + float(np.abs(mean).max()) ** 2


def rounding_ops(law: Law) -> int:
    """Operations a float64 error can accumulate over, for :func:`decide.rounding_tolerance`.

    The moment map acts on ``(nz + 1)²`` second moments, each entry a sum of
    ``(nz + 1)²`` products; the stationary law is its fixed point, i.e. the sum of a
    geometric series whose terms decay like ``ρ^k`` (``1/(1 − ρ)`` terms), and the
    transient law at step ``t`` has ``t`` applications.
    """
    per_map = (law.nz + 1) ** 2
    terms = max(law.steps, default=1)
    if law.stat_mean is not None:
        terms = max(terms, math.ceil(1.0 / (1.0 - law.rho)))
    return per_map * terms
