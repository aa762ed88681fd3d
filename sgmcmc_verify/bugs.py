"""Planted bugs: realistic variants of correct samplers, to show that checks have power.

Each function takes a correct :class:`~sgmcmc_verify.algorithms.Sampler` and returns
one with a single, realistic mistake; drive it with
:func:`sgmcmc_verify.run_sampler`.  The tests use them to show that every kind of
check rejects a buggy implementation (DESIGN.md, "Power matters as much as size").
"""

from __future__ import annotations

import copy
import dataclasses
import math
from typing import Any

from .algorithms import Sampler
from .estimators import _stamp_room

__all__ = [
    "CATALOGUE",
    "HalfNoise",
    "bhat_ignored",
    "half_noise",
    "saga_refresh_before_use",
    "splitting_missing_decay",
]


class HalfNoise:
    """An integrator whose Gaussian noise is scaled by 1/√2.

    For Euler–Maruyama this is the bug "√h in place of √(2h)"; for SGHMC "√(Dh) in
    place of √(2Dh)".  All other attributes are the wrapped integrator's.
    """

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def advance(self, state, grad, noise):
        return self.inner.advance(state, grad, noise / math.sqrt(2))


def half_noise(sampler: Sampler) -> Sampler:
    """``sampler`` with its integrator's noise scaled by 1/√2 (:class:`HalfNoise`)."""
    return dataclasses.replace(sampler, integrator=HalfNoise(sampler.integrator))


class _SagaRefreshFirst:
    """SAGA whose table is refreshed *before* the estimate uses it (SVRHMC Alg. 2 lines 7, 10
    swapped): the estimate then collapses to ``g`` with the batch entries at θ, a biased
    estimator."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def estimate(self, problem, theta, state, rand, context=None):
        _, cache = self.inner.estimate(problem, theta, state, rand, context)
        state = self.inner.update(problem, state, theta, theta, rand, cache)
        return self.inner.estimate(problem, theta, state, rand, context)

    def update(self, problem, state, x, x_next, rand, cache):
        return state  # already refreshed


def saga_refresh_before_use(sampler: Sampler) -> Sampler:
    """``sampler`` (a SAGA-based algorithm) with its table refreshed before use."""
    return dataclasses.replace(sampler, estimator=_SagaRefreshFirst(sampler.estimator))


class _MissingDecay:
    """Symmetric splitting without the second ``e^{−Dh/2}`` (SVRHMC eq. (15) dropped)."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def advance(self, state, grad, noise):
        h, decay = self.inner.h, math.exp(-self.inner.D * self.inner.h / 2)
        theta1 = state.theta + 0.5 * h * state.p
        p = decay * state.p - h * grad + math.sqrt(2 * self.inner.D * h) * noise
        return state._replace(theta=theta1 + 0.5 * h * p, p=p)


def splitting_missing_decay(sampler: Sampler) -> Sampler:
    """``sampler`` (a splitting algorithm) with eq. (15)'s ``e^{−Dh/2}`` missing."""
    return dataclasses.replace(sampler, integrator=_MissingDecay(sampler.integrator))


def bhat_ignored(sampler: Sampler) -> Sampler:
    """SGHMC-Chen injecting ``N(0, 2Ah)`` instead of ``N(0, 2(A − B̂)h)``: B̂ ignored."""
    return dataclasses.replace(
        sampler, integrator=dataclasses.replace(sampler.integrator, B_hat=0.0)
    )


# ---------------------------------------------------------------------------------------------
# The catalogue of issue 7: realistic single mistakes across the families
# ---------------------------------------------------------------------------------------------


class _Wrap:
    """Delegate everything to ``inner`` except the methods given as keyword functions."""

    def __init__(self, inner: Any, **methods: Any):
        self.inner = inner
        self._methods = methods

    def __getattr__(self, item: str) -> Any:
        methods = self.__dict__.get("_methods", {})
        if item in methods:
            return lambda *a, **k: methods[item](self.inner, *a, **k)
        return getattr(self.inner, item)


def _integ(sampler: Sampler, advance) -> Sampler:
    return dataclasses.replace(sampler, integrator=_Wrap(sampler.integrator, advance=advance))


def _est(sampler: Sampler, **methods: Any) -> Sampler:
    return dataclasses.replace(sampler, estimator=_Wrap(sampler.estimator, **methods))


def noise_scale_h(sampler: Sampler) -> Sampler:
    """Noise ``√2·h·ξ`` in place of ``√(2h)·ξ`` (``sqrt(2) * h`` typed for ``sqrt(2 * h)``)."""
    h = sampler.h
    return _integ(sampler, lambda inner, s, g, z: inner.advance(s, g, z * math.sqrt(h)))


def missing_n_over_n(sampler: Sampler) -> Sampler:
    """Minibatch sum not scaled by ``N/n``: the data gradient is ``Σ_{i∈S} ∇f_i``."""

    def estimate(inner, problem, theta, state, rand, context=None):
        g, cache = inner.estimate(problem, theta, state, rand, context)
        prior = problem.prior_grad(theta)
        return prior + (g - prior) * (rand.shape[1] / problem.N), cache

    return _est(sampler, estimate=estimate)


def minibatch_mean(sampler: Sampler) -> Sampler:
    """Minibatch *mean* ``(1/n) Σ_{i∈S} ∇f_i``: the factor ``N`` is missing."""

    def estimate(inner, problem, theta, state, rand, context=None):
        g, cache = inner.estimate(problem, theta, state, rand, context)
        prior = problem.prior_grad(theta)
        return prior + (g - prior) / problem.N, cache

    return _est(sampler, estimate=estimate)


def gradient_ascent(sampler: Sampler) -> Sampler:
    """The gradient enters with the wrong sign (``θ + h g``: log-density gradient confusion)."""

    def estimate(inner, problem, theta, state, rand, context=None):
        g, cache = inner.estimate(problem, theta, state, rand, context)
        return -g, cache

    return _est(sampler, estimate=estimate)


def float32_arithmetic(sampler: Sampler) -> Sampler:
    """The step computed in float32 (state and gradient cast down), returned as float64."""
    import numpy as np

    def advance(inner, state, grad, noise):
        s32 = state._replace(**{f: np.asarray(getattr(state, f), np.float32) for f in ("theta",)})
        if hasattr(state, "p"):
            s32 = s32._replace(p=np.asarray(state.p, np.float32))
        new = inner.advance(s32, grad.astype(np.float32), noise.astype(np.float32))
        out = new._replace(theta=np.asarray(new.theta, np.float32).astype(np.float64))
        if hasattr(new, "p"):
            out = out._replace(p=np.asarray(new.p, np.float32).astype(np.float64))
        return out

    return _integ(sampler, advance)


def friction_wrong_sign(sampler: Sampler) -> Sampler:
    """SGHMC-Euler with ``(1 + Dh) p`` in place of ``(1 − Dh) p`` (SVRHMC eq. (1))."""

    def advance(inner, state, grad, noise):
        h, D = inner.h, inner.D
        p = (1 + D * h) * state.p - h * grad + math.sqrt(2 * D * h) * noise
        return state._replace(theta=state.theta + h * p, p=p)

    return _integ(sampler, advance)


def friction_missing_h(sampler: Sampler) -> Sampler:
    """SGHMC-Euler with ``(1 − D) p`` in place of ``(1 − Dh) p``: the factor h is missing."""

    def advance(inner, state, grad, noise):
        h, D = inner.h, inner.D
        p = (1 - D) * state.p - h * grad + math.sqrt(2 * D * h) * noise
        return state._replace(theta=state.theta + h * p, p=p)

    return _integ(sampler, advance)


def sghmc_theta_old_p(sampler: Sampler) -> Sampler:
    """SGHMC-Euler moving θ with the *old* momentum (``θ + h p_t``; eq. (2) uses ``p_{t+1}``)."""

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        return new._replace(theta=state.theta + inner.h * state.p)

    return _integ(sampler, advance)


def uld_theta_new_p(sampler: Sampler) -> Sampler:
    """ULD-EM moving θ with the *new* momentum (EWSG eq. (3) uses ``r_k``)."""

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        return new._replace(theta=state.theta + inner.h * new.p)

    return _integ(sampler, advance)


def bhat_added(sampler: Sampler) -> Sampler:
    """SGHMC-Chen injecting ``N(0, 2(A + B̂)h)``: B̂ added instead of subtracted."""
    B = sampler.integrator.B_hat
    A = sampler.integrator.A
    return dataclasses.replace(
        sampler,
        integrator=dataclasses.replace(sampler.integrator, A=A, B_hat=-B),
    )


def _estimate_on_a_copy(inner, problem, theta, state, rand, context=None):
    """``inner.estimate`` on a copy of the state, which it then cannot refresh.

    On a GLM the SAGA and PPU/TMU estimates write their refreshed table entries in
    place (:mod:`sgmcmc_verify.estimators`); a bug that loses the refresh must lose
    those writes too, not only :meth:`update`'s.
    """
    return inner.estimate(problem, theta, copy.deepcopy(state), rand, context)


def snapshot_never_refreshed(sampler: Sampler) -> Sampler:
    """SVRG/PTU whose epoch snapshot is never refreshed (the ``mod(k, K) = 0`` branch lost)."""

    def update(inner, problem, state, x, x_next, rand, cache):
        if isinstance(getattr(state, "snap", None), tuple):
            # the copied estimate still writes stamp k + 1 (PPU/TMU on a GLM): keep the
            # stamps' type wide enough, as AGLD.update does (estimators._stamp_room)
            state = state._replace(snap=_stamp_room(state.snap, state.k + 2))
        return state._replace(k=state.k + 1)

    return _est(sampler, estimate=_estimate_on_a_copy, update=update)


def saga_total_stale(sampler: Sampler) -> Sampler:
    """SAGA whose table is updated but the running sum ``g = Σ α`` is not (SVRHMC Alg. 2 l. 11)."""

    def update(inner, problem, state, x, x_next, rand, cache):
        return inner.update(problem, state, x, x_next, rand, cache)._replace(g=state.g)

    return _est(sampler, update=update)


def saga_table_frozen(sampler: Sampler) -> Sampler:
    """SAGA whose table is never updated: it degrades to a fixed control variate at θ₀."""

    def update(inner, problem, state, x, x_next, rand, cache):
        return state

    return _est(sampler, estimate=_estimate_on_a_copy, update=update)


class _CAWrapOffByOne:
    """Cyclic access wrapping at ``N − 1``: the last datum is never read."""

    def __init__(self, inner: Any):
        self.inner = inner

    def __getattr__(self, item: str) -> Any:
        return getattr(self.inner, item)

    def draw(self, state, chains, N, rng):
        import numpy as np

        from .access import AccessState

        n = self.inner.n
        idx = (state.pos + np.arange(n)) % (N - 1)
        return (
            np.broadcast_to(idx, (chains, n)).copy(),
            AccessState(state.k + 1, (state.pos + n) % (N - 1), None),
        )


def ca_off_by_one(sampler: Sampler) -> Sampler:
    """AGLD with cyclic access whose index wraps at ``N − 1`` (``% (N - 1)`` for ``% N``)."""
    est = sampler.estimator
    return dataclasses.replace(
        sampler, estimator=dataclasses.replace(est, access=_CAWrapOffByOne(est.access))
    )


def xi_old_p(sampler: Sampler) -> Sampler:
    """SGNHT whose ξ update uses the old ``p_{t−1}`` (Algorithm 1 uses the new ``p_t``)."""
    import numpy as np

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        return new._replace(xi=state.xi + (np.mean(state.p * state.p, axis=1) - 1.0) * inner.h)

    return _integ(sampler, advance)


def xi_sum_not_mean(sampler: Sampler) -> Sampler:
    """SGNHT with ``ξ += (pᵀp − 1)h``: the ``1/n`` (dimension) in eq. (6) is missing."""
    import numpy as np

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        return new._replace(xi=state.xi + (np.sum(new.p * new.p, axis=1) - 1.0) * inner.h)

    return _integ(sampler, advance)


def xi_matrix_ones(sampler: Sampler) -> Sampler:
    """Matrix thermostat (SGNHT eq. (11)) with ``Ξ += (p pᵀ − 1)h/μ``: the all-ones matrix
    typed for ``I``, so the off-diagonal entries are driven towards ``E[p_i p_j] = 1``."""

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        outer = new.p[:, :, None] * new.p[:, None, :]
        return new._replace(Xi=state.Xi + (outer - 1.0) * (inner.h / inner.mu))

    return _integ(sampler, advance)


def sgnht2_eta_for_h(sampler: Sampler) -> Sampler:
    """SGNHT-2 (§5.2) with ``α += uᵀu/n − h`` in place of ``− η`` (``η = h²``)."""
    import numpy as np

    def advance(inner, state, grad, noise):
        new = inner.advance(state, grad, noise)
        return new._replace(xi=state.xi + np.mean(new.p * new.p, axis=1) - inner.h)

    return _integ(sampler, advance)


def _negated_energy(est: Any) -> Any:
    import copy

    sub = type(
        "InvertedEWSG", (type(est),), {"_energy": lambda self, *a: -type(est)._energy(self, *a)}
    )
    new = copy.copy(est)
    object.__setattr__(new, "__class__", sub)
    return new


def ewsg_inverted_acceptance(sampler: Sampler) -> Sampler:
    """EWSG accepting with ``exp(E_i − E_j)`` in place of ``exp(E_j − E_i)`` (eq. (5))."""
    return dataclasses.replace(sampler, estimator=_negated_energy(sampler.estimator))


def splitting_gradient_at_theta(sampler: Sampler) -> Sampler:
    """Splitting with the gradient at ``θ_t`` instead of ``θ_t + h/2 p_t``: a half step missing."""
    w = _Wrap(sampler.integrator, eval_point=lambda inner, state: state.theta)
    return dataclasses.replace(sampler, integrator=w)


def splitting_full_decay(sampler: Sampler) -> Sampler:
    """Splitting applying ``e^{−Dh}`` at both ends in place of ``e^{−Dh/2}`` (eqs. (13), (15))."""

    def advance(inner, state, grad, noise):
        h, decay = inner.h, math.exp(-inner.D * inner.h)
        theta1 = state.theta + 0.5 * h * state.p
        p = decay * (decay * state.p - h * grad + math.sqrt(2 * inner.D * h) * noise)
        return state._replace(theta=theta1 + 0.5 * h * p, p=p)

    return _integ(sampler, advance)


def svrg_control_unscaled(sampler: Sampler) -> Sampler:
    """SVRG with the snapshot term not scaled: ``(N/b)∇f_I(θ) − ∇f_I(w) + g``."""

    def estimate(inner, problem, theta, state, rand, context=None):
        now = problem.component_grads(theta, rand).sum(axis=1)
        old = problem.component_grads(state.w, rand).sum(axis=1)
        g = problem.prior_grad(theta) + (problem.N / inner.b) * now - old + state.g
        return g, None

    return _est(sampler, estimate=estimate)


# ---------------------------------------------------------------------------------------------
# Issue 11: mistakes that only a non-degenerate validation problem exposes — a prior, a
# batch of two, d = 2, frictions ≠ 1, and independent chains.  On a flat prior, a batch of
# one, d = 1, unit friction each of these has *exactly* no effect.
# ---------------------------------------------------------------------------------------------


def _reweighted(prior: float | None = None, data: float | None = None):
    """A bug that reweights the prior (``prior``×) or the data part (``data(N, n)``×)."""

    def transform(sampler: Sampler) -> Sampler:
        def estimate(inner, problem, theta, state, rand, context=None):
            g, cache = inner.estimate(problem, theta, state, rand, context)
            pg = problem.prior_grad(theta)
            n = getattr(inner, "n", getattr(inner, "b", None))
            wp = 1.0 if prior is None else prior(problem.N, n)
            wd = 1.0 if data is None else data(problem.N, n)
            return wp * pg + wd * (g - pg), cache

        return _est(sampler, estimate=estimate)

    return transform


#: The prior scaled by N/n like the minibatch sum (the prior folded into each f_i and then
#: rescaled: AGLD eq. (4)'s convention applied on top of SVRHMC §2's).
prior_like_data = _reweighted(prior=lambda N, n: N / n)
#: The prior's gradient left out.
prior_dropped = _reweighted(prior=lambda N, n: 0.0)
#: The batch sum scaled by N instead of N/n (``N * grads.sum(1)`` for ``N / n * ...``).
batch_sum_times_N = _reweighted(data=lambda N, n: float(n))


def batch_of_one(sampler: Sampler) -> Sampler:
    """Only the first index of the batch is used (``idx[:, 0]`` hard-coded), scaled by N."""

    def estimate(inner, problem, theta, state, rand, context=None):
        one = dataclasses.replace(inner, n=1)
        return one.estimate(problem, theta, state, rand[:, :1], context)

    return _est(sampler, estimate=estimate)


def grad_summed_over_coordinates(sampler: Sampler) -> Sampler:
    """The batch summed over the wrong axis: ``grads.sum(axis=2)`` for ``axis=1``.

    ``(chains, n, d) → (chains, n)``, which broadcasts silently as ``(chains, d)`` when
    ``n = d`` — the validation problem's case.
    """

    def estimate(inner, problem, theta, state, rand, context=None):
        g = problem.component_grads(theta, rand).sum(axis=2)
        return problem.prior_grad(theta) + problem.N / rand.shape[1] * g, None

    return _est(sampler, estimate=estimate)


def _noise(fn):
    """A bug in the noise the integrator adds: ``advance(state, grad, fn(noise, inner))``."""

    def transform(sampler: Sampler) -> Sampler:
        return _integ(sampler, lambda inner, s, g, z: inner.advance(s, g, fn(z, inner)))

    return transform


#: One normal per chain broadcast over the coordinates (drawn with shape (chains, 1)).
noise_shared_across_coordinates = _noise(lambda z, inner: z[:, :1] + 0.0 * z)
#: One noise vector for all chains (drawn with shape (d,)).
noise_shared_across_chains = _noise(lambda z, inner: z[:1] + 0.0 * z)


def _friction_key(inner) -> str:
    """The integrator's friction attribute: γ (ULD, BAOA), D (SVRHMC) or A (SGHMC-Chen, SGNHT)."""
    for key in ("gamma", "D", "A"):
        if hasattr(inner, key):
            return key
    raise AttributeError(f"{type(inner).__name__} has no friction")


def _friction(inner) -> float:
    return float(getattr(inner, _friction_key(inner)))


#: The friction hard-coded to 1 in the noise: √(2h) for √(2γh) (γ, D or A).
noise_unit_friction = _noise(lambda z, inner: z / math.sqrt(_friction(inner)))


def o_step_unit_friction(sampler: Sampler) -> Sampler:
    """BAOA/OBABO whose O-step noise uses γ = 1: ``√(1 − e^{−2h})`` for ``√(1 − e^{−2γh})``."""

    def advance(inner, state, grad, noise):
        g, h = inner.gamma, inner.h
        return inner.advance(
            state, grad, noise * math.sqrt(-math.expm1(-2 * h) / -math.expm1(-2 * g * h))
        )

    return _integ(sampler, advance)


def drift_unit_friction(sampler: Sampler) -> Sampler:
    """The friction hard-coded to 1 in the drift, the noise still √(2γh) (γ, D or A)."""

    def advance(inner, state, grad, noise):
        unit = dataclasses.replace(inner, **{_friction_key(inner): 1.0})
        return unit.advance(state, grad, noise * math.sqrt(_friction(inner)))

    return _integ(sampler, advance)


def obabo_full_kicks(sampler: Sampler) -> Sampler:
    """OBABO with both kicks of length h (B(h) O B(h)): the gradient counted twice."""
    return _est(
        sampler,
        estimate=lambda inner, *a, **k: (lambda g, c: (2.0 * g, c))(*inner.estimate(*a, **k)),
    )


def indices_shared_across_chains(sampler: Sampler) -> Sampler:
    """Every chain reads chain 0's indices (one permutation or draw for all chains)."""
    import numpy as np

    def draw(inner, problem, state, chains, rng):
        idx, st = inner.draw(problem, state, chains, rng)
        return np.broadcast_to(idx[:1], idx.shape).copy(), st

    return _est(sampler, draw=draw)


#: name → (algorithm, transformation, description); the registry parameters are the
#: harness's defaults (:func:`sgmcmc_verify.validation.targets.step_params`).
CATALOGUE: dict[str, tuple[str, Any, str]] = {
    "sgld/noise-sqrt-h": ("sgld", half_noise, "noise √h for √(2h)"),
    "lmc/noise-sqrt-h": ("lmc", half_noise, "noise √h for √(2h)"),
    "sgld/noise-h": ("sgld", noise_scale_h, "noise √2·h for √(2h)"),
    "sgld/missing-N/n": ("sgld", missing_n_over_n, "minibatch sum without N/n"),
    "sgld-wor/minibatch-mean": ("sgld-wor", minibatch_mean, "minibatch mean: N missing"),
    "lmc/gradient-ascent": ("lmc", gradient_ascent, "gradient sign flipped"),
    "sgld/float32": ("sgld", float32_arithmetic, "float32 arithmetic"),
    "sghmc-svr/noise-sqrt-Dh": ("sghmc-svr", half_noise, "noise √(Dh) for √(2Dh)"),
    "sghmc-svr/friction-sign": ("sghmc-svr", friction_wrong_sign, "(1 + Dh) p"),
    "sghmc-svr/friction-missing-h": ("sghmc-svr", friction_missing_h, "(1 − D) p"),
    "sghmc-svr/theta-old-p": ("sghmc-svr", sghmc_theta_old_p, "θ moves with old p"),
    "uld-em/noise-sqrt-h": ("uld-em", half_noise, "σ√(h/2) noise"),
    "uld-em/theta-new-p": ("uld-em", uld_theta_new_p, "θ moves with new r"),
    "sghmc-chen/bhat-ignored": ("sghmc-chen", bhat_ignored, "B̂ ignored"),
    "sghmc-chen/bhat-added": ("sghmc-chen", bhat_added, "A + B̂ for A − B̂"),
    "svrg-ld/snapshot-never-refreshed": ("svrg-ld", snapshot_never_refreshed, "stale snapshot"),
    "svrg-hmc/snapshot-never-refreshed": ("svrg-hmc", snapshot_never_refreshed, "stale snapshot"),
    "ptu-ra/snapshot-never-refreshed": ("ptu-ra", snapshot_never_refreshed, "stale snapshot"),
    "svrg-ld/control-unscaled": ("svrg-ld", svrg_control_unscaled, "snapshot term unscaled"),
    "ppu-ca/index-off-by-one": ("ppu-ca", ca_off_by_one, "CA wraps at N − 1"),
    "tmu-ca/index-off-by-one": ("tmu-ca", ca_off_by_one, "CA wraps at N − 1"),
    "saga-ld/updated-before-use": ("saga-ld", saga_refresh_before_use, "table before use"),
    "saga-hmc/updated-before-use": ("saga-hmc", saga_refresh_before_use, "table before use"),
    "saga-ld/total-stale": ("saga-ld", saga_total_stale, "Σα not updated"),
    "saga2-hmc/table-frozen": ("saga2-hmc", saga_table_frozen, "table never updated"),
    "sgnht/xi-old-p": ("sgnht", xi_old_p, "ξ update with the old p"),
    "sgnht/xi-sum-not-mean": ("sgnht", xi_sum_not_mean, "pᵀp for pᵀp/n"),
    "sgnht/noise-sqrt-Ah": ("sgnht", half_noise, "noise √(Ah) for √(2Ah)"),
    "sgnht-2/eta-for-h": ("sgnht-2", sgnht2_eta_for_h, "α update subtracts h for η"),
    "sgnht-mat/xi-ones-target": ("sgnht-mat", xi_matrix_ones, "Ξ driven to p pᵀ = 1 for I"),
    "ewsg/inverted-acceptance": ("ewsg", ewsg_inverted_acceptance, "exp(E_i − E_j)"),
    "ewsg-lmc/inverted-acceptance": ("ewsg-lmc", ewsg_inverted_acceptance, "exp(E_i − E_j)"),
    "svrg2-hmc/missing-half-step": ("svrg2-hmc", splitting_gradient_at_theta, "∇ at θ_t"),
    "svrg2-hmc/missing-decay": ("svrg2-hmc", splitting_missing_decay, "eq. (15) dropped"),
    "saga2-hmc/full-decay": ("saga2-hmc", splitting_full_decay, "e^{−Dh} twice"),
    # issue 11: only a prior, a batch of two, d = 2, friction ≠ 1 or a test of the chains'
    # independence exposes these
    "sgld/prior-times-N/n": ("sgld", prior_like_data, "prior scaled by N/n like the data"),
    "saga-ld/prior-times-N/n": ("saga-ld", prior_like_data, "prior scaled by N/n"),
    "sghmc-svr/prior-dropped": ("sghmc-svr", prior_dropped, "prior gradient left out"),
    "sgld/batch-sum-times-N": ("sgld", batch_sum_times_N, "N·Σ for (N/n)·Σ"),
    "sghmc-ewsg/batch-sum-times-N": ("sghmc-ewsg", batch_sum_times_N, "N·Σ for (N/n)·Σ"),
    "sgld/batch-of-one": ("sgld", batch_of_one, "idx[:, 0] hard-coded"),
    "sgld/grad-summed-over-coordinates": (
        "sgld",
        grad_summed_over_coordinates,
        "sum(axis=2) for sum(axis=1)",
    ),
    "lmc/noise-shared-across-coordinates": (
        "lmc",
        noise_shared_across_coordinates,
        "one normal per chain",
    ),
    "uld-em/noise-shared-across-coordinates": (
        "uld-em",
        noise_shared_across_coordinates,
        "one normal per chain",
    ),
    "uld-em/noise-unit-friction": ("uld-em", noise_unit_friction, "√(2h) for √(2γh)"),
    "sghmc-svr/noise-unit-friction": ("sghmc-svr", noise_unit_friction, "√(2h) for √(2Dh)"),
    "sghmc-chen/noise-unit-friction": (
        "sghmc-chen",
        noise_unit_friction,
        "noise √(2h(A − B̂)/A) for √(2h(A − B̂))",
    ),
    "svrg-hmc/drift-unit-friction": ("svrg-hmc", drift_unit_friction, "(1 − h)p for (1 − Dh)p"),
    "sghmc-ewsg/drift-unit-friction": ("sghmc-ewsg", drift_unit_friction, "γ = 1 in the drift"),
    "baoa/o-step-unit-friction": ("baoa", o_step_unit_friction, "O noise with γ = 1"),
    "obabo/full-kicks": ("obabo", obabo_full_kicks, "B(h) O B(h)"),
    "sgnht/noise-unit-friction": ("sgnht", noise_unit_friction, "√(2h) for √(2Ah)"),
    "sgld/noise-shared-across-chains": ("sgld", noise_shared_across_chains, "one noise draw"),
    "ptu-rr/indices-shared-across-chains": (
        "ptu-rr",
        indices_shared_across_chains,
        "one permutation for all chains",
    ),
    "sgld/indices-shared-across-chains": (
        "sgld",
        indices_shared_across_chains,
        "one index draw for all chains",
    ),
}
