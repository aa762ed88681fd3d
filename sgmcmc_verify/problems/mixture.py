"""AGLD §6.1: the symmetric Gaussian-mixture target with non-convex components.

Paper (AGLD, Zhang et al. 2020, §6.1 "Sampling for Gaussian Mixture
Distribution"):

.. math::

    p(x) \\propto \\exp\\Big(-\\frac1N \\sum_{i=1}^N f_i^{\\rm paper}(x)\\Big), \\qquad
    e^{-f_i^{\\rm paper}(x)} = e^{-\\|x-a_i\\|^2/2} + e^{-\\|x+a_i\\|^2/2},

with ``N = 500``, ``d = 10`` and ``a_i ~ N(2·1, I_d)``.

Mapping onto this package's convention (:mod:`sgmcmc_verify.problems.base`):
the paper averages its components, so here

.. math::

    f_i(x) = f_i^{\\rm paper}(x) / N
           = \\frac1N\\Big(\\tfrac12\\|x\\|^2 + \\tfrac12\\|a_i\\|^2
             - \\log\\big(2\\cosh(a_i^\\top x)\\big)\\Big),
    \\qquad U_0 \\equiv 0 \\text{ (no prior)},

and ``U = Σ f_i`` equals the paper's ``f``.  ``∇f_i(x) = (x − a_i tanh(a_iᵀx))/N``.
Everything is evaluated in the overflow-free forms
``log(2 cosh z) = |z| + log1p(exp(−2|z|))`` and ``tanh``.

What is known about the target
------------------------------
* **Mean**: exactly ``0``, because ``U(−x) = U(x)`` (each ``f_i`` is even).
* **Covariance, E‖x‖², log normaliser**: no closed form.  The reference values
  come from importance sampling (:func:`_reference_moments`): a difference
  estimator around the symmetric Laplace mixture ``q = ½N(m, S) + ½N(−m, S)``
  (``m`` the mode of ``U``, ``S`` the inverse Hessian there), whose moments
  ``E_q[xxᵀ] = S + mmᵀ`` are exact, under a defensive proposal that also covers
  the hyperplanes ``a_iᵀx = 0`` where the target departs from ``q``; the Monte
  Carlo standard error is the delta-method (influence-function) one.  For the
  defaults the numbers are stored in ``sgmcmc_verify/data/agld_gmm_reference.json``
  (regenerate with :func:`_write_reference`; a slow test in
  ``tests/test_problems_nonlinear.py`` regenerates and compares them).

A remark on the paper's setting: with ``a_i ≈ 2·1`` every ``|a_iᵀx|`` is
about 40 near the modes, so ``log 2cosh(a_iᵀx) = |a_iᵀx|`` to double precision
there and the target is very close to ``½N(ā, I) + ½N(−ā, I)`` with
``ā = mean(a_i)``, ``‖ā‖ ≈ 6.3``.  (For the default seed ``E‖x‖²`` is below
``d + ‖ā‖²`` by about ``6·10⁻⁶``: the mass near the hyperplanes ``a_iᵀx = 0``,
which lie at least 4.1 standard deviations from ±ā.)  The modes are
``2‖ā‖ ≈ 12.6`` apart and the barrier ``U(0) − U(±m) = ‖ā‖²/2 − log 2 ≈ 19.2``
nats, so the Langevin diffusion needs of order ``e^{19} ≈ 10⁸`` time units to
cross: no chain of the paper's length (2·10⁴ data passes) does, and a sampler's
estimate of the mean is ``±ā``, not ``0``, unless its chains start
symmetrically.  Even functions (covariance, ``‖x‖²``) are unaffected.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import as_theta, check_indices, finite_array, positive_int
from .base import Exact, Problem

# scipy.optimize and scipy.special are imported inside the reference computations that
# use them: they take ~0.4 s to import and ``import sgmcmc_verify`` must stay fast (issue 13).

__all__ = ["AGLDMixture", "agld_gmm"]

#: Where the precomputed reference moments of the default problem live.
REFERENCE_PATH = Path(__file__).resolve().parent.parent / "data" / "agld_gmm_reference.json"

#: Importance-sampling seed and draw count used for the stored reference.
REFERENCE_IS_SEED = 20200207
REFERENCE_DRAWS = 1_000_000


def _log2cosh(z: np.ndarray) -> np.ndarray:
    """``log(2 cosh z)`` without overflow: ``|z| + log1p(exp(−2|z|))``."""
    az = np.abs(z)
    return az + np.log1p(np.exp(-2.0 * az))


def centres_sha256(centres: np.ndarray) -> str:
    """SHA-256 of the centres as little-endian float64 (ties stored references to data)."""
    return hashlib.sha256(np.ascontiguousarray(centres, dtype="<f8").tobytes()).hexdigest()


class AGLDMixture(Problem):
    """AGLD §6.1 target ``p ∝ exp(−(1/N) Σ f_i^paper)`` with ``f_i = f_i^paper / N``.

    Parameters
    ----------
    centres : ndarray, shape (N, d)
        The vectors ``a_i``.
    reference : dict or None
        Reference values (as returned by :func:`_reference_moments`) for the
        covariance, ``E‖x‖²`` and log normaliser, with ``"provenance"``; omitted
        from :attr:`exact` when ``None``.
    name : str

    Notes
    -----
    AGLD §6.1; see the module docstring for the mapping and the reference method.
    """

    def __init__(
        self,
        centres: np.ndarray,
        *,
        reference: dict[str, Any] | None = None,
        name: str = "agld-gmm",
    ):
        A = finite_array("centres", centres)
        if A.ndim != 2 or A.shape[0] < 1 or A.shape[1] < 1:
            raise ValueError(f"centres must have shape (N, d) with N, d >= 1, got {A.shape}")
        N, d = A.shape
        exact: dict[str, Exact] = {
            "mean": Exact(
                np.zeros(d),
                "exact by symmetry: U(−x) = U(x) since each f_i is even, so E[x] = 0",
            ),
        }
        if reference is not None:
            prov = reference["provenance"]
            exact["cov"] = Exact(
                np.asarray(reference["cov"], dtype=float),
                f"{prov}; E[xxᵀ] with the exact mean 0",
                np.asarray(reference["cov_stderr"], dtype=float),
            )
            exact["mean_sq_norm"] = Exact(
                float(reference["mean_sq_norm"]),
                f"{prov}; E‖x‖²",
                float(reference["mean_sq_norm_stderr"]),
            )
            exact["log_normaliser"] = Exact(
                float(reference["log_normaliser"]),
                f"{prov}; log ∫exp(−U), U including the constants ‖a_i‖²/(2N)",
                float(reference["log_normaliser_stderr"]),
            )
        super().__init__(
            name=name,
            N=N,
            d=d,
            citation="AGLD §6.1 (Gaussian mixture, non-convex f_i); f_i = f_i^paper / N",
            exact=exact,
        )
        self.centres = A
        self._half_sq_norms = 0.5 * np.sum(A * A, axis=1)
        #: The paper's experimental settings, for benchmarks (AGLD §6.1).
        self.paper_setup = {
            "N": 500,
            "d": 10,
            "centres": "a_i ~ N(2·1, I)",
            "data_access": "RA",
            "data_passes": 20_000,
            "kept_passes": 10_000,
            "methods": ["LMC", "SGLD", "SVRG-LD", "SAGA-LD", "TMU-RA"],
        }

    # -- potential and gradients ---------------------------------------------
    def component_potentials(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``f_i(θ_c)`` for ``i = idx[c, j]``: shape ``(chains, b)``.

        Not part of the :class:`Problem` interface; used by tests (finite
        differences per component).
        """
        theta = as_theta(theta, self.d)
        idx = check_indices(idx, self.N, theta.shape[0])
        z = np.einsum("cbi,ci->cb", self.centres[idx], theta)
        sq = 0.5 * np.sum(theta * theta, axis=1)[:, None]
        return (sq + self._half_sq_norms[idx] - _log2cosh(z)) / self.N

    def data_potential(self, theta: np.ndarray) -> np.ndarray:
        z = theta @ self.centres.T  # (chains, N)
        return (
            0.5 * np.sum(theta * theta, axis=1)
            + self._half_sq_norms.mean()
            - _log2cosh(z).mean(axis=1)
        )

    def _component_grads(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        # (θ − a_i tanh(a_iᵀθ)) / N, each operation in place in the gathered rows a_i (a
        # fresh array): the same operations as the expression, in the same order, so the
        # same bits, without its three (chains, b, d) temporaries (3.6× faster measured at
        # 1e3 chains, b = d = 10).  np.take is 3.5× faster than self.centres[idx] and
        # gives the same array, memory layout included, except for d = 1, where indexing
        # follows the layout of idx (RR's batches are transposed) and the sums over the
        # batch that callers form depend on that layout.
        g = self.centres[idx] if self.d == 1 else np.take(self.centres, idx, axis=0)
        t = np.einsum("cbi,ci->cb", g, theta)
        np.tanh(t, out=t)
        np.multiply(t[..., None], g, out=g)
        np.subtract(theta[:, None, :], g, out=g)
        return np.divide(g, self.N, out=g)

    def _grad(self, theta: np.ndarray) -> np.ndarray:
        # ∇U = x − (1/N) Σ a_i tanh(a_iᵀx): O(N d) per chain, no (chains, N, d) array.
        # θ − tanh(θAᵀ)A / N with tanh in place and the last two steps in the product's
        # array: the same operations, so the same bits, and no second (chains, N) array
        # (2.4× less CPU at 1e3 chains, N = 500: the 4 MB temporaries were fresh pages).
        z = theta @ self.centres.T
        r = np.tanh(z, out=z) @ self.centres
        r /= self.N
        return np.subtract(theta, r, out=r)

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """``∇²U(θ) = I − (1/N) Σ a_i a_iᵀ sech²(a_iᵀθ)``, shape ``(chains, d, d)``."""
        theta = as_theta(theta, self.d)
        e = np.exp(-2.0 * np.abs(theta @ self.centres.T))
        s2 = 4.0 * e / (1.0 + e) ** 2  # sech², overflow-free
        return np.eye(self.d) - np.einsum("cn,ni,nj->cij", s2, self.centres, self.centres) / self.N


# -- reference moments -----------------------------------------------------------
def _mode(problem: AGLDMixture) -> np.ndarray:
    """A minimiser of ``U`` started from ``ā = mean(a_i)`` (trust-region Newton)."""
    from scipy import optimize

    A = problem.centres
    x0 = A.mean(axis=0)
    res = optimize.minimize(
        lambda x: problem.potential(x[None])[0],
        x0,
        jac=lambda x: problem.grad(x[None])[0],
        hess=lambda x: problem.hessian(x[None])[0],
        method="trust-exact",
        options={"gtol": 1e-12},
    )
    g = np.abs(problem.grad(res.x[None])[0]).max()
    if not g < 1e-8 * max(1.0, np.abs(A).max()):
        raise RuntimeError(f"mode search did not converge (|∇U|_∞ = {g:.3g}): {res.message}")
    return res.x


def _reference_moments(
    centres: np.ndarray, seed: int, n: int, *, eps: float = 0.1, chunk: int = 50_000
) -> dict[str, Any]:
    """Importance-sampling reference moments of the AGLD §6.1 target.

    Let ``m`` be a mode of ``U`` and ``S`` the inverse Hessian there (Laplace),
    ``q = ½N(m, S) + ½N(−m, S)``.  Draws come from the defensive proposal
    ``q' = (1 − ε) q + ε q_H``, where ``q_H`` is a mixture of ``N(±m_i, S)`` with
    ``m_i`` the projection (in the ``S`` metric) of ``m`` onto the hyperplane
    ``a_iᵀx = 0``, weighted by ``Φ(−δ_i)``, ``δ_i = |a_iᵀm| / √(a_iᵀSa_i)``.  The
    hyperplanes are where ``log 2cosh(a_iᵀx)`` departs from ``|a_iᵀx|`` and the
    target from ``q``; ``q_H`` makes those (rare under ``q``) regions common.

    With ``w = e^{−U}/q'``, ``v = q/q'`` (``E_{q'}[v] = 1``) and
    ``g = h − E_q[h]`` for ``h(x) = xxᵀ`` (exact ``E_q[xxᵀ] = S + mmᵀ``), the
    estimator is the difference

    .. math::

        \\hat E_p[h] = E_q[h] + \\frac{\\sum_j w_j g_j}{\\sum_j w_j}
                              - \\frac{\\sum_j v_j g_j}{\\sum_j v_j},

    whose influence function ``ψ_j = (w_j/w̄)(g_j − T_w) − (v_j/v̄)(g_j − T_v)``
    vanishes wherever ``e^{−U} ∝ q``; its standard error is ``sd(ψ)/√n``
    (delta method).  ``log Z = log(w̄ / v̄)`` with influence ``w/w̄ − v/v̄``.

    The estimator is consistent for any centres (the weights have finite
    variance because ``∇²U ≼ I``, so ``q`` has tails at least as heavy as the
    target); it is *efficient* when the target is close to ``q``, as for
    ``a_i ~ N(2·1, I)``, and the returned ``ess`` says how close.

    Parameters
    ----------
    centres : ndarray, shape (N, d)
    seed : int
        Seed of the proposal draws.
    n : int
        Number of draws.
    eps : float
        Weight of the hyperplane components ``q_H`` in the proposal, in ``[0, 1)``.
    chunk : int
        Draws processed at a time (memory ``O(chunk·N)``).

    Returns
    -------
    dict
        ``cov``, ``cov_stderr`` (d×d lists), ``mean_sq_norm`` and
        ``log_normaliser`` with ``*_stderr``, ``mean_estimate`` with
        ``mean_estimate_stderr`` (a check of the exact mean 0), diagnostics
        (``ess`` of ``w``, ``mode``, ...) and ``provenance``.
    """
    from scipy import special

    n = positive_int("n", n, minimum=2)
    chunk = positive_int("chunk", chunk)
    eps = float(eps)
    if not 0.0 <= eps < 1.0:
        raise ValueError(f"eps must lie in [0, 1), got {eps}")
    problem = AGLDMixture(centres)
    A = problem.centres
    N, d = problem.N, problem.d
    m = _mode(problem)
    H = problem.hessian(m[None])[0]
    evals = np.linalg.eigvalsh(H)
    if evals.min() <= 0:
        raise RuntimeError(f"Hessian at the mode is not positive definite: {evals.min():.3g}")
    S = np.linalg.inv(H)
    S = 0.5 * (S + S.T)
    L = np.linalg.cholesky(S)
    Sinv = np.linalg.inv(S)
    log_gauss_const = -0.5 * d * np.log(2 * np.pi) - 0.5 * np.linalg.slogdet(S)[1]
    Mq = S + np.outer(m, m)

    # Hyperplane components: ±m_i, weights ∝ Φ(−δ_i) (log-space, no underflow).
    SA = A @ S  # rows S a_i
    aSa = np.einsum("ni,ni->n", SA, A)
    am = A @ m
    delta = np.abs(am) / np.sqrt(aSa)
    mH = m[None, :] - (am / aSa)[:, None] * SA  # (N, d)
    log_pi = special.log_ndtr(-delta)  # log Φ(−δ): scipy.stats.norm.logsf, without scipy.stats
    log_pi -= special.logsumexp(log_pi)
    centres_all = np.concatenate([m[None], -m[None], mH, -mH])  # (2 + 2N, d)
    log_mix = np.concatenate(
        [
            np.log1p(-eps) + np.log([0.5, 0.5]),
            (np.log(eps) if eps > 0 else -np.inf) + np.log(0.5) + np.concatenate([log_pi, log_pi]),
        ]
    )
    C_Sinv = centres_all @ Sinv  # (K, d)
    c_quad = np.einsum("ki,ki->k", C_Sinv, centres_all)

    rng = np.random.default_rng(seed)
    xs = np.empty((n, d))
    lw = np.empty(n)
    lv = np.empty(n)
    probs = np.exp(log_mix - special.logsumexp(log_mix))
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        k = hi - lo
        comp = rng.choice(centres_all.shape[0], size=k, p=probs)
        x = centres_all[comp] + rng.standard_normal((k, d)) @ L.T
        # log N(x; c_k, S) for every component: quadratic form expanded.
        xq = np.einsum("ki,ij,kj->k", x, Sinv, x)
        logn = log_gauss_const - 0.5 * (xq[:, None] - 2.0 * x @ C_Sinv.T + c_quad[None, :])
        log_qp = special.logsumexp(logn + log_mix[None, :], axis=1)
        log_q = special.logsumexp(logn[:, :2], axis=1) + np.log(0.5)
        xs[lo:hi] = x
        lw[lo:hi] = -problem.potential(x) - log_qp
        lv[lo:hi] = log_q - log_qp
    shift = lw.max()
    w = np.exp(lw - shift)
    v = np.exp(lv)
    wbar, vbar = w.mean(), v.mean()
    rw, rv = w / wbar, v / vbar

    iu = np.triu_indices(d)

    def feats(x: np.ndarray) -> np.ndarray:
        # Upper-triangular entries of x xᵀ, then x itself (for the mean check).
        return np.concatenate([(x[:, :, None] * x[:, None, :])[:, iu[0], iu[1]], x], axis=1)

    mu_q = np.concatenate([Mq[iu], np.zeros(d)])
    Tw = np.zeros(mu_q.size)
    Tv = np.zeros(mu_q.size)
    for lo in range(0, n, chunk):
        g = feats(xs[lo : lo + chunk]) - mu_q
        Tw += rw[lo : lo + chunk] @ g
        Tv += rv[lo : lo + chunk] @ g
    Tw /= n
    Tv /= n
    est = mu_q + Tw - Tv
    diag_cols = np.flatnonzero(iu[0] == iu[1])
    psi2 = np.zeros(mu_q.size)
    psi2_sq = 0.0
    for lo in range(0, n, chunk):
        sl = slice(lo, lo + chunk)
        g = feats(xs[sl]) - mu_q
        psi = rw[sl, None] * (g - Tw) - rv[sl, None] * (g - Tv)
        psi2 += np.sum(psi * psi, axis=0)
        psi2_sq += float(np.sum(psi[:, diag_cols].sum(axis=1) ** 2))
    se = np.sqrt(psi2 / (n - 1) / n)
    se_sq = np.sqrt(psi2_sq / (n - 1) / n)

    ntri = iu[0].size
    cov = np.zeros((d, d))
    cov_se = np.zeros((d, d))
    cov[iu] = est[:ntri]
    cov_se[iu] = se[:ntri]
    cov = np.triu(cov) + np.triu(cov, 1).T
    cov_se = np.triu(cov_se) + np.triu(cov_se, 1).T
    return {
        "provenance": (
            f"importance sampling, {n} draws (seed {seed}): difference estimator "
            f"E_q[h] + SNIS_p[h−E_q h] − SNIS_q[h−E_q h] under the defensive proposal "
            f"(1−ε)q + εq_H, ε={eps}, q = ½N(±m, S) at the mode m with Laplace covariance S, "
            "q_H = hyperplane components; stderr = delta-method MCSE"
        ),
        "method": "IS difference estimator, Laplace mixture + hyperplane defensive proposal",
        "is_seed": int(seed),
        "n_draws": int(n),
        "eps": eps,
        "N": int(N),
        "d": int(d),
        "centres_sha256": centres_sha256(centres),
        "numpy_version": np.__version__,
        "cov": cov.tolist(),
        "cov_stderr": cov_se.tolist(),
        "mean_sq_norm": float(np.trace(cov)),
        "mean_sq_norm_stderr": float(se_sq),
        "log_normaliser": float(shift + np.log(wbar / vbar)),
        "log_normaliser_stderr": float(np.std(rw - rv, ddof=1) / np.sqrt(n)),
        "mean_estimate": est[ntri:].tolist(),
        "mean_estimate_stderr": se[ntri:].tolist(),
        "ess": float(w.sum() ** 2 / np.sum(w * w)),
        "max_weight_ratio": float(rw.max()),
        "mode": m.tolist(),
        "laplace_cov_eigenvalues": np.linalg.eigvalsh(S).tolist(),
        "min_hyperplane_distance": float(delta.min()),
    }


def _centres(N: int, d: int, seed: int) -> np.ndarray:
    """``a_i ~ N(2·1, I_d)``, i = 1..N, from ``numpy.random.default_rng(seed)``."""
    return 2.0 + np.random.default_rng(seed).standard_normal((N, d))


def _write_reference(
    path: Path | str = REFERENCE_PATH,
    *,
    N: int = 500,
    d: int = 10,
    seed: int = 0,
    is_seed: int = REFERENCE_IS_SEED,
    n: int = REFERENCE_DRAWS,
) -> dict[str, Any]:
    """Recompute the stored reference of ``agld_gmm(N, d, seed)`` and write it as JSON.

    Run ``python -c "from sgmcmc_verify.problems.mixture import _write_reference as w; w()"``.
    """
    ref = _reference_moments(_centres(N, d, seed), is_seed, n)
    ref["data_seed"] = int(seed)
    Path(path).write_text(json.dumps(ref, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return ref


def load_reference(path: Path | str = REFERENCE_PATH) -> dict[str, Any] | None:
    """The stored reference, or ``None`` when the file is missing."""
    p = Path(path)
    if not p.is_file():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


def agld_gmm(
    N: int = 500, d: int = 10, seed: int = 0, *, reference_draws: int = 20_000
) -> AGLDMixture:
    """AGLD §6.1 Gaussian-mixture target with ``a_i ~ N(2·1, I_d)``.

    Parameters
    ----------
    N, d : int
        Number of components and dimension (paper: 500 and 10).
    seed : int
        Seed of ``numpy.random.default_rng`` for the ``a_i``.
    reference_draws : int
        When the stored reference (``data/agld_gmm_reference.json``) does not
        match ``(N, d, seed)`` and the centres' SHA-256, the reference moments
        are computed at construction with this many importance-sampling draws
        (seed ``REFERENCE_IS_SEED``); ``0`` skips them (only the exact mean is
        then given).

    Returns
    -------
    AGLDMixture
    """
    N, d = positive_int("N", N), positive_int("d", d)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    if isinstance(reference_draws, bool) or not isinstance(reference_draws, int | np.integer):
        raise TypeError(f"reference_draws must be an integer, got {reference_draws!r}")
    if reference_draws < 0 or reference_draws == 1:
        raise ValueError(f"reference_draws must be 0 or >= 2, got {reference_draws}")
    A = _centres(N, d, seed)
    ref = load_reference()
    if ref is not None and (
        ref.get("N") == N
        and ref.get("d") == d
        and ref.get("data_seed") == seed
        and ref.get("centres_sha256") == centres_sha256(A)
    ):
        ref = dict(ref, provenance=f"stored {REFERENCE_PATH.name}: " + ref["provenance"])
    elif reference_draws:
        ref = _reference_moments(A, REFERENCE_IS_SEED, int(reference_draws))
        ref["provenance"] = "computed at construction: " + ref["provenance"]
    else:
        ref = None
    return AGLDMixture(A, reference=ref, name=f"agld-gmm-{d}d")
