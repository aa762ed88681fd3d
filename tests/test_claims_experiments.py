"""Quick-profile verdicts of the experiment reproductions, and the power of their checks."""

from __future__ import annotations

import pytest

from sgmcmc_verify import bugs
from sgmcmc_verify.claims import experiments as E


def _verdicts(parts):
    return {p.name: p.verdict for p in parts}


def test_sgnht_gauss_quick():
    parts, params = E.check_sgnht_gauss(profile="quick", seed=0)
    v = _verdicts(parts)
    assert v["SGNHT accurate where SGHMC is not"] == "confirmed"
    assert v["ξ ≈ A at h = 0.001"] == "confirmed"
    # E[ξ] ≈ A + hV/2: ≥ 2A for A = 1 but not for A = 10 at h = 0.01.
    assert v["ξ ≫ A at h = 0.01"] == "qualified"
    assert v["Normal–Gamma variant"] == "not-checkable"
    assert params["alpha"] == E.ALPHA


def test_ewsg_exp_gauss_quick():
    parts, _ = E.check_ewsg_exp_gauss(profile="quick", seed=0)
    v = _verdicts(parts)
    assert v["EWSG beats SGHMC and SGLD in KL"] == "confirmed"
    assert v["EWSG beats pSGLD"] == "not-checkable"
    assert v["SVRG-LD most accurate"] in ("confirmed", "qualified")
    assert v["x̂ beats the alternatives"] == "confirmed"
    assert v["M trades bias for variance"] == "confirmed"


def test_ewsg_exp_gauss_power_half_noise():
    """SVRG-LD with its noise scaled by 1/√2 is no longer the most accurate: refuted."""

    def make(name, problem, *, h, **params):
        s = E.default_make(name, problem, h=h, **params)
        return bugs.half_noise(s) if name == "svrg-ld" else s

    parts, _ = E.check_ewsg_exp_gauss(profile="quick", seed=0, make=make)
    assert _verdicts(parts)["SVRG-LD most accurate"] == "refuted"


def test_agld_exp_gmm_quick():
    parts, params = E.check_agld_exp_gmm(profile="quick", seed=0)
    assert {p.verdict for p in parts} <= {"confirmed", "qualified", "refuted"}
    assert params["costs"]["LMC"] == 500


def test_agld_exp_tmu_quick():
    parts, _ = E.check_agld_exp_tmu(profile="quick", seed=0)
    v = _verdicts(parts)
    # TMU-RR and TMU-CA are far worse than PTU/PPU after 4 passes (see the report).
    assert v["TMU beats PTU and PPU under RR"] == "refuted"
    assert v["TMU beats PTU and PPU under CA"] == "refuted"
    assert all(p.counterexample for p in parts if p.verdict == "refuted")


def test_svrhmc_exp_not_checkable_and_sub_quick():
    parts, _ = E.check_svrhmc_exp(profile="quick", seed=0)
    assert [p.verdict for p in parts] == ["not-checkable"]
    parts, params = E.check_svrhmc_exp_sub(profile="quick", seed=0)
    assert len(parts) == 4
    assert all(p.verdict in ("confirmed", "qualified") for p in parts)
    assert params["linear"]["h_hmc"] * params["linear"]["friction"] < 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "fn",
    [
        E.check_sgnht_gauss,
        E.check_ewsg_exp_gauss,
        E.check_agld_exp_gmm,
        E.check_agld_exp_tmu,
        E.check_svrhmc_exp_sub,
    ],
)
def test_full_profile_runs(fn):
    parts, params = fn(profile="full", seed=1)
    assert parts and all(p.verdict != "error" for p in parts)
    assert params["alpha"] == E.ALPHA


def _bugged(alg, bug):
    """A ``make`` planting ``bug`` in ``alg`` only (the other samplers are correct)."""

    def make(name, problem, *, h, **params):
        s = E.default_make(name, problem, h=h, **params)
        return bug(s) if name == alg else s

    return make


def test_sgnht_gauss_power_noise_scale_h():
    """SGNHT injecting √2·h·ξ for √(2h)·ξ (CATALOGUE "sgld/noise-h" on sgnht): refuted.

    The thermostat absorbs the missing noise, so ξ settles near hV/2 instead of A + hV/2:
    (E[ξ] − A)/A at h = 0.001 drops from (+0.47, +0.02) to (−0.54, −0.86) for A = (1, 10),
    outside ±1/2, and KL(A = 10) exceeds 0.01 at both h.  (``half_noise`` is *not* caught
    by this check: ξ only loses A/2, within the ±A/2 reading of 'close'.)
    """
    parts, _ = E.check_sgnht_gauss(
        profile="quick", seed=0, make=_bugged("sgnht", bugs.noise_scale_h)
    )
    v = _verdicts(parts)
    assert v["ξ ≈ A at h = 0.001"] == "refuted"
    assert v["SGNHT accurate where SGHMC is not"] == "refuted"


def test_agld_exp_gmm_power_half_noise():
    """TMU-RA with its noise scaled by 1/√2 no longer approximates best: refuted.

    (Correct: qualified; with the bug SAGA-LD is significantly better than TMU-RA.)
    """
    parts, _ = E.check_agld_exp_gmm(
        profile="quick", seed=0, make=_bugged("tmu-ra", bugs.half_noise)
    )
    p = {q.name: q for q in parts}["TMU-RA approximates best among AGLD methods"]
    assert p.verdict == "refuted"
    assert p.counterexample


def test_svrhmc_exp_sub_power_missing_decay():
    """SVRG2nd-HMC without eq. (15)'s second e^{−Dh/2} loses to SVRG-LD at every checkpoint.

    The Part's verdict cannot be 'refuted' (fixed, untuned step sizes: a loss only
    qualifies the claim), and at the quick profile the correct SVRG2nd-HMC already loses
    (qualified), so the verdict alone has no power here.  The power is in the per-checkpoint
    comparisons the Part records: correct, the logistic z-scores are (−1.8, −5.2, −1.8),
    i.e. not significant at 1 and 4 passes; with the bug (momentum too hot, KL ≈ 4.2-4.8
    instead of 0.05-0.6) they are (−11.2, −11.4, −9.5), all significantly worse.
    """
    make = _bugged("svrg2-hmc", bugs.splitting_missing_decay)
    parts, params = E.check_svrhmc_exp_sub(profile="quick", seed=0, make=make)
    p = {q.name: q for q in parts}[
        "SVRG2nd-HMC converges faster per data pass than SVRG-LD (logistic)"
    ]
    assert p.verdict != "confirmed"
    zs = [
        p.measured[f"z (SVRG-LD − SVRG2nd-HMC) / SE @ {n} passes"].value for n in params["passes"]
    ]
    assert all(z < -E._zq() for z in zs), zs
    assert p.counterexample
