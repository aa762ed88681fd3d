"""Worked example: blackjax's SGLD, SGHMC and SGNHT validated through its public API.

blackjax and JAX are optional; :data:`AVAILABLE` says whether both import.  Install them
with ``pip install jax blackjax`` and run ``python -m pytest -m peers
tests/test_validate_blackjax.py``.  Checked against blackjax 1.7.1 and jax 0.10.2 (CPU,
float64: the adapter sets ``jax_enable_x64``, because float32 rounding would hide or fake
the discretisation effects the harness measures).

Kernels (:data:`KERNELS`), each a :class:`~sgmcmc_verify.validation.SampleFunction`
built by :func:`sample_function` and vectorised over chains with ``jax.vmap`` inside a
``jax.lax.scan`` under ``jax.jit``.  The scan runs ``_CHUNK`` steps with the step size,
friction and data as arguments, so it is compiled once per kernel, configuration and
shape and reused for every h (compiling cost 0.6-1 s a call, more than running the
harness's 340 steps); the per-step keys are those of one scan over all steps, so the
draws do not depend on the chunking (``tests/test_validate_blackjax.py``):

``"sgld"``
    ``blackjax.sgld`` (``blackjax/sgmcmc/sgld.py``, integrator
    ``blackjax.sgmcmc.diffusions.overdamped_langevin``).
``"sghmc"``
    ``blackjax.sghmc`` (``blackjax/sgmcmc/sghmc.py``) with ``num_integration_steps``
    integration steps per call (default 1: one harness step is one call).
``"sghmc-diffusion"``
    The integrator behind ``blackjax.sghmc``, ``blackjax.sgmcmc.diffusions.sghmc``, with
    the momentum carried from step to step (no refresh): the SGHMC *chain*.
``"sgnht"``
    ``blackjax.sgnht`` (``blackjax/sgmcmc/sgnht.py``, integrator
    ``blackjax.sgmcmc.diffusions.sgnht``).

Parametrisation
---------------
Notation: ours is the registry's (:mod:`sgmcmc_verify.integrators`), step size ``h``,
potential ``U = −log π``; blackjax's step size is ``ε`` and its gradient estimator
returns ``∇log π̃ = −∇Ũ``.

*Gradient.*  ``blackjax.sgmcmc.gradients.grad_estimator(logprior, loglik, N)`` is
``∇[log p₀(θ) + N · mean_j loglik(θ, x_j)]`` over the minibatch: with
``loglik(θ, (c_i, Λ_i)) = −f_i(θ) = −½(θ − c_i)ᵀΛ_i(θ − c_i)`` it is exactly
``−(∇U₀ + (N/n) Σ_j ∇f_{I_j})``, the registry's :class:`~sgmcmc_verify.estimators.
Minibatch` (AGLD eq. (4)), with the ``N/n`` scaling applied by blackjax itself.  The
minibatch is ``n`` uniform indices with replacement.  The full gradient is the whole
data set as the minibatch.  SGNHT §3's injected gradient noise (``gradient="injected"``:
``∇Ũ = ∇U + e``, ``e ~ N(0, 2B/h)``) is a user-supplied estimator, allowed by blackjax's
API (any ``grad_estimator(position, minibatch)``): the minibatch carries ``e``.

*SGLD* (``diffusions.overdamped_langevin``): ``θ' = θ + ε ∇log π̃ + √(2Tε) ξ``, ``T = 1``.
Ours, AGLD eqs. (3)-(5) (:func:`~sgmcmc_verify.integrators.overdamped_em`):
``θ' = θ − h ∇Ũ + √(2h) ξ``.  So **ε = h** exactly — not ``h/2``: Welling & Teh's
``Δθ = (ε_WT/2) ∇log π + N(0, ε_WT)`` has ``ε_WT = 2h``, blackjax does not use it.

*SGHMC* (``diffusions.sghmc(alpha, beta)``, "alpha and beta scaled according to Ma et
al. 2015"), one integration step, gradient at the *old* position::

    θ' = θ + ε p
    p' = (1 − α ε) p + ε ∇log π̃(θ) + √(ε T (2α − ε T β)) ξ

SGNHT eq. (3) (SGHMC of Chen et al. 2014): ``dp = f̃ dt − A p dt + N(0, 2(A − B̂) dt)``.
The noise variance ``ε(2α − εβ) = 2ε(α − εβ/2)`` gives **α = A**, **β = 2B̂/ε**
(Chen et al.'s ``B̂ = ½ ε V̂``: β is the gradient-noise variance ``V̂``); ``p`` is the
same momentum as ours (``dθ = p dt``, unit mass), not Chen et al.'s ``v = ε p``.
Only a scalar ``B̂`` maps (blackjax's β is elementwise).

The registry's ``sghmc-chen`` is SGNHT eq. (3) discretised as SGNHT Algorithm 1
(``p`` first with ``∇Ũ(θ)``, then ``θ' = θ + p' h``: θ moves with the *new* momentum,
a semi-implicit / symplectic Euler step).  blackjax moves θ with the *old* momentum
and uses the gradient at the old θ: the explicit Euler–Maruyama step, which is the
registry's ``uld-em`` (EWSG eq. (3), ``γ = α``, ``σ² = 2γ``).  Both are first-order
discretisations of the same SDE; their discrete stationary laws differ at ``O(h)``.
On the harness's problem (``U = θ²/2``, ``A = 1``, ``B = B̂ = ½``, so the total
momentum noise is ``2Ah`` in both) the closed forms of :mod:`sgmcmc_verify.exact.
linear` give ``Var θ = 2(2 − h + h²)/((1 − h)(4 − 2h + h²))`` for blackjax against
``2(2 − h)/(4 − 2h − h²)`` for ``sghmc-chen``: ratio 1.2497, 1.1110, 1.0526 at
``h = 0.2, 0.1, 0.05`` (:func:`predicted_sghmc_variance_ratio`).

``blackjax.sghmc`` (the top-level kernel) also **redraws the momentum** ``p ~ N(0, I)``
at the start of every call (``sghmc.build_kernel``), runs ``num_integration_steps = L``
steps with one minibatch and returns the position only.  Two consequences:

* ``L = 1``: ``θ' = θ + ε p`` uses only the fresh momentum and the gradient never
  reaches ``θ``: the chain is the random walk ``θ_k ~ N(θ_0, k ε²)``
  (:func:`random_walk_variance`).
* ``L ≥ 2``: one call is ``θ_L ≈ θ + Lεp − ½L(L−1)ε²∇U`` — an unadjusted Langevin step
  of size ``τ = ½L(L−1)ε²`` with noise ``L²ε² = 2τ·L/(L−1)``.  On ``U = aθ²/2`` the
  per-call chain's ``Var θ`` tends to ``L/(L−1)·(1/a)`` as ``ε → 0`` at fixed ``L``
  (2 at ``L = 2``, 1.111 at ``L = 10``), not to ``1/a``: an ``O(1/L)`` bias that a
  smaller step does not remove (:func:`refreshed_sghmc_variance`, exact for any
  ``ε, L, α``).  A leapfrog trajectory (half kick first) would have ``τ = ½L²ε²`` and no
  such bias; any first-order step with a full refresh every ``L`` steps has it.

Neither is the SGHMC chain of SGNHT eq. (3), which keeps its momentum; that chain is
``"sghmc-diffusion"``.

*SGNHT* (``diffusions.sgnht(alpha, beta)``)::

    θ' = θ + ε p
    p' = (1 − ξ ε) p + ε ∇log π̃(θ) + √(ε T (2α − ε T β)) ζ
    ξ' = ξ + ε (p'ᵀp'/d − T)

SGNHT Algorithm 1 (eqs. (5)-(6)): ``p_t = p − ξ p h − ∇Ũ h + √(2A) N(0, h)``,
``θ_t = θ + p_t h``, ``ξ_t = ξ + (p_tᵀp_t/n − 1) h``.  So **α = A**, **β = 0** (the
paper has no ``B̂``), ``ε = h``; the thermostat update is the same (dimension-averaged
kinetic energy of the *new* momentum) and so is the initialisation ``p_0 ~ N(0, I)``,
``ξ_0 = α`` (``sgnht.as_top_level_api.init_fn``).  The difference is again the position
update: blackjax's ``θ' = θ + ε p`` uses the old momentum.  For ``U = aθ²/2`` with the
friction frozen at ``ξ`` (2×2 Lyapunov equations, solved with sympy), the explicit step
has ``E[xp] = −εE[p²]/2`` where Algorithm 1 has ``+εE[p²]/2``, which feeds kinetic energy
``≈ 2aε²E[p²]`` per step into ``p``; the thermostat removes it with more friction: the
``ξ`` that makes ``E[p²] = 1`` is ``A + ε(A²/2 + s²/2) + aε + O(ε²)`` for blackjax against
``A + ε(A²/2 + s²/2) + O(ε²)`` for Algorithm 1 (``s²`` the gradient-noise variance),
while ``Var θ`` at that ``ξ`` is the same, ``1/a − Aε/(2a) + O(ε²)``, in both.  So
blackjax's ``E ξ`` is higher by ``≈ h·tr(Λ)/d`` (:func:`predicted_sgnht_xi_shift`) and
its ``θ`` marginal is as accurate as Algorithm 1's to first order: a different but valid
discretisation, which the harness (judging "is this SGNHT Algorithm 1?") rejects on
``E ξ``.

Quirk: ``sgnht.as_top_level_api.init_fn`` uses ``init_xi or alpha``, so ``init_xi=0.0``
is silently replaced by ``alpha``; the adapter sets ``ξ_0`` itself after ``init``.

What the harness finds
----------------------
Quick profile (2000 chains, window 64), seed 0, blackjax 1.7.1, jax 0.10.2;
``tests/test_validate_blackjax.py`` asserts each outcome:

* ``sgld`` as ``sgld``: **pass** (Var θ ratio MC/exact 1.022, 0.998, 0.980 at
  ``h = 0.2, 0.1, 0.05``).
* ``sghmc-diffusion`` as ``sghmc-chen``: **fail** at ``h = 0.2, 0.1`` (ratio 1.24, 1.13;
  predicted 1.25, 1.11), pass at 0.05 (the predicted 5 % is below the resolution); as
  ``uld-em`` with the same blackjax parameters: **pass** — the integrator is explicit
  Euler–Maruyama, a valid scheme but not SGNHT Algorithm 1's.
* ``sghmc`` (one step per call) as ``sghmc-chen``: **fail**, ratio 8.5, 4.4, 2.1 = the
  random walk's ``k h²`` averaged over the window (the harness's "shrinking toward 1" is
  only its burn-in ``∝ 1/h``).
* ``sgnht`` as ``sgnht``: **fail** on ``E ξ`` only (1.238 vs 1.117 at ``h = 0.1``,
  1.133 vs 1.050 at 0.05; predicted shifts 0.145, 0.072); ``E θ``, ``Var θ`` and
  ``E[pᵀp]/d`` agree.

Everything blackjax is imported lazily, inside :func:`sample_function`.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._validation import sample_arguments
from ..problems.base import Problem
from ..problems.gaussian import GaussianQuadratic
from . import targets

__all__ = [
    "ALGORITHM",
    "AVAILABLE",
    "KERNELS",
    "blackjax_parameters",
    "predicted_sghmc_variance_ratio",
    "predicted_sgnht_xi_shift",
    "random_walk_variance",
    "refreshed_sghmc_variance",
    "sample_function",
    "versions",
]

AVAILABLE = (
    importlib.util.find_spec("blackjax") is not None and importlib.util.find_spec("jax") is not None
)

#: The blackjax kernels the adapter drives.
KERNELS = ("sgld", "sghmc", "sghmc-diffusion", "sgnht")

#: Registry algorithm each kernel claims to be (the paper's algorithm it is named after).
ALGORITHM = {
    "sgld": "sgld",
    "sghmc": "sghmc-chen",
    "sghmc-diffusion": "sghmc-chen",
    "sgnht": "sgnht",
}

#: Registry algorithms each kernel can be mapped onto (its parameters translated).
_MAPPABLE = {
    "sgld": ("sgld", "lmc"),
    "sghmc": ("sghmc-chen", "uld-em"),
    "sghmc-diffusion": ("sghmc-chen", "uld-em"),
    "sgnht": ("sgnht",),
}


def versions() -> dict[str, str]:
    """Installed ``jax`` and ``blackjax`` versions (empty when not installed)."""
    if not AVAILABLE:
        return {}
    import blackjax
    import jax

    return {"jax": jax.__version__, "blackjax": blackjax.__version__}


def blackjax_parameters(
    kernel: str, algorithm: str, params: Mapping[str, Any], h: float
) -> dict[str, Any]:
    """Translate registry ``params`` of ``algorithm`` into blackjax's for ``kernel``.

    Parameters
    ----------
    kernel : str
        One of :data:`KERNELS`.
    algorithm : str
        The registry algorithm the kernel is validated as (see ``_MAPPABLE``).
    params : mapping
        Registry parameters (as :func:`sgmcmc_verify.validation.targets.plan` fills them).
    h : float
        Registry step size.

    Returns
    -------
    dict
        ``step_size`` (blackjax's ε), ``alpha``, ``beta`` (momentum kernels),
        ``init_xi`` (SGNHT), ``gradient`` (``"minibatch"``, ``"full"`` or
        ``"injected"``), ``batch`` (minibatch size) and ``B`` (injected-noise
        covariance, scalar).  The derivation is in the module docstring.

    Raises
    ------
    ValueError
        An unknown kernel, an algorithm the kernel cannot be mapped onto, or a parameter
        blackjax cannot express (a matrix ``B̂``, ``A·I − B̂`` not ⪰ 0).
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if algorithm not in _MAPPABLE[kernel]:
        raise ValueError(f"blackjax {kernel!r} maps onto {_MAPPABLE[kernel]}, not {algorithm!r}")
    out: dict[str, Any] = {"step_size": float(h)}  # ε = h for every kernel (docstring)
    if algorithm == "lmc":
        return out | {"gradient": "full", "batch": None, "B": 0.0}
    if algorithm == "sgld":
        return out | {"gradient": "minibatch", "batch": int(params.get("n", 10)), "B": 0.0}
    if algorithm == "uld-em":
        return out | {
            "alpha": float(params.get("gamma", 1.0)),
            "beta": 0.0,
            "gradient": "full",
            "batch": None,
            "B": 0.0,
        }
    gradient = params.get("gradient", "minibatch")
    B = params.get("B", 1.0) if gradient == "injected" else 0.0
    if np.ndim(B) != 0:
        raise ValueError("only a scalar injected-noise B is supported")
    out |= {"gradient": gradient, "batch": int(params.get("n", 10)), "B": float(B)}
    A = float(params.get("A", 1.0))
    if algorithm == "sghmc-chen":
        B_hat = params.get("B_hat", 0.0)
        if np.ndim(B_hat) != 0:
            raise ValueError("blackjax's beta is elementwise: only a scalar B_hat maps")
        if float(B_hat) > A:
            raise ValueError(f"A·I − B̂ must be ⪰ 0, got A = {A}, B̂ = {B_hat}")
        # noise variance ε(2α − εβ) = 2ε(A − B̂)  ⇔  β = 2B̂/ε
        return out | {"alpha": A, "beta": 2.0 * float(B_hat) / h}
    # sgnht: α = A, β = 0, ξ_0 = A unless given (SGNHT Algorithm 1)
    xi0 = params.get("xi0")
    return out | {"alpha": A, "beta": 0.0, "init_xi": A if xi0 is None else float(xi0)}


def predicted_sghmc_variance_ratio(h: float, *, a: float = 1.0, A: float = 1.0) -> float:
    """``Var θ`` of blackjax's SGHMC chain over that of ``sghmc-chen`` on ``U = aθ²/2``.

    blackjax's integrator is ULD Euler–Maruyama (the registry's ``uld-em`` with
    ``γ = A``), ``sghmc-chen`` with ``B̂ = B`` has the law of SVRHMC's semi-implicit step
    with ``D = A``; the closed forms are those of :mod:`sgmcmc_verify.exact.linear`
    (total momentum noise ``2Ah``, no extra gradient noise).

    Parameters
    ----------
    h : float
        Step size (``ε = h``).
    a : float
        Curvature of the target.
    A : float
        Friction (blackjax's ``alpha``).

    Returns
    -------
    float
        ``Var θ`` (explicit Euler) / ``Var θ`` (SGNHT Algorithm 1 with ``ξ = A``).
    """
    explicit = 2 * A * (2 - A * h + a * h * h) / (a * (A - a * h) * (4 - 2 * A * h + a * h * h))
    semi_implicit = (2 - A * h) * 2 * A / (a * A * (4 - 2 * A * h - a * h * h))
    return explicit / semi_implicit


def random_walk_variance(h: float, n_steps: int, window: int) -> float:
    """Mean of ``E θ_k²`` over the last ``window`` of ``n_steps`` steps of ``θ_k ~ N(0, kh²)``.

    The law of ``blackjax.sghmc`` with one integration step per call, from ``θ_0 = 0``.

    Parameters
    ----------
    h : float
        Step size.
    n_steps : int
        Steps run (draw ``k − 1`` is the state after ``k`` steps).
    window : int
        Number of last draws averaged, as the harness does.

    Returns
    -------
    float
    """
    ks = np.arange(n_steps - window + 1, n_steps + 1)
    return float(h * h * ks.mean())


def refreshed_sghmc_variance(h: float, L: int, alpha: float, *, a: float = 1.0) -> float:
    """Stationary ``Var θ`` of ``blackjax.sghmc`` (``L`` steps per call) on ``U = aθ²/2``.

    One call draws ``p ~ N(0, 1)`` and runs ``L`` explicit Euler steps
    ``z' = M z + (0, √(2αh) ζ)`` with ``M = [[1, h], [−ah, 1 − αh]]`` (``β = 0``, exact
    gradient); so ``θ_L = m₁₁ θ + m₁₂ p + Σ_k (M^{L−1−k})₁₂ √(2αh) ζ_k`` with
    ``(m₁₁, m₁₂)`` the first row of ``M^L``, and the per-call chain is the AR(1) recursion
    whose stationary variance is returned (``inf`` when ``|m₁₁| ≥ 1``, e.g. ``L = 1``).
    As ``h → 0`` at fixed ``L`` it tends to ``L/((L − 1)a)``, not ``1/a``.

    Parameters
    ----------
    h : float
        Step size.
    L : int
        ``num_integration_steps``.
    alpha : float
        Friction.
    a : float
        Curvature of the target.

    Returns
    -------
    float
        The stationary variance of the per-call chain, or ``inf``.
    """
    M = np.array([[1.0, h], [-a * h, 1.0 - alpha * h]])
    m11, m12 = np.linalg.matrix_power(M, L)[0]
    if abs(m11) >= 1:
        return math.inf
    kick = math.sqrt(2 * alpha * h)
    noise = sum((np.linalg.matrix_power(M, L - 1 - k)[0, 1] * kick) ** 2 for k in range(L))
    return float((m12 * m12 + noise) / (1 - m11 * m11))


def predicted_sgnht_xi_shift(h: float, problem: GaussianQuadratic) -> float:
    """Leading-order excess of blackjax's ``E ξ`` over SGNHT Algorithm 1's: ``h·tr(Λ)/d``.

    From the frozen-friction analysis in the module docstring (``aε`` per curvature
    ``a``, averaged over the ``d`` coordinates by the thermostat's ``pᵀp/d``).

    Parameters
    ----------
    h : float
        Step size.
    problem : GaussianQuadratic
        The target; ``Λ`` is its summed precision.

    Returns
    -------
    float
    """
    return float(h * np.trace(problem.precision) / problem.d)


def _jax_data(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(centres, precisions, prior_precision, prior_mean)`` of a Gaussian-quadratic problem."""
    if not isinstance(problem, GaussianQuadratic) or (
        type(problem).prior_grad is not GaussianQuadratic.prior_grad
    ):
        # The harness plans only these; a general problem would need its log-likelihood
        # written in JAX, which a numpy Problem does not provide.
        raise TypeError(
            f"the blackjax adapter needs a GaussianQuadratic problem, got {type(problem).__name__}"
        )
    return problem.centres, problem.precisions, problem.prior_precision, problem.prior_mean


#: Steps per compiled scan: a divisor of the harness's step counts (multiples of 10), so
#: a validation compiles one scan per kernel and configuration, reused for every h.
_CHUNK = 10

#: Compiled chunk runners kept, by (kernel, gradient, batch, L, N, d, chains, steps): the
#: least recently used is dropped beyond this many (each holds compiled XLA code; a
#: long-lived process validating many problem shapes would otherwise grow without bound).
RUN_CACHE_SIZE = 64


@functools.lru_cache(maxsize=RUN_CACHE_SIZE)
def _compiled_run(static: tuple[Any, ...]) -> Callable[..., Any]:
    """A jitted ``run(keys, state, data, coef) -> (state, records)`` for ``static``.

    ``static`` is ``(kernel, gradient, batch, num_integration_steps, N, d, n_chains,
    n_steps)``: what fixes the shapes and the code.  ``data`` is the problem's
    ``(centres, precisions, prior_precision, prior_mean)``, ``coef`` is ``(ε, α, β,
    sd of the injected gradient noise)``; both are traced, so the compiled scan serves
    every step size and problem of these shapes (compiling took ≈ 0.8-1.8 s a call).
    """
    import blackjax
    import jax
    import jax.numpy as jnp
    from blackjax.sgmcmc import diffusions
    from blackjax.sgmcmc.gradients import grad_estimator

    kernel, gradient, batch, n_integration, N, d, n_chains, _ = static

    def run(keys: Any, state: Any, data: Any, coef: Any) -> tuple[Any, dict[str, Any]]:
        c_all, P_all, L0, m0 = data
        eps, alpha, beta, noise_sd = coef

        def loglik(position: Any, datum: tuple[Any, Any]) -> Any:
            c, P = datum
            diff = position - c
            return -0.5 * diff @ P @ diff

        def logprior(position: Any) -> Any:  # the Gaussian prior, evaluated exactly
            diff = position - m0
            return -0.5 * diff @ L0 @ diff

        base = grad_estimator(logprior, loglik, N)

        def grad_fn(position: Any, minibatch: tuple[Any, Any]) -> Any:
            data, err = minibatch
            return base(position, data) - err  # −(∇U + e): e is SGNHT §3's injected noise

        def minibatch(key: Any) -> tuple[tuple[Any, Any], Any]:
            k_idx, k_err = jax.random.split(key)
            if gradient == "minibatch":
                idx = jax.random.randint(k_idx, (batch,), 0, N)
                data = (c_all[idx], P_all[idx])
            else:  # full or injected: the whole data set, N/n = 1
                data = (c_all, P_all)
            err = noise_sd * jax.random.normal(k_err, (d,), dtype=jnp.float64)
            return data, err

        if kernel in ("sgld", "sghmc"):
            # the top-level kernels share one step signature; blackjax.sghmc uses one
            # minibatch for the whole trajectory of a call
            alg = (
                blackjax.sgld(grad_fn)
                if kernel == "sgld"
                else blackjax.sghmc(
                    grad_fn, num_integration_steps=n_integration, alpha=alpha, beta=beta
                )
            )

            def chain_step(key: Any, state: Any) -> tuple[Any, dict[str, Any]]:
                k_mb, k_step = jax.random.split(key)
                new = alg.step(k_step, state, minibatch(k_mb), eps)
                return new, {"theta": new}

        elif kernel == "sghmc-diffusion":
            one_step = diffusions.sghmc(alpha=alpha, beta=beta)

            def chain_step(key: Any, state: Any) -> tuple[Any, dict[str, Any]]:
                k_mb, k_step = jax.random.split(key)
                theta, p = state
                g = grad_fn(theta, minibatch(k_mb))  # at the old position, as sghmc.kernel
                theta, p = one_step(k_step, theta, p, g, eps)
                return (theta, p), {"theta": theta, "p": p}

        else:  # sgnht
            alg = blackjax.sgnht(grad_fn, alpha=alpha, beta=beta)

            def chain_step(key: Any, state: Any) -> tuple[Any, dict[str, Any]]:
                k_mb, k_step = jax.random.split(key)
                new = alg.step(k_step, state, minibatch(k_mb), eps)
                return new, {"theta": new.position, "p": new.momentum, "xi": new.xi}

        step_all = jax.vmap(chain_step)

        def body(state: Any, key_t: Any) -> tuple[Any, dict[str, Any]]:
            return step_all(jax.random.split(key_t, n_chains), state)

        return jax.lax.scan(body, state, keys)

    return jax.jit(run)


def sample_function(
    kernel: str,
    *,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    num_integration_steps: int = 1,
) -> Callable[..., dict[str, np.ndarray]]:
    """A :class:`~sgmcmc_verify.validation.SampleFunction` running blackjax's ``kernel``.

    Parameters
    ----------
    kernel : str
        One of :data:`KERNELS`.
    algorithm : str, optional
        Registry algorithm to map the parameters from; default :data:`ALGORITHM`
        ``[kernel]``.  Pass the same name to :func:`~sgmcmc_verify.validation.validate`.
    params : mapping, optional
        Registry parameters; default the harness's plan for ``algorithm``
        (:func:`sgmcmc_verify.validation.targets.plan`), which ``validate`` also uses.
    num_integration_steps : int
        Integration steps per call of ``blackjax.sghmc`` (``kernel="sghmc"`` only).

    Returns
    -------
    callable
        ``sample(problem, h, n_steps, n_chains, seed)`` returning ``{"theta": ...}``
        and, where blackjax keeps them in its state, ``"p"`` and ``"xi"``; float64
        arrays in the ArviZ layout ``(chains, draws, d)``.

    Raises
    ------
    ImportError
        blackjax or JAX is not installed.
    ValueError
        An unknown kernel or an unmappable algorithm or parameter.
    """
    if not AVAILABLE:
        raise ImportError("blackjax is not installed: pip install jax blackjax")
    algorithm = algorithm or ALGORITHM.get(kernel, "")
    blackjax_parameters(kernel, algorithm, {}, 1.0)  # fail early on a bad kernel/algorithm
    full_params = targets.plan(algorithm, dict(params or {})).params

    import blackjax
    import jax
    import jax.numpy as jnp

    # float64 throughout: the harness rejects float32 draws, and rightly (see core.py)
    jax.config.update("jax_enable_x64", True)

    def sample(
        problem: Problem, h: float, n_steps: int, n_chains: int, seed: int
    ) -> dict[str, np.ndarray]:
        h, n_steps, n_chains, seed = sample_arguments(h, n_steps, n_chains, seed)
        bj = blackjax_parameters(kernel, algorithm, full_params, h)
        data = tuple(jnp.asarray(a) for a in _jax_data(problem))
        N, d = problem.N, problem.d
        noise_sd = math.sqrt(2.0 * bj["B"] / h) if bj["gradient"] == "injected" else 0.0
        # every h-dependent number is an argument of the compiled scan, not a constant
        # in it, so one compilation serves every h (and every later call)
        numbers = [bj.get(k, 0.0) for k in ("step_size", "alpha", "beta")] + [noise_sd]
        coef = tuple(jnp.float64(x) for x in numbers)
        static = (kernel, bj["gradient"], bj["batch"], num_integration_steps, N, d, n_chains)
        theta0 = jnp.zeros((n_chains, d), dtype=jnp.float64)
        key0 = jax.random.PRNGKey(seed)
        if kernel in ("sgld", "sghmc"):
            state: Any = theta0
        elif kernel == "sghmc-diffusion":
            state = (theta0, jnp.zeros_like(theta0))  # p_0 = 0 (the harness's protocol)
        else:  # sgnht
            alg = blackjax.sgnht(lambda *_: None, alpha=bj["alpha"], beta=bj["beta"])
            init_keys = jax.random.split(jax.random.fold_in(key0, 1), n_chains)
            state = jax.vmap(lambda pos, k: alg.init(pos, k))(theta0, init_keys)
            # init_fn's `init_xi or alpha` would turn ξ_0 = 0 into α: set ξ_0 explicitly
            state = state._replace(xi=jnp.full((n_chains,), bj["init_xi"], jnp.float64))
        # one key per step, as one scan over all steps would take them; the steps run in
        # compiled chunks of _CHUNK (the last one shorter), so the draws do not depend on
        # the chunking (tests/test_validate_blackjax.py)
        keys = jax.random.split(jax.random.fold_in(key0, 0), n_steps)
        chunks = []
        for start in range(0, n_steps, _CHUNK):
            part = keys[start : start + _CHUNK]
            state, rec = _compiled_run((*static, part.shape[0]))(part, state, data, coef)
            chunks.append(rec)
        # scan stacks steps first: (draws, chains, ...) → ArviZ (chains, draws, ...)
        return {
            k: np.swapaxes(np.concatenate([np.asarray(c[k]) for c in chunks]), 0, 1).astype(
                np.float64
            )
            for k in chunks[0]
        }

    return sample
