"""The decision layer (issue 12): every builder decides by its stated rule, both ways."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from scipy import stats

from sgmcmc_verify.claims import decide
from sgmcmc_verify.claims.decide import (
    Erratum,
    counterexample_search,
    exact_comparison,
    mde_z,
    order_from_limits,
    rounding_tolerance,
    statistical_test,
)
from sgmcmc_verify.claims.result import ClaimResult, Measurement, Part, combine_verdicts

ERR = Erratum("x ≤ 2y", "eq. (3), second line", "python -c 'print(1)'", "y > 0")
TEXT = {"holds": "it holds", "fails": "it fails"}


# -- (a) exact comparison -------------------------------------------------------------------


def test_exact_comparison_confirms_an_exact_equality_and_refutes_a_difference():
    ok = exact_comparison(
        "a",
        "1/3 + 1/6 = 1/2",
        value=Fraction(1, 3) + Fraction(1, 6),
        target=Fraction(1, 2),
        **TEXT,
        erratum=ERR,
    )
    assert (ok.verdict, ok.rule, ok.erratum, ok.reading) == ("confirmed", "exact", None, "it holds")
    bad = exact_comparison(
        "a",
        "1/3 = 0.333",
        value=Fraction(1, 3),
        target=Fraction(333, 1000),
        **TEXT,
        counterexample={"x": 1},
        erratum=ERR,
    )
    assert (bad.verdict, bad.counterexample, bad.erratum) == ("refuted", {"x": 1}, ERR.to_dict())


def test_rounding_tolerance_admits_float_rounding_but_not_a_one_percent_error():
    # 0.1 + 0.2 differs from 0.3 by one ulp; 2 operations of scale 0.3 allow 2·ε·0.3
    tol = rounding_tolerance(0.3, 2)
    assert exact_comparison("f", "", value=0.1 + 0.2, target=0.3, tol=tol, **TEXT).verdict == (
        "confirmed"
    )
    assert exact_comparison("f", "", value=0.303, target=0.3, tol=tol, **TEXT).verdict == "refuted"
    assert tol == 2 * 2.0**-52 * 0.3


def test_exact_comparison_inequalities_and_failed_verdict():
    assert (
        exact_comparison("i", "", value=1, target=2, relation="<=", **TEXT).verdict == "confirmed"
    )
    assert exact_comparison("i", "", value=3, target=2, relation="<=", **TEXT).verdict == "refuted"
    assert exact_comparison("i", "", value=2, target=2, relation="<", **TEXT).verdict == "refuted"
    part = exact_comparison(
        "i", "", value=3, target=2, relation="<=", failed_verdict="error", **TEXT
    )
    assert part.verdict == "error"
    with pytest.raises(ValueError, match="relation"):
        exact_comparison("i", "", value=1, target=1, relation="~", **TEXT)


# -- (b) statistical test with power -------------------------------------------------------


def test_mde_is_the_textbook_formula():
    # (z_{0.975} + z_{0.9})·se = (1.959964 + 1.281552)·se, from scipy.stats directly
    want = (stats.norm.ppf(0.975) + stats.norm.ppf(0.9)) * 0.5
    assert mde_z(0.05, 0.5) == pytest.approx(want, rel=1e-12)
    assert mde_z(0.05, 0.5, sides=1) == pytest.approx(
        (stats.norm.ppf(0.95) + stats.norm.ppf(0.9)) * 0.5, rel=1e-12
    )


def test_statistical_test_three_outcomes():
    kw = dict(target=1.0, alpha=0.01, effect_label="mean errors", **TEXT)
    # powered and no deviation: MDE = (2.576 + 1.282)·0.01 = 0.0386 ≤ 0.05
    ok = statistical_test("s", "", estimate=1.005, se=0.01, meaningful_effect=0.05, **kw)
    assert (ok.verdict, ok.rule) == ("confirmed", "statistical")
    assert ok.measured["MDE (power 0.9)"].value == pytest.approx(0.0386, abs=1e-4)
    # same data, but only errors ≥ 0.02 matter: underpowered → qualified, with the reason
    weak = statistical_test("s", "", estimate=1.005, se=0.01, meaningful_effect=0.02, **kw)
    assert weak.verdict == "qualified" and "underpowered" in weak.reading
    # |z| = 3 > 2.576 at α = 0.01 → refuted
    bad = statistical_test(
        "s", "", estimate=1.03, se=0.01, meaningful_effect=0.05, counterexample={"seed": 3}, **kw
    )
    assert (bad.verdict, bad.counterexample) == ("refuted", {"seed": 3})


def test_statistical_test_false_alarm_rate_is_alpha():
    # exact: the rejection region |z| > z_{1-α/2} has probability α under the null
    crit = stats.norm.isf(0.005)
    assert 2 * stats.norm.sf(crit) == pytest.approx(0.01, rel=1e-12)
    at_edge = statistical_test(
        "s",
        "",
        estimate=crit * 0.999,
        target=0.0,
        se=1.0,
        alpha=0.01,
        meaningful_effect=10.0,
        effect_label="e",
        **TEXT,
    )
    past = statistical_test(
        "s",
        "",
        estimate=crit * 1.001,
        target=0.0,
        se=1.0,
        alpha=0.01,
        meaningful_effect=10.0,
        effect_label="e",
        **TEXT,
    )
    assert (at_edge.verdict, past.verdict) == ("confirmed", "refuted")


# -- (c) order from bounds ---------------------------------------------------------------


def test_order_from_limits_decides_only_from_bounds():
    kw = dict(claimed="ε⁻²", derivation="analytic", holds="h", fails="f", undecided="u")
    assert order_from_limits("o", "", lower_limit=0.5, upper_limit=3.0, **kw).verdict == (
        "confirmed"
    )
    refuted = order_from_limits("o", "", lower_limit=math.inf, upper_limit=None, **kw)
    assert (refuted.verdict, refuted.rule) == ("refuted", "order")
    und = order_from_limits("o", "", lower_limit=0.0, upper_limit=math.inf, **kw)
    assert (und.verdict, und.reading) == ("qualified", "u")
    assert order_from_limits("o", "", lower_limit=None, upper_limit=None, **kw).verdict == (
        "qualified"
    )
    with pytest.raises(ValueError, match="exceeds"):
        order_from_limits("o", "", lower_limit=2.0, upper_limit=1.0, **kw)


# -- (d) counterexample search within the paper's regime -----------------------------------


def test_counterexample_search_respects_the_regime():
    kw = dict(regime="n ≥ 10", searched="100 points", holds="h", fails="f", erratum=ERR)
    assert counterexample_search("c", "", in_regime=None, **kw).verdict == "confirmed"
    out = counterexample_search("c", "", in_regime=None, outside={"n": 1}, **kw)
    assert (out.verdict, out.counterexample, out.erratum["regime"]) == (
        "qualified",
        {"n": 1},
        "y > 0",
    )
    inside = counterexample_search("c", "", in_regime={"n": 20}, outside={"n": 1}, **kw)
    assert (inside.verdict, inside.counterexample) == ("refuted", {"n": 20})
    # up to constants: bounded by a proved constant → qualified; unbounded → refuted
    bounded = counterexample_search(
        "c", "", in_regime={"n": 20}, up_to_constant=True, proved_constant=100 / 81, **kw
    )
    assert bounded.verdict == "qualified" and "1.23457" in bounded.reading
    unbounded = counterexample_search(
        "c", "", in_regime={"n": 20}, up_to_constant=True, proved_constant=math.inf, **kw
    )
    assert unbounded.verdict == "refuted"
    # an exact statement is refuted by any violation in the regime, bounded or not
    exact = counterexample_search("c", "", in_regime={"n": 20}, proved_constant=1.01, **kw)
    assert exact.verdict == "refuted"


def test_erratum_needs_content_and_survives_json():
    with pytest.raises(ValueError, match="corrected"):
        Erratum("", "eq. (1)")
    part = counterexample_search(
        "c", "", regime="r", searched="s", in_regime={"n": 1}, holds="h", fails="f", erratum=ERR
    )
    r = ClaimResult("X", "P", "loc", "stmt", "refuted", parts=[part])
    back = json.loads(json.dumps(r.to_dict()))
    assert back["parts"][0]["rule"] == "counterexample"
    assert back["parts"][0]["erratum"]["corrected"] == "x ≤ 2y"


def test_rules_listed():
    assert set(decide.RULES) == {
        "exact", "statistical", "equivalence", "order", "counterexample", "substitute",
        "all_of", "not-checkable",
    }  # fmt: skip


def test_is_decided_accepts_builder_rules_and_nested_conjunctions_only():
    assert decide.is_decided("exact") and decide.is_decided("not-checkable")
    assert decide.is_decided("all_of(exact, all_of(order, statistical))")
    # a hand-built part has rule ""; "all_of" alone or around an unknown rule is not a decision
    for bad in ("", "all_of", "all_of()", "all_of(exact, bogus)", "hand"):
        assert not decide.is_decided(bad), bad


def test_not_checkable_says_why_and_never_passes():
    p = decide.not_checkable("UCI data", "faster per pass", "the data are not public",
                             would_decide="the paper's ten UCI splits")  # fmt: skip
    assert (p.verdict, p.rule) == ("not-checkable", "not-checkable")
    assert "not public" in p.reading and "UCI splits" in p.reading
    assert combine_verdicts([p.verdict, "confirmed"]) == "qualified"
    with pytest.raises(ValueError, match="say why"):
        decide.not_checkable("x", "y", " ")


# -- (e) substitute problems ---------------------------------------------------------------


def _setting(v: str) -> Part:
    """A builder-made part with verdict ``v`` (what an experiment's per-setting test returns)."""
    if v == "not-checkable":
        return decide.not_checkable("s", "", "no data")
    value = {"confirmed": 1.0, "refuted": 2.0}[v]
    return decide.exact_comparison(
        "s", "", value=value, target=1.0, holds=v, fails=v, counterexample={"seed": 1},
        measured={"z": Measurement(value)},
    )  # fmt: skip


def test_on_substitute_confirms_only_when_every_setting_does():
    ok = decide.on_substitute(
        "c", "", {"a": _setting("confirmed"), "b": _setting("confirmed")}, "x"
    )
    assert (ok.verdict, ok.rule, ok.counterexample) == ("confirmed", "substitute", None)
    # a significant loss at one setting qualifies the claim (never refutes it) and keeps the
    # setting's verdict and counterexample visible
    mixed = decide.on_substitute(
        "c", "", {"a": _setting("confirmed"), "b": _setting("refuted")}, "x", erratum=ERR
    )
    assert mixed.verdict == "qualified"
    assert mixed.measured["verdict per setting"].value == {"a": "confirmed", "b": "refuted"}
    assert mixed.counterexample == {"b": {"seed": 1}}
    assert mixed.measured["z @ b"].value == 2.0 and mixed.erratum == ERR.to_dict()
    with pytest.raises(ValueError, match="at least one"):
        decide.on_substitute("c", "", {}, "x")


def test_on_substitute_refuses_hand_verdicts_and_keeps_errors_and_unchecked():
    hand = Part("s", "confirmed", "", {"z": Measurement(1.0)}, "hand-made")
    with pytest.raises(ValueError, match="not made by a decision builder"):
        decide.on_substitute("c", "", {"a": hand}, "x")
    # a tool error at one setting is an error of the claim, not a qualification
    err = Part("s", "error", "", {}, "crashed", rule="exact")
    assert decide.on_substitute("c", "", {"a": _setting("confirmed"), "b": err}, "x").verdict == (
        "error"
    )
    unchecked = {"a": _setting("not-checkable"), "b": _setting("not-checkable")}
    assert decide.on_substitute("c", "", unchecked, "x").verdict == "not-checkable"


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_measurement_is_a_tool_error_never_a_verdict(bad):
    # any comparison with NaN is false: without the guard a NaN estimate would confirm
    kw = {"holds": "h", "fails": "f"}
    with pytest.raises(ValueError, match="not a finite number"):
        decide.statistical_test("x", "", estimate=bad, target=0.0, se=0.1, alpha=0.01,
                                meaningful_effect=1.0, effect_label="e", **kw)  # fmt: skip
    with pytest.raises(ValueError, match="not a finite number"):
        decide.within_tolerance("x", "", estimate=bad, target=0.0, se=0.1, tol=1.0,
                                tol_source="t", alpha=0.01, **kw)  # fmt: skip
    with pytest.raises(ValueError, match="not a finite number"):
        decide.ordering_test("x", "", smaller=(bad, 0.1), larger=(1.0, 0.1), alpha=0.01,
                             effect_label="e", **kw)  # fmt: skip
    with pytest.raises(ValueError, match="not a finite number"):
        decide.goodness_of_fit("x", "", p_value=bad, df=3, n=100, alpha=0.01,
                               meaningful_tv=0.1, **kw)  # fmt: skip
    if math.isnan(bad):  # an infinite gap is a legitimate exact value; NaN never is
        with pytest.raises(ValueError, match="not a finite number"):
            decide.exact_comparison("x", "", value=bad, target=0.0, **kw)
    else:
        assert decide.exact_comparison("x", "", value=bad, target=0.0, **kw).verdict == "refuted"


# -- equivalence within a theory-derived tolerance ---------------------------------------


def test_within_tolerance_settles_instead_of_flipping():
    # a chain with a true bias 0.01 and a tolerance 0.05 derived from theory: as the standard
    # error shrinks (more samples) the verdict goes undecided → confirmed and stays there;
    # a point-null test of bias 0 would go the other way (confirmed → refuted)
    kw = dict(target=0.5, tol=0.05, tol_source="O(h) bound", alpha=0.001, **TEXT)
    verdicts = [
        decide.within_tolerance("w", "", estimate=0.51, se=se, **kw).verdict
        for se in (0.03, 0.01, 0.003, 0.001)
    ]
    assert verdicts == ["qualified", "confirmed", "confirmed", "confirmed"]
    # z_{0.999} = 3.09: 0.01 + 3.09·0.01 = 0.041 ≤ 0.05
    part = decide.within_tolerance("w", "", estimate=0.51, se=0.01, **kw)
    assert part.rule == "equivalence"
    assert part.measured["equivalence margin"].value == pytest.approx(
        0.05 - 0.01 - stats.norm.isf(0.001) * 0.01, rel=1e-9
    )
    # a bias well beyond the tolerance is refuted once resolved
    bad = decide.within_tolerance("w", "", estimate=0.6, se=0.01, counterexample={"s": 1}, **kw)
    assert (bad.verdict, bad.counterexample) == ("refuted", {"s": 1})
    with pytest.raises(ValueError, match="tol"):
        decide.within_tolerance("w", "", estimate=0.5, se=0.1, **{**kw, "tol": 0.0})


def test_regimes_are_recorded_for_catalogue_claims():
    from sgmcmc_verify.claims.catalogue import INFO, REGIMES

    assert set(REGIMES) <= set(INFO)
    assert all(r.strip() for r in REGIMES.values())


# -- (f) one part made of several decisions ----------------------------------------------


def test_all_of_combines_sub_decisions_by_the_claim_rule():
    kw = dict(target=0.5, tol=0.05, tol_source="O(h) bound", alpha=0.001, **TEXT)
    eq_ok = decide.within_tolerance("w", "", estimate=0.51, se=0.001, **kw)
    eq_open = decide.within_tolerance("w", "", estimate=0.51, se=0.03, **kw)
    eq_bad = decide.within_tolerance("w", "", estimate=0.6, se=0.001, counterexample={"s": 1}, **kw)
    st_ok = statistical_test(
        "s", "", estimate=0.0, target=0.0, se=0.001, alpha=0.001,
        meaningful_effect=0.01, effect_label="x", **TEXT,
    )  # fmt: skip
    assert (eq_ok.verdict, eq_open.verdict, eq_bad.verdict, st_ok.verdict) == (
        "confirmed", "qualified", "refuted", "confirmed"
    )  # fmt: skip
    both = decide.all_of("p", "a and b", {"a": eq_ok, "b": st_ok}, erratum=ERR)
    assert (both.verdict, both.rule, both.erratum) == (
        "confirmed", "all_of(equivalence, statistical)", None
    )  # fmt: skip
    assert both.measured["a: verdict"].value == "confirmed"
    assert both.measured["b: z"].value == 0.0
    # an undecided sub-statement leaves the conjunction undecided; a refuted one refutes it
    assert decide.all_of("p", "", {"a": eq_open, "b": st_ok}).verdict == "qualified"
    bad = decide.all_of("p", "", {"a": eq_bad, "b": eq_open, "c": st_ok}, erratum=ERR)
    assert (bad.verdict, bad.counterexample, bad.erratum) == (
        "refuted",
        {"a": {"s": 1}},
        ERR.to_dict(),
    )
    hand = Part("h", "confirmed", "", {}, "by hand")
    with pytest.raises(ValueError, match="decision builder"):
        decide.all_of("p", "", {"a": eq_ok, "h": hand})
    with pytest.raises(ValueError, match="at least one"):
        decide.all_of("p", "", {})


def test_ordering_test_one_sided_three_outcomes_and_mde():
    """z = (larger − smaller)/se at one-sided α = 0.05 (c = 1.6449): z = 2 confirms,
    z = −2 refutes, z = 1 is unresolved with MDE (1.6449 + 1.2816)·se = 2.9264·se."""
    kw = dict(alpha=0.05, effect_label="KL", holds="A better", fails="B better")
    yes = decide.ordering_test("o", "A < B", smaller=(1.0, 0.3), larger=(2.0, 0.4), **kw)
    no = decide.ordering_test("o", "A < B", smaller=(2.0, 0.4), larger=(1.0, 0.3), **kw,
                              counterexample={"A": 2.0})  # fmt: skip
    open_ = decide.ordering_test("o", "A < B", smaller=(1.0, 0.3), larger=(1.5, 0.4), **kw)
    assert (yes.verdict, no.verdict, open_.verdict) == ("confirmed", "refuted", "qualified")
    assert {yes.rule, no.rule, open_.rule} == {"statistical"}
    assert (yes.reading, no.reading, no.counterexample) == ("A better", "B better", {"A": 2.0})
    assert yes.measured["z"].value == pytest.approx(2.0)
    assert open_.measured["MDE (power 0.9)"].value == pytest.approx(2.9264 * 0.5, abs=1e-4)
    assert "go unseen" in open_.reading
    # a fixed threshold has SE 0; two exact values decide by their sign alone
    thr = decide.ordering_test("o", "", smaller=(0.004, 0.002), larger=(0.01, 0.0), **kw)
    assert thr.verdict == "confirmed"
    exact = decide.ordering_test("o", "", smaller=(2.0, 0.0), larger=(1.0, 0.0), **kw)
    tie = decide.ordering_test("o", "", smaller=(1.0, 0.0), larger=(1.0, 0.0), **kw)
    assert (exact.verdict, tie.verdict) == ("refuted", "qualified")
    with pytest.raises(ValueError, match="alpha"):
        decide.ordering_test("o", "", smaller=(1, 1), larger=(2, 1), **(kw | {"alpha": 0}))


def test_ordering_test_false_confirmation_rate_is_alpha():
    """Under equal means, P(confirmed) = α: 20000 simulated pairs at α = 0.05 confirm at a
    rate inside the binomial 99.9 % band 0.05 ± 3.29·√(0.05·0.95/20000) = 0.05 ± 0.0051."""
    import numpy as np

    rng = np.random.default_rng(5)
    a, b = rng.normal(0, 1, 20000), rng.normal(0, 1, 20000)
    kw = dict(alpha=0.05, effect_label="x", holds="", fails="")
    rate = np.mean(
        [decide.ordering_test("o", "", smaller=(x, 1.0), larger=(y, 1.0), **kw).verdict
         == "confirmed" for x, y in zip(a, b, strict=True)]
    )  # fmt: skip
    assert abs(rate - 0.05) <= 3.29 * math.sqrt(0.05 * 0.95 / 20000)


# -- (i) goodness of fit with its power -----------------------------------------------------


def test_gof_mde_is_the_noncentrality_at_the_stated_power():
    # at λ = n·(2·MDE)² the noncentral χ² exceeds the level-α critical value with prob. 0.9
    alpha, df, n = 0.001, 12, 5000
    tv = decide.gof_mde_tv(alpha, df, n)
    crit = stats.chi2.isf(alpha, df)
    assert stats.ncx2.sf(crit, df, n * (2 * tv) ** 2) == pytest.approx(0.9, abs=1e-9)
    assert decide.gof_mde_tv(alpha, df, 4 * n) == pytest.approx(tv / 2)  # MDE ∝ 1/√n


def test_gof_three_outcomes():
    kw = dict(df=10, alpha=0.001, meaningful_tv=0.05, **TEXT)
    ok = decide.goodness_of_fit("g", "", p_value=0.4, n=100_000, **kw)
    weak = decide.goodness_of_fit("g", "", p_value=0.4, n=100, **kw)
    bad = decide.goodness_of_fit("g", "", p_value=1e-6, n=100, counterexample={"s": 1}, **kw)
    assert (ok.verdict, weak.verdict, bad.verdict) == ("confirmed", "qualified", "refuted")
    assert ok.rule == weak.rule == bad.rule == "statistical"
    assert "underpowered" in weak.reading and bad.counterexample == {"s": 1}
    assert ok.counterexample is None and ok.measured["MDE (power 0.9)"].value < 0.05
    with pytest.raises(ValueError):
        decide.goodness_of_fit("g", "", p_value=0.4, n=100, **{**kw, "meaningful_tv": 0})


def test_gof_false_alarm_rate_is_alpha():
    # under the null the verdict is "refuted" with probability α (here 0.05): 20000 χ² tests of
    # a fair 6-sided die, 600 rolls each; tolerance 3.29 binomial sd (two-sided 0.001)
    import numpy as np

    rng = np.random.default_rng(12)
    p = np.full(6, 1 / 6)
    counts = rng.multinomial(600, p, size=20_000)
    pv = stats.chisquare(counts, axis=1).pvalue
    kw = dict(df=5, n=600, alpha=0.05, meaningful_tv=0.1, **TEXT)
    rate = np.mean([decide.goodness_of_fit("g", "", p_value=x, **kw).verdict == "refuted"
                    for x in pv])  # fmt: skip
    assert abs(rate - 0.05) <= 3.29 * math.sqrt(0.05 * 0.95 / 20000)


def test_binomial_test_p_value_mde_and_three_outcomes():
    """One-sided exact binomial test of rate ≤ p0: the p-value is scipy's binomtest; k* is
    the smallest count at which it rejects; the MDE rate is detected with power 0.9 exactly
    (binomial survival function); a rate far below p0 is no refutation."""
    n, p0, alpha = 600, 0.01, 0.05
    k, mde = decide.binomial_mde(n, p0, alpha)
    assert stats.binom.sf(k - 1, n, p0) <= alpha < stats.binom.sf(k - 2, n, p0)
    assert stats.binom.sf(k - 1, n, mde) == pytest.approx(0.9, abs=1e-9)
    kw = dict(trials=n, p0=p0, alpha=alpha, meaningful_rate=0.03, **TEXT)
    ok = decide.binomial_test("b", "", successes=10, **kw)
    assert ok.verdict == "confirmed" and ok.rule == "statistical"
    assert ok.measured["binomial p-value"].value == pytest.approx(
        stats.binomtest(10, n, p0, alternative="greater").pvalue, rel=1e-12
    )
    assert decide.binomial_test("b", "", successes=0, **kw).verdict == "confirmed"
    bad = decide.binomial_test("b", "", successes=20, counterexample={"k": 20}, **kw)
    assert bad.verdict == "refuted" and bad.counterexample == {"k": 20}
    weak = decide.binomial_test("b", "", successes=0, **{**kw, "trials": 30})
    assert weak.verdict == "qualified" and "underpowered" in weak.reading
    with pytest.raises(ValueError):
        decide.binomial_test("b", "", successes=3, **{**kw, "meaningful_rate": 0.005})


def test_exact_comparison_qualified_needs_its_reason_and_erratum():
    """``failed_verdict="qualified"`` (a failed statement that does not refute) needs
    ``why_not_refuted`` and an erratum on every call, whatever the outcome; the reason is
    stored in ``measured`` when it acts (review H10, finding 8)."""
    e = decide.Erratum("holds with probability 1 − δ", "§3.1, Requirement 1")
    kw = dict(value=1, target=0, failed_verdict="qualified", **TEXT)
    for missing in ({"erratum": e}, {"why_not_refuted": "w.h.p. in the paper"},
                    {"erratum": e, "why_not_refuted": "  "}):  # fmt: skip
        with pytest.raises(ValueError, match="why_not_refuted"):
            decide.exact_comparison("x", "", **kw, **missing)
    q = decide.exact_comparison("x", "", erratum=e, why_not_refuted="w.h.p. in the paper", **kw)
    assert q.verdict == "qualified" and q.rule == "exact"
    assert q.measured["why not refuted"].value == "w.h.p. in the paper"
    assert q.erratum == e.to_dict()
    ok = decide.exact_comparison(
        "x", "", erratum=e, why_not_refuted="w.h.p. in the paper", **{**kw, "value": 0}
    )
    assert ok.verdict == "confirmed" and "why not refuted" not in ok.measured
    with pytest.raises(ValueError, match="why_not_refuted"):  # even when it would confirm
        decide.exact_comparison("x", "", **{**kw, "value": 0})
    r = decide.exact_comparison("x", "", value=1, target=0, **TEXT)
    assert r.verdict == "refuted"


def test_ordering_and_equivalence_refute_at_alpha_refute_and_confirm_at_alpha():
    """``alpha_refute`` moves only the refuting threshold (review H10, finding 6): at
    α = 0.05 (c = 1.6449) and α_refute = 0.01 (c_r = 2.3263), z = −2 is a refutation at
    the default and unresolved with α_refute; z = −2.5 refutes; z = +2 still confirms."""
    kw = dict(alpha=0.05, effect_label="x", holds="", fails="")

    def order(z, **extra):
        return decide.ordering_test("o", "", smaller=(0.0, 0.0), larger=(z, 1.0), **kw, **extra)

    assert order(-2.0).verdict == "refuted"
    assert order(-2.0, alpha_refute=0.01).verdict == "qualified"
    assert order(-2.5, alpha_refute=0.01).verdict == "refuted"
    assert order(2.0, alpha_refute=0.01).verdict == "confirmed"
    assert "α_refute = 0.01" in order(-2.0, alpha_refute=0.01).measured["z"].note
    with pytest.raises(ValueError, match="alpha_refute"):
        order(-2.0, alpha_refute=1.5)
    # equivalence: |d| − c_r·se > tol refutes; d = 1.2, se = 0.1, tol = 1 → (d − tol)/se = 2
    eq = dict(target=0.0, se=0.1, tol=1.0, tol_source="t", alpha=0.05, holds="", fails="")
    assert decide.within_tolerance("w", "", estimate=1.2, **eq).verdict == "refuted"
    wide = decide.within_tolerance("w", "", estimate=1.2, alpha_refute=0.01, **eq)
    assert wide.verdict == "qualified"
    assert decide.within_tolerance("w", "", estimate=1.25, alpha_refute=0.01, **eq).verdict == (
        "refuted"
    )


def test_student_t_critical_values_keep_alpha_with_a_ten_group_jackknife():
    """A 10-group jackknife SE has 9 df (review H10, finding 7).  Simulated null: 20000
    replicates of 10 normal group means (group means of many chains are normal by the
    CLT), estimate = their mean, SE = the jackknife SE over the groups.  With ``df = 9``
    the one-sided false-confirmation rate of ``ordering_test`` at α = 0.01 is ≤ α + 3.09 ·
    √(α(1 − α)/20000) = 0.0122 (one-sided binomial 99.9 % bound); with normal critical
    values it is P(t₉ > 2.326) = 0.0225 and exceeds that bound.  The MDE uses t
    quantiles: (t_{0.99,9} + t_{0.9,9})·se."""
    import numpy as np

    g, reps, alpha = 10, 20000, 0.01
    x = np.random.default_rng(12).normal(0.0, 1.0, (reps, g))
    loo = (x.sum(axis=1, keepdims=True) - x) / (g - 1)
    se = np.sqrt((g - 1) / g * ((loo - loo.mean(axis=1, keepdims=True)) ** 2).sum(axis=1))
    est = x.mean(axis=1)
    kw = dict(alpha=alpha, effect_label="x", holds="", fails="")

    def rate(df):
        return np.mean(
            [decide.ordering_test("o", "", smaller=(e, s), larger=(0.0, 0.0), df=df, **kw).verdict
             == "confirmed" for e, s in zip(est, se, strict=True)]
        )  # fmt: skip

    bound = alpha + 3.09 * math.sqrt(alpha * (1 - alpha) / reps)
    assert rate(g - 1) <= bound < rate(None)
    part = decide.ordering_test("o", "", smaller=(0.0, 1.0), larger=(0.0, 0.0), df=9, **kw)
    want = stats.t.isf(alpha, 9) + stats.t.ppf(0.9, 9)
    assert part.measured["MDE (power 0.9)"].value == pytest.approx(want, rel=1e-12)
    assert mde_z(alpha, 1.0, sides=1, df=9) == pytest.approx(want, rel=1e-12)
    # equivalence at the tolerance's edge (true |d| = tol): P(confirmed) ≤ α with df
    eq = dict(target=0.0, tol=1.0, tol_source="t", alpha=alpha, holds="", fails="", df=g - 1)
    conf = np.mean(
        [decide.within_tolerance("w", "", estimate=1.0 + e, se=s, **eq).verdict == "confirmed"
         for e, s in zip(est, se, strict=True)]
    )  # fmt: skip
    assert conf <= bound
    with pytest.raises(ValueError, match="df"):
        decide.ordering_test("o", "", smaller=(0.0, 1.0), larger=(0.0, 0.0), df=0, **kw)
