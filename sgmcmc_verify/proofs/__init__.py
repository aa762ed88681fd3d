"""The papers' proofs, step by step, in sympy: one module per paper and theorem.

Each module exposes functions returning a list of :class:`Step`, one per displayed step
of the paper's argument, in the paper's order.  A step is an identity (checked by
reducing the difference to 0), an inequality (checked by a *certificate*: the gap
``RHS − LHS`` equals an expression that is visibly non-negative, a sum and product of
positive symbols, once the hypotheses are written through positive slack variables), or
a statement checked exactly at a point.  A step that fails carries a counterexample: exact
parameter values at which the displayed relation is false.

This package sits beside :mod:`sgmcmc_verify.exact` in the layering: it imports only
sympy, mpmath, numpy and :mod:`fractions`, so the claim modules can call it.

Modules
-------
:mod:`.svrhmc_lemma1`
    SVRHMC Appendix B.1 (Corollary 2), B.2 (Theorem 2), B.3 (Lemma 1), Corollary 3 and
    B.4 (Theorem 4, SAGA-HMC).
:mod:`.svrhmc_splitting`
    SVRHMC §4 eqs. (12)–(18), the symmetric splitting.
:mod:`.sgnht_fokker_planck`
    SGNHT §4.1 eq. (9) and the §4.2 derivation of the matrix-Ξ thermostat (10)–(11).
:mod:`.ewsg_theorems`
    EWSG Theorems 1–3 (§4.1–4.2).
:mod:`.agld_theorem1`
    AGLD Requirements 1–2 (§3.1–3.2) and the one-step bound behind Theorem 1 (§4.1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

__all__ = ["Step", "by_name", "certified", "identity", "is_zero", "nonnegative"]


@dataclass(frozen=True)
class Step:
    """One displayed step of a paper's argument and whether it holds.

    Attributes
    ----------
    name : str
        Short label, unique within a theorem (tests select steps by it).
    equation : str
        Where the step is printed (equation number or display line) and what it says.
    holds : bool
        Whether the step is true on the paper's stated region.
    detail : str
        How it was checked (the identity, the certificate) or why it fails.
    counterexample : dict or None
        For a failing step: exact parameter values and both sides evaluated there.
    """

    name: str
    equation: str
    holds: bool
    detail: str
    counterexample: dict[str, Any] | None = None


def is_zero(expr: sp.Expr) -> bool:
    """Whether a rational expression is identically 0 (``expand`` then ``cancel``; no simplify)."""
    e = sp.expand(expr)
    return e == 0 or sp.cancel(sp.together(e)) == 0


def nonnegative(expr: sp.Expr) -> bool:
    """Whether sympy's assumptions show ``expr ≥ 0`` (sums/products of positive symbols)."""
    if expr.is_nonnegative:  # before expanding: expansion hides squares
        return True
    e = sp.expand(expr)
    return e == 0 or bool(e.is_nonnegative) or bool(sp.factor(e).is_nonnegative)


def identity(
    name: str,
    equation: str,
    lhs: sp.Expr,
    rhs: sp.Expr,
    detail: str,
    point: dict[sp.Symbol, Any] | None = None,
) -> Step:
    """A step ``lhs = rhs``; if it fails, both sides at ``point`` form the counterexample."""
    holds = is_zero(lhs - rhs)
    counter = None
    if not holds and point is not None:
        counter = {
            "point": {str(k): v for k, v in point.items()},
            "lhs": sp.nsimplify(lhs.subs(point)),
            "rhs": sp.nsimplify(rhs.subs(point)),
        }
    return Step(name, equation, holds, detail, counter)


def certified(
    name: str,
    equation: str,
    gap: sp.Expr,
    certificate: sp.Expr,
    detail: str,
    substitution: dict[sp.Symbol, sp.Expr] | None = None,
) -> Step:
    """A step ``gap ≥ 0`` proved by ``gap = certificate`` with ``certificate`` visibly ≥ 0.

    ``substitution`` writes the hypotheses through positive slack symbols (e.g.
    ``h ↦ 1/(D(1 + e))`` for ``Dh < 1``); it is applied to ``gap`` before comparing.
    """
    g = gap.subs(substitution) if substitution else gap
    same = is_zero(g - certificate)
    pos = nonnegative(certificate)
    why = detail if same and pos else f"{detail} [certificate {'≥ 0 fails' if same else '≠ gap'}]"
    return Step(name, equation, same and pos, why)


def by_name(steps: list[Step]) -> dict[str, Step]:
    """The steps keyed by name (names are unique within one theorem's list)."""
    out = {s.name: s for s in steps}
    if len(out) != len(steps):
        raise ValueError("step names are not unique")
    return out
