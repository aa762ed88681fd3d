"""The claims catalogue of ``shared/CLAIMS.md`` as data: ID → paper, location, statement.

Copied verbatim from CLAIMS.md so the package runs without the shared folder;
``tests/test_claims_api.py`` checks the copy against the file when it is present.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["CATALOGUE", "INFO", "REGIMES", "SUBSTITUTES", "TOOL_CLAIMS", "ClaimInfo"]


class ClaimInfo(NamedTuple):
    paper: str
    location: str
    statement: str


CATALOGUE: dict[str, ClaimInfo] = {
    "AGLD-R1": ClaimInfo(
        "AGLD",
        "§3.1, Requirement 1",
        (
            "Requirement 1. Every point is visited within the past C iterations. CA: C = "
            "⌈N/n⌉. RR: all points within the past 2N/n iterations. RA: C = O(N log N) w.h.p. "
            "(coupon collector). Check the exact bounds for all N, n (property-based), and "
            "RA's staleness law against the coupon-collector distribution."
        ),
    ),
    "AGLD-R2": ClaimInfo(
        "AGLD",
        "§3.2, Requirement 2",
        (
            "Requirement 2. Every snapshot entry was refreshed within the past D iterations. "
            "PTU: D = epoch length. PPU: D follows from Requirement 1. TMU: min of the two. "
            "HSAG satisfies it too."
        ),
    ),
    "AGLD-UNB": ClaimInfo(
        "AGLD",
        "§3.1 (RA unbiased; CA/RR not, citing Shamir 2016)",
        ("The RA estimator is unbiased given the past; CA and RR are not. Quantify the bias."),
    ),
    "AGLD-MEM": ClaimInfo(
        "AGLD",
        "§3.2 (PTU and PPU memory)",
        ("PTU needs O(d) snapshot memory, PPU O(dN), or O(N) when ∇f_i is a scalar times z_i."),
    ),
    "AGLD-T1": ClaimInfo(
        "AGLD",
        "Theorem 1",
        ("Smooth and strongly convex: W2 ≤ ε for k ≥ K = O(ε⁻²) with η = O(ε²)."),
    ),
    "AGLD-T2": ClaimInfo(
        "AGLD",
        "Theorem 2",
        ("With a Lipschitz Hessian and RA: K = O(log(1/ε)/ε) with η = O(ε)."),
    ),
    "AGLD-T3": ClaimInfo(
        "AGLD",
        "Theorem 3",
        ("TMU-RA: K = O(κ^{3/2}√d/(nε)) with the stated η, n ≥ 9, D = N."),
    ),
    "AGLD-T4": ClaimInfo(
        "AGLD",
        "Theorem 4",
        ("General convex case via f + λ‖x‖²/2 with λ = 4ε²/(Ûd²)."),
    ),
    "AGLD-T5": ClaimInfo(
        "AGLD",
        "Theorem 5",
        ("Nonconvex and dissipative: K = O(ε⁻⁴) with η = O(ε⁴)."),
    ),
    "AGLD-EXP-GMM": ClaimInfo(
        "AGLD",
        "§6.1, Figure 1",
        (
            "§6.1. Gaussian-mixture target, N = 500, d = 10, a_i ~ N(2·1, I). TMU-RA "
            "approximates the target best; LMC and SGLD deviate."
        ),
    ),
    "AGLD-EXP-TMU": ClaimInfo(
        "AGLD",
        "§6.2, Figure 2",
        ("§6.2. TMU beats PTU and PPU under the same data access."),
    ),
    "EWSG-ULD": ClaimInfo(
        "EWSG",
        "§3, eq. (1)",
        ("The invariant law of eq. (1) is exp(−(V + ‖r‖²/2)/T), with σ² = 2γT."),
    ),
    "EWSG-T1": ClaimInfo(
        "EWSG",
        "Theorem 1",
        (
            "Among unbiased index distributions, the one that minimises Tr cov is sparse: at "
            "most d + 1 nonzero entries (a linear programme)."
        ),
    ),
    "EWSG-T2": ClaimInfo(
        "EWSG",
        "Theorem 2, eq. (4)",
        (
            "The weights of eq. (4) make the SG transition kernel identical to the "
            "full-gradient EM kernel. Determine precisely in what sense this holds. The "
            "weights depend on r_{k+1} through x: is there a procedure that draws an index "
            "and then takes the SG step and realises it? Measure how far the practical scheme "
            "(x̂ = √h γ r_k/σ, exact weights, or the MH chain with M steps) is from the "
            "full-gradient kernel, and compare with uniform SG."
        ),
    ),
    "EWSG-MH": ClaimInfo(
        "EWSG",
        "§4.3, eq. (5)",
        (
            "The index chain of eq. (5) has the weights p_i as its stationary law (exact "
            "finite-state check). Measure its mixing against M."
        ),
    ),
    "EWSG-T3": ClaimInfo(
        "EWSG",
        "Theorem 3",
        (
            "Local variance is reduced: E[Δ] < 0 when x = O(√h), with the stated "
            "concentration bound."
        ),
    ),
    "EWSG-T4": ClaimInfo(
        "EWSG",
        "Theorem 4, eq. (6)",
        (
            "MSE ≤ C(1/T + (h/T)·mean Tr cov + h²). Slopes: MSE against T at fixed h; against "
            "h in the small-h regime; against h as T → ∞ (§5.1, Fig. 1j–l)."
        ),
    ),
    "EWSG-EXP-GAUSS": ClaimInfo(
        "EWSG",
        "§5.1, Figure 1",
        (
            "§5.1. 2-D Gaussian, n = 20, c_i ~ N(0, I₂), γ = 10, h = 5e-2 for SGHMC and EWSG. "
            "EWSG beats SGHMC, SGLD and pSGLD in KL; SVRG-LD is most accurate; x̂ beats the "
            "alternatives; M trades bias for variance."
        ),
    ),
    "SGNHT-MT": ClaimInfo(
        "SGNHT",
        "§4, Main Theorem, eqs. (7)-(9)",
        (
            "Main Theorem. SDE (7) has the target θ-marginal if ρ ∝ exp(−H) satisfies the "
            "marginalisation condition (8) and ∇·(ρv) = ∇∇ᵀ:(ρD) (9). Verify symbolically for "
            "Langevin, for SGHMC with B̂ = B, and for SGNHT (scalar ξ in n dimensions with μ "
            "= n, and matrix Ξ). Show the residual is nonzero for SGHMC with B̂ ≠ B and for "
            "fixed ξ ≠ D (the appendix D claim)."
        ),
    ),
    "SGNHT-THERMAL": ClaimInfo(
        "SGNHT",
        "§3, eq. (4)",
        ("Thermal equilibrium: E[pᵀp]/n = 1."),
    ),
    "SGNHT-XI": ClaimInfo(
        "SGNHT",
        "§4 and Appendix B",
        (
            "ξ absorbs the noise. The stationary ξ is N(D, 1/μ) with D = A + (gradient-noise "
            "part). The experiments state ξ → B when A = 0 and ∇Ũh = ∇Uh + N(0, 2Bh). Measure "
            "E[ξ] and its law, and the O(h) correction."
        ),
    ),
    "SGNHT-DW": ClaimInfo(
        "SGNHT",
        "§3, Figure 1",
        (
            "§3 double well, U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, h = 0.01, B = 1, A = 0. "
            "Fixed ξ = 1 samples correctly; ξ = 10 sticks in one well; ξ = 0.1 overheats; "
            "SGNHT samples correctly with kinetic energy 0.5."
        ),
    ),
    "SGNHT-GAUSS": ClaimInfo(
        "SGNHT",
        "§5.1, Figure 2",
        (
            "§5.1. 1-D normal mean, N = 100, Ñ = 10, improper flat prior; h ∈ {0.01, 0.001}, "
            "A ∈ {1, 10}. SGNHT is accurate where SGHMC is not; ξ ≈ A at h = 0.001 and ξ ≫ A "
            "at h = 0.01. Also the Normal–Gamma variant."
        ),
    ),
    "SGNHT-ALG2": ClaimInfo(
        "SGNHT",
        "§5.2 (Algorithm 2, appendix F)",
        ("Alg. 1 and the §5.2 reparametrisation give the same trajectories."),
    ),
    "SVRHMC-INV": ClaimInfo(
        "SVRHMC",
        "§2, eqs. (3)-(4)",
        ("The invariant law of (3)–(4) is exp(−f − pᵀp/2)."),
    ),
    "SVRHMC-SPLIT": ClaimInfo(
        "SVRHMC",
        "§4, eqs. (12)-(18), Algorithms 1-4",
        (
            "The five-step splitting (12)–(16) equals the eliminated form (17)–(18). Check "
            "the printed Algorithms 1–4 line by line against the equations, and report any "
            "typo."
        ),
    ),
    "SVRHMC-COR2": ClaimInfo(
        "SVRHMC",
        "Corollary 2, eq. (6)",
        ("E‖∇̃ − ∇f‖² ≤ n²G²/b for the with-replacement minibatch."),
    ),
    "SVRHMC-L1": ClaimInfo(
        "SVRHMC",
        "Lemma 1, eqs. (9)-(10)",
        (
            "Lemma 1: R^HMC ≤ max{1/D², L/(nK)}·R^LD, and eq. (10) when D ≥ 1/(L√h). Check it "
            "exactly as stated, over the parameter region the paper assumes (D ≥ 1, Dh < 1, "
            "positive denominators, the assumption stated before Lemma 1). Search for "
            "counterexamples (property-based and by optimisation)."
        ),
    ),
    "SVRHMC-COR3": ClaimInfo(
        "SVRHMC",
        "Corollary 3, eq. (11)",
        ("With K = n/b: R^HMC ≤ (bL/n²)·R^LD."),
    ),
    "SVRHMC-T2": ClaimInfo(
        "SVRHMC",
        "Theorem 2, eq. (7)",
        ("The MSE bound (7) of SVRG-HMC: third term h² (Euler)."),
    ),
    "SVRHMC-T4": ClaimInfo(
        "SVRHMC",
        "Theorem 4",
        ("The MSE bound of SAGA-HMC: third term h²."),
    ),
    "SVRHMC-T5": ClaimInfo(
        "SVRHMC",
        "Theorem 5, eq. (19)",
        ("The MSE bound (19) of SVRG2nd-HMC: third term h⁴ (symmetric splitting)."),
    ),
    "SVRHMC-T6": ClaimInfo(
        "SVRHMC",
        "Theorem 6",
        ("The MSE bound of SAGA2nd-HMC: third term h⁴."),
    ),
    "SVRHMC-EXP": ClaimInfo(
        "SVRHMC",
        "§5",
        (
            "§5. SVRG-HMC and SVRG2nd-HMC converge faster per data pass than SVRG-LD on "
            "Bayesian linear and logistic regression. The UCI sets are not available offline: "
            "use data shipped in a package, or synthetic data, as `-SUB`."
        ),
    ),
    "X-INV": ClaimInfo(
        "cross-cutting",
        "all four papers",
        (
            "Each algorithm's continuous-time dynamics leaves the target invariant, and the "
            "discrete chain's stationary law approaches it as h → 0."
        ),
    ),
    "X-ORDER": ClaimInfo(
        "cross-cutting",
        "Chen, Ding & Carin 2015, as cited by SVRHMC §4 and SGNHT §6",
        (
            "Bias order of stationary expectations in h: O(h) for first-order schemes, O(h²) "
            "for the symmetric splitting; MSE O(h²) and O(h⁴) (Chen, Ding & Carin 2015, as "
            "cited by SVRHMC and SGNHT §6). The order depends on the observable and the "
            "target. On Gaussian targets some first-order schemes are exact or second order "
            "for θ-moments. A check states the observable and target, and uses non-Gaussian "
            "targets and momentum observables where needed. With stochastic gradients the "
            "gradient noise adds a term of order h·(noise variance): measure how variance "
            "reduction changes the order."
        ),
    ),
    "X-VR": ClaimInfo(
        "cross-cutting",
        "SVRHMC §3, AGLD §2.2, EWSG §2",
        (
            "Variance reduction. SVRG and SAGA estimators have smaller variance than uniform "
            "SG. Measure the effect on stationary bias and on MSE per data pass, for LD and "
            "HMC."
        ),
    ),
}

#: Substitute checks for claims that cannot be checked here as written (CLAIMS.md:
#: "check the nearest honest substitute under a different ID suffix (-SUB)").
SUBSTITUTES: dict[str, ClaimInfo] = {
    "SVRHMC-EXP-SUB": ClaimInfo(
        "SVRHMC",
        "§5 (substitute: shipped and synthetic data)",
        "SVRG-HMC and SVRG2nd-HMC converge faster per data pass than SVRG-LD on Bayesian "
        "linear and logistic regression, on synthetic data and statsmodels' Spector data in "
        "place of the UCI sets.",
    ),
}


def _with_substitutes() -> dict[str, ClaimInfo]:
    """The catalogue with each -SUB entry placed right after the claim it stands in for."""
    out: dict[str, ClaimInfo] = {}
    for cid, info in CATALOGUE.items():
        out[cid] = info
        if f"{cid}-SUB" in SUBSTITUTES:
            out[f"{cid}-SUB"] = SUBSTITUTES[f"{cid}-SUB"]
    return out


#: Claims about this package itself, checked and reported like the papers' claims so the
#: harness's measured power and size (issue 7) sit in the main report beside them.
TOOL_CLAIMS: dict[str, ClaimInfo] = {
    "HARNESS-POWER": ClaimInfo(
        "sgmcmc-verify",
        "validation harness (issue 7: measured power and size)",
        "The validation harness rejects at least 95% of the planted bugs in its catalogue "
        "(each a small, realistic variant of a correct implementation), in the statistical "
        "and in the step-by-step mode, and its false-alarm rate on correct implementations "
        "is within its stated α.",
    ),
}

#: Every claim the package knows, in catalogue order, substitutes included, then the
#: package's own claims.
INFO: dict[str, ClaimInfo] = {**_with_substitutes(), **TOOL_CLAIMS}

#: The regime each paper assumes for a claim, as the checks judge it (issue 12): a
#: counterexample refutes only inside it; outside it the claim is qualified, with the
#: regime in which it holds.  Claims not listed are judged on their statement as printed.
REGIMES: dict[str, str] = {
    "SVRHMC-L1": (
        "Algorithm 1 line 1 (D ≥ 1, Dh < 1), §4 (h < 1), the assumption before Lemma 1 "
        "(n²G² > n²K²(n²L²h²G² + hd)), and B.3's nKbL ≫ 10 (checked as nKbL ≥ 10)"
    ),
    "SVRHMC-COR3": (
        "Lemma 1's regime (SVRHMC-L1), eq. (10)'s D ≥ 1/(L√h) (Corollary 3: '(10) becomes'), "
        "and K = n/b"
    ),
    "SVRHMC-EXP-SUB": "the paper's UCI data sets at step sizes and friction tuned on a "
    "validation set (§5), neither available: a loss at untuned settings qualifies",
    "AGLD-R1": "any N ≥ n ≥ 1; windows counted in whole iterations (x iterations = ⌈x⌉)",
    "AGLD-T1": "smooth, strongly convex f (Assumptions 1–2), any fixed start; O(·) hides "
    "μ, L, N only (§4)",
    "AGLD-T2": "Assumptions 1–3, RA, any fixed start; O(·) hides μ, L, N only (§4)",
    "AGLD-T5": "nonconvex, dissipative f (Theorem 5's assumptions), any fixed start",
    "AGLD-EXP-TMU": "the paper's UCI data sets at unstated D and η (§6.2): a loss on the "
    "synthetic substitute at untuned settings qualifies",
    "EWSG-T3": "∇V_i(θ) i.i.d. and bounded at a fixed θ; x = O(√h); E and P over the data (and r)",
    "X-INV": "each algorithm's own discrete chain (exact law) and its h → 0 limit",
}
