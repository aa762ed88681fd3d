"""The decision layer: the few rules that turn measurements into a part's verdict (issue 12).

A claim module measures; one of the builders here decides.  Each returns a
:class:`~sgmcmc_verify.claims.result.Part` whose ``rule`` names the builder, so a
test can check that no verdict was written by hand.

* :func:`exact_comparison` — a value against the statement, tolerance from float64
  rounding (or stated, or zero for exact arithmetic).
* :func:`statistical_test` — a hypothesis test at level α *and* its minimum
  detectable effect (MDE) at its sample size: a test whose MDE exceeds the declared
  meaningful effect cannot confirm (it is ``qualified``, with the reason).
* :func:`within_tolerance` — an equivalence test (two one-sided tests) that a
  discretised chain's value lies within a tolerance of the target derived from theory
  (e.g. an O(h) bias bound): its verdict converges as the sample grows instead of
  flipping from "confirmed" to "qualified" once the test resolves the bias.
* :func:`order_from_limits` — an order or rate decided from analytic or exact
  bounds on the quantity divided by the claimed rate, never from a fitted exponent.
* :func:`counterexample_search` — a counterexample refutes only inside the regime
  the paper assumes; outside it, or when a statement the paper makes up to constants
  fails only by a proved bounded constant, the verdict is ``qualified`` with the
  corrected statement.
* :func:`on_substitute` — an experiment rerun on a substitute problem at settings the
  paper does not fix: confirmed only if it holds at every setting, otherwise
  ``qualified`` (evidence about those settings, never a refutation of the paper).
* :func:`ordering_test` — "A is more accurate than B": a one-sided z-test of the
  ordering of two estimates (or of one estimate and a threshold), with its MDE.
* :func:`all_of` — one part that is the conjunction of several of the above: the
  sub-verdicts combine by :func:`~sgmcmc_verify.claims.result.combine_verdicts`.
* :func:`not_checkable` — no decision is possible (data unavailable, no certified
  optimum, rounding hides the sign): the part says why, and what would decide it.

Refuted and qualified parts carry an :class:`Erratum` (the corrected statement,
the failing step of the paper, a one-command counterexample), rendered by
:func:`sgmcmc_verify.report.errata.render_errata`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import scipy.special

from ..stats.multiplicity import check_alpha
from .result import Measurement, Part, combine_verdicts

__all__ = [
    "EPS",
    "RULES",
    "Erratum",
    "all_of",
    "binomial_mde",
    "binomial_test",
    "counterexample_search",
    "exact_comparison",
    "gof_mde_tv",
    "goodness_of_fit",
    "is_decided",
    "mde_z",
    "not_checkable",
    "on_substitute",
    "order_from_limits",
    "ordering_test",
    "rounding_tolerance",
    "statistical_test",
    "within_tolerance",
]

#: float64 unit roundoff 2⁻⁵² (numpy's ``finfo(float64).eps``).
EPS = 2.0**-52

#: The rule names a builder writes into ``Part.rule``.
#: ``all_of`` writes ``all_of(r₁, r₂, …)`` with its sub-parts' rules.
RULES = (
    "exact",
    "statistical",
    "equivalence",
    "order",
    "counterexample",
    "substitute",
    "all_of",
    "not-checkable",
)


def is_decided(rule: str) -> bool:
    """True when ``rule`` is one a builder of this module writes (``all_of(…)`` included)."""
    if rule.startswith("all_of(") and rule.endswith(")"):
        inner = rule[len("all_of(") : -1]
        return bool(inner) and all(is_decided(r.strip()) for r in _split_rules(inner))
    return rule in RULES and rule != "all_of"


def _split_rules(inner: str) -> list[str]:
    """Split ``"a, all_of(b, c), d"`` at its top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += (ch == "(") - (ch == ")")
        cur += ch
    out.append(cur)
    return out


@dataclass(frozen=True)
class Erratum:
    """What an author would print in an erratum for a refuted or qualified part.

    Attributes
    ----------
    corrected : str
        The corrected statement (the constant, factor or condition that makes it true).
    failing_step : str
        The equation or line of the paper's argument that fails (or the claim's
        wording that overreaches), cited.
    command : str
        One command that reproduces the counterexample (``sgmcmc-verify check ID
        --seed S`` or a ``python -c`` one-liner).  Empty: the renderer uses
        ``sgmcmc-verify check`` with the result's ID, seed and profile.
    regime : str
        The regime the paper assumes, in which the corrected statement holds.
    """

    corrected: str
    failing_step: str
    command: str = ""
    regime: str = ""

    def __post_init__(self) -> None:
        if not self.corrected.strip() or not self.failing_step.strip():
            raise ValueError("an erratum needs a corrected statement and the failing step")

    def to_dict(self) -> dict[str, str]:
        """A JSON-compatible dict (what ``Part.erratum`` stores)."""
        return asdict(self)


def _erratum(e: Erratum | None, verdict: str) -> dict[str, str] | None:
    """The erratum to store: only on a negative verdict (a confirmed part has none)."""
    return e.to_dict() if e is not None and verdict in ("refuted", "qualified") else None


def _decided(
    rule: str,
    name: str,
    verdict: str,
    expectation: str,
    measured: Mapping[str, Measurement],
    reading: str,
    counterexample: dict[str, Any] | None,
    erratum: Erratum | None,
) -> Part:
    """The Part every builder returns: its rule recorded, its erratum on a negative verdict."""
    return Part(
        name,
        verdict,
        expectation,
        dict(measured),
        reading,
        counterexample,
        rule=rule,
        erratum=_erratum(erratum, verdict),
    )


def _finite(builder: str, *, allow_inf: bool = False, **values: Any) -> None:
    """A measurement that is NaN (or ±inf, unless ``allow_inf``) is a tool fault, not data.

    Any comparison with NaN is false, so a NaN estimate would pass a test (or fail an exact
    comparison) silently; raising makes the claim an ``error`` with the reason instead.
    """
    for key, v in values.items():
        try:
            x = float(v)
        except (TypeError, ValueError):
            continue  # exact numbers (Fraction, sympy) and booleans are compared as they are
        if math.isnan(x) or (math.isinf(x) and not allow_inf):
            raise ValueError(f"{builder}: {key} = {v!r} is not a finite number (a tool fault)")


def _hand_built(builder: str, parts: Mapping[str, Part]) -> None:
    """Sub-decisions must themselves come from a builder (``rule`` set)."""
    hand = [k for k, p in parts.items() if not is_decided(p.rule)]
    if hand:
        raise ValueError(f"{builder}: sub-decisions not made by a decision builder: {hand}")


# --------------------------------------------------------------------------------------
# (a) exact comparison
# --------------------------------------------------------------------------------------


def rounding_tolerance(scale: float, n_ops: int) -> float:
    """``n_ops · ε · scale``: a first-order bound on float64 rounding of ``n_ops`` operations.

    Each correctly rounded operation on magnitudes ≤ ``scale`` errs by at most
    ``ε·scale/2`` (ε = 2⁻⁵²); the bound doubles that per operation for
    cancellation, so a comparison at this tolerance fails only for real differences.
    """
    if n_ops < 1 or not math.isfinite(scale) or scale < 0:
        raise ValueError(f"need n_ops ≥ 1 and a finite scale ≥ 0, got {n_ops}, {scale}")
    return n_ops * EPS * scale


_RELATIONS = {
    "==": lambda v, t, tol: v == t if tol == 0 else abs(v - t) <= tol,
    "<=": lambda v, t, tol: v <= t + tol,
    "<": lambda v, t, tol: v < t + tol if tol else v < t,
    ">=": lambda v, t, tol: v >= t - tol,
    ">": lambda v, t, tol: v > t - tol if tol else v > t,
}


def exact_comparison(
    name: str,
    expectation: str,
    *,
    value: Any,
    target: Any,
    relation: str = "==",
    tol: float = 0.0,
    tol_source: str = "exact arithmetic",
    holds: str,
    fails: str,
    failed_verdict: str = "refuted",
    why_not_refuted: str = "",
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by ``value relation target`` within ``tol``.

    Parameters
    ----------
    value, target
        Numbers (int, Fraction, float, sympy numbers) or booleans (``relation="=="``).
    relation : {"==", "<=", "<", ">=", ">"}
    tol : float
        0 for exact arithmetic; for float64 use :func:`rounding_tolerance` and say
        so in ``tol_source``.
    failed_verdict : {"refuted", "qualified", "error"}
        The verdict when the comparison fails: ``error`` when a failure means the
        tool itself is wrong (a corrected statement that must hold).  ``qualified``
        is the exception to "a failed statement is refuted", so it needs its reason:
        ``why_not_refuted`` and ``erratum`` (ValueError otherwise).
    why_not_refuted : str
        With ``failed_verdict="qualified"``: why a failure does not refute the paper
        (e.g. "the paper states it only w.h.p.", "a printed typo whose corrected reading
        holds"); stored in ``measured`` when the part is qualified.
    erratum : Erratum, optional
        Stored on the part when the verdict is negative; required with
        ``failed_verdict="qualified"``.

    Raises
    ------
    ValueError
        A ``failed_verdict="qualified"`` whose comparison fails without
        ``why_not_refuted`` or ``erratum`` (a qualified verdict without its recorded
        reason is a hand-chosen one).
    """
    if relation not in _RELATIONS:
        raise ValueError(f"relation must be one of {tuple(_RELATIONS)}, got {relation!r}")
    if failed_verdict not in ("refuted", "qualified", "error"):
        raise ValueError(f"failed_verdict must be refuted, qualified or error: {failed_verdict!r}")
    if tol < 0 or not math.isfinite(tol):
        raise ValueError(f"tol must be finite and ≥ 0, got {tol}")
    _finite("exact_comparison", allow_inf=True, value=value, target=target)
    ok = bool(_RELATIONS[relation](value, target, tol))
    verdict = "confirmed" if ok else failed_verdict
    # checked on every call, not only when the lever acts: a call site without its reason
    # must not wait for the one run that files a reasonless qualified verdict
    if failed_verdict == "qualified" and (erratum is None or not why_not_refuted.strip()):
        raise ValueError(
            f"exact_comparison {name!r}: failed_verdict='qualified' needs why_not_refuted "
            "and an erratum (otherwise a failed statement is refuted)"
        )
    m = {
        **(measured or {}),
        "comparison": Measurement(
            f"{value!s} {relation} {target!s}",
            note=f"tolerance {tol:g} ({tol_source})",
        ),
    }
    if verdict == "qualified":
        m["why not refuted"] = Measurement(why_not_refuted)
    return _decided(
        "exact",
        name,
        verdict,
        expectation,
        m,
        holds if ok else fails,
        None if ok else counterexample,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (b) statistical test with its power
# --------------------------------------------------------------------------------------


def mde_z(
    alpha: float, se: float, *, power: float = 0.9, sides: int = 2, df: int | None = None
) -> float:
    """Minimum detectable effect of a z-test: ``(z_{1−α/sides} + z_{power})·se``.

    The smallest true deviation the test rejects with probability ``power`` at
    level ``alpha`` (normal approximation; the far tail of a two-sided test is
    neglected, which makes this slightly conservative).  With ``df`` (an SE estimated
    with ``df`` degrees of freedom, e.g. a g-group jackknife has ``g − 1``) the
    quantiles are Student-t ones, ``(t_{1−α/sides, df} + t_{power, df})·se`` (the usual
    approximation of the noncentral-t power).
    """
    alpha = check_alpha(alpha)
    check_alpha(power, name="power")
    if sides not in (1, 2):
        raise ValueError(f"sides must be 1 or 2, got {sides}")
    if not (se >= 0 and math.isfinite(se)):
        raise ValueError(f"se must be finite and ≥ 0, got {se}")
    if df is None:
        return float((-scipy.special.ndtri(alpha / sides) + scipy.special.ndtri(power)) * se)
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"df must be None or an integer ≥ 1, got {df!r}")
    t = scipy.special.stdtrit
    return float((-t(df, alpha / sides) + t(df, power)) * se)


def _powered(
    name: str,
    expectation: str,
    *,
    reject: bool,
    mde: float,
    meaningful: float,
    power: float,
    seen: str,
    unseen: str,
    mde_label: str,
    holds: str,
    fails: str,
    measured: Mapping[str, Measurement],
    counterexample: dict[str, Any] | None,
    erratum: Erratum | None,
) -> Part:
    """The rule every powered test shares: a rejection refutes; otherwise the part confirms
    only if the test detects ``meaningful`` with ``power`` (``mde ≤ meaningful``), and is
    ``qualified`` as underpowered when it does not.  ``seen`` says what was not detected,
    ``unseen`` what goes undetected (``{mde}`` marks where the MDE goes; replaced, not
    ``str.format``, so a label with braces is safe); ``measured`` gains the MDE."""
    if reject:
        verdict, reading = "refuted", fails
    elif mde <= meaningful:
        verdict, reading = "confirmed", holds
    else:
        verdict = "qualified"
        undetected = unseen.replace("{mde}", f"{mde:.3g}")
        reading = (
            f"{seen}, but the test is underpowered: it detects only {undetected}, "
            f"above the declared meaningful {meaningful:g}"
        )
    m = {
        **measured,
        f"MDE (power {power:g})": Measurement(
            mde, note=f"{mde_label} detectable; declared meaningful ≥ {meaningful:g}"
        ),
    }
    return _decided(
        "statistical",
        name,
        verdict,
        expectation,
        m,
        reading,
        counterexample if reject else None,
        erratum,
    )


def statistical_test(
    name: str,
    expectation: str,
    *,
    estimate: float,
    target: float,
    se: float,
    alpha: float,
    meaningful_effect: float,
    effect_label: str,
    power: float = 0.9,
    holds: str,
    fails: str,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by a two-sided z-test of ``estimate = target`` at level ``alpha``.

    ``z = (estimate − target)/se``; reject when ``|z| > z_{1−α/2}`` → ``refuted``.
    Otherwise the part ``confirmed`` only if the test could have seen a
    meaningful error: ``MDE = (z_{1−α/2} + z_{power})·se ≤ meaningful_effect``
    (declared by the caller, in the units of ``estimate``, and named by
    ``effect_label``).  With a larger MDE the test is underpowered and the part is
    ``qualified`` ("no deviation seen, but deviations below MDE would go unseen").

    Returns
    -------
    Part
        ``measured`` gains ``z``, ``α``, ``MDE (power p)`` and the threshold.
    """
    alpha = check_alpha(alpha)
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"se must be finite and > 0, got {se}")
    if not (meaningful_effect > 0 and math.isfinite(meaningful_effect)):
        raise ValueError(f"meaningful_effect must be finite and > 0, got {meaningful_effect}")
    _finite("statistical_test", estimate=estimate, target=target)
    z = (estimate - target) / se
    crit = float(-scipy.special.ndtri(alpha / 2))
    return _powered(
        name,
        expectation,
        reject=abs(z) > crit,
        mde=mde_z(alpha, se, power=power),
        meaningful=meaningful_effect,
        power=power,
        seen=f"no deviation detected (|z| = {abs(z):.3g} ≤ {crit:.3g})",
        unseen=f"{effect_label} ≥ {{mde}} with power {power:g} at α = {alpha:g}",
        mde_label=effect_label,
        holds=holds,
        fails=fails,
        measured={
            **(measured or {}),
            "estimate − target": Measurement(estimate - target, stderr=se),
            "z": Measurement(z, note=f"reject if |z| > {crit:.4g} (two-sided, α = {alpha:g})"),
        },
        counterexample=counterexample,
        erratum=erratum,
    )


def within_tolerance(
    name: str,
    expectation: str,
    *,
    estimate: float,
    target: float,
    se: float,
    tol: float,
    tol_source: str,
    alpha: float,
    holds: str,
    fails: str,
    alpha_refute: float | None = None,
    df: int | None = None,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """Equivalence test: is ``|estimate − target| ≤ tol``?  (Two one-sided tests, level α.)

    For a discretised chain compared with the continuous target: ``tol`` is the bias the
    theory allows at this step size (say where it comes from in ``tol_source``), not
    zero.  With ``d = |estimate − target|``, ``z = z_{1−α}`` and ``z_r = z_{1−α_r}``
    (``α_r = alpha_refute``, default ``alpha``):

    * ``d + z·se ≤ tol`` → ``confirmed`` (the (1 − 2α) interval lies inside ±tol);
    * ``d − z_r·se > tol`` → ``refuted`` (a one-sided level-α_r interval lies outside);
    * otherwise ``qualified``: undecided at this sample size.

    ``alpha_refute`` lets a caller that refutes a conjunction when any of k such tests
    refutes keep the family's false-refutation rate at α (pass
    :func:`~sgmcmc_verify.stats.multiplicity.bonferroni` ``(α, k)``).  ``df``: the
    degrees of freedom of ``se`` when it is estimated (a g-group jackknife has
    ``g − 1``); the critical values are then Student-t quantiles ``t_{1−α, df}``, so the
    stated α holds for a small number of groups (with z, ``t₉`` would give 0.022 at a
    nominal 0.01).

    As the sample grows (se → 0) the verdict settles on the truth of ``d ≤ tol``; a
    point-null test of ``d = 0`` instead confirms at small samples and rejects at large
    ones whenever the chain has any bias at all.
    """
    alpha = check_alpha(alpha)
    a_ref = alpha if alpha_refute is None else check_alpha(alpha_refute, name="alpha_refute")
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"se must be finite and > 0, got {se}")
    if not (tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be finite and > 0, got {tol}")
    _finite("within_tolerance", estimate=estimate, target=target)
    mde_z(alpha, se, df=df)  # validates df
    q = scipy.special.ndtri if df is None else lambda p: scipy.special.stdtrit(df, p)
    z, z_r = float(-q(alpha)), float(-q(a_ref))
    dist = "normal" if df is None else f"Student t, {df} df"
    d = abs(estimate - target)
    if d + z * se <= tol:
        verdict, reading = "confirmed", holds
    elif d - z_r * se > tol:
        verdict, reading = "refuted", fails
    else:
        verdict = "qualified"
        reading = (
            f"undecided at this sample size: |estimate − target| = {d:.3g} ± {z * se:.3g} "
            f"(one-sided, α = {alpha:g}) straddles the tolerance {tol:.3g} ({tol_source})"
        )
    m = {
        **(measured or {}),
        "estimate − target": Measurement(estimate - target, stderr=se),
        "tolerance": Measurement(tol, note=tol_source),
        "equivalence margin": Measurement(
            tol - d - z * se,
            note=f"tol − |d| − c·se, c = {z:.4g} (one-sided α = {alpha:g}, {dist}); refute if "
            f"|d| − {z_r:.4g}·se > tol (α_refute = {a_ref:g})",
        ),
    }
    return _decided(
        "equivalence",
        name,
        verdict,
        expectation,
        m,
        reading,
        counterexample if verdict == "refuted" else None,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (c) order / rate from bounds, never from a fitted exponent
# --------------------------------------------------------------------------------------


def order_from_limits(
    name: str,
    expectation: str,
    *,
    claimed: str,
    lower_limit: float | None,
    upper_limit: float | None,
    derivation: str,
    holds: str,
    fails: str,
    undecided: str,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """Decide "quantity = O(claimed rate)" from limits of proved bounds, never from a fit.

    ``lower_limit`` and ``upper_limit`` are the limits (as the small parameter
    goes to 0) of a proved lower and a proved upper bound of ``quantity/rate``,
    from exact values or an analytic bound (``derivation`` says which); ``None``
    means no such bound is available.

    * upper limit finite → ``confirmed`` (the O-bound is proved);
    * lower limit infinite → ``refuted`` (the quantity outgrows the rate);
    * otherwise → ``qualified``: the bounds do not decide; ``undecided`` says why.
    """
    if lower_limit is not None and upper_limit is not None and lower_limit > upper_limit:
        raise ValueError(f"lower limit {lower_limit} exceeds upper limit {upper_limit}")
    if upper_limit is not None and math.isfinite(upper_limit):
        verdict, reading = "confirmed", holds
    elif lower_limit is not None and math.isinf(lower_limit):
        verdict, reading = "refuted", fails
    else:
        verdict, reading = "qualified", undecided
    m = {
        **(measured or {}),
        f"lim lower bound / ({claimed})": Measurement(lower_limit, note=derivation),
        f"lim upper bound / ({claimed})": Measurement(upper_limit, note=derivation),
    }
    return _decided(
        "order",
        name,
        verdict,
        expectation,
        m,
        reading,
        counterexample if verdict == "refuted" else None,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (d) counterexample search within a declared regime
# --------------------------------------------------------------------------------------


def counterexample_search(
    name: str,
    expectation: str,
    *,
    regime: str,
    searched: str,
    in_regime: dict[str, Any] | None,
    outside: dict[str, Any] | None = None,
    up_to_constant: bool = False,
    proved_constant: float | None = None,
    holds: str,
    fails: str,
    measured: Mapping[str, Measurement] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by a search for counterexamples, judged against the paper's regime.

    Parameters
    ----------
    regime : str
        The assumptions and regime the paper states for the statement.
    searched : str
        What was searched (region, size, method), for the report.
    in_regime, outside : dict or None
        The worst counterexample found inside the regime and outside it (``None``:
        none found there).
    up_to_constant : bool
        The paper makes the statement only up to constants (it compares terms of
        ``≲`` bounds, or its proof argues "asymptotically").  Then a counterexample
        inside the regime refutes only if no finite constant repairs it.
    proved_constant : float, optional
        A constant ``c`` for which the corrected statement is proved (and checked)
        on the whole regime; ``inf`` or ``None`` when there is none.

    Rules
    -----
    * no counterexample → ``confirmed`` (as far as searched: ``searched`` says how far);
    * counterexamples only outside the regime → ``qualified`` (holds on the regime);
    * inside, with ``up_to_constant`` and a finite ``proved_constant`` → ``qualified``
      (holds up to that constant);
    * inside otherwise → ``refuted``.
    """
    bounded = up_to_constant and proved_constant is not None and math.isfinite(proved_constant)
    if in_regime is None and outside is None:
        verdict, reading = "confirmed", holds
    elif in_regime is None:
        verdict = "qualified"
        reading = (
            f"holds on the paper's regime (no counterexample there); fails only outside it: {fails}"
        )
    elif bounded:
        verdict = "qualified"
        reading = (
            "fails as printed inside the paper's regime, but only by a bounded factor ≤ "
            f"{proved_constant:.6g}, and the paper states it up to constants: {fails}"
        )
    else:
        verdict, reading = "refuted", f"fails inside the paper's regime: {fails}"
    m = {
        **(measured or {}),
        "regime (paper)": Measurement(regime),
        "searched": Measurement(searched),
        "counterexample in regime": Measurement(in_regime is not None),
        "counterexample outside regime": Measurement(outside is not None),
    }
    if up_to_constant:
        m["proved constant"] = Measurement(proved_constant)
    return _decided(
        "counterexample",
        name,
        verdict,
        expectation,
        m,
        reading,
        in_regime if in_regime is not None else outside,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (e) an experiment on a substitute problem, at settings the paper does not fix
# --------------------------------------------------------------------------------------


def on_substitute(
    name: str,
    expectation: str,
    per: Mapping[str, Part],
    setting: str,
    extra: Mapping[str, Measurement] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """One experimental claim judged on a substitute problem at settings the paper leaves open.

    ``per`` maps each setting (a step size, a refresh period, a checkpoint) to the Part
    of its own comparison.  ``confirmed`` when every setting's comparison is confirmed;
    otherwise ``qualified`` — a loss on a substitute problem at untuned settings is
    evidence against the claim at those settings only, never a refutation of the paper
    (issue 12; the rule SVRHMC-EXP-SUB and AGLD-EXP-TMU share).  The counterexample is
    each refuted setting's own; ``measured["verdict per setting"]`` keeps every
    setting's verdict, so the power of the comparisons stays visible.
    """
    if not per:
        raise ValueError("on_substitute needs at least one setting")
    _hand_built("on_substitute", per)
    vs = {k: p.verdict for k, p in per.items()}
    meas: dict[str, Measurement] = {}
    for k, p in per.items():
        meas.update({f"{m} @ {k}": v for m, v in p.measured.items()})
    meas["verdict per setting"] = Measurement(vs, note="each setting's own comparison")
    meas.update(extra or {})
    # a loss at a setting the paper leaves open qualifies (never refutes) the claim; a tool
    # error stays an error and settings that could all not be checked stay not-checkable
    verdict = combine_verdicts(list(vs.values()))
    if verdict == "refuted":
        verdict = "qualified"
    reading = f"at the {setting}: " + "; ".join(
        f"{k}: {p.verdict} ({p.reading})" for k, p in per.items()
    )
    counter = {k: p.counterexample for k, p in per.items() if p.verdict == "refuted"} or None
    return _decided("substitute", name, verdict, expectation, meas, reading, counter, erratum)


# --------------------------------------------------------------------------------------
# (f) one part made of several decisions
# --------------------------------------------------------------------------------------


def all_of(
    name: str,
    expectation: str,
    subs: Mapping[str, Part],
    *,
    extra: Mapping[str, Measurement] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """One part whose statement is the conjunction of several decided sub-statements.

    ``subs`` maps a label (e.g. "θ-law", "E[K]", "mixing") to the Part a builder of
    this module returned for it; a hand-built sub-part (empty ``rule``) is an error.
    The verdict is :func:`~sgmcmc_verify.claims.result.combine_verdicts` of the
    sub-verdicts (a refuted sub-statement refutes the conjunction; all confirmed
    confirms it; otherwise qualified), so no claim writes its own combination rule.
    ``rule`` is ``all_of(r₁, r₂, …)`` with the sub-parts' rules; every sub-part's
    measurements are kept under ``"label: key"``, with ``"label: verdict"``.
    """
    if not subs:
        raise ValueError("all_of needs at least one sub-decision")
    _hand_built("all_of", subs)
    verdict = combine_verdicts([p.verdict for p in subs.values()])
    meas: dict[str, Measurement] = {}
    for k, p in subs.items():
        meas[f"{k}: verdict"] = Measurement(p.verdict, note=f"rule {p.rule}")
        meas.update({f"{k}: {m}": v for m, v in p.measured.items()})
    meas.update(extra or {})
    reading = "; ".join(f"{k}: {p.verdict} ({p.reading})" for k, p in subs.items())
    counter = {k: p.counterexample for k, p in subs.items() if p.verdict == "refuted"} or None
    return _decided(
        f"all_of({', '.join(p.rule for p in subs.values())})",
        name,
        verdict,
        expectation,
        meas,
        reading,
        counter,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (g) no decision possible
# --------------------------------------------------------------------------------------


def not_checkable(
    name: str,
    expectation: str,
    why: str,
    *,
    measured: Mapping[str, Measurement] | None = None,
    would_decide: str = "",
) -> Part:
    """A part that cannot be decided, with the reason and what would decide it.

    Use it when the statement's inputs are unavailable (the paper's data), or when the
    measurement cannot separate the alternatives (rounding hides a sign, no solution was
    certified optimal).  It is never a pass: the claim combining it is at best
    ``qualified`` (:func:`~sgmcmc_verify.claims.result.combine_verdicts`).
    """
    if not why.strip():
        raise ValueError("a not-checkable part must say why")
    reading = why + (f"; would be decided by: {would_decide}" if would_decide else "")
    return _decided(
        "not-checkable", name, "not-checkable", expectation, measured or {}, reading, None, None
    )


# --------------------------------------------------------------------------------------
# (h) an ordering between two estimates ("A is more accurate than B")
# --------------------------------------------------------------------------------------


def ordering_test(
    name: str,
    expectation: str,
    *,
    smaller: tuple[float, float],
    larger: tuple[float, float],
    alpha: float,
    effect_label: str,
    power: float = 0.9,
    holds: str,
    fails: str,
    alpha_refute: float | None = None,
    df: int | None = None,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by a one-sided z-test of the ordering ``smaller < larger``.

    ``smaller`` and ``larger`` are ``(estimate, standard error)`` of independent
    estimates (a fixed threshold has SE 0).  With ``z = (larger − smaller)/se``,
    ``se = √(se₁² + se₂²)``, ``c = z_{1−α}`` and ``c_r = z_{1−α_r}`` (``α_r =
    alpha_refute``, default ``alpha``):

    * ``z > c`` → ``confirmed`` (the stated ordering is significant at level α);
    * ``z < −c_r`` → ``refuted`` (the opposite ordering is significant at level α_r);
    * otherwise ``qualified``: not resolved, and the reading states the minimum
      detectable difference ``(c + z_power)·se`` (:func:`mde_z`, one-sided) below
      which an ordering goes unseen at this sample size.

    A conjunction of k orderings (:func:`all_of`) is confirmed at level α when each is
    (intersection–union) but refuted when any one is, so its false-refutation rate is
    up to ``k·α_r``: such a caller passes ``alpha_refute =``
    :func:`~sgmcmc_verify.stats.multiplicity.bonferroni` ``(α, k)``.  ``df``: the degrees
    of freedom of ``se`` when it is estimated (a g-group jackknife has ``g − 1``); the
    critical values and the MDE then use Student-t quantiles (:func:`mde_z`).

    ``rule`` is ``"statistical"``: this is the one-sided, two-sample form of
    :func:`statistical_test`, for the experiments' "method A beats method B".
    """
    alpha = check_alpha(alpha)
    a_ref = alpha if alpha_refute is None else check_alpha(alpha_refute, name="alpha_refute")
    (a, sa), (b, sb) = smaller, larger
    se = math.hypot(sa, sb)
    if not (math.isfinite(se) and se >= 0):
        raise ValueError(f"standard errors must be finite and ≥ 0, got {sa}, {sb}")
    _finite("ordering_test", smaller=a, larger=b)
    diff = b - a
    z = diff / se if se > 0 else math.copysign(math.inf, diff) if diff else 0.0
    mde = mde_z(alpha, se, power=power, sides=1, df=df)  # validates df
    q = scipy.special.ndtri if df is None else lambda p: scipy.special.stdtrit(df, p)
    crit, crit_r = float(-q(alpha)), float(-q(a_ref))
    dist = "normal" if df is None else f"Student t, {df} df"
    if z > crit:
        verdict, reading = "confirmed", holds
    elif z < -crit_r:
        verdict, reading = "refuted", fails
    else:
        verdict = "qualified"
        reading = (
            f"not resolved (z = {z:.3g}, confirm above {crit:.3g} at one-sided α = {alpha:g}, "
            f"refute below −{crit_r:.3g} at α = {a_ref:g}): "
            f"{effect_label} differences below {mde:.3g} go unseen with power {power:g}"
        )
    m = {
        **(measured or {}),
        "larger − smaller": Measurement(diff, stderr=se),
        "z": Measurement(z, note=f"confirm if z > {crit:.4g} (one-sided, α = {alpha:g}), "
                         f"refute if z < −{crit_r:.4g} (α_refute = {a_ref:g}); {dist}"),
        f"MDE (power {power:g})": Measurement(mde, note=f"{effect_label} difference detectable"),
    }  # fmt: skip
    return _decided(
        "statistical",
        name,
        verdict,
        expectation,
        m,
        reading,
        counterexample if verdict == "refuted" else None,
        erratum,
    )


# --------------------------------------------------------------------------------------
# (i) a goodness-of-fit test with its power
# --------------------------------------------------------------------------------------


def gof_mde_tv(alpha: float, df: int, n: int, *, power: float = 0.9) -> float:
    """Total-variation distance a χ² goodness-of-fit test detects with probability ``power``.

    Under an alternative law ``q`` the Pearson statistic is approximately noncentral
    χ²(df, λ) with ``λ = n·w²``, ``w² = Σ (q_j − p_j)²/p_j`` (Cohen's w; Cohen 1988,
    ch. 7).  The test rejects with probability ``power`` when ``λ ≥ λ*``, the
    noncentrality at which ``P(χ²(df, λ*) > χ²_{1−α}(df)) = power``.  By Cauchy–Schwarz
    ``2·TV(q, p) = Σ|q_j − p_j| ≤ w``, so every law at TV distance ≥ ``√(λ*/n)/2``
    (on the pooled bins) has ``w ≥ √(λ*/n)`` and is detected with at least that power.
    """
    alpha = check_alpha(alpha)
    check_alpha(power, name="power")
    if df < 1 or n < 1:
        raise ValueError(f"need df ≥ 1 and n ≥ 1, got {df}, {n}")
    crit = float(scipy.special.chdtri(df, alpha))
    lam = float(scipy.special.chndtrinc(crit, df, 1 - power))
    return math.sqrt(lam / n) / 2


def goodness_of_fit(
    name: str,
    expectation: str,
    *,
    p_value: float,
    df: int,
    n: int,
    alpha: float,
    meaningful_tv: float,
    power: float = 0.9,
    holds: str,
    fails: str,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by a χ² goodness-of-fit test at level α, with its power.

    ``p_value`` and ``df`` come from the test (e.g.
    :func:`sgmcmc_verify.stats.chisquare_gof` after pooling), ``n`` is the number of
    independent draws.  ``p ≤ α`` → ``refuted``; otherwise ``confirmed`` only if the
    test detects every law at total-variation distance ≥ ``meaningful_tv`` from the
    null with probability ``power`` (:func:`gof_mde_tv`), else ``qualified``
    (underpowered).  ``rule`` is ``"statistical"``.
    """
    alpha = check_alpha(alpha)
    if not (meaningful_tv > 0 and math.isfinite(meaningful_tv)):
        raise ValueError(f"meaningful_tv must be finite and > 0, got {meaningful_tv}")
    _finite("goodness_of_fit", p_value=p_value)
    return _powered(
        name,
        expectation,
        reject=p_value <= alpha,
        mde=gof_mde_tv(alpha, df, n, power=power),
        meaningful=meaningful_tv,
        power=power,
        seen=f"no deviation detected (p = {p_value:.3g} > α = {alpha:g})",
        unseen=f"laws at TV ≥ {{mde}} with power {power:g}",
        mde_label="TV distance",
        holds=holds,
        fails=fails,
        measured={
            **(measured or {}),
            "χ² p-value": Measurement(
                p_value, note=f"reject if p ≤ α = {alpha:g}; df = {df}, n = {n}"
            ),
        },
        counterexample=counterexample,
        erratum=erratum,
    )


def binomial_mde(n: int, p0: float, alpha: float, *, power: float = 0.9) -> tuple[int, float]:
    """Critical count and minimum detectable rate of the one-sided exact binomial test.

    ``k*`` is the smallest count with ``P(Bin(n, p0) ≥ k*) ≤ alpha`` (the test rejects
    ``rate ≤ p0`` at ``k ≥ k*``); the MDE is the rate ``r`` with
    ``P(Bin(n, r) ≥ k*) = power``, from ``P(Bin(n, r) ≥ k) = I_r(k, n − k + 1)``
    (regularised incomplete beta).  ``k* = n + 1`` (the test can never reject) gives 1.
    """
    alpha = check_alpha(alpha)
    check_alpha(power, name="power")
    if n < 1 or not 0 < p0 < 1:
        raise ValueError(f"need n ≥ 1 and 0 < p0 < 1, got {n}, {p0}")
    k = next((k for k in range(n + 1) if scipy.special.bdtrc(k - 1, n, p0) <= alpha), n + 1)
    if k > n:
        return k, 1.0
    return k, float(scipy.special.betaincinv(k, n - k + 1, power))


def binomial_test(
    name: str,
    expectation: str,
    *,
    successes: int,
    trials: int,
    p0: float,
    alpha: float,
    meaningful_rate: float,
    power: float = 0.9,
    holds: str,
    fails: str,
    measured: Mapping[str, Measurement] | None = None,
    counterexample: dict[str, Any] | None = None,
    erratum: Erratum | None = None,
) -> Part:
    """A part decided by a one-sided exact binomial test of ``rate ≤ p0`` at level ``alpha``.

    ``p = P(Bin(trials, p0) ≥ successes)``; ``p ≤ alpha`` → ``refuted``.  Otherwise
    ``confirmed`` only if the test detects every rate ≥ ``meaningful_rate`` with
    probability ``power`` (:func:`binomial_mde`), else ``qualified`` (underpowered).  For
    a rate that must not exceed a nominal level (a test battery's false-alarm rate); a
    rate far below ``p0`` is no refutation.  ``rule`` is ``"statistical"``.
    """
    alpha = check_alpha(alpha)
    if not (isinstance(trials, int) and trials >= 1 and 0 <= successes <= trials):
        raise ValueError(f"need 0 ≤ successes ≤ trials, trials ≥ 1; got {successes}, {trials}")
    if not (p0 < meaningful_rate <= 1):
        raise ValueError(f"meaningful_rate must lie in (p0, 1], got {meaningful_rate}")
    p_value = float(scipy.special.bdtrc(successes - 1, trials, p0)) if successes else 1.0
    k_crit, mde = binomial_mde(trials, p0, alpha, power=power)
    return _powered(
        name,
        expectation,
        reject=p_value <= alpha,
        mde=mde,
        meaningful=meaningful_rate,
        power=power,
        seen=f"no excess detected ({successes}/{trials}, p = {p_value:.3g} > α = {alpha:g})",
        unseen=f"rates ≥ {{mde}} with power {power:g}",
        mde_label="rate",
        holds=holds,
        fails=fails,
        measured={
            **(measured or {}),
            "binomial p-value": Measurement(
                p_value, note=f"H0: rate ≤ {p0:g}; reject if p ≤ α = {alpha:g} (k ≥ {k_crit})"
            ),
        },
        counterexample=counterexample,
        erratum=erratum,
    )
