"""SGNHT-MT: the symbolic Fokker-Planck check, its decisions, and its power on wrong dynamics."""

import sympy as sp

from sgmcmc_verify.claims import check, decide, sgnht_mt
from sgmcmc_verify.proofs.sgnht_fokker_planck import fokker_planck_residual


def test_main_theorem_cases():
    r = check("SGNHT-MT")
    assert r.verdict == "confirmed"
    assert [p.name for p in r.parts] == [*sgnht_mt.CASES, *sgnht_mt.PROOF_CASES]
    # every part is decided by a builder: exact comparisons, or the conjunction of
    # "closed form" and "non-zero in the paper's regime" for the non-invariant dynamics
    assert all(decide.is_decided(p.rule) for p in r.parts)
    rules = {p.name: p.rule for p in r.parts}
    assert rules["SGHMC, B̂ ≠ B"] == rules["fixed ξ ≠ D, target ρ"] == "all_of(exact, exact)"
    assert rules["overdamped Langevin"] == "exact"
    # the residual with a mis-estimated B̂ is (B̂ − B)(p² − 1): non-zero wherever p² ≠ 1
    res = sgnht_mt._sghmc(lambda B: sp.Symbol("Bhat"))
    B, Bh, p = sp.Symbol("B", positive=True), sp.Symbol("Bhat"), sp.Symbol("p")
    assert sp.simplify(res - (Bh - B) * (p**2 - 1)) == 0


def _wrong_thermostat():
    """ξ driven by pᵀp − 1 in 2-D (forgets n): the density of §4.2 is no longer invariant."""
    th = sp.symbols("theta1:3")
    p = sp.symbols("p1:3")
    xi, D = sp.Symbol("xi"), sp.Symbol("D", positive=True)
    U = sp.Function("U")(*th)
    pp = p[0] ** 2 + p[1] ** 2
    v = [*p, *[-sp.diff(U, th[i]) - xi * p[i] for i in range(2)], (pp - 1) / 2]
    H = U + pp / 2 + (xi - D) ** 2
    return fokker_planck_residual([*th, *p, xi], v, sp.diag(0, 0, D, D, 0), H)


def test_check_refutes_a_wrong_thermostat_and_a_wrong_expectation():
    p = sp.Symbol("p")
    parts, _ = sgnht_mt.check_mt(
        cases={
            "wrong thermostat": sgnht_mt.Case(_wrong_thermostat, ""),
            # Langevin claimed broken with residual p² − 1: its residual is 0 instead
            "Langevin claimed broken": sgnht_mt.Case(sgnht_mt._langevin, "", p**2 - 1, {p: 2}),
            # a closed form that is right but vanishes at the "witness": not a counterexample
            "B̂ ≠ B at a root": sgnht_mt.Case(
                sgnht_mt.CASES["SGHMC, B̂ ≠ B"].build,
                "",
                sgnht_mt.CASES["SGHMC, B̂ ≠ B"].residual,
                {sp.Symbol("Bhat"): 2, sp.Symbol("B", positive=True): 1, p: 1},
            ),
        }
    )
    assert [pt.verdict for pt in parts] == ["refuted", "refuted", "refuted"]
    assert parts[0].rule == "exact" and parts[0].counterexample["residual / ρ"] != "0"
    assert parts[1].measured["closed form: verdict"].value == "refuted"
    assert parts[2].measured["closed form: verdict"].value == "confirmed"
    assert parts[2].measured["≠ 0 in regime: verdict"].value == "refuted"
