"""Shared assertion for the step-by-step proof checks."""

import pytest


def _expect_steps(steps, expected: dict[str, bool]) -> None:
    """The steps are exactly ``expected``'s, in the paper's order, with the stated truth values.

    A failing step carries its counterexample and a holding step none; every step names
    where it is printed.
    """
    assert [s.name for s in steps] == list(expected), "steps missing or out of the paper's order"
    assert {s.name: s.holds for s in steps} == expected
    for s in steps:
        assert s.equation, s.name
        assert (s.counterexample is None) == s.holds, s.name


@pytest.fixture
def expect_steps():
    return _expect_steps
