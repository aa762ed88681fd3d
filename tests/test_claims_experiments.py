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
