"""The step helpers of :mod:`sgmcmc_verify.proofs` accept true steps and reject false ones."""

import pytest
import sympy as sp

from sgmcmc_verify.proofs import by_name, certified, identity, nonnegative

x = sp.Symbol("x", real=True)
e = sp.Symbol("e", positive=True)
h, D = sp.symbols("h D", positive=True)


def test_identity_both_ways_with_counterexample():
    assert identity("ok", "eq", (x + 1) ** 2, x**2 + 2 * x + 1, "").holds
    bad = identity("bad", "eq", (x + 1) ** 2, x**2 + 1, "", point={x: 3})
    assert not bad.holds and bad.counterexample == {"point": {"x": 3}, "lhs": 16, "rhs": 10}


def test_certificate_must_equal_the_gap_and_be_visibly_nonnegative():
    assert certified("sq", "eq", x**2 - 2 * x + 1, (x - 1) ** 2, "").holds
    assert not certified("wrong cert", "eq", x**2 - 2 * x + 1, x**2, "").holds
    assert not certified("negative", "eq", -((x - 1) ** 2), -((x - 1) ** 2), "").holds
    # Dh < 1 through h = 1/(D(1 + e)): Dh(1 − Dh) ≥ 0
    sub = {h: 1 / (D * (1 + e))}
    assert certified("slack", "eq", D * h * (1 - D * h), e / (1 + e) ** 2, "", sub).holds
    # without the hypothesis the same gap is not certified
    assert not nonnegative(D * h * (1 - D * h))


def test_by_name_rejects_duplicate_names():
    s = identity("a", "eq", x, x, "")
    assert by_name([s]) == {"a": s}
    with pytest.raises(ValueError, match="not unique"):
        by_name([s, s])
