"""SGNHT-MT: the symbolic Fokker-Planck check, and its power on wrong dynamics."""

import sympy as sp

from sgmcmc_verify.claims import check, sgnht_mt


def test_main_theorem_cases():
    r = check("SGNHT-MT")
    assert r.verdict == "confirmed"
    assert {p.name: p.verdict for p in r.parts}["SGHMC, B̂ ≠ B"] == "confirmed"
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
    return sgnht_mt.fokker_planck_residual([*th, *p, xi], v, sp.diag(0, 0, D, D, 0), H)


def test_check_refutes_a_wrong_thermostat_and_a_wrong_expectation():
    parts, _ = sgnht_mt.check_mt(
        cases={
            "wrong thermostat": (_wrong_thermostat, "zero", ""),
            "Langevin claimed broken": (sgnht_mt._langevin, "nonzero", ""),
        }
    )
    assert [p.verdict for p in parts[:2]] == ["refuted", "refuted"]
    assert parts[0].counterexample["residual"] != "0"
