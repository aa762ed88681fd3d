"""Closed forms and exact laws the SGNHT thermostat checks compare against.

SGNHT (Ding et al. 2014): Algorithm 1 (eqs. (5)–(6)), the thermal equilibrium
condition eq. (4), the §3 double-well illustration (Figure 1) and the §4.2
statement that the stationary thermostat is ``N(D, 1/μ)``.  The noise model is
§3's: ``∇Ũ h = ∇U h + N(0, 2Bh)``, i.e. this package's
:class:`~sgmcmc_verify.estimators.InjectedNoise` (``∇U + N(0, 2B/h)``).  In
Algorithm 1's ``p``-update the injected diffusion adds ``N(0, 2Ah)`` and the
gradient noise adds ``h·N(0, 2B/h) = N(0, 2Bh)``, so per step ``p`` receives
Gaussian noise of variance ``2(A + B)h``: the diffusion of eq. (7) is
``D = A + B`` (the gradient-noise part of §4.1's ``D(θ) = A + B(θ)`` is ``B``,
and it does not vanish as ``h → 0`` under this scaling).

Derivations (ours; the paper states none of them)
-------------------------------------------------
Write ``k_t = |p_t|²/n − 1`` and assume the chain is stationary with finite
moments.

*Thermal equilibrium is exact in discrete time.*  Algorithm 1's ξ-update
``ξ_t = ξ_{t−1} + h k_t`` telescopes: ``Σ_{t≤T} k_t = (ξ_T − ξ_0)/h``, so the
time average of ``|p_t|²/n`` is ``1 + (ξ_T − ξ_0)/(hT)`` and
``E|p_t|²/n = 1`` at every ``h``, for every target and gradient noise.  The
O(h) deviation is zero.  A fixed-friction scheme (SGHMC, eq. (3), discretised
like Algorithm 1 with ``ξ ≡ γ``) instead has
``E|p|²/n = (D/γ)/(1 − γh/2) + O(h²)``, from squaring the ``p``-update (below);
it is measured as a control showing that the check resolves O(h) terms.

*The O(h) term of E[ξ].*  Squaring the ``p``-update
``p_t = p_{t−1} − h(ξ_{t−1} p_{t−1} + ∇U(θ_{t−1})) + η_t``,
``η_t ~ N(0, 2Dh I)``, and using stationarity of ``E|p|²``:

.. math::

    E[\\xi_{t-1}|p_{t-1}|^2] = nD - E[p_{t-1}\\cdot\\nabla U_{t-1}]
        + \\tfrac h2 E|\\xi_{t-1}p_{t-1} + \\nabla U_{t-1}|^2     \\quad\\text{(exact)}.

Squaring the ξ-update: ``E[ξ_{t−1}|p_t|²]/n = E[ξ] − (h/2)E[k_t²]`` (exact).
Stationarity of ``E U(θ)`` and integration by parts give
``E[p_{t−1}·∇U_{t−1}] = (h/2)E|∇U|² + O(h²)``, and one step of the
``p``-update gives ``E[ξ_{t−1}(|p_t|² − |p_{t−1}|²)] = −2h n Var(ξ) + O(h²)``.
Evaluating the O(h) terms under the h = 0 law (``p ~ N(0, I)``, ``ξ ~ N(D, 1/n)``
independent of ``θ, p``) yields, for any ``U``,

.. math::

    E[\\xi] = D + \\tfrac h2 \\left(D^2 - \\tfrac1n\\right) + O(h^2).

The same algebra with the ξ-update fed the *old* momentum ``p_{t−1}`` (a
planted bug) gives ``D + (h/2)(D² + 3/n)``.  In the paper's double-well
setting (``A = 0, B = 1, n = 1``) the O(h) term vanishes: ``E[ξ] = B + O(h²)``.

*The law of the matrix thermostat.*  Eq. (11) keeps ``Ξ`` symmetric when
``Ξ_0`` is, so its law lives on symmetric matrices.  Redoing eq. (10) with
one coordinate per unique entry, ``S(Ξ) = (μ/2)‖Ξ − D‖_F²`` still solves it,
and ``‖Ξ − D‖_F²`` counts an off-diagonal entry twice: diagonal entries have
variance ``1/μ``, off-diagonal ones ``1/(2μ)`` — not the ``1/μ`` of the
matrix normal ``MN(D, μ⁻¹I, I)`` stated in §4.2 for an unconstrained ``Ξ``.

*Fixed ξ.*  ``dp = −∇U dt − ξp dt + N(0, 2B dt)`` has the invariant law
``exp(−(ξ/B)H)``: temperature ``T = B/ξ``.  ξ = 10 is ``T = 0.1`` (barrier
≈ 43 nats from the left well, 22 from the right); ξ = 0.1 is ``T = 10``.

*The discretisation bias of fixed ξ (§3's Euler scheme).*  The chain
``p' = p − h(ξp + U'(θ)) + N(0, 2ξTh)``, ``θ' = θ + hp'`` (T = B/ξ) has
``E φ(θ', p') = φ + hLφ + h²A₂φ + O(h³)`` with L the Langevin generator.  Its
invariant law is ``μ_h = μ(1 + h g) + O(h²)``, ``μ ∝ exp(−H/T)``, where g solves
``L*g = −E₂*1`` with ``E₂ = A₂ − L²/2`` (adjoints in L²(μ)); the solution is

.. math::

    g = \\frac{\\xi}{4T}(p^2 - T) + \\frac{p\\,U'(\\theta)}{2T} + \\text{const}

(checked by substituting; the second term is the symplectic-Euler modified energy
``H − (h/2)pU'``).  Hence (i) ``E[g | θ]`` is constant: the θ-marginal has **no O(h)
term**; (ii) ``TV(θ-law, ρ) ≤ TV(μ_h, μ) = (h/2)E_μ|g − E_μ g| + O(h²)`` (a marginal
is no farther than the joint law), the tolerance of the θ-law part
(:func:`euler_tv_bound`, by quadrature); (iii) squaring the p-update with stationarity
of ``E U(θ)`` gives ``E[K] = (T/2)/(1 − ξh/2) + (h²/8)E_ρ[U'²] + O(h³)``
(:func:`euler_kinetic_energy`; the Gaussian case is exact and checked in the tests).
For SGNHT the same equation in ``(θ, p, ξ)`` has no solution polynomial of degree
≤ 6 in ``(p, ξ − B)`` with coefficients in span{1, U, U', U'', U'²} (a sympy search),
so its first-order term is not known in closed form; its kinetic energy is exact
(``E|p|²/n = 1``, above).

"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import scipy.integrate
import scipy.stats

from ..problems.double_well import DoubleWell

__all__ = [
    "TemperedDoubleWell",
    "derived_xi_slope",
    "euler_kinetic_energy",
    "euler_tv_bound",
]


def derived_xi_slope(D: float, n: int, *, old_p: bool = False) -> float:
    """The O(h) coefficient ``b`` in ``E[ξ] = D + b h + O(h²)`` for Algorithm 1.

    Parameters
    ----------
    D : float
        Total diffusion ``A + B`` (SGNHT eq. (7), §3 noise model).
    n : int
        Dimension (thermostat mass μ = n, SGNHT §4.2).
    old_p : bool
        The coefficient when the ξ-update uses ``p_{t−1}`` (a planted bug).

    Returns
    -------
    float
        ``(D² − 1/n)/2``, or ``(D² + 3/n)/2`` with ``old_p`` (module docstring).
    """
    return 0.5 * (D * D + (3.0 if old_p else -1.0) / n)


class TemperedDoubleWell:
    """``ρ_T(θ) ∝ exp(−U(θ)/T)`` for the SGNHT §3 double well, normalised by quadrature.

    ``T = 1`` is the target; ``T = B/ξ`` is the invariant θ-law of the fixed-ξ
    dynamics ``dp = −∇U dt − ξp dt + N(0, 2B dt)`` (SGNHT §3).  Integrals are
    :func:`scipy.integrate.quad` over ``[−12, 12]`` (outside, ``exp(−U/T)`` is
    below ``e^{−140}`` for ``T ≤ 10``), split at the stationary points of ``U``.

    Parameters
    ----------
    problem : DoubleWell
    T : float
        Temperature, > 0.
    """

    LO, HI = -12.0, 12.0

    def __init__(self, problem: DoubleWell, T: float):
        self.problem = problem
        self.T = float(T)
        self._breaks = sorted([*problem.minima, problem.barrier])
        self._umin = float(self._U(np.array([problem.minima[0]]))[0])
        self.Z = self._integral(self.LO, self.HI)
        grid = np.linspace(self.LO, self.HI, 48_001)
        pdf = self._f(grid)
        cdf = np.concatenate([[0.0], np.cumsum(0.5 * (pdf[1:] + pdf[:-1]) * np.diff(grid))])
        self._grid, self._grid_cdf = grid, cdf / cdf[-1]

    def _U(self, t: np.ndarray) -> np.ndarray:
        return self.problem.data_potential(np.asarray(t, dtype=np.float64).reshape(-1, 1))

    def _f(self, t):
        return np.exp(-(self._U(np.atleast_1d(t)) - self._umin) / self.T)

    def _integral(self, a: float, b: float) -> float:
        pts = [p for p in self._breaks if a < p < b]
        val, _ = scipy.integrate.quad(
            lambda x: float(self._f(x)[0]),
            a,
            b,
            points=pts or None,
            limit=400,
            epsabs=0.0,
            epsrel=1e-11,
        )
        return val

    def cdf(self, x: Sequence[float]) -> np.ndarray:
        """``P_T(θ ≤ x)`` at each point of ``x``, by quadrature between sorted points."""
        xs = np.asarray(x, dtype=np.float64)
        order = np.argsort(xs)
        out = np.empty_like(xs)
        acc, prev = 0.0, self.LO
        for i in order:
            acc += self._integral(prev, float(xs[i]))
            prev = float(xs[i])
            out[i] = acc / self.Z
        return out

    def quantile_points(self, k: int = 19) -> np.ndarray:
        """Approximate ``j/(k+1)`` quantiles, ``j = 1..k`` (grid inverse; exact CDF by cdf)."""
        levels = np.arange(1, k + 1) / (k + 1)
        return np.interp(levels, self._grid_cdf, self._grid)

    def sample(self, m: int, rng: np.random.Generator) -> np.ndarray:
        """``m`` draws by the inverse CDF on a 48,001-point grid (trapezoid), shape (m, 1)."""
        return np.interp(rng.uniform(size=m), self._grid_cdf, self._grid)[:, None]

    def left_mass(self) -> float:
        """``P_T(θ < barrier)``."""
        return float(self.cdf([self.problem.barrier])[0])


def _mean_abs_quadratic(a: float, u: np.ndarray) -> np.ndarray:
    """``E|a(Z² − 1) + uZ|`` for ``Z ~ N(0, 1)``, ``a > 0``, in closed form.

    The quadratic is negative between its roots ``r₁ < r₂``; its mean is 0, and
    ``∫(a z² + u z − a)φ dz = −(a z + u)φ(z)``, so the mean absolute value is
    ``2[(a z + u)φ(z)]_{r₁}^{r₂}``.
    """
    disc = np.sqrt(u * u + 4 * a * a)
    r1, r2 = (-u - disc) / (2 * a), (-u + disc) / (2 * a)
    phi = scipy.stats.norm.pdf
    return 2 * ((a * r2 + u) * phi(r2) - (a * r1 + u) * phi(r1))


def euler_tv_bound(problem: DoubleWell, xi: float, B: float, h: float) -> float:
    """First-order bound on the θ-law's total variation from ρ_T for §3's fixed-ξ chain.

    ``(h/2)E_μ|g − E_μ g|`` with ``g = (ξ/4T)(p² − T) + pU'/(2T)``, ``T = B/ξ`` (module
    docstring): the first-order TV between the chain's joint invariant law and
    ``μ ∝ exp(−H/T)``, which bounds the θ-marginal's (whose own O(h) term is zero).
    With ``p = √T z`` the inner mean is :func:`_mean_abs_quadratic` with ``a = ξ/4``,
    ``u = U'/(2√T)``; the outer one is a quadrature against ``ρ_T``.
    """
    T = B / xi
    rho = TemperedDoubleWell(problem, T)

    def inner(t: float) -> float:
        u = float(problem.grad(np.array([[t]]))[0, 0]) / (2 * math.sqrt(T))
        return float(_mean_abs_quadratic(xi / 4, np.array(u))) * float(rho._f(t)[0]) / rho.Z

    pts = rho._breaks
    val, _ = scipy.integrate.quad(inner, rho.LO, rho.HI, points=pts, limit=400, epsrel=1e-10)
    return 0.5 * h * val


def euler_kinetic_energy(T: float, xi: float, h: float, mean_grad_sq: float) -> float:
    """Stationary ``E[K]`` of §3's fixed-ξ Euler chain to second order in h.

    ``(T/2)/(1 − ξh/2) + (h²/8)E_ρ[|∇U|²] + O(h³)`` (module docstring; ``T = B/ξ`` and
    ``mean_grad_sq = E_{ρ_T}|∇U|²``, one coordinate).
    """
    return 0.5 * T / (1 - xi * h / 2) + h * h * mean_grad_sq / 8


def _mean_grad_sq(problem: DoubleWell, T: float) -> float:
    """``E_{ρ_T}[U'(θ)²]`` by quadrature."""
    rho = TemperedDoubleWell(problem, T)

    def f(t: float) -> float:
        return float(problem.grad(np.array([[t]]))[0, 0]) ** 2 * float(rho._f(t)[0]) / rho.Z

    val, _ = scipy.integrate.quad(f, rho.LO, rho.HI, points=rho._breaks, limit=400, epsrel=1e-10)
    return val
