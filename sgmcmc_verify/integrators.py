"""One-step discretisations, separate from the gradient estimators.

An integrator is a frozen dataclass with its parameters (step size, friction,
...), and three pure functions of the chain state:

``init(theta0, rng) -> state``
    The initial state (momentum and thermostat initialised as the paper says).
``eval_point(state) -> x``
    Where the gradient is evaluated: ``θ`` for Euler-type schemes, ``θ + h/2 p``
    for the symmetric splitting (SVRHMC eqs. (12)–(14)).
``advance(state, grad, noise) -> state``
    The rest of the step, given the gradient estimate at ``eval_point(state)``
    and standard-normal ``noise`` of shape ``(chains, d)``.

The estimator state lives in the ``est`` field of every state and is handled by
:class:`sgmcmc_verify.algorithms.Sampler`, not here.  Temperature is 1 throughout
(``k_B T = 1``, SGNHT §3; ``T = 1`` in EWSG eq. (1)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from ._rowsum import sum_last
from ._validation import as_theta, finite_array, positive

__all__ = [
    "BADODAB",
    "BAOA",
    "OBABO",
    "SGNHT",
    "MatrixThermostatState",
    "MomentumState",
    "OverdampedEM",
    "OverdampedState",
    "PreconditionedEM",
    "RefreshState",
    "SGHMCChen",
    "SGHMCEuler",
    "SGHMCRefresh",
    "SGNHTMatrix",
    "SGNHTReparam",
    "SymmetricSplitting",
    "ThermostatState",
    "ULDEulerMaruyama",
    "overdamped_em",
    "preconditioner_matrix",
    "psd_root",
]


class OverdampedState(NamedTuple):
    """``theta`` (chains, d) and the estimator's state."""

    theta: np.ndarray
    est: Any = None


class MomentumState(NamedTuple):
    """``theta``, momentum ``p`` (chains, d) and the estimator's state."""

    theta: np.ndarray
    p: np.ndarray
    est: Any = None


class ThermostatState(NamedTuple):
    """SGNHT state: ``theta``, ``p`` (chains, d), scalar thermostat ``xi`` (chains,)."""

    theta: np.ndarray
    p: np.ndarray
    xi: np.ndarray
    est: Any = None


class MatrixThermostatState(NamedTuple):
    """Generalised SGNHT state with a matrix thermostat ``Xi`` (chains, d, d)."""

    theta: np.ndarray
    p: np.ndarray
    Xi: np.ndarray
    est: Any = None


def psd_root(name: str, M: Any, d: int, *, strict: bool = False) -> np.ndarray:
    """A symmetric square root ``R`` with ``R Rᵀ = M`` for a scalar or (d, d) matrix ``M``.

    Raises ``ValueError`` if ``M`` is not symmetric positive semi-definite
    (positive definite with ``strict``).
    """
    A = np.asarray(M, dtype=np.float64)
    A = np.eye(d) * A if A.ndim == 0 else finite_array(name, A)
    if A.shape != (d, d) or not np.allclose(A, A.T, rtol=0, atol=1e-12 * max(1, abs(A).max())):
        raise ValueError(f"{name} must be a scalar or a symmetric ({d}, {d}) matrix")
    w, V = np.linalg.eigh(A)
    tol = 1e-12 * max(1.0, abs(w).max())
    if w.min() < -tol or (strict and w.min() <= tol):
        kind = "positive definite" if strict else "positive semi-definite"
        raise ValueError(f"{name} must be {kind} (smallest eigenvalue {w.min():.3g})")
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


def overdamped_em(theta: np.ndarray, grad: np.ndarray, noise: np.ndarray, h: float) -> np.ndarray:
    """Euler–Maruyama step of overdamped Langevin dynamics, AGLD eqs. (3) and (5).

    .. math::

        x^{(k+1)} = x^{(k)} - \\eta\\, g^{(k)} + \\sqrt{2\\eta}\\, \\xi^{(k)}
    """
    return theta - h * grad + np.sqrt(2.0 * h) * noise


@dataclass(frozen=True)
class OverdampedEM:
    """Overdamped Langevin, Euler–Maruyama (AGLD eqs. (3), (5)).

    Parameters
    ----------
    h : float
        Step size ``η``.
    """

    h: float
    family = "overdamped"

    def __post_init__(self) -> None:
        positive("h", self.h)

    def init(self, theta0, rng, d):
        return OverdampedState(theta0)

    def eval_point(self, state):
        return state.theta

    def advance(self, state, grad, noise):
        return state._replace(theta=overdamped_em(state.theta, grad, noise, self.h))


def preconditioner_matrix(G: Any, d: int | None = None) -> np.ndarray:
    """A fixed preconditioner as a symmetric positive-definite ``(d, d)`` matrix.

    ``G`` is a positive scalar (``G·I``; ``d`` required), a vector (the diagonal: Li et
    al.'s ``diag(1 ⊘ (λ + √V))`` form) or an SPD matrix.  ``ValueError`` otherwise.
    """
    A = np.asarray(G, dtype=np.float64)
    if A.ndim == 0:
        if d is None:
            raise ValueError("a scalar preconditioner needs the dimension d")
        A = np.eye(d) * A
    elif A.ndim == 1:
        A = np.diag(A)
    if d is not None and A.shape != (d, d):
        raise ValueError(f"the preconditioner G has shape {A.shape}, the problem has d = {d}")
    psd_root("G (preconditioner)", A, A.shape[0], strict=True)  # SPD or ValueError
    return A


@dataclass(frozen=True)
class PreconditionedEM:
    """Overdamped Langevin with a *fixed* preconditioner ``G``, Euler–Maruyama.

    Li, Chen, Carlson & Carin (2016), "Preconditioned stochastic gradient Langevin
    dynamics for deep neural networks", AAAI, Algorithm 1 (pSGLD) with ``G`` held
    constant.  Their update is ``θ' = θ + (ε/2)[G ∇̃log p(θ) + Γ(θ)] + N(0, εG)``;
    ``Γ_i = Σ_j ∂G_ij/∂θ_j`` vanishes for a constant ``G``.  In the package's
    convention (``h = ε/2``, :func:`overdamped_em`; see :mod:`sgmcmc_verify.baselines`):

    .. math::

        \\theta' = \\theta - h\\, G\\, \\tilde\\nabla U(\\theta) + \\sqrt{2h}\\, G^{1/2} \\xi,

    which discretises ``dθ = −G∇U dt + √(2G) dW``, whose invariant law is π for every
    constant SPD ``G``.  ``G = I`` is SGLD.

    Parameters
    ----------
    h : float
        Step size (``ε = 2h`` in Li et al.'s notation).
    G : float, array (d,) or array (d, d)
        The preconditioner: a positive scalar, a positive diagonal, or an SPD matrix.
        Its symmetric square root scales the noise (any ``R`` with ``RRᵀ = G`` gives
        the same law).
    """

    h: float
    G: Any = 1.0
    family = "overdamped"

    def __post_init__(self) -> None:
        positive("h", self.h)
        G = np.asarray(self.G, dtype=np.float64)
        if G.ndim == 0:
            positive("G (preconditioner)", float(G))
        else:
            G = preconditioner_matrix(G)
        object.__setattr__(self, "G", G)

    def _matrix(self, d: int) -> tuple[np.ndarray, np.ndarray]:
        G = preconditioner_matrix(self.G, d)
        return G, psd_root("G (preconditioner)", G, d, strict=True)

    def init(self, theta0, rng, d):
        self._matrix(d)  # a G of another dimension fails here, before any step
        return OverdampedState(theta0)

    def eval_point(self, state):
        return state.theta

    def advance(self, state, grad, noise):
        h = self.h
        if self.G.ndim == 0:  # G·I: no matrix products
            g = float(self.G)
            return state._replace(theta=state.theta - h * g * grad + math.sqrt(2 * h * g) * noise)
        G, R = self._matrix(state.theta.shape[-1])
        # rows are chains: (G g)ᵀ = gᵀ G and (R ξ)ᵀ = ξᵀ R for symmetric G, R
        theta = state.theta - h * (grad @ G) + math.sqrt(2 * h) * (noise @ R)
        return state._replace(theta=theta)


@dataclass(frozen=True)
class _Momentum:
    """Shared initialisation for schemes with a momentum: ``p_0`` zero or standard normal."""

    h: float
    p0: str = "zeros"

    def __post_init__(self) -> None:
        positive("h", self.h)
        if self.p0 not in ("zeros", "normal"):
            raise ValueError(f"p0 must be 'zeros' or 'normal', got {self.p0!r}")

    def _p0(self, theta0, rng):
        if self.p0 == "normal":
            return rng.standard_normal(theta0.shape)
        return np.zeros_like(theta0)

    def init(self, theta0, rng, d):
        return MomentumState(theta0, self._p0(theta0, rng))

    def eval_point(self, state):
        return state.theta


@dataclass(frozen=True)
class ULDEulerMaruyama(_Momentum):
    """Underdamped Langevin, Euler–Maruyama: EWSG eqs. (1) and (3).

    .. math::

        \\theta_{k+1} = \\theta_k + r_k h, \\qquad
        r_{k+1} = r_k - (\\nabla V(\\theta_k) + \\gamma r_k) h + \\sigma\\sqrt h\\, \\xi_{k+1},

    with ``σ² = 2γT`` and ``T = 1`` (EWSG §3, fluctuation–dissipation).  Note
    that ``θ`` moves with the *old* momentum ``r_k``.

    Parameters
    ----------
    h : float
    gamma : float
        Friction ``γ``.
    """

    gamma: float = 1.0
    family = "underdamped"

    def __post_init__(self) -> None:
        super().__post_init__()
        positive("gamma", self.gamma)

    @property
    def sigma(self) -> float:
        return math.sqrt(2.0 * self.gamma)

    def advance(self, state, grad, noise):
        h = self.h
        theta = state.theta + state.p * h
        p = state.p - (grad + self.gamma * state.p) * h + self.sigma * math.sqrt(h) * noise
        return state._replace(theta=theta, p=p)


@dataclass(frozen=True)
class SGHMCEuler(_Momentum):
    """SGHMC as in SVRHMC eqs. (1)–(2) (and its Algorithms 1–2, lines 9–10).

    .. math::

        p_{t+1} = (1 - Dh) p_t - h\\tilde\\nabla_t + \\sqrt{2Dh}\\,\\xi_t, \\qquad
        \\theta_{t+1} = \\theta_t + h p_{t+1}.

    Requires ``Dh < 1`` and ``D ≥ 1`` (SVRHMC Algorithms 1–4, line 1).
    """

    D: float = 1.0
    family = "underdamped"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_D(self.D, self.h)

    def advance(self, state, grad, noise):
        h, D = self.h, self.D
        p = (1 - D * h) * state.p - h * grad + math.sqrt(2 * D * h) * noise
        return state._replace(theta=state.theta + h * p, p=p)


def _check_D(D: float, h: float) -> None:
    positive("D (friction)", D)
    if D < 1:
        raise ValueError(f"SVRHMC Algorithms 1-4 require D >= 1, got D={D}")
    if D * h >= 1:
        raise ValueError(f"SVRHMC Algorithms 1-4 require Dh < 1, got D·h = {D * h:g}")


@dataclass(frozen=True)
class SGHMCChen(_Momentum):
    """SGHMC with friction ``A`` and noise estimate ``B̂``: SGNHT eq. (3) (Chen et al. 2014).

    .. math::

        d\\theta = p\\,dt, \\quad dp = \\tilde f\\,dt - A p\\,dt + N(0, 2(A I - \\hat B)dt),

    discretised as SGNHT Algorithm 1 with ``ξ`` held at ``A``:

    .. math::

        p' = p - A p h - \\nabla\\tilde U h + N(0, 2(A I - \\hat B) h), \\qquad
        \\theta' = \\theta + p' h.

    ``A I − B̂`` must be positive semi-definite (a noise covariance).
    """

    A: float = 1.0
    B_hat: Any = 0.0
    family = "underdamped"

    def __post_init__(self) -> None:
        super().__post_init__()
        positive("A (friction)", self.A)
        B = np.asarray(self.B_hat, dtype=np.float64)
        d = 1 if B.ndim == 0 else B.shape[0]
        try:
            psd_root("A·I − B̂", self.A * np.eye(d) - (B if B.ndim else B * np.eye(d)), d)
        except ValueError as err:
            raise ValueError(f"SGHMC needs A·I − B̂ ⪰ 0 (a noise variance): {err}") from None

    def _root(self, d: int) -> np.ndarray:
        # memoised per instance: an eigendecomposition every step was ~45 % of the run time
        memo = self.__dict__.setdefault("_roots", {})
        if d not in memo:
            B = np.asarray(self.B_hat, dtype=np.float64)
            memo[d] = psd_root(
                "A·I − B̂", self.A * np.eye(d) - (B * np.eye(d) if B.ndim == 0 else B), d
            )
        return memo[d]

    def advance(self, state, grad, noise):
        h = self.h
        inj = _injected(self, self._root(state.theta.shape[1]), noise, math.sqrt(2 * h))
        p = state.p - self.A * state.p * h - grad * h + inj
        return state._replace(theta=state.theta + p * h, p=p)


class RefreshState(NamedTuple):
    """SGHMC-with-refresh state: ``theta``, ``p`` (chains, d), the step count ``k``."""

    theta: np.ndarray
    p: np.ndarray
    k: int
    est: Any = None


@dataclass(frozen=True)
class SGHMCRefresh(SGHMCChen):
    """SGHMC with the momentum resampled every ``L`` steps: Chen, Fox & Guestrin (2014),
    ICML, Algorithm 2 ("optionally, resample momentum r ~ N(0, M)" at each outer iteration,
    then ``m`` steps of eq. (15), no M–H step), with ``M = I``, ``C = A``, ``m = L``.

    Algorithm 2's inner step is ``θ_i = θ_{i−1} + h r_{i−1}``,
    ``r_i = r_{i−1} − h∇Ũ(θ_i) − hA r_{i−1} + N(0, 2(A − B̂)h)``.  Observed as
    :class:`SGHMCChen` observes it — the pair ``(θ_{i+1}, r_i)``, the momentum the
    position moved with (SGNHT Algorithm 1's order) — one period of ``L`` steps is

    * step ``k ≡ 0 (mod L)`` (the refresh): ``p' = ξ`` (fresh ``N(0, I)``, the step's
      noise), ``θ' = θ + h p'`` (Algorithm 2's ``θ_1 = θ_0 + h r_0``; the gradient
      Algorithm 2 spends on the discarded ``r_m`` is computed and not used);
    * the other ``L − 1`` steps: :class:`SGHMCChen`'s
      ``p' = p − Aph − ∇Ũ h + N(0, 2(AI − B̂)h)``, ``θ' = θ + p'h``.

    The θ-chain is Algorithm 2's ``θ_1, …, θ_m`` of each outer iteration.  The law of
    the chain is periodic with period ``L`` (the step count ``k`` is part of the state).
    (The inner step is transcribed from Algorithm 2 / eq. (15) of the paper, which is not
    among ``shared/papers``.  The authors' released code kicks the momentum *before*
    moving θ, so after a refresh its θ moves with the kicked momentum: a different law.)

    At fixed ``L`` the chain is *not* consistent as ``h → 0``: per period θ moves by
    ``hLξ`` with drift ``−h²L(L−1)/2·∇U``, i.e. Langevin at temperature ``L/(L − 1)``
    (``a Var θ → L/(L−1)`` on ``N(0, 1/a)``; ``tests/test_new_references.py``).  Only
    ``L ∝ 1/h`` (a refresh every fixed time) is.

    Parameters
    ----------
    h, A, B_hat, p0
        As :class:`SGHMCChen` (``p0`` only matters before the first refresh, i.e. never).
    L : int
        Steps per momentum refresh (Algorithm 2's ``m``); ``L = 1`` redraws ``p`` every
        step (then θ is a random walk: no stationary law).
    """

    L: int = 10

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.L, bool) or not isinstance(self.L, int | np.integer) or self.L < 1:
            raise ValueError(f"L (steps per momentum refresh) must be an integer ≥ 1: {self.L!r}")

    @property
    def period(self) -> int:
        """The period of the chain's law (phase-dependent maps): ``L``."""
        return int(self.L)

    def init(self, theta0, rng, d):
        return RefreshState(theta0, self._p0(theta0, rng), 0)

    def advance(self, state, grad, noise):
        if state.k % self.L == 0:  # Algorithm 2: r ~ N(0, I), then θ_1 = θ_0 + h r_0
            p = np.array(noise, dtype=np.float64, copy=True)
            return state._replace(theta=state.theta + self.h * p, p=p, k=state.k + 1)
        new = super().advance(state, grad, noise)
        return new._replace(k=state.k + 1)


@dataclass(frozen=True)
class SymmetricSplitting(_Momentum):
    """Symmetric splitting of SVRHMC §4, eqs. (12)–(16) (Leimkuhler & Shang 2016).

    .. math::

        \\theta^{(1)} = \\theta_t + \\tfrac h2 p_t,\\;
        p^{(1)} = e^{-Dh/2} p_t,\\;
        p^{(2)} = p^{(1)} - h\\tilde\\nabla_t + \\sqrt{2Dh}\\,\\xi_t,\\;
        p_{t+1} = e^{-Dh/2} p^{(2)},\\;
        \\theta_{t+1} = \\theta^{(1)} + \\tfrac h2 p_{t+1},

    with ``∇̃_t`` evaluated at ``θ^{(1)} = θ_t + h/2 p_t`` (the text after eq. (18)).
    Requires ``Dh < 1`` and ``D ≥ 1`` (Algorithms 3–4, line 1).
    """

    D: float = 1.0
    family = "underdamped"

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_D(self.D, self.h)

    def eval_point(self, state):
        return state.theta + 0.5 * self.h * state.p  # eq. (12)

    def advance(self, state, grad, noise):
        h, decay = self.h, math.exp(-self.D * self.h / 2)
        theta1 = state.theta + 0.5 * h * state.p  # (12)
        p1 = decay * state.p  # (13)
        p2 = p1 - h * grad + math.sqrt(2 * self.D * h) * noise  # (14)
        p = decay * p2  # (15)
        return state._replace(theta=theta1 + 0.5 * h * p, p=p)  # (16)


@dataclass(frozen=True)
class _OUFriction(_Momentum):
    """Schemes with an exact Ornstein–Uhlenbeck "O" step ``p ← e^{−γh} p + √(1 − e^{−2γh}) ξ``."""

    gamma: float = 1.0
    family = "underdamped"

    def __post_init__(self) -> None:
        super().__post_init__()
        positive("gamma", self.gamma)

    def _o(self, p: np.ndarray, noise: np.ndarray) -> np.ndarray:
        decay = math.exp(-self.gamma * self.h)
        # √(1 − e^{−2γh}) via expm1: no cancellation when γh is small
        return decay * p + math.sqrt(-math.expm1(-2 * self.gamma * self.h)) * noise


@dataclass(frozen=True)
class BAOA(_OUFriction):
    """BAOA: Leimkuhler & Matthews (2015), *Molecular Dynamics*, p. 271.

    .. math::

        p_1 = p - h\\,\\tilde\\nabla U(\\theta),\\quad
        \\theta_1 = \\theta + \\tfrac h2 p_1,\\quad
        p' = e^{-\\gamma h} p_1 + \\sqrt{1 - e^{-2\\gamma h}}\\,\\xi,\\quad
        \\theta' = \\theta_1 + \\tfrac h2 p'.

    BAOAB with the closing half kick of one step merged into the opening half kick of
    the next, so one gradient per step and the *same* θ-chain as BAOAB (BAOAB's
    momentum at the end of a step is ``p' − h/2 ∇U(θ')``).  posteriors'
    ``posteriors.sgmcmc.baoa`` (``lr = h``, ``alpha = γ``, ``sigma = 1``,
    ``temperature = 1``) is this scheme.
    """

    def advance(self, state, grad, noise):
        h = self.h
        p1 = state.p - h * grad  # B(h)
        theta1 = state.theta + 0.5 * h * p1  # A(h/2)
        p = self._o(p1, noise)  # O(h)
        return state._replace(theta=theta1 + 0.5 * h * p, p=p)  # A(h/2)


@dataclass(frozen=True)
class OBABO(_OUFriction):
    """OBABO (Leimkuhler & Matthews 2015, §7), observed after its A step.

    OBABO's cycle is O(h/2) B(h/2) A(h) B(h/2) O(h/2).  Cut after A, one step is

    .. math::

        p_1 = p - \\tfrac h2 \\tilde\\nabla U(\\theta),\\quad
        p_2 = e^{-\\gamma h} p_1 + \\sqrt{1 - e^{-2\\gamma h}}\\,\\xi,\\quad
        p' = p_2 - \\tfrac h2 \\tilde\\nabla U(\\theta),\\quad
        \\theta' = \\theta + h p',

    the closing O(h/2) of one step and the opening O(h/2) of the next being one O(h)
    in law.  One gradient per step serves both half kicks; the θ-chain has OBABO's law.
    """

    def advance(self, state, grad, noise):
        h = self.h
        p = self._o(state.p - 0.5 * h * grad, noise) - 0.5 * h * grad  # B O B
        return state._replace(theta=state.theta + h * p, p=p)  # A(h)


@dataclass(frozen=True)
class SGNHT:
    """Stochastic gradient Nosé–Hoover thermostat, SGNHT Algorithm 1 (eqs. (5)–(6)).

    .. math::

        p_t = p_{t-1} - \\xi_{t-1} p_{t-1} h - \\nabla\\tilde U(\\theta_{t-1}) h
              + \\sqrt{2A}\\,N(0, h),\\quad
        \\theta_t = \\theta_{t-1} + p_t h,\\quad
        \\xi_t = \\xi_{t-1} + (\\tfrac1n p_t^\\top p_t - 1) h.

    Initialisation (Algorithm 1): ``p_0 ~ N(0, I)``, ``ξ_0 = A``.  ``A = 0`` is
    allowed (SGNHT §3 runs the double well with A = 0).

    Parameters
    ----------
    h : float
    A : float
        Injected diffusion ``A ≥ 0``.
    xi0 : float, optional
        Initial thermostat; default ``A``.
    """

    h: float
    A: float = 1.0
    xi0: float | None = None
    family = "thermostat"

    def __post_init__(self) -> None:
        positive("h", self.h)
        if not np.isfinite(self.A) or self.A < 0:
            raise ValueError(f"A (injected diffusion) must be finite and >= 0, got {self.A}")

    def init(self, theta0, rng, d):
        xi = np.full(theta0.shape[0], self.A if self.xi0 is None else float(self.xi0))
        return ThermostatState(theta0, rng.standard_normal(theta0.shape), xi)

    def eval_point(self, state):
        return state.theta

    def advance(self, state, grad, noise):
        h = self.h
        p = state.p - state.xi[:, None] * state.p * h - grad * h + math.sqrt(2 * self.A * h) * noise
        theta = state.theta + p * h
        xi = state.xi + (sum_last(p * p) / p.shape[1] - 1.0) * h
        return state._replace(theta=theta, p=p, xi=xi)


@dataclass(frozen=True)
class BADODAB(SGNHT):
    """The adaptive-Langevin (Ad-Langevin) thermostat by the symmetric splitting B-A-D-O-D-A-B.

    B. Leimkuhler & X. Shang (2016), "Adaptive thermostats for noisy gradient systems",
    *SIAM J. Sci. Comput.* 38(2), A712–A736 (arXiv:1505.06889).  The Ad-Langevin dynamics
    (their SGNHT with an exact Ornstein–Uhlenbeck part), with ``M = I``, ``k_B T = 1``,
    ``N_d = d`` and ``σ_A² = 2A``,

    .. math::

        d\\theta = p\\,dt,\\quad dp = -\\nabla U\\,dt - \\xi p\\,dt + \\sigma_A dW_A,\\quad
        d\\xi = \\mu^{-1}(p^\\top p - d)\\,dt,

    is split into B (``dp = −∇Ũ dt``), A (``dθ = p dt``), D (``dξ = μ⁻¹(pᵀp − d) dt``) and
    O (``dp = −ξp dt + σ_A dW_A`` at frozen ξ, solved exactly), composed as
    ``B(h/2) A(h/2) D(h/2) O(h) D(h/2) A(h/2) B(h/2)`` (the paper's BADODAB listing; the
    paper text is not among ``shared/papers``, so its equation numbers are not quoted).
    As :class:`BAOA` does for BAOAB, the closing ``B(h/2)`` of one step and the opening
    ``B(h/2)`` of the next are merged into one ``B(h)`` with one gradient, so a step is

    .. math::

        p_a = p - h\\,\\tilde\\nabla U(\\theta),\\;
        \\theta_1 = \\theta + \\tfrac h2 p_a,\\;
        \\xi_1 = \\xi + \\tfrac{h}{2\\mu}(p_a^\\top p_a - d),\\;
        p' = e^{-\\xi_1 h} p_a + \\sqrt{A(1 - e^{-2\\xi_1 h})/\\xi_1}\\,R,\\;
        \\xi' = \\xi_1 + \\tfrac{h}{2\\mu}(p'^\\top p' - d),\\;
        \\theta' = \\theta_1 + \\tfrac h2 p'.

    The θ-chain and the ξ-chain are BADODAB's (with one minibatch serving both half
    kicks around each θ); the recorded ``p`` is the momentum after O (BADODAB's
    ``p_{n+1} + (h/2)∇Ũ(θ_{n+1})``).  The O coefficient is ``A(1 − e^{−2ξh})/ξ``
    (``σ_A²(1 − e^{−2ξh})/(2ξ)``), ``2Ah`` at ``ξ = 0`` and positive for ``ξ < 0`` too.

    Exact identity (:mod:`sgmcmc_verify.exact.thermostat`): ``ξ' − ξ = (h/2μ)(|p_a|² +
    |p'|² − 2d)``, so ``E[|p_a|² + |p'|²]/(2d) = 1`` at stationarity, with ``p_a`` the
    previous recorded ``p`` minus ``h`` times the step's recorded gradient.

    The state, its initialisation (``p_0 ~ N(0, I)``, ``ξ_0 = A``) and the parameters
    ``h, A, xi0`` are :class:`SGNHT`'s.

    Parameters
    ----------
    h : float
    A : float
        Injected diffusion ``A = σ_A²/2 ≥ 0``; the h → 0 law has ``E ξ = A`` with an
        exact gradient (``A + B`` with SGNHT §3's injected gradient noise ``B``).
    mu : float
        Thermostat mass ``μ > 0``.
    xi0 : float, optional
        Initial thermostat; default ``A``.  ``p_0 ~ N(0, I)``.
    """

    mu: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        positive("mu", self.mu)

    def _d(self, xi: np.ndarray, p: np.ndarray) -> np.ndarray:
        """D(h/2): ``ξ + (h/2μ)(pᵀp − d)``."""
        return xi + (0.5 * self.h / self.mu) * (sum_last(p * p) - p.shape[1])

    def _o(self, p: np.ndarray, xi: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """O(h) at frozen ξ: ``e^{−ξh} p + √(A(1 − e^{−2ξh})/ξ) R`` (``2Ah`` at ξ = 0)."""
        h = self.h
        safe = np.where(xi == 0, 1.0, xi)
        var = np.where(xi == 0, 2 * self.A * h, -self.A * np.expm1(-2 * h * xi) / safe)
        return np.exp(-h * xi)[:, None] * p + np.sqrt(var)[:, None] * noise

    def advance(self, state, grad, noise):
        h = self.h
        pa = state.p - h * grad  # B(h/2) of the previous step, B(h/2) of this one
        theta1 = state.theta + 0.5 * h * pa  # A(h/2)
        xi1 = self._d(state.xi, pa)  # D(h/2)
        p = self._o(pa, xi1, noise)  # O(h)
        xi = self._d(xi1, p)  # D(h/2)
        return state._replace(theta=theta1 + 0.5 * h * p, p=p, xi=xi)  # A(h/2)


@dataclass(frozen=True)
class SGNHTReparam:
    """SGNHT reparametrised as in SGNHT §5.2: ``u = ph, η = h², α = ξh, a = Ah``.

    Algorithm 2 is in an appendix that is not in our text; substituting into
    Algorithm 1 (multiply the ``p`` update by ``h`` and the ``ξ`` update by ``h``):

    .. math::

        u_t = u_{t-1} - \\alpha_{t-1} u_{t-1} - \\eta\\nabla\\tilde U(\\theta_{t-1})
              + \\sqrt{2a\\eta}\\,\\zeta_t,\\quad
        \\theta_t = \\theta_{t-1} + u_t,\\quad
        \\alpha_t = \\alpha_{t-1} + \\tfrac1n u_t^\\top u_t - \\eta,

    since ``√(2A)·N(0, h)·h = √(2Ah)·h·ζ = √(2aη)·ζ``.  The state stores ``u`` in
    the ``p`` field and ``α`` in the ``xi`` field; ``p = u/h`` and ``ξ = α/h`` map it
    back.

    Parameters
    ----------
    eta : float
        Learning rate ``η = h²``.
    a : float
        ``a = Ah ≥ 0``.
    alpha0 : float, optional
        Initial ``α``; default ``a`` (``ξ_0 = A``).
    """

    eta: float
    a: float = 0.1
    alpha0: float | None = None
    family = "thermostat"

    def __post_init__(self) -> None:
        positive("eta", self.eta)
        if not np.isfinite(self.a) or self.a < 0:
            raise ValueError(f"a must be finite and >= 0, got {self.a}")

    @property
    def h(self) -> float:
        return math.sqrt(self.eta)

    def momentum(self, state) -> np.ndarray:
        """``p = u/h``."""
        return state.p / self.h

    def thermostat(self, state) -> np.ndarray:
        """``ξ = α/h``."""
        return state.xi / self.h

    def from_public(self, state, p: np.ndarray | None = None, xi: np.ndarray | None = None):
        """The state with public ``p``/``ξ`` stored as ``u = ph``/``α = ξh`` (inverse maps)."""
        if p is not None:
            state = state._replace(p=np.asarray(p) * self.h)
        if xi is not None:
            state = state._replace(xi=np.asarray(xi) * self.h)
        return state

    def init(self, theta0, rng, d):
        alpha = np.full(theta0.shape[0], self.a if self.alpha0 is None else float(self.alpha0))
        return ThermostatState(theta0, self.h * rng.standard_normal(theta0.shape), alpha)

    def eval_point(self, state):
        return state.theta

    def advance(self, state, grad, noise):
        eta = self.eta
        u = state.p - state.xi[:, None] * state.p - eta * grad + math.sqrt(2 * self.a * eta) * noise
        return state._replace(
            theta=state.theta + u, p=u, xi=state.xi + sum_last(u * u) / u.shape[1] - eta
        )


@dataclass(frozen=True)
class SGNHTMatrix:
    """Generalised SGNHT with a matrix thermostat, SGNHT §4.2 eq. (11).

    .. math::

        d\\theta = p\\,dt,\\quad dp = f\\,dt - \\Xi p\\,dt + N(0, 2D\\,dt),\\quad
        d\\Xi = (pp^\\top - I)/\\mu\\,dt,

    discretised like Algorithm 1 (``p`` first, then ``θ`` and ``Ξ`` with the new
    ``p``); the injected noise is ``N(0, 2A h)`` with ``A`` a scalar or a PSD matrix.

    Parameters
    ----------
    h : float
    A : float or ndarray (d, d)
    mu : float
        Thermostat mass ``μ > 0``.
    Xi0 : float or ndarray (d, d), optional
        Initial thermostat; default ``A`` (as ``ξ_0 = A`` in Algorithm 1).
    """

    h: float
    A: Any = 1.0
    mu: float = 1.0
    Xi0: Any = None
    family = "thermostat"

    def __post_init__(self) -> None:
        positive("h", self.h)
        positive("mu", self.mu)
        np.asarray(self.A, dtype=np.float64)

    def _root(self, d: int) -> np.ndarray:
        memo = self.__dict__.setdefault("_roots", {})  # memoised: see SGHMCChen._root
        if d not in memo:
            memo[d] = psd_root("A", self.A, d)
        return memo[d]

    def init(self, theta0, rng, d):
        self._root(d)  # validate before work
        X0 = self.A if self.Xi0 is None else self.Xi0
        X0 = np.asarray(X0, dtype=np.float64)
        X0 = np.eye(d) * X0 if X0.ndim == 0 else X0
        if X0.shape != (d, d):
            raise ValueError(f"Xi0 must be a scalar or a ({d}, {d}) matrix")
        Xi = np.broadcast_to(X0, (theta0.shape[0], d, d)).copy()
        return MatrixThermostatState(theta0, rng.standard_normal(theta0.shape), Xi)

    def eval_point(self, state):
        return state.theta

    def advance(self, state, grad, noise):
        h, d = self.h, state.theta.shape[1]
        Xip = np.einsum("cij,cj->ci", state.Xi, state.p)
        p = state.p - Xip * h - grad * h + _injected(self, self._root(d), noise, math.sqrt(2 * h))
        # Ξ + (p pᵀ − I)(h/μ), built in one new array: the same operations on the same
        # operands (the sum commutes bitwise), without three (chains, d, d) temporaries
        Xi = np.multiply(p[:, :, None], p[:, None, :])
        Xi -= np.eye(d)
        Xi *= h / self.mu
        Xi += state.Xi
        return state._replace(theta=state.theta + p * h, p=p, Xi=Xi)


def _injected(owner: Any, root: np.ndarray, noise: np.ndarray, scale: float) -> np.ndarray:
    """``scale · noise @ rootᵀ``, the injected noise with covariance ``scale² root rootᵀ``.

    Elementwise when ``root`` is exactly ``c·I`` (memoised on ``owner``, a frozen
    integrator, with its root): a (chains, d) × (d, d) product starts multithreaded BLAS
    at 10⁴ chains (2.4× the CPU for nothing) and costs 169 µs against 13 µs at 2·10⁴
    chains; bitwise equal to the product with ``c·I``.
    """
    d = root.shape[0]
    memo = owner.__dict__.setdefault("_scaled", {})
    if d not in memo:
        memo[d] = _is_scaled_identity(root)
    if memo[d]:
        return scale * noise * root[0, 0]
    return scale * noise @ root.T


def _is_scaled_identity(M: np.ndarray) -> bool:
    """Whether ``M`` is exactly ``c·I`` (then ``x @ M.T`` is ``x * c``, bit for bit)."""
    return bool(np.array_equal(M, M[0, 0] * np.eye(M.shape[0])))


def validate_theta0(theta0: np.ndarray, d: int) -> np.ndarray:
    """Finite ``(chains, d)`` float64 copy of ``theta0``."""
    return finite_array("theta0", as_theta(theta0, d)).copy()
