"""SVRHMC-SPLIT and SVRHMC-COR2: the verdicts of the real implementation, and power: each
check turns negative on a deliberately broken integrator, sampler, transcription or estimator.

Everything here is exact (sympy) or exact up to float64 rounding; no test makes a
statistical assertion, so none carries a false-alarm rate.
"""

import dataclasses
import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from sgmcmc_verify.algorithms import Sampler
from sgmcmc_verify.claims import decide, run_check, svrhmc
from sgmcmc_verify.estimators import Minibatch
from sgmcmc_verify.integrators import SGHMCEuler, SymmetricSplitting
from sgmcmc_verify.proofs import svrhmc_splitting as splitting
from sgmcmc_verify.registry import get, make_sampler

# --------------------------------------------------------------------------------------
# planted bugs
# --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NoSecondDecay(SymmetricSplitting):
    """Planted bug: eq. (15) forgotten, p_{t+1} = p^(2) (one e^{−Dh/2} missing)."""

    def advance(self, state, grad, noise):
        h, decay = self.h, math.exp(-self.D * self.h / 2)
        p = decay * state.p - h * grad + math.sqrt(2 * self.D * h) * noise
        return state._replace(theta=state.theta + 0.5 * h * state.p + 0.5 * h * p, p=p)


@dataclasses.dataclass(frozen=True)
class GradAtTheta(SymmetricSplitting):
    """Planted bug: the gradient evaluated at θ_t instead of θ_t + h/2 p_t."""

    def eval_point(self, state):
        return state.theta


@dataclasses.dataclass(frozen=True)
class OldMomentumEuler(SGHMCEuler):
    """Planted bug: θ moves with p_t instead of p_{t+1} (eq. (2) misread)."""

    def advance(self, state, grad, noise):
        new = super().advance(state, grad, noise)
        return new._replace(theta=state.theta + self.h * state.p)


@dataclasses.dataclass(frozen=True)
class UnscaledMinibatch(Minibatch):
    """Planted bug: the n/b factor missing, ∇̃ = ∇U_0 + Σ_{i∈I} ∇f_i."""

    def estimate(self, problem, theta, state, rand, context=None):
        return problem.prior_grad(theta) + problem.component_grad_sum(theta, rand), None


@dataclasses.dataclass(frozen=True)
class OverScaledMinibatch(Minibatch):
    """Planted bug: n/b² instead of n/b (identical at b = 1)."""

    def estimate(self, problem, theta, state, rand, context=None):
        g = problem.component_grad_sum(theta, rand)
        return problem.prior_grad(theta) + (problem.N / self.n**2) * g, None


@dataclasses.dataclass(frozen=True)
class DoubledMinibatch(Minibatch):
    """Planted bug: 2n/b instead of n/b (biased, and 4 × the variance)."""

    def estimate(self, problem, theta, state, rand, context=None):
        g = problem.component_grad_sum(theta, rand)
        return problem.prior_grad(theta) + (2 * problem.N / self.n) * g, None


def verdicts(parts):
    return {p.name: p.verdict for p in parts}


# --------------------------------------------------------------------------------------
# SVRHMC-SPLIT
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def split():
    return run_check("SVRHMC-SPLIT", svrhmc.check_split, profile="quick", seed=0)


def test_split_identity_and_lines(split):
    assert split.part("(12)-(16) = (17)-(18)").verdict == "confirmed"
    assert split.part("gradient at θ_t + h/2 p_t").verdict == "confirmed"
    for alg, eq in ((1, "(1)–(2)"), (2, "(1)–(2)"), (3, "(12)–(18)"), (4, "(12)–(18)")):
        assert split.part(f"Alg. {alg} vs {eq}").verdict == "confirmed"
    # the one typo: Alg. 3 line 9 uses p_t for p_{tK+k}
    typo = split.part("Alg. 3 line 9")
    assert typo.verdict == "qualified"
    assert typo.measured["printed − reference"].value == "(-p_j + p_t)*exp(-D*h)"
    assert typo.measured["corrected reading: verdict"].value == "confirmed"
    assert "p_{tK+k}" in typo.erratum["corrected"] or "p_j" in typo.erratum["corrected"]
    # Alg. 4 line 3 (α_0 = 0) is harmless given line 2 (θ_0 = p_0 = 0)
    assert split.part("Alg. 4 line 3").verdict == "confirmed"
    assert split.part("Alg. 2/4 line 11, repeated index").verdict == "qualified"
    # the disagreements found are exactly these
    per_line = {p.name for p in split.parts if p.name.startswith("Alg.") and " vs " not in p.name}
    assert per_line == {
        "Alg. 3 line 9",
        "Alg. 4 line 3",
        "Alg. 2/4 line 11, repeated index",
    }
    assert split.verdict == "qualified"


def test_split_reference_follows_the_corrected_line_9(split):
    assert split.part("reference integrators").verdict == "confirmed"
    samplers = split.part("reference samplers")
    assert samplers.verdict == "confirmed"
    m = samplers.measured
    assert m["svrg2-hmc vs Alg. 3: max |Δθ|"].value < 1e-12
    # the literal readings of line 9 are different algorithms
    assert m["svrg2-hmc vs Alg. 3 with line 9's p_t: max |Δθ|"].value > 0.1
    assert m["svrg2-hmc vs Alg. 3 with line 9's p_tK: max |Δθ|"].value > 0.1


@pytest.mark.parametrize(
    "kw",
    [
        {"splitting": lambda h, D: NoSecondDecay(h, D=D)},
        {"splitting": lambda h, D: GradAtTheta(h, D=D)},
        {"euler": lambda h, D: OldMomentumEuler(h, D=D)},
    ],
    ids=["missing-decay", "gradient-at-theta", "euler-old-momentum"],
)
def test_split_refutes_a_broken_integrator(kw):
    parts, _ = svrhmc.check_split(seed=0, **kw)
    assert verdicts(parts)["reference integrators"] == "refuted"


def test_split_refutes_a_sampler_with_a_broken_integrator():
    def broken_make(name, problem, **kw):
        s = make_sampler(name, problem, **kw)
        if name in ("svrg2-hmc", "saga2-hmc"):
            return Sampler(name, problem, NoSecondDecay(kw["h"], D=kw["D"]), s.estimator)
        return s

    parts, _ = svrhmc.check_split(seed=0, make=broken_make)
    assert verdicts(parts)["reference samplers"] == "refuted"


def test_split_refutes_a_wrong_eliminated_form():
    def wrong(th, mom, noise, force):
        p_next, _ = splitting.eliminated(th, mom, noise, force)
        return p_next, th + svrhmc.S.h * p_next  # Euler's (2) instead of (18)

    parts, _ = svrhmc.check_split(seed=0, eliminated_form=wrong)
    assert verdicts(parts)["(12)-(16) = (17)-(18)"] == "refuted"


def test_split_transcription_catches_a_wrong_line_and_accepts_a_corrected_one():
    s = svrhmc.S

    def edited(s_):
        out = []
        for ln in svrhmc.printed_lines(s_):
            if (ln.alg, ln.line) == (3, 9):  # corrected: p_t → p_{tK+k}
                ln = dataclasses.replace(ln, printed=ln.printed.subs(s.p_outer, s.p))
            if (ln.alg, ln.line) == (1, 9):  # wrong friction (1 − Dh/2)
                ln = dataclasses.replace(ln, printed=ln.printed.subs(s.D, s.D / 2))
            out.append(ln)
        return out

    parts, _ = svrhmc.check_split(seed=0, lines=edited)
    v = verdicts(parts)
    assert "Alg. 3 line 9" not in v
    assert v["Alg. 1 line 9"] == "refuted"


def test_line9_readings_coincide_iff_K_is_1():
    problem = svrhmc.logistic_regression_synthetic(6, 2, seed=3)
    rng = np.random.default_rng(3)
    for K in (1, 3):
        T = 3 * K + 1
        idx = rng.integers(0, 6, (T, 2, 2))
        noise = rng.standard_normal((T, 2, 2))
        runs = {
            r: svrhmc.run_printed(3, problem, h=0.1, D=2.0, K=K, b=2, idx=idx, noise=noise, line9=r)
            for r in ("tK+k", "t", "tK")
        }
        gap = max(np.abs(runs["tK+k"] - runs[r]).max() for r in ("t", "tK"))
        assert (gap == 0.0) == (K == 1)
    assert svrhmc._index_coincidences()["rule k = 0 and (t = 0 or K = 1)"]


hD = st.floats(0.01, 0.5).flatmap(
    lambda h: st.tuples(st.just(h), st.floats(1.0, min(5.0, 0.99 / h)))
)


@given(hD=hD, seed=st.integers(0, 2**31 - 1), kind=st.sampled_from(["split", "euler"]))
def test_integrators_match_their_equations(hD, seed, kind):
    h, D = hD
    rng = np.random.default_rng(seed)
    theta, p, xi = (rng.normal(0, 2, (3, 2)) for _ in range(3))
    integ = SymmetricSplitting(h, D=D) if kind == "split" else SGHMCEuler(h, D=D)
    ratio, _ = svrhmc.integrator_residuals(integ, kind, theta, p, xi, h, D)
    assert ratio <= 1.0
    broken = NoSecondDecay(h, D=D) if kind == "split" else OldMomentumEuler(h, D=D)
    assert svrhmc.integrator_residuals(broken, kind, theta, p, xi, h, D)[0] > 1.0


def test_symbolic_identity_is_not_vacuous():
    # the five steps with the gradient at θ_t would differ from (17): the check can tell
    s = svrhmc.S
    fs = svrhmc.five_step(s)
    p_theta, _ = splitting.eliminated(s.theta, s.p, s.xi, lambda _x: s.F(s.theta))
    assert sp.simplify(fs["p_next"] - p_theta) != 0


# --------------------------------------------------------------------------------------
# SVRHMC-COR2
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cor2():
    return run_check("SVRHMC-COR2", svrhmc.check_cor2, profile="quick", seed=0)


def test_cor2_verdicts(cor2):
    # the bound holds for ∇̃ with the exact prior gradient; §2's ∇̃ without it fails it
    assert cor2.verdict == "qualified"
    for p in cor2.parts:
        want = "qualified" if p.name == "prior term (§2 ∇̃ read literally)" else "confirmed"
        assert p.verdict == want, p.name
    prior = cor2.part("prior term (§2 ∇̃ read literally)")
    assert prior.measured["bias identity: verdict"].value == "confirmed"
    assert "−∇log Pr(θ)" in prior.erratum["corrected"]
    ce = prior.measured["first violation"].value
    assert ce["E‖∇̃ − ∇f‖² (literal §2 ∇̃)"] > ce["n²G²/b, G = max‖x_i‖"]
    assert (
        cor2.part("closed form = enumeration")
        .measured["max |enumerated − closed form| / tol"]
        .value
        <= 1
    )
    ratio = cor2.part("bound n²G²/b").measured
    assert 0 < ratio["min E / (n²G²/b)"].value <= ratio["max E / (n²G²/b)"].value < 1
    tight = cor2.part("tightness").measured["E / (n²G²/b) on the N-gon at θ = 0"].value
    assert all(abs(r - 1) < 1e-12 for r in tight.values())


@pytest.mark.parametrize(
    "broken, refuted",
    [
        (UnscaledMinibatch, {"closed form = enumeration", "without replacement", "tightness"}),
        (OverScaledMinibatch, {"closed form = enumeration", "without replacement", "tightness"}),
        (DoubledMinibatch, {"closed form = enumeration", "bound n²G²/b", "tightness"}),
    ],
    ids=["missing-n/b", "n/b²", "2n/b"],
)
def test_cor2_refutes_a_broken_estimator(broken, refuted):
    parts, _ = svrhmc.check_cor2(seed=0, minibatch=lambda b, replace: broken(b, replace=replace))
    v = verdicts(parts)
    assert {name for name, x in v.items() if x == "refuted"} >= refuted
    assert v["proof B.1"] == "confirmed"  # the paper's algebra does not depend on the estimator


def test_proof_part_reads_the_step_by_step_check():
    # B.1 comes from proofs.svrhmc_lemma1 (its power is tested in proofs_checks/): here, a
    # failing step there must refute the part, and the real check has no failing step
    out = svrhmc.proof_b1([(3, 2)])
    assert out["failures"] == [] and out["prior step"].holds is False

    def wrong(sizes):
        return {"failures": [{"n": 3, "b": 2, "step": "line 5 = line 6"}], "prior step": None}

    parts, _ = svrhmc.check_cor2(seed=0, proof_steps=wrong)
    assert verdicts(parts)["proof B.1"] == "refuted"


PROBLEMS = {
    "linear": lambda N, d, s: svrhmc.linear_regression_synthetic(N, d, seed=s),
    "logistic": lambda N, d, s: svrhmc.logistic_regression_synthetic(N, d, seed=s),
    "gaussian": lambda N, d, s: svrhmc.gaussian_differing(N, d, seed=s),
}


@given(
    kind=st.sampled_from(sorted(PROBLEMS)),
    N=st.integers(2, 6),
    b=st.integers(1, 3),
    d=st.integers(1, 3),
    seed=st.integers(0, 2**31 - 1),
    scale=st.floats(0.1, 5.0),
)
def test_cor2_identity_and_bound_over_states(kind, N, b, d, seed, scale):
    problem = PROBLEMS[kind](N, d, seed)
    theta = scale * np.random.default_rng(seed).standard_normal(d)
    cf = svrhmc.minibatch_error_closed_form(problem, theta, b)
    enum = svrhmc.minibatch_error_enumerated(problem, theta, Minibatch(b), b)
    tol = svrhmc.enumeration_tolerance(N, b, cf["scale"])
    assert abs(enum - cf["exact"]) <= tol
    assert enum <= cf["bound"] + tol  # Corollary 2 with the tightest G at θ
    # the slack is exactly ‖∇f̄‖² + mean(G² − ‖∇f_i‖²) (times n²/b)
    a = problem.all_component_grads(theta[None])[0]
    gap = N**2 / b * (np.sum(a.mean(0) ** 2) + np.mean(cf["G"] ** 2 - np.sum(a**2, axis=1)))
    assert abs((cf["bound"] - cf["exact"]) - gap) <= tol
    if b <= N:
        wor = svrhmc.minibatch_error_enumerated(
            problem, theta, Minibatch(b, replace=False), b, replace=False
        )
        assert abs(wor - (N - b) / (N - 1) * cf["exact"]) <= tol


def test_full_profiles():
    # both checks are exact, so "full" only widens the grids; it still runs in < 1 s
    for claim, fn in (("SVRHMC-SPLIT", svrhmc.check_split), ("SVRHMC-COR2", svrhmc.check_cor2)):
        r = run_check(claim, fn, profile="full", seed=1)
        assert r.verdict == "qualified"


def test_exact_checks_run_no_statistical_test(split, cor2):
    assert split.alpha is None and cor2.alpha is None  # exact checks: no statistical test
    _ = get("svrg2-hmc")  # the registry entry the sampler part runs


def test_every_part_goes_through_a_decision_builder(split, cor2):
    # issue 12: no verdict written by hand; every part (and every sub-decision) names its rule
    for result in (split, cor2):
        for p in result.parts:
            assert decide.is_decided(p.rule), (result.claim_id, p.name, p.rule)
            if p.verdict in ("refuted", "qualified"):  # a negative part says what to correct
                assert p.erratum is not None, p.name


def test_printed_line_qualifies_only_with_a_stated_correction():
    """A printed line that differs from its equation is qualified only when a stated
    correction repairs it (the reason and the erratum are recorded); with no stated correction
    the corrected reading is the printed line itself, and the line is refuted."""
    x, y = sp.symbols("x y")
    typo = svrhmc.PrintedLine(9, 1, "z = y", y, x, "(0)", correction={y: x}, effect="y for x")
    q = svrhmc._line_part(typo, typo.printed - typo.reference)
    assert q.verdict == "qualified" and q.erratum is not None
    assert q.measured["as printed: verdict"].value == "qualified"
    assert q.measured["as printed: why not refuted"].value
    wrong = dataclasses.replace(typo, correction={})
    r = svrhmc._line_part(wrong, wrong.printed - wrong.reference)
    assert r.verdict == "refuted"
    assert r.measured["as printed: verdict"].value == "refuted"
