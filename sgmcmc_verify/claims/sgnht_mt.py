"""SGNHT-MT: the Main Theorem's stationarity condition, checked symbolically.

SGNHT §4.1: the SDE ``dΓ = v(Γ) dt + N(0, 2D(θ) dt)`` (eq. (7)) leaves
``ρ ∝ exp(−H)`` invariant when

.. math::

    \\nabla\\cdot(\\rho v) = \\nabla\\nabla^\\top : (\\rho D)                 \\tag{9}

— the stationary Fokker–Planck equation — and ``ρ`` has the target as its
θ-marginal (eq. (8)).  Here both sides are built with sympy for a *generic*
potential ``U`` (an undefined function, so nothing is specific to a test
target), divided by ``ρ`` and expanded; the residual must be identically 0.

Cases computed here: overdamped Langevin; underdamped Langevin (SVRHMC eqs. (3)–(4),
EWSG eq. (1)); SGHMC with ``B̂ = B`` (SGNHT eq. (3)); SGNHT with scalar ξ in n = 1, 2,
3 dimensions with μ = n (eqs. (5)–(6)).  Cases taken from the step-by-step proof
(:func:`sgmcmc_verify.proofs.sgnht_fokker_planck.matrix_xi_steps`, checked in
``proofs_checks/``): the matrix thermostat of eq. (11) in 2-D, the marginalisation
(8), and the fixed friction ``ξ ≠ D`` (§4.2, Appendix D).

Every part is an exact comparison (:func:`~sgmcmc_verify.claims.decide.exact_comparison`):
a case the paper says is invariant must have residual ≡ 0; a case the paper says is
*not* invariant (SGHMC with ``B̂ ≠ B``; fixed ``ξ ≠ D`` against the target) must have
the stated closed-form residual, and that residual must be non-zero at a point of the
paper's regime (``B̂ ≠ B``, ``ξ ≠ D``) — both combined by
:func:`~sgmcmc_verify.claims.decide.all_of`.  For fixed ξ the check also exhibits the
density that *is* invariant, ``exp(−(ξ/D)H)``: the target at temperature ``D/ξ``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..proofs import by_name
from ..proofs.sgnht_fokker_planck import fokker_planck_residual, matrix_xi_steps
from . import decide
from .result import Measurement, Part

__all__ = ["CASES", "PROOF_CASES", "Case", "check_mt", "fokker_planck_residual"]


@dataclass(frozen=True)
class Case:
    """One dynamics and what eq. (9) should give for it.

    Attributes
    ----------
    build : callable
        Returns the residual ``[∇·(ρv) − ∇∇ᵀ:(ρD)]/ρ`` (:func:`fokker_planck_residual`).
    meaning : str
        What the case shows, for the report.
    residual : sympy.Expr
        The residual the paper's statement implies: 0 for an invariant ρ, else its
        closed form (non-zero in the paper's regime).
    witness : dict
        For a non-zero ``residual``: a point of the paper's regime where it is ≠ 0.
    """

    build: Callable[[], sp.Expr]
    meaning: str
    residual: sp.Expr = sp.S.Zero
    witness: Mapping[sp.Symbol, Any] = field(default_factory=dict)


def _generic_potential(thetas: Sequence[sp.Symbol]) -> sp.Expr:
    return sp.Function("U")(*thetas)


def _langevin() -> sp.Expr:
    th = sp.Symbol("theta")
    U = _generic_potential([th])
    return fokker_planck_residual([th], [-sp.diff(U, th)], sp.Matrix([[1]]), U)


def _underdamped() -> sp.Expr:
    th, p = sp.symbols("theta p")
    gamma = sp.Symbol("gamma", positive=True)
    U = _generic_potential([th])
    v = [p, -sp.diff(U, th) - gamma * p]
    D = sp.diag(0, gamma)
    return fokker_planck_residual([th, p], v, D, U + p**2 / 2)


def _sghmc(B_hat: Callable[[sp.Symbol], sp.Expr]) -> sp.Expr:
    """SGNHT eq. (3): v = (p, f − Ap), D = diag(0, A − B̂ + B) (§4.1's SGHMC example)."""
    th, p = sp.symbols("theta p")
    A, B = sp.symbols("A B", positive=True)
    U = _generic_potential([th])
    D = sp.diag(0, A - B_hat(B) + B)
    return fokker_planck_residual([th, p], [p, -sp.diff(U, th) - A * p], D, U + p**2 / 2)


def _sgnht_scalar(n: int) -> sp.Expr:
    """Γ = (θ, p, ξ): v = (p, f − ξp, (pᵀp − n)/μ), D = diag(0, D·I, 0), μ = n (§4.2)."""
    th = sp.symbols(f"theta1:{n + 1}")
    p = sp.symbols(f"p1:{n + 1}")
    xi = sp.Symbol("xi")
    Dn = sp.Symbol("D", positive=True)
    mu = n
    U = _generic_potential(th)
    pp = sum(q**2 for q in p)
    v = [*p, *[-sp.diff(U, th[i]) - xi * p[i] for i in range(n)], (pp - n) / mu]
    diff = sp.diag(*([0] * n + [Dn] * n + [0]))
    H = U + pp / 2 + mu * (xi - Dn) ** 2 / 2
    return fokker_planck_residual([*th, *p, xi], v, diff, H)


_P, _BHAT, _B = sp.Symbol("p"), sp.Symbol("Bhat"), sp.Symbol("B", positive=True)

#: name → the case computed here (residual from :func:`fokker_planck_residual`).
CASES: dict[str, Case] = {
    "overdamped Langevin": Case(_langevin, "dθ = −U' dt + √2 dW leaves e^{−U} invariant"),
    "underdamped Langevin": Case(
        _underdamped, "SVRHMC (3)-(4) / EWSG (1): e^{−U − p²/2} invariant"
    ),
    "SGHMC, B̂ = B": Case(lambda: _sghmc(lambda B: B), "the noise correction balances"),
    "SGHMC, B̂ ≠ B": Case(
        lambda: _sghmc(lambda B: _BHAT),
        "mis-estimated B̂ breaks (9): the residual is (B̂ − B)(p² − 1)",
        (_BHAT - _B) * (_P**2 - 1),
        {_BHAT: 2, _B: 1, _P: 2},
    ),
    **{
        f"SGNHT scalar ξ, n = {n}": Case(
            (lambda n=n: _sgnht_scalar(n)), "ρ ∝ e^{−U − pᵀp/2 − n(ξ − D)²/2}"
        )
        for n in (1, 2, 3)
    },
}  # fmt: skip

_XI, _D = sp.symbols("xi D", positive=True)
_PR = sp.Symbol("p", real=True)

#: name → (step of :func:`matrix_xi_steps`, what it shows, the residual it proves, witness).
PROOF_CASES: dict[str, tuple[str, str, sp.Expr, dict[sp.Symbol, Any]]] = {
    "SGNHT matrix Ξ (eq. 11), 2-D": (
        "(9) for (11), n = 2", "ρ ∝ e^{−U − pᵀp/2 − μ‖Ξ − D‖²/2}", sp.S.Zero, {}
    ),
    "fixed ξ ≠ D, target ρ": (
        "fixed ξ: residual", "Appendix D: wrong invariant law; the residual is (ξ − D)(p² − 1)",
        (_XI - _D) * (_PR**2 - 1), {_XI: 1, _D: 2, _PR: 0},
    ),
    "fixed ξ ≠ D, tempered ρ": (
        "fixed ξ: tempered law invariant",
        "the invariant law is e^{−(ξ/D)H}: the target at temperature D/ξ", sp.S.Zero, {},
    ),
    "marginalisation (8)": (
        "(8)", "Q does not involve θ: ∫∫ e^{−Q} dp dΞ = 2π/√μ, so the θ-marginal of ρ is e^{−U}",
        sp.S.Zero, {},
    ),
}  # fmt: skip


def _short(expr: sp.Expr, limit: int = 300) -> str:
    s = str(expr)
    return s if len(s) < limit else s[:limit] + " …"


def _residual_part(
    name: str,
    matches: bool,
    residual: sp.Expr,
    witness: Mapping[sp.Symbol, Any],
    meaning: str,
    measured: Mapping[str, Measurement],
    source: str,
) -> Part:
    """The decision for one case: ``matches`` says the residual equals the stated one.

    Invariant case (``residual`` 0): one exact comparison.  Non-invariant case: the
    conjunction of "the residual has the stated closed form" and "that closed form is
    non-zero at ``witness``, a point of the paper's regime".
    """
    zero = residual == 0
    expect = "residual of eq. (9) ≡ 0" if zero else f"residual of eq. (9) = {residual} ≢ 0"
    form = decide.exact_comparison(
        name if zero else "closed form",
        expect,
        value=matches,
        target=True,
        tol_source=source,
        holds=meaning,
        fails=f"the residual is not {'0' if zero else residual}",
        measured=measured,
        counterexample={"case": name, **{k: v.value for k, v in measured.items()}},
    )
    if zero:
        return form
    at = residual.subs(witness)
    nonzero = decide.exact_comparison(
        "≠ 0 in the paper's regime",
        f"{residual} ≠ 0 at {witness}",
        value=abs(at),
        target=0,
        relation=">",
        tol_source="exact rational arithmetic",
        holds=f"the residual is {at} at {witness}: ρ is not invariant there",
        fails=f"the stated residual vanishes at {witness}",
    )
    return decide.all_of(name, expect, {"closed form": form, "≠ 0 in regime": nonzero})


def check_mt(
    *,
    profile: str = "quick",
    seed: int = 0,
    cases: dict[str, Case] | None = None,
) -> tuple[list[Part], dict[str, Any]]:
    """Check eq. (9) symbolically for each case, and the marginalisation condition (8).

    Each case's residual is compared exactly with the one the paper's statement implies
    (:class:`Case`; :func:`_residual_part`); the proof-backed cases
    (:data:`PROOF_CASES`) take their truth value from the step of
    :func:`~sgmcmc_verify.proofs.sgnht_fokker_planck.matrix_xi_steps` that computes
    the same residual.  ``cases`` replaces :data:`CASES` (and then the proof cases are
    skipped) to test the check itself.  Deterministic: ``profile`` and ``seed`` are
    accepted for the common signature and do not change the result.
    """
    parts = []
    for name, case in (cases or CASES).items():
        residual = case.build()
        matches = sp.expand(residual - case.residual) == 0
        parts.append(
            _residual_part(
                name, matches, case.residual, case.witness, case.meaning,
                {"residual / ρ": Measurement(_short(residual))},
                "sympy: expand(residual − stated) == 0, generic U",
            )
        )  # fmt: skip
    if cases is None:
        steps = by_name(matrix_xi_steps())
        for name, (step_name, meaning, residual, witness) in PROOF_CASES.items():
            st = steps[step_name]
            parts.append(
                _residual_part(
                    name, st.holds, residual, witness, meaning,
                    {"proof step": Measurement(st.equation, note=st.detail)},
                    f"proofs.sgnht_fokker_planck.matrix_xi_steps, step {step_name!r}",
                )
            )  # fmt: skip
    return parts, {"method": "sympy, generic U (undefined function)"}
