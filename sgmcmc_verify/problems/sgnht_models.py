"""SGNHT §5.1: Bayesian inference for a 1-D normal distribution.

Paper (SGNHT, Ding et al. 2014, §5.1 "Gaussian Distribution Estimation Using
Stochastic Gradient"): ``N = 100`` examples from ``N(0, 1)``, minibatches of
``Ñ = 10``.

(a) **Normal mean** (:class:`NormalMean`): likelihood ``N(x_i | μ, 1)``, improper
    flat prior on ``μ``.  Here ``θ = μ`` (``d = 1``),
    ``f_i(μ) = ½ log 2π + ½ (x_i − μ)²`` (the full ``−log N(x_i | μ, 1)``),
    ``U_0 ≡ 0``.  Posterior ``N(x̄, 1/N)``; ``log ∫exp(−U) dμ`` is the log marginal
    likelihood under the flat (Lebesgue) prior.

(b) **Normal–Gamma** (:class:`NormalGamma`): likelihood ``N(x_i | μ, γ⁻¹)``; the
    paper writes the prior as ``N(µ|0, γ)Gam(γ|1, 1)`` and calls it the
    Normal–Gamma distribution.  We read the second argument of ``N`` as a
    *precision*, i.e. ``μ | γ ~ N(0, (κ₀γ)⁻¹)`` with ``κ₀ = 1``, and
    ``γ ~ Gamma(shape a₀ = 1, rate b₀ = 1)`` — the conjugate ``NG(μ₀=0, κ₀=1,
    a₀=1, b₀=1)``.  (Read as a variance, ``μ | γ ~ N(0, γ)``, the prior would not
    be Normal–Gamma nor conjugate, contradicting the paper's own name for it;
    the paper's likelihood uses ``γ⁻¹`` as the variance.)  For ``Gam(γ|1, 1)``
    shape 1 makes rate and scale coincide, so that argument is unambiguous.

    Sampling is in unconstrained coordinates ``θ = (μ, τ)``, ``τ = log γ``.  The
    density of ``(μ, τ)`` carries the Jacobian ``|dγ/dτ| = e^τ``, put in ``U_0``:

    .. math::

        f_i(\\mu, \\tau) = \\tfrac12\\log 2\\pi - \\tfrac12\\tau
                          + \\tfrac12 e^{\\tau}(x_i - \\mu)^2,

        U_0(\\mu, \\tau) = \\tfrac12\\log 2\\pi - \\tfrac12\\log\\kappa_0 - \\tfrac12\\tau
            + \\tfrac12\\kappa_0 e^{\\tau}(\\mu - \\mu_0)^2
            - a_0\\log b_0 + \\log\\Gamma(a_0) - a_0\\tau + b_0 e^{\\tau},

    where ``−a₀τ`` is ``−(a₀ − 1)τ`` from the Gamma density plus ``−τ`` from the
    Jacobian.  Then ``∫∫exp(−U) dμ dτ = p(x_{1:N})``, the marginal likelihood.

    Exact posterior (conjugate update): ``κ_N = κ₀ + N``,
    ``μ_N = (κ₀μ₀ + N x̄)/κ_N``, ``a_N = a₀ + N/2``,
    ``b_N = b₀ + ½ Σ(x_i − x̄)² + κ₀N(x̄ − μ₀)²/(2κ_N)``; ``γ ~ Gamma(a_N, b_N)``,
    ``μ | γ ~ N(μ_N, (κ_Nγ)⁻¹)``, so ``E μ = μ_N``,
    ``Var μ = b_N/((a_N − 1)κ_N)`` (Student-t, ``2a_N`` dof), ``E γ = a_N/b_N``,
    ``Var γ = a_N/b_N²``, ``E τ = ψ(a_N) − log b_N``, ``Var τ = ψ'(a_N)``, and
    ``Cov(μ, τ) = 0`` because ``E[μ | γ] = μ_N`` does not depend on γ.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_theta, check_indices, finite_array, positive, positive_int
from .base import Exact, Problem

__all__ = ["NormalGamma", "NormalMean", "normal_gamma", "normal_mean"]

_LOG_2PI = float(np.log(2.0 * np.pi))


def _data(name: str, x: np.ndarray) -> np.ndarray:
    x = finite_array(name, x)
    if x.ndim != 1 or x.size < 1:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {x.shape}")
    return x


class NormalMean(Problem):
    """SGNHT §5.1(a): mean of ``N(μ, 1)`` under a flat prior; posterior ``N(x̄, 1/N)``.

    Parameters
    ----------
    x : ndarray, shape (N,)
        The data ``x_i``.
    name : str

    Notes
    -----
    ``f_i(μ) = ½ log 2π + ½(x_i − μ)²``, ``U_0 ≡ 0``; ``∇f_i = μ − x_i``.
    """

    def __init__(self, x: np.ndarray, *, name: str = "sgnht-normal-mean"):
        x = _data("x", x)
        N = x.size
        xbar = float(x.mean())
        ss = float(np.sum((x - xbar) ** 2))
        super().__init__(
            name=name,
            N=N,
            d=1,
            citation="SGNHT §5.1 (normal mean, known variance 1, flat prior)",
            exact={
                "mean": Exact(np.array([xbar]), "closed form: posterior N(x̄, 1/N), float64"),
                "cov": Exact(np.array([[1.0 / N]]), "closed form: posterior N(x̄, 1/N)"),
                "log_normaliser": Exact(
                    -0.5 * N * _LOG_2PI - 0.5 * ss + 0.5 * (_LOG_2PI - np.log(N)),
                    "closed form: log ∫Π N(x_i|μ,1) dμ = −N/2 log 2π − ½Σ(x_i−x̄)² + ½ log(2π/N)",
                ),
            },
        )
        self.x = x
        self.xbar = xbar
        self._ss = ss
        #: The paper's experimental settings (SGNHT §5.1, Figure 2).
        self.paper_setup = {
            "N": 100,
            "minibatch": 10,
            "h": [0.01, 0.001],
            "A": [1.0, 10.0],
            "samples": 1_000_000,
        }

    def component_potentials(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``f_i(θ_c)`` for ``i = idx[c, j]``, shape ``(chains, b)`` (for tests)."""
        theta = as_theta(theta, 1)
        idx = check_indices(idx, self.N, theta.shape[0])
        return 0.5 * _LOG_2PI + 0.5 * (self.x[idx] - theta) ** 2

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        mu = theta[:, 0]
        return 0.5 * self.N * _LOG_2PI + 0.5 * (self._ss + self.N * (mu - self.xbar) ** 2)

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return (theta - self.x[idx])[..., None]

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        return self.N * (theta - self.xbar)


class NormalGamma(Problem):
    """SGNHT §5.1(b): ``N(x_i | μ, γ⁻¹)`` with a Normal–Gamma prior, in ``θ = (μ, log γ)``.

    Parameters
    ----------
    x : ndarray, shape (N,)
        The data ``x_i``.
    mu0, kappa0, a0, b0 : float
        Prior ``μ | γ ~ N(μ₀, (κ₀γ)⁻¹)``, ``γ ~ Gamma(shape a₀, rate b₀)``; the
        paper's values are ``0, 1, 1, 1``.
    name : str

    Notes
    -----
    See the module docstring for ``f_i``, ``U_0`` (with the Jacobian of
    ``γ = e^τ``) and the exact posterior.  ``exact`` holds ``"mean"`` and
    ``"cov"`` of ``θ = (μ, τ)`` and the scalars ``"mean_mu"``, ``"var_mu"``,
    ``"mean_gamma"``, ``"var_gamma"``, ``"mean_tau"``, ``"var_tau"``,
    ``"log_normaliser"``; :attr:`posterior` holds ``(μ_N, κ_N, a_N, b_N)``.
    """

    def __init__(
        self,
        x: np.ndarray,
        *,
        mu0: float = 0.0,
        kappa0: float = 1.0,
        a0: float = 1.0,
        b0: float = 1.0,
        name: str = "sgnht-normal-gamma",
    ):
        from scipy import special  # ~0.2 s to import: loaded here, not with the package

        x = _data("x", x)
        mu0 = float(finite_array("mu0", mu0))
        kappa0 = positive("kappa0", kappa0)
        a0 = positive("a0", a0)
        b0 = positive("b0", b0)
        N = x.size
        xbar = float(x.mean())
        ss = float(np.sum((x - xbar) ** 2))
        kN = kappa0 + N
        muN = (kappa0 * mu0 + N * xbar) / kN
        aN = a0 + 0.5 * N
        bN = b0 + 0.5 * ss + 0.5 * kappa0 * N * (xbar - mu0) ** 2 / kN
        var_mu = bN / ((aN - 1.0) * kN) if aN > 1 else np.inf
        mean_tau = float(special.digamma(aN) - np.log(bN))
        var_tau = float(special.polygamma(1, aN))
        log_z = (
            special.gammaln(aN)
            - special.gammaln(a0)
            + a0 * np.log(b0)
            - aN * np.log(bN)
            + 0.5 * (np.log(kappa0) - np.log(kN))
            - 0.5 * N * _LOG_2PI
        )
        conj = "closed form: Normal–Gamma conjugate update (μ_N, κ_N, a_N, b_N)"
        super().__init__(
            name=name,
            N=N,
            d=2,
            citation=(
                "SGNHT §5.1 (normal mean and precision, Normal–Gamma prior NG(0,1,1,1)); "
                "θ = (μ, log γ)"
            ),
            exact={
                "mean": Exact(
                    np.array([muN, mean_tau]), f"{conj}: (μ_N, ψ(a_N) − log b_N), float64"
                ),
                "cov": Exact(
                    np.diag([var_mu, var_tau]),
                    f"{conj}: diag(b_N/((a_N−1)κ_N), ψ'(a_N)); Cov(μ,τ)=0 as E[μ|γ]=μ_N",
                ),
                "mean_mu": Exact(muN, f"{conj}: E μ = μ_N"),
                "var_mu": Exact(var_mu, f"{conj}: Var μ = b_N/((a_N−1)κ_N) (Student-t)"),
                "mean_gamma": Exact(aN / bN, f"{conj}: E γ = a_N/b_N"),
                "var_gamma": Exact(aN / bN**2, f"{conj}: Var γ = a_N/b_N²"),
                "mean_tau": Exact(mean_tau, f"{conj}: E log γ = ψ(a_N) − log b_N (scipy digamma)"),
                "var_tau": Exact(var_tau, f"{conj}: Var log γ = ψ'(a_N) (scipy polygamma)"),
                "log_normaliser": Exact(
                    float(log_z),
                    f"{conj}: log p(x) = lnΓ(a_N) − lnΓ(a₀) + a₀ln b₀ − a_N ln b_N "
                    "+ ½ln(κ₀/κ_N) − (N/2)ln 2π",
                ),
            },
        )
        self.x = x
        self.xbar = xbar
        self._ss = ss
        self.mu0, self.kappa0, self.a0, self.b0 = mu0, kappa0, a0, b0
        self._prior_const = (
            0.5 * _LOG_2PI - 0.5 * np.log(kappa0) - a0 * np.log(b0) + special.gammaln(a0)
        )
        #: Posterior hyperparameters of the conjugate update.
        self.posterior = {"mu_N": muN, "kappa_N": kN, "a_N": aN, "b_N": bN}
        #: The paper's experimental settings (SGNHT §5.1, Figure 2, 4th panel).
        self.paper_setup = {
            "N": 100,
            "minibatch": 10,
            "observable": "μ + γ (autocorrelation time)",
            "prior": "N(µ|0, γ)Gam(γ|1, 1), read as NG(μ₀=0, κ₀=1, a₀=1, b₀=1)",
        }

    # -- prior ------------------------------------------------------------------
    def prior_potential(self, theta: np.ndarray) -> np.ndarray:
        mu, tau = theta[:, 0], theta[:, 1]
        g = np.exp(tau)
        return (
            self._prior_const
            - (0.5 + self.a0) * tau
            + 0.5 * self.kappa0 * g * (mu - self.mu0) ** 2
            + self.b0 * g
        )

    def prior_grad(self, theta: np.ndarray) -> np.ndarray:
        mu, tau = theta[:, 0], theta[:, 1]
        g = np.exp(tau)
        dmu = self.kappa0 * g * (mu - self.mu0)
        dtau = -(0.5 + self.a0) + 0.5 * self.kappa0 * g * (mu - self.mu0) ** 2 + self.b0 * g
        return np.stack([dmu, dtau], axis=1)

    # -- data -------------------------------------------------------------------
    def component_potentials(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``f_i(θ_c)`` for ``i = idx[c, j]``, shape ``(chains, b)`` (for tests)."""
        theta = as_theta(theta, 2)
        idx = check_indices(idx, self.N, theta.shape[0])
        mu, tau = theta[:, :1], theta[:, 1:]
        return 0.5 * _LOG_2PI - 0.5 * tau + 0.5 * np.exp(tau) * (self.x[idx] - mu) ** 2

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        mu, tau = theta[:, 0], theta[:, 1]
        sq = self._ss + self.N * (mu - self.xbar) ** 2  # Σ (x_i − μ)², stably
        return 0.5 * self.N * (_LOG_2PI - tau) + 0.5 * np.exp(tau) * sq

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        mu, tau = theta[:, :1], theta[:, 1:]
        r = self.x[idx] - mu  # (chains, b)
        g = np.exp(tau)
        return np.stack([-g * r, -0.5 + 0.5 * g * r * r], axis=-1)

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        mu, tau = theta[:, 0], theta[:, 1]
        g = np.exp(tau)
        dev = self.xbar - mu
        data = np.stack(
            [-g * self.N * dev, -0.5 * self.N + 0.5 * g * (self._ss + self.N * dev**2)], axis=1
        )
        return self.prior_grad(theta) + data


def normal_mean(N: int = 100, seed: int = 0) -> NormalMean:
    """SGNHT §5.1(a): ``x_i ~ N(0, 1)``, ``i = 1..N``, from ``default_rng(seed)``.

    Parameters
    ----------
    N : int
        Number of data (paper: 100).
    seed : int
        Seed of ``numpy.random.default_rng`` for the data.
    """
    N = positive_int("N", N)
    x = np.random.default_rng(seed).standard_normal(N)
    return NormalMean(x, name="sgnht-normal-mean")


def normal_gamma(N: int = 100, seed: int = 0) -> NormalGamma:
    """SGNHT §5.1(b): ``x_i ~ N(0, 1)``, prior ``NG(0, 1, 1, 1)``, ``θ = (μ, log γ)``.

    Parameters
    ----------
    N : int
        Number of data (paper: 100).
    seed : int
        Seed of ``numpy.random.default_rng`` for the data (same data as
        :func:`normal_mean` with the same ``N`` and ``seed``).
    """
    N = positive_int("N", N)
    x = np.random.default_rng(seed).standard_normal(N)
    return NormalGamma(x, name="sgnht-normal-gamma")
