"""HARNESS-POWER: the harness's kill rate and size as a claim (issue 7)."""

from __future__ import annotations

import pytest
from scipy.stats import binom

from sgmcmc_verify.claims import check, harness


def _kills(n: int, missed: int) -> dict:
    rows = [
        {"bug": f"b{i}", "killed_sampler": i >= missed, "killed_step": True,
         "sampler_message": "passed", "step_message": "differs at step 0"}
        for i in range(n)
    ]  # fmt: skip
    return {"rows": rows}


def _size(k: int, m: int, alpha: float = 0.01) -> dict:
    return {"rejections": k, "validations": m, "alpha": alpha, "rate": k / m,
            "ci": (0.0, 1.0), "confidence": 0.95, "per_algorithm": {"sgld": k}}  # fmt: skip


def test_kill_part_counts_against_the_target():
    assert harness._kill_part("statistical", _kills(34, 1)).verdict == "confirmed"  # 33/34
    bad = harness._kill_part("statistical", _kills(34, 2))  # 32/34 = 0.941 < 0.95
    assert bad.verdict == "refuted"
    assert [s["bug"] for s in bad.counterexample["survivors"]] == ["b0", "b1"]


def test_size_part_rejects_exactly_where_the_binomial_test_does():
    # the critical count of the one-sided test at level ALPHA_SIZE, computed independently
    m, alpha = 600, 0.01
    k_crit = int(binom.isf(harness.ALPHA_SIZE, m, alpha)) + 1  # smallest k with P(X ≥ k) < level
    assert binom.sf(k_crit - 1, m, alpha) < harness.ALPHA_SIZE <= binom.sf(k_crit - 2, m, alpha)
    assert harness._size_part(_size(k_crit - 1, m)).verdict == "confirmed"
    # power: a battery that rejects correct code at 3α is caught
    assert harness._size_part(_size(3 * 6, m)).verdict == "refuted"


def test_check_power_wires_the_measurements(monkeypatch):
    monkeypatch.setattr(harness, "kill_rate", lambda seed: _kills(20, 0))
    monkeypatch.setattr(harness, "false_alarm_rate", lambda **kw: _size(9, 90))
    r = check("HARNESS-POWER", profile="quick", seed=3)
    assert [p.verdict for p in r.parts] == ["confirmed", "confirmed", "refuted"]
    assert r.verdict == "refuted"
    fig = r.figure_data["power_size"]
    assert fig["kind"] == "power_size" and len(fig["bugs"]) == 20
    from sgmcmc_verify.report.figures import render_figures

    (a,), (b,) = render_figures([r]), render_figures([r])
    assert a.png[:8] == b"\x89PNG\r\n\x1a\n" and a.png == b.png


@pytest.mark.slow
def test_harness_power_on_the_real_catalogue():
    r = check("HARNESS-POWER", profile="quick", seed=0)
    kill_s, kill_t, size = r.parts
    assert kill_s.verdict == kill_t.verdict == "confirmed", r.reading
    # 30 validations cannot resolve a false-alarm rate of 3α: qualified, not confirmed
    assert size.verdict == "qualified" and "underpowered" in size.reading


def test_every_part_is_decided_by_a_builder_and_states_what_it_detects():
    """Kill rates are exact comparisons of a count (a fixed seeded catalogue); the size part
    is a one-sided exact binomial test at ALPHA_SIZE with its power: 600 validations
    detect a false-alarm rate of 3α with power 0.9 (confirmed when not rejected), the quick
    profile's 30 do not (qualified)."""
    from sgmcmc_verify.claims.decide import is_decided

    mde = {"sgld": [0.02, 0.03]}
    kill = harness._kill_part("statistical", _kills(55, 2), mde)
    assert kill.rule == "exact" and kill.verdict == "confirmed"  # 53/55 ≥ 95 %
    assert harness._kill_part("statistical", _kills(55, 3)).verdict == "refuted"  # 52/55
    assert kill.measured["Var θ error detectable (power 0.9)"].value == mde
    assert kill.measured["validation α"].value == 0.01
    full, quick = harness._size_part(_size(0, 600)), harness._size_part(_size(0, 30))
    assert full.rule == quick.rule == "statistical"
    assert full.verdict == "confirmed" and quick.verdict == "qualified"
    assert full.measured["MDE (power 0.9)"].value <= harness.MEANINGFUL_SIZE_FACTOR * 0.01
    # the MDE is the rate the test detects with power 0.9 (independent check with scipy)
    k = next(k for k in range(601) if binom.sf(k - 1, 600, 0.01) <= harness.ALPHA_SIZE)
    assert binom.sf(k - 1, 600, full.measured["MDE (power 0.9)"].value) == pytest.approx(0.9)
    for part in (kill, full, quick, harness._size_part({**_size(0, 88), "errors": 2})):
        assert is_decided(part.rule), part.rule


def test_errors_are_neither_kills_nor_survivors():
    kills = _kills(34, 0)
    kills["rows"][0].update(killed_sampler=False, errored=True)  # e.g. a timeout
    part = harness._kill_part("statistical", kills)
    assert part.verdict == "confirmed"  # 33/34, the error counted as not killed
    assert part.measured["survivors"].value == []
    assert part.measured["errored"].value == ["b0"]
    # a correct reference whose validation errors is a defect of the harness: an error, never
    # a qualification the report could file as "holds with a caveat"
    size = harness._size_part({**_size(0, 88), "errors": 2})
    assert size.verdict == "error" and "2 reference validations ended in an error" in (size.reading)


def test_size_validations_never_share_a_seed():
    """The size part's binomial test counts validations as independent trials: with one seed
    per s shared by the three references, their reject events were dependent (sgld's and
    svrg-hmc's E θ z-scores correlated 0.95 across seeds; 11 rejections of 600 came from 9
    seeds).  Every (algorithm, s) now has its own seed, in disjoint sets per ``seed``."""
    from sgmcmc_verify.validation.power import false_alarm_units

    for seed in (0, 1):
        _, units = false_alarm_units(seeds=200, seed=seed)
        seeds = [s for _, s in units]
        assert len(units) == 600 and len(set(seeds)) == 600
        # validate(seed=s) draws its i-th step size with seed s + 1000 i: no stream reused
        streams = [s + 1000 * i for s in seeds for i in range(2)]
        assert len(set(streams)) == len(streams)
    _, u0 = false_alarm_units(seeds=200, seed=0)
    _, u1 = false_alarm_units(seeds=200, seed=1)
    assert not {s for _, s in u0} & {s for _, s in u1}
