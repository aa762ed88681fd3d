"""Worked example: posteriors' SGLD, SGHMC, SGNHT and BAOA validated through its public API.

posteriors and PyTorch are optional; :data:`AVAILABLE` says whether both import.  Install
them with ``pip install torch==2.13.0 posteriors`` (the pin: that CPU build is what pip
takes here, an open range pulls a CUDA build of several GB) and run ``python -m pytest -m
peers tests/test_validate_posteriors.py``.  Checked against posteriors 0.1.3 and torch
2.13.0+cpu, float64 throughout.

Kernels (:data:`KERNELS`), each driven through ``posteriors.sgmcmc.<kernel>.build(...)``
(its ``init`` and ``update``) by :func:`sample_function`, each chain with its own noise
and its own minibatch.  ``sgld``, ``sghmc`` and ``baoa`` update every parameter
elementwise, so one call on the ``(chains, d)`` parameter tensor, with a ``log_posterior``
summing the chains' separable terms, runs all chains at once; ``sgnht``'s thermostat
averages ``mᵀm`` over all parameters, so it is vectorised with ``torch.func.vmap(...,
randomness="different")``.  Both give the draws of a per-chain ``vmap`` from the same seed
(``tests/test_validate_posteriors.py``), at 2-3× (``sgnht``: 1.7×) less CPU per step:

``"sgld"``   ``posteriors/sgmcmc/sgld.py``;   ``"sghmc"``  ``posteriors/sgmcmc/sghmc.py``;
``"sgnht"``  ``posteriors/sgmcmc/sgnht.py``;  ``"baoa"``   ``posteriors/sgmcmc/baoa.py``.

Parametrisation
---------------
Ours is the registry's (:mod:`sgmcmc_verify.integrators`): step ``h``, potential
``U = −log π``, momentum ``p`` with ``p ~ N(0, I)`` at equilibrium, friction ``γ`` (``A``
for SGNHT).  posteriors' step is ``lr = ε``, its gradient is that of the user's
``log_posterior(params, batch)``, and every kernel has a ``temperature T`` and a momentum
scale ``sigma`` (we keep ``sigma = 1``).

*Gradient.*  The harness's estimator is ``∇Ũ = ∇U₀ + (N/n) Σ_j ∇f_{I_j}`` (AGLD eq. (4);
:class:`~sgmcmc_verify.estimators.Minibatch`), ``n`` uniform indices with replacement,
``U₀(θ) = ½(θ − μ₀)ᵀΛ₀(θ − μ₀)``, ``f_i(θ) = ½(θ − c_i)ᵀΛ_i(θ − c_i)``.  The batch passed
to ``update`` is the ``n`` drawn ``(c_i, Λ_i)`` summed into the coefficients of the
quadratic ``(N/n) Σ_j f_{I_j}`` (each ``f_i`` is ``½θᵀΛ_iθ − θᵀΛ_ic_i + ½c_iᵀΛ_ic_i``):
the same function of θ as the datum-by-datum sum up to a constant (posteriors takes an
unnormalised log posterior), at one product per chain instead of ``n``.  posteriors'
``log_posterior`` can be written two ways (:data:`CONVENTIONS`):

``"mean"`` (posteriors' recommendation, ``docs/log_posteriors.md``)
    ``log_posterior = −U₀/N − (1/n) Σ_j f_{I_j} = −Ũ/N`` and ``temperature = 1/N``.
``"sum"``
    ``log_posterior = −U₀ − (N/n) Σ_j f_{I_j} = −Ũ`` and ``temperature = 1``.

*SGLD* (``θ' = θ + ε ∇log p + √(εT(2 − εTβ)) ξ``, ``β = 0``).  ``"sum"``:
``θ' = θ − ε∇Ũ + √(2ε) ξ``, AGLD eq. (4) with **ε = h**.  ``"mean"``:
``θ' = θ − (ε/N)∇Ũ + √(2ε/N) ξ``, so **ε = N·h**.

*SGHMC* (σ = 1, ``β = 0``)::

    θ' = θ + ε m
    m' = m + ε ∇log p(θ) − ε α m + √(εT(2α − εTβ)) ξ

θ moves with the *old* momentum and the gradient is at the old θ: the explicit
Euler–Maruyama step, registry ``uld-em`` (EWSG eq. (3), ``σ² = 2γ``) with the full
gradient and ``sghmc-ewsg`` (EWSG §1 footnote) with a minibatch — not SVRHMC's /
SGNHT Algorithm 1's semi-implicit ``sghmc-svr`` (θ moves with the *new* p).  ``"sum"``:
``m = p``, **ε = h, α = γ**.  ``"mean"``: the stationary ``m`` has variance ``T = 1/N``;
with ``p = √N m`` the step is ``θ' = θ + (ε/√N) p``,
``p' = (1 − εα) p − (ε/√N)∇Ũ + √(2εα) ξ``, i.e. ours with ``h = ε/√N`` and
``γh = εα``: **ε = √N·h, α = γ/√N**, and the adapter reports ``p = √N·m``.  In the
recommended convention posteriors' ``alpha`` is not the friction of the θ-dynamics: a
user who wants friction ``γ`` sets ``alpha = γ/√N``.

*BAOA* (σ = 1)::

    m ← m + ε ∇log p(θ);  θ ← θ + (ε/2) m;  m ← e^{−αε} m + √(T(1 − e^{−2αε})) ζ;
    θ ← θ + (ε/2) m

is the registry's ``baoa`` (Leimkuhler & Matthews 2015, p. 271) with the same mapping as
SGHMC (``"sum"``: ε = h, α = γ; ``"mean"``: ε = √N·h, α = γ/√N, ``p = √N·m``), exactly:
``e^{−αε} = e^{−γh}`` and the O-step variance ``T(1 − e^{−2αε})`` becomes ``1 − e^{−2γh}``
for ``p``.

*SGNHT* (σ = 1, ``β = 0``)::

    θ' = θ + ε m
    m' = m + ε ∇log p(θ) − ε ξ m + √(εT·2α) ζ
    ξ' = ξ + ε (mᵀm/d − T)

SGNHT Algorithm 1 (eqs. (5)-(6)): ``p_t = p − ξ p h − ∇Ũ h + √(2A) N(0, h)``,
``θ_t = θ + p_t h``, ``ξ_t = ξ + (p_tᵀp_t/d − 1) h``.  posteriors moves θ with the *old*
momentum (as blackjax does) and also updates ξ with the *old* momentum (blackjax uses the
new one).  Mapping: ``"sum"``: ε = h, **α = A**, ``ξ₀ = A``.  ``"mean"``: ε = √N·h,
α = A/√N, and the thermostat scales like the friction: ``ξ_ours = √N·ξ``
(``ξ' = ξ + (ε/N)(pᵀp/d − 1)`` in ``p = √N m``), so ``ξ₀ = A/√N`` and the adapter reports
``√N·ξ``.  In stationarity ``E[mᵀm/d] = T`` whether the old or the new momentum is used,
but ``E ξ`` moves twice (:func:`predicted_sgnht_xi_shift`): the explicit position update
raises it by blackjax's ``h·tr(Λ)/d``
(:func:`~sgmcmc_verify.validation.blackjax_adapter.predicted_sgnht_xi_shift`), and the
old-momentum ξ update by ``2h/d`` more — Algorithm 1's ``ξ_t`` contains
``h(p_tᵀp_t/d − 1)``, whose covariance with ``p_tᵀp_t/d`` is ``h·Var(pᵀp/d) = 2h/d``
(Gaussian ``p``); the kinetic-energy balance fixes ``E[ξ·pᵀp/d]``, so without that
covariance ``E ξ`` is higher by as much.  θ's variances agree with Algorithm 1's.

What the harness finds
----------------------
Quick profile (2000 chains), seed 0, posteriors 0.1.3, torch 2.13.0+cpu; both conventions
give the same verdicts (SGNHT: the same numbers to 4 digits):

* ``sgld`` as ``sgld``: pass at h = 0.2, 0.1, 0.05.
* ``sghmc`` as ``sghmc-ewsg``: pass.  As ``sghmc-svr``: fail at every h, ``Var θ``
  MC/exact = 1.25, 1.415 (h = 0.2), 1.092, 1.156 (0.1), 1.045, 1.07 (0.05), each within
  4 s.e. of the exact ratio of the two window laws; the diagnosis: "the draws are
  consistent with the exact law of `sghmc-ewsg` … at every h".
* ``baoa`` as ``baoa``: pass; without an algorithm: consistent, named ``baoa``.
* ``sgnht`` as ``sgnht``: fail on ``E ξ`` = 1.977 against the reference's 1.677 at
  h = 0.1 (z = 39.8; first-order prediction +0.245) and 1.712 against 1.584 at h = 0.05
  (z = 18.2; prediction +0.1225); θ's mean and variances and ``E[pᵀp]/d`` pass; at
  h = 0.1 also ``Cov θ[0],θ[1]`` (z = 3.7) and ``Cov p[0],p[1]`` (z = 5.3).

Findings in posteriors 0.1.3
----------------------------
* ``sgnht.build(..., xi=0.0)`` silently starts at ``ξ₀ = alpha`` (``xi or alpha``); the
  adapter passes ``ξ₀`` to ``init`` itself.
* ``sgnht.init`` stores ``ξ`` as ``torch.tensor(xi)``: float32 unless the default dtype
  is float64, and ``baoa.update`` computes ``γ = torch.tensor(alpha·σ⁻²)`` the same way
  (``e^{−γε}`` rounded to float32).  The adapter runs with ``torch.set_default_dtype(
  torch.float64)`` (restored afterwards) so every tensor is float64.
* ``sgnht.init`` under ``torch.func.vmap`` cannot take a per-chain ``xi`` tensor
  (``torch.tensor(xi)`` of a batched tensor raises "Can't detach views in-place"); a
  float works.
* Importing posteriors emits ~40 ``FutureWarning`` (tensordict's shared tensor defaults);
  the adapter imports it with those silenced.
* ``sghmc``'s and ``sgnht``'s docstrings cite Chen et al. 2014 / Ding et al. 2014, but the
  code is the explicit Euler step (above), a different — valid — first-order
  discretisation from the papers' Algorithm 1.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from .._validation import sample_arguments
from ..problems.base import Problem
from ..problems.gaussian import GaussianQuadratic
from . import blackjax_adapter, targets
from .blackjax_adapter import _jax_data

__all__ = [
    "ALGORITHM",
    "AVAILABLE",
    "CONVENTIONS",
    "KERNELS",
    "posteriors_parameters",
    "predicted_sgnht_xi_shift",
    "sample_function",
    "versions",
]

AVAILABLE = (
    importlib.util.find_spec("posteriors") is not None
    and importlib.util.find_spec("torch") is not None
)

#: The posteriors kernels the adapter drives (``posteriors.sgmcmc.<kernel>``).
KERNELS = ("sgld", "sghmc", "sgnht", "baoa")

#: How the user's ``log_posterior`` and ``temperature`` are written (module docstring).
CONVENTIONS = ("mean", "sum")

#: Registry scheme each kernel's code is (not what its docstring cites): the default
#: ``algorithm`` of :func:`sample_function`.
ALGORITHM = {"sgld": "sgld", "sghmc": "sghmc-ewsg", "sgnht": "sgnht", "baoa": "baoa"}

#: Registry algorithms whose parameters each kernel can take (translated).
_MAPPABLE = {
    "sgld": ("sgld", "lmc"),
    "sghmc": ("sghmc-ewsg", "uld-em", "sghmc-svr"),
    "sgnht": ("sgnht",),
    "baoa": ("baoa", "obabo"),
}


def versions() -> dict[str, str]:
    """Installed ``torch`` and ``posteriors`` versions (empty when not installed)."""
    if not AVAILABLE:
        return {}
    torch, posteriors = _import()
    return {"torch": torch.__version__, "posteriors": posteriors.__version__}


def _import() -> tuple[Any, Any]:
    """``(torch, posteriors)``, with posteriors' import-time FutureWarnings silenced."""
    import torch

    with warnings.catch_warnings():
        # tensordict warns about posteriors' shared tensor defaults (~40 FutureWarnings);
        # pytest runs with filterwarnings=error
        warnings.simplefilter("ignore", FutureWarning)
        import posteriors

    return torch, posteriors


def posteriors_parameters(
    kernel: str,
    algorithm: str,
    params: Mapping[str, Any],
    h: float,
    N: int,
    convention: str = "mean",
) -> dict[str, Any]:
    """Translate registry ``params`` of ``algorithm`` into posteriors' for ``kernel``.

    Parameters
    ----------
    kernel : str
        One of :data:`KERNELS`.
    algorithm : str
        The registry algorithm the kernel is validated as (see ``_MAPPABLE``).
    params : mapping
        Registry parameters (as :func:`sgmcmc_verify.validation.targets.step_params`
        fills them).
    h : float
        Registry step size.
    N : int
        Number of data terms (the ``"mean"`` convention scales by it).
    convention : {"mean", "sum"}
        How ``log_posterior`` and ``temperature`` are written (module docstring).

    Returns
    -------
    dict
        ``lr``, ``temperature``, ``scale`` (of ``log_posterior``: ``1/N`` or 1),
        ``batch`` (``None``: the full gradient), ``p_scale`` (``p = p_scale·m``) and,
        per kernel, ``alpha`` and ``xi0``.  ``beta = 0`` and ``sigma = 1`` always.

    Raises
    ------
    ValueError
        An unknown kernel or convention, an algorithm the kernel cannot be mapped onto,
        or a parameter posteriors cannot express.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    if algorithm not in _MAPPABLE[kernel]:
        raise ValueError(f"posteriors {kernel!r} maps onto {_MAPPABLE[kernel]}, not {algorithm!r}")
    if params.get("gradient", "minibatch") != "minibatch" or params.get("replace", True) is False:
        raise ValueError("only a uniform minibatch with replacement (or lmc/uld-em's full "
                         "gradient) maps onto posteriors' batch")  # fmt: skip
    mean = convention == "mean"
    full = algorithm in ("lmc", "uld-em")  # the full gradient: the whole data set, N/n = 1
    out: dict[str, Any] = {
        "temperature": 1.0 / N if mean else 1.0,
        "scale": 1.0 / N if mean else 1.0,
        "batch": None if full else int(params.get("n", params.get("b", 10))),
    }
    if kernel == "sgld":
        # θ' = θ − (εT)∇Ũ + √(2εT) ξ: h = εT
        return out | {"lr": h * N if mean else h, "p_scale": None}
    # underdamped: h = ε/√N, γh = εα, p = √N m ("mean"); h = ε, γ = α ("sum")
    root = math.sqrt(N) if mean else 1.0
    friction = params.get("D" if algorithm == "sghmc-svr" else "gamma", params.get("A", 1.0))
    friction = float(friction)
    out |= {"lr": h * root, "alpha": friction / root, "p_scale": root}
    if kernel == "sgnht":
        xi0 = params.get("xi0")
        out["xi0"] = (friction if xi0 is None else float(xi0)) / root
    return out


def predicted_sgnht_xi_shift(h: float, problem: GaussianQuadratic) -> float:
    """First-order excess of posteriors' ``E ξ`` over SGNHT Algorithm 1's: ``h(tr Λ + 2)/d``.

    ``h·tr(Λ)/d`` from the explicit position update (as blackjax's) plus ``2h/d`` from
    updating ξ with the old momentum (module docstring).

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
    return blackjax_adapter.predicted_sgnht_xi_shift(h, problem) + 2.0 * h / problem.d


@contextlib.contextmanager
def _torch_settings(torch: Any, seed: int) -> Iterator[None]:
    """Float64, one intra-op thread and a seeded global RNG, all restored on exit.

    One thread: the tensors are tiny ((chains, d) with d = 2), and torch's intra-op
    threads made each step 7× slower on a shared 2-core machine (15.6 against 1.9 ms).
    """
    old_dtype, old_threads = torch.get_default_dtype(), torch.get_num_threads()
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        torch.set_default_dtype(torch.float64)
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_default_dtype(old_dtype)
            torch.set_num_threads(old_threads)


def sample_function(
    kernel: str,
    *,
    algorithm: str | None = None,
    params: Mapping[str, Any] | None = None,
    convention: str = "mean",
) -> Callable[..., dict[str, np.ndarray]]:
    """A :class:`~sgmcmc_verify.validation.SampleFunction` running posteriors' ``kernel``.

    Parameters
    ----------
    kernel : str
        One of :data:`KERNELS`.
    algorithm : str, optional
        Registry algorithm to map the parameters from; default :data:`ALGORITHM`
        ``[kernel]``.
    params : mapping, optional
        Registry parameters; default the harness's
        (:func:`sgmcmc_verify.validation.targets.step_params`), which ``validate`` uses.
    convention : {"mean", "sum"}
        posteriors' recommended ``log_posterior/N`` with ``temperature = 1/N``, or the
        plain log posterior with ``temperature = 1``.

    Returns
    -------
    callable
        ``sample(problem, h, n_steps, n_chains, seed)`` returning ``{"theta", "p"}``
        (SGLD: ``theta`` only; SGNHT: also ``xi``) in our scaling (``p = √N·m``,
        ``ξ = √N·ξ_posteriors`` in the ``"mean"`` convention), float64, ArviZ layout
        ``(chains, draws, d)``; ``θ₀ = 0``, ``p₀ = 0``.

    Raises
    ------
    ImportError
        posteriors or torch is not installed.
    ValueError
        An unknown kernel or convention, or an unmappable algorithm or parameter.
    """
    if not AVAILABLE:
        raise ImportError("posteriors is not installed: pip install torch==2.13.0 posteriors")
    algorithm = algorithm or ALGORITHM.get(kernel, "")
    full_params = targets.step_params(algorithm, dict(params or {})) if kernel in KERNELS else {}
    posteriors_parameters(kernel, algorithm, full_params, 1.0, 1, convention)  # fail early
    torch, posteriors = _import()
    from torch.func import vmap

    def sample(
        problem: Problem, h: float, n_steps: int, n_chains: int, seed: int
    ) -> dict[str, np.ndarray]:
        h, n_steps, n_chains, seed = sample_arguments(h, n_steps, n_chains, seed)
        N, d = problem.N, problem.d
        q = posteriors_parameters(kernel, algorithm, full_params, h, N, convention)
        with _torch_settings(torch, seed):
            # copies (N·d² numbers): a problem's arrays are read-only, and torch warns that
            # it cannot share memory with a non-writable array
            centres, precisions, L0, m0 = (torch.tensor(a) for a in _jax_data(problem))
            n = q["batch"]
            weight = N / n if n is not None else 1.0
            # f_i(θ) = ½θᵀΛ_iθ − θᵀΛ_ic_i + const: a minibatch drawn with multiplicities
            # k_i contributes (N/n)Σ_i k_i f_i, so −s·Ũ = θᵀMθ + θᵀg + const with
            # (M, g) = −s·(½Λ₀, −Λ₀μ₀) − s·(N/n)Σ_i k_i (½Λ_i, −Λ_ic_i): one product of
            # the counts with a per-datum table (the constant, which moves no chain, is
            # dropped: posteriors takes an unnormalised log posterior)
            scale = q["scale"]
            per_datum = (
                0.5 * precisions.reshape(N, d * d),
                -torch.einsum("kij,kj->ki", precisions, centres),
            )
            table = -scale * weight * torch.cat(per_datum, dim=1)
            prior = -scale * torch.cat((0.5 * L0.reshape(d * d), -L0 @ m0))
            no_aux = torch.zeros(())

            def minibatch(counts: Any) -> tuple[Any, Any]:
                """``(M, g)`` per chain, ``−s·Ũ(θ) = θᵀMθ + θᵀg + const`` (counts: (chains, N))."""
                coef = prior + counts @ table
                return coef[:, : d * d].reshape(-1, d, d), coef[:, d * d :]

            def log_posterior(theta: Any, batch: tuple[Any, Any]) -> tuple[Any, Any]:
                # summed over the chains in `theta` (all of them, or one under vmap): chain
                # c's gradient is its own 2M_cθ_c + g_c = −s·∇Ũ_c (M symmetric), the terms
                # being separable
                M, g = batch
                M_theta = torch.matmul(M, theta.unsqueeze(-1)).squeeze(-1)
                return (theta * (M_theta + g)).sum(), no_aux

            common = {"lr": q["lr"], "temperature": q["temperature"]}
            mod = getattr(posteriors.sgmcmc, kernel)
            if kernel == "sgld":
                transform = mod.build(log_posterior, beta=0.0, **common)
            elif kernel == "baoa":
                transform = mod.build(log_posterior, alpha=q["alpha"], sigma=1.0, **common)
            else:
                transform = mod.build(
                    log_posterior, alpha=q["alpha"], beta=0.0, sigma=1.0, **common
                )
            theta0 = torch.zeros(n_chains, d)
            if kernel == "sgnht":
                # ξ' = ξ + ε(mean(m²) − T) averages over *all* parameters (tree_ravel):
                # one ξ per chain needs one call per chain, i.e. vmap.  build's
                # `xi or alpha` would replace ξ₀ = 0: call init with ξ₀ directly (a
                # float: init's torch.tensor(xi) cannot take a vmapped tensor)
                state = vmap(lambda t: mod.init(t, momenta=0.0, xi=q["xi0"]))(theta0)
                update = vmap(transform.update, randomness="different")
            else:
                # sgld, sghmc and baoa update every parameter elementwise (flexi_tree_map
                # of elementwise maps, randn_like of the whole tensor): the (chains, d)
                # tensor is n_chains independent chains in one call, with the same
                # draws, in the same order, as vmap(..., randomness="different")
                # (tests/test_validate_posteriors.py checks both)
                state = mod.init(theta0) if kernel == "sgld" else mod.init(theta0, momenta=0.0)
                update = transform.update
            # preallocated (chains, draws, ...) records: no per-step list or stack
            rec = {"theta": torch.empty((n_chains, n_steps, d))}
            if kernel != "sgld":
                rec["p"] = torch.empty((n_chains, n_steps, d))
            if kernel == "sgnht":
                rec["xi"] = torch.empty((n_chains, n_steps))
            full = minibatch(torch.ones(n_chains, N)) if n is None else None
            ones = torch.ones(n_chains, n) if n is not None else None
            for t in range(n_steps):
                if n is None:
                    batch = full
                else:
                    idx = torch.randint(0, N, (n_chains, n))  # with replacement, per chain
                    batch = minibatch(torch.zeros(n_chains, N).scatter_add_(1, idx, ones))
                state, _ = update(state, batch)
                rec["theta"][:, t] = state.params
                if kernel != "sgld":
                    rec["p"][:, t] = q["p_scale"] * state.momenta
                if kernel == "sgnht":
                    rec["xi"][:, t] = q["p_scale"] * state.xi.reshape(n_chains)
            return {k: v.numpy() for k, v in rec.items()}

    return sample
