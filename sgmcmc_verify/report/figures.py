"""The report's figures, drawn with matplotlib (Agg) from each result's ``figure_data`` only.

PNG bytes are deterministic: fixed rcParams, fixed size and dpi, and no
``Software`` or date metadata (matplotlib writes no date into a PNG; its ``Software``
text chunk is removed), so the same data give the same bytes.

Readable by everyone: series colours come from the Okabe–Ito palette (distinguishable
under the common colour-vision deficiencies; Okabe & Ito 2008, "Color Universal Design"),
cycled together with markers so that more series than colours stay apart; the one
heat-map uses two ends of *cividis* and also marks its cells with text.  No text is
smaller than 8 pt, and every legend sits outside the axes, so none covers data.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import matplotlib.ticker
import numpy as np

from ..claims.result import ClaimResult

__all__ = ["Figure", "render_figures"]

#: Okabe–Ito colours, most distinct first (the palette's yellow is too pale on white).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
#: The heat-map's two levels: the ends of matplotlib's cividis (blue-grey / yellow).
CIVIDIS_ENDS = ("#00224E", "#FEE838")
#: Smallest font size in points of any text in a figure.
MIN_FONT_PT = 8.0

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "figure.titlesize": 10,
    "axes.prop_cycle": matplotlib.cycler(color=list(OKABE_ITO)),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "path.simplify": False,
    "svg.hashsalt": "sgmcmc-verify",
}
_PNG_META = {"Software": None}


@dataclass(frozen=True)
class Figure:
    """One rendered figure: where it belongs and its PNG bytes."""

    claim_id: str
    name: str
    title: str
    png: bytes

    @property
    def file(self) -> str:
        """Path relative to the report directory."""
        return f"figures/{self.claim_id.lower()}-{self.name}.png"

    def entry(self) -> dict[str, str]:
        """The figure's ``report.json`` entry."""
        return {
            "claim_id": self.claim_id,
            "name": self.name,
            "title": self.title,
            "file": self.file,
        }


#: Markers of the series, in order.
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")


def _colour(i: int) -> str:
    """The i-th series colour (Okabe–Ito, cycled)."""
    return OKABE_ITO[i % len(OKABE_ITO)]


def _marker(i: int) -> str:
    """The i-th series marker: it changes once per cycle of colours, so that no two of the
    first ``len(OKABE_ITO) * len(_MARKERS)`` series share both colour and marker."""
    return _MARKERS[(i // len(OKABE_ITO)) % len(_MARKERS)]


def _legend_outside(ax: Any, handles: list[Any] | None = None, *, wrap: int = 40) -> Any:
    """The legend of ``ax`` to its right, outside the axes, so it never covers data.

    Long labels are wrapped at ``wrap`` characters; two columns past 14 entries.
    Constrained layout makes room for it.
    """
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    else:
        labels = [h.get_label() for h in handles]
    if not handles:
        return None
    labels = [textwrap.fill(str(t), wrap) for t in labels]
    return ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                     borderaxespad=0.0, ncol=1 if len(handles) <= 14 else 2)  # fmt: skip


def _bias_vs_h(fig: Any, data: dict[str, Any]) -> None:
    """Log-log |bias| against h, one panel per regime (one per row, legend at the right),
    with reference slopes."""
    regimes = list(dict.fromkeys(s["regime"] for s in data["series"]))
    axes = fig.subplots(len(regimes), 1, squeeze=False).ravel()
    for ax, regime in zip(axes, regimes, strict=False):
        sel = [s for s in data["series"] if s["regime"] == regime]
        h_all = []
        for i, s in enumerate(sel):
            h = np.asarray(s["h"], dtype=float)
            b = np.asarray(s["bias"], dtype=float)
            keep = np.abs(b) > 0
            if not keep.any():
                continue
            h_all.extend(h[keep])
            neg = bool((b[keep] < 0).all())
            # Monte Carlo rows carry ``bias_se``: ±2 s.e. bars, clipped above zero on log axes
            se = s.get("bias_se")
            yerr = None
            if se is not None:
                se2 = 2 * np.asarray(se, dtype=float)[keep]
                yerr = [np.minimum(se2, 0.9 * np.abs(b[keep])), se2]
            ax.errorbar(
                h[keep],
                np.abs(b[keep]),
                yerr=yerr,
                marker=_marker(i),
                markersize=4,
                linewidth=1,
                capsize=2 if yerr is not None else 0,
                color=_colour(i),
                markerfacecolor="none" if neg else _colour(i),
                label=f"{s['algorithm']} {s['observable']}"
                + (" (−)" if neg else "")
                + (" (MC ±2 s.e.)" if yerr is not None else ""),
            )
            ax.set_xscale("log")
            ax.set_yscale("log")
        if h_all:
            h0, h1 = min(h_all), max(h_all)
            hs = np.array([h0, h1])
            ylo, yhi = ax.get_ylim()
            anchor = np.sqrt(ylo * yhi)
            hm = np.sqrt(h0 * h1)
            slopes = data.get("reference_slopes", [1, 2])
            for k, style in zip(slopes, ("--", ":", "-.", (0, (1, 3))), strict=False):
                ax.loglog(hs, anchor * (hs / hm) ** k, style, color="0.3", linewidth=1,
                          label=f"slope {k}")  # fmt: skip
        ax.set_title(regime)
        ax.set_xlabel("h")
        ax.set_ylabel("|bias|")
        _legend_outside(ax)
    fig.suptitle("|bias| against h (exact values unless marked MC); hollow markers: bias < 0")


def _staleness_pmf(fig: Any, data: dict[str, Any]) -> None:
    """Observed frequencies of the staleness against the exact coupon-collector pmf."""
    ax = fig.subplots()
    support = np.asarray(data["support"])
    observed = np.asarray(data["observed"], dtype=float) / data["chains"]
    ax.bar(support, observed, width=0.9, color=_colour(0), alpha=0.6, label="observed")
    ax.plot(support, data["expected_pmf"], "k.-", linewidth=1, markersize=3,
            label="coupon-collector law (exact)")  # fmt: skip
    ax.set_xlabel("max staleness M_k")
    ax.set_ylabel("probability")
    ax.set_title(f"{data['chains']} chains; χ² p = {data['chi2_p_value']:.3g}")
    _legend_outside(ax)


def _xi_law(fig: Any, data: dict[str, Any]) -> None:
    """Histogram of ξ at the smallest h against N(A + B, 1/μ); E[ξ] − (A + B) against h."""
    ax1, ax2 = fig.subplots(1, 2)
    edges = np.asarray(data["bin_edges"], dtype=float)
    counts = np.asarray(data["counts"], dtype=float)
    width = np.diff(edges)
    dens = counts / max(counts.sum(), 1.0) / width
    ax1.bar(edges[:-1], dens, width=width, align="edge", color=_colour(0), alpha=0.6,
            label=f"last ξ, h = {data['h_hist']:g}")  # fmt: skip
    D, mu = float(data["D"]), float(data["mu"])
    x = np.linspace(edges[0], edges[-1], 301)
    ax1.plot(x, np.sqrt(mu / (2 * np.pi)) * np.exp(-0.5 * mu * (x - D) ** 2), "k-",
             linewidth=1, label=f"N({D:g}, 1/{mu:g})")  # fmt: skip
    ax1.set_xlabel("ξ")
    ax1.set_ylabel("density")
    ax1.set_title(f"{data['chains']} chains")
    _legend_outside(ax1, wrap=24)
    h = np.asarray(data["h"], dtype=float)
    m = np.asarray(data["mean_minus_D"], dtype=float)
    se = np.asarray(data["se"], dtype=float)
    ax2.errorbar(h, m, yerr=2 * se, fmt="o", markersize=4, capsize=2, color=_colour(0),
                 label="E[ξ] − (A + B) ± 2 SE")  # fmt: skip
    hs = np.linspace(0.0, h.max(), 50)
    ax2.plot(
        hs,
        data["b_star"] * hs,
        "k--",
        linewidth=1,
        label=f"derived b* h, b* = {data['b_star']:.3g}",
    )
    ax2.axhline(0.0, color="0.5", linewidth=0.8)
    ax2.set_xlabel("h")
    ax2.set_ylabel("E[ξ] − (A + B)")
    _legend_outside(ax2, wrap=24)
    fig.suptitle(data["setting"])


def _dw_densities(fig: Any, data: dict[str, Any]) -> None:
    """Sampled θ densities per regime against ρ, and mean kinetic energy per regime."""
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[2, 1])
    edges = np.asarray(data["bin_edges"], dtype=float)
    mids = 0.5 * (edges[1:] + edges[:-1])
    width = np.diff(edges)
    ax1.plot(data["grid"], data["density"], "k-", linewidth=1.5, label="ρ ∝ exp(−U) (exact)")
    names, ks, kse = [], [], []
    for i, r in enumerate(data["regimes"]):
        dens = np.asarray(r["counts"], dtype=float) / max(r["total_draws"], 1) / width
        ax1.step(mids, dens, where="mid", color=_colour(i + 1), linewidth=1.2,
                 linestyle=_REF_STYLES[i % len(_REF_STYLES)], label=r["regime"])  # fmt: skip
        names.append(r["regime"])
        ks.append(r["kinetic_energy"])
        kse.append(r["kinetic_energy_se"])
    ax1.set_xlabel("θ")
    ax1.set_ylabel("density")
    _legend_outside(ax1, wrap=24)
    pos = np.arange(len(names))
    ax2.bar(pos, ks, yerr=2 * np.asarray(kse), color=[_colour(i + 1) for i in pos], capsize=2)
    ax2.axhline(data["kinetic_energy_target"], color="k", linestyle="--", linewidth=1,
                label="target 0.5")  # fmt: skip
    ax2.set_xticks(pos, names)
    ax2.set_ylabel("E[K]")
    _legend_outside(ax2, wrap=24)


# ------------------------------------------------------------------------------------------
# Generic log–log fits
# ------------------------------------------------------------------------------------------

#: Line styles of the reference slopes, in order.
_REF_STYLES: tuple[Any, ...] = ("--", ":", "-.", (0, (1, 3)), (0, (5, 2, 1, 2)))


def _fmt_slope(v: float) -> str:
    return f"{v:.2f}"


def _series_label(s: dict[str, Any], dropped: int) -> str:
    """Legend text: the label, the fitted slope with its CI, the claimed slope, dropped points."""
    text = str(s["label"])
    bits = []
    if s.get("slope") is not None:
        fit = f"slope {_fmt_slope(float(s['slope']))}"
        ci = s.get("slope_ci")
        if ci is not None:
            fit += f" [{_fmt_slope(float(ci[0]))}, {_fmt_slope(float(ci[1]))}]"
        bits.append(fit)
    if s.get("claimed_slope") is not None:
        bits.append(f"claimed {float(s['claimed_slope']):g}")
    if bits:
        text += ": " + ", ".join(bits)
    if dropped:
        text += f" ({dropped} pt{'s' if dropped > 1 else ''} ≤ 0 not shown)"
    return text


def _loglog_panel(ax: Any, panel: dict[str, Any]) -> None:
    """Draw one ``loglog_fit`` panel on ``ax`` (see :func:`_loglog_fit`)."""
    from matplotlib.lines import Line2D

    ax.set_xscale("log")
    ax.set_yscale("log")
    xs_all: list[float] = []
    handles: list[Any] = []
    for i, s in enumerate(panel["series"]):
        color, marker = _colour(i), _marker(i)
        x = np.asarray(s["x"], dtype=float)
        y = np.asarray(s["y"], dtype=float)
        keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
        fitted = s.get("slope") is not None and math.isfinite(float(s["slope"]))
        # fitted series: filled markers on top, and the fitted line; others: hollow, joined
        style = dict(color=color, marker=marker, markersize=4, linewidth=0.8,
                     linestyle="none" if fitted else "-", zorder=3 if fitted else 2,
                     markerfacecolor=color if fitted else "white")  # fmt: skip
        handles.append(Line2D([], [], label=_series_label(s, int(len(y) - keep.sum())), **style))
        handles[-1].set_linestyle("-")
        if not keep.any():
            continue
        xk, yk = x[keep], y[keep]
        xs_all.extend(xk)
        if s.get("yerr") is not None:
            err = np.asarray(s["yerr"], dtype=float)[keep]
            err = np.where(np.isfinite(err), np.abs(err), 0.0)
            # on a log axis a bar reaching y ≤ 0 is cut at y/10
            lower = np.minimum(err, 0.9 * yk)
            ax.errorbar(xk, yk, yerr=np.vstack([lower, err]), capsize=2, elinewidth=0.8, **style)
        else:
            ax.plot(xk, yk, **style)
        if fitted:
            k = float(s["slope"])
            xm, ym = np.exp(np.mean(np.log(xk))), np.exp(np.mean(np.log(yk)))
            xl = np.array([xk.min(), xk.max()])
            if xl[0] == xl[1]:
                xl = xl * np.array([0.8, 1.25])
            ax.plot(xl, ym * (xl / xm) ** k, "-", color=color, linewidth=1.2, alpha=0.8)
    refs = [float(k) for k in panel.get("reference_slopes") or []]
    if xs_all and refs:
        ylo, yhi = ax.get_ylim()
        x0, x1 = min(xs_all), max(xs_all)
        xr = np.array([x0, x1])
        xm, ym = math.sqrt(x0 * x1), math.sqrt(ylo * yhi)
        for k, style in zip(refs, _REF_STYLES, strict=False):
            (line,) = ax.plot(xr, ym * (xr / xm) ** k, linestyle=style, color="0.35",
                              linewidth=1, label=f"reference slope {k:g}")  # fmt: skip
            handles.append(line)
        ax.set_ylim(ylo, yhi)  # the reference lines must not stretch the axis
    if not xs_all:
        ax.text(0.5, 0.5, "no positive values", transform=ax.transAxes, ha="center")
    else:
        ticks = np.unique(xs_all)
        if ticks[-1] / ticks[0] < 30 and len(ticks) <= 8:
            # less than ~1.5 decades: label the data's own x values instead of powers of 10
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel(panel.get("xlabel", "h"))
    ax.set_ylabel(panel.get("ylabel", ""))
    if panel.get("title"):
        ax.set_title(panel["title"])
    _legend_outside(ax, handles)


def _loglog_fit(fig: Any, data: dict[str, Any]) -> None:
    """Log–log points per series with fitted and reference slopes, on one panel.

    Each series is drawn as points (with error bars when ``yerr`` is given); a series
    with a ``slope`` also gets the line of that slope through the geometric mean of
    its points (legend: slope, CI, claimed slope), one without is joined by a thin
    line.  Reference slopes are grey dashed/dotted lines through the middle of the
    panel.  Points with ``y ≤ 0`` are left out and counted in the legend.
    """
    ax = fig.subplots()
    _loglog_panel(ax, {**data, "title": None})
    fig.suptitle(data.get("title", ""))


def _loglog_panels(fig: Any, data: dict[str, Any]) -> None:
    """Several ``loglog_fit`` panels, one per row (legends at the right), one figure title."""
    panels = data["panels"]
    axes = fig.subplots(len(panels), 1, squeeze=False).ravel()
    for ax, panel in zip(axes, panels, strict=True):
        _loglog_panel(ax, panel)
    fig.suptitle(data.get("title", ""))


def _loglog_panels_size(data: dict[str, Any]) -> tuple[float, float]:
    return (9.5, 3.6 * len(data["panels"]) + 0.4)


def _bias_vs_h_size(data: dict[str, Any]) -> tuple[float, float]:
    return (10.0, 3.2 * len({s["regime"] for s in data["series"]}) + 0.4)


def _power_size_size(data: dict[str, Any]) -> tuple[float, float]:
    return (8.5, max(4.0, 0.2 * len(data["bugs"]) + 1.8))


# ------------------------------------------------------------------------------------------
# Variance reduction, ξ traces
# ------------------------------------------------------------------------------------------


def _vr_compare(fig: Any, data: dict[str, Any]) -> None:
    """Grouped bars per family: stationary variance ratio (top) and MSE × data passes (bottom)."""
    fams = data["families"]
    axes = fig.subplots(2, len(fams), squeeze=False)
    for j, fam in enumerate(fams):
        algs = fam["algorithms"]
        hs = fam["h"]
        cost = fam.get("cost") or [None] * len(algs)
        width = 0.8 / len(algs)
        pos = np.arange(len(hs))
        for row, (key, ylabel, base) in enumerate(
            (
                ("var_ratio", "stationary Var θ / target Var θ", 1.0),
                ("mse_per_pass", "MSE(θ̄) × data passes\n(= T·Var(θ̄) × grads/step / N)", 0.0),
            )
        ):
            ax = axes[row, j]
            vals = np.asarray(fam[key], dtype=float)  # (h, algorithm)
            for a, alg in enumerate(algs):
                is_base = alg == fam.get("baseline")
                ax.bar(pos - 0.4 + (a + 0.5) * width, vals[:, a] - base, width=width * 0.9,
                       bottom=base, color=_colour(a), edgecolor="k" if is_base else "none",
                       hatch="//" if is_base else None, linewidth=0.6,
                       label=alg + (" (baseline)" if is_base else "")
                       + ("" if cost[a] is None else f", {cost[a]:g} grads/step"))  # fmt: skip
            if base:
                ax.axhline(base, color="k", linewidth=0.8, label="exact target")
                lo, hi = float(min(vals.min(), base)), float(max(vals.max(), base))
                pad = 0.08 * (hi - lo or 1.0)
                ax.set_ylim(lo - pad, hi + pad)
            ax.set_xticks(pos, [f"h = {h:g}" for h in hs])
            ax.set_ylabel(ylabel)
            ax.grid(axis="x", visible=False)
            if row == 0:
                ax.set_title(fam["name"])
            else:
                _legend_outside(ax, wrap=28)
    fig.suptitle(data.get("title", ""))


def _xi_trace(fig: Any, data: dict[str, Any]) -> None:
    """ξ_t of a few chains with A + B ± 1/√μ (top); pᵀp/n against 1 (bottom)."""
    has_k = data.get("kinetic_mean") is not None
    axes = fig.subplots(2 if has_k else 1, 1, sharex=True, squeeze=False).ravel()
    t = np.asarray(data["t"], dtype=float)
    D, sd = float(data["D"]), 1.0 / math.sqrt(float(data["mu"]))
    ax = axes[0]
    ax.axhspan(D - sd, D + sd, color=_colour(2), alpha=0.15, label="A + B ± 1/√μ")
    for i, tr in enumerate(data["xi"]):
        ax.plot(t, tr, color=_colour(i), linewidth=0.6, alpha=0.8,
                label="single chains" if i == 0 else None)  # fmt: skip
    ax.plot(t, data["xi_mean"], "k-", linewidth=1.4, label=f"mean over {data['chains']} chains")
    ax.axhline(D, color=_colour(2), linewidth=1.2, linestyle="--", label=f"A + B = {D:g}")
    ax.set_ylabel(r"$\xi_t$")
    panels = [(ax, "ξ")]
    if has_k:
        ax2 = axes[1]
        for i, tr in enumerate(data["kinetic_running"]):
            ax2.plot(t, tr, color=_colour(i), linewidth=0.8, alpha=0.8,
                     label="single chains: running time average" if i == 0 else None)  # fmt: skip
        ax2.plot(t, data["kinetic_mean"], "k-", linewidth=1.0,
                 label=f"mean over {data['chains']} chains at t")  # fmt: skip
        ax2.axhline(1.0, color=_colour(2), linewidth=1.2, linestyle="--", label="1 (eq. (4))")
        ax2.set_ylabel(r"$p_t^\top p_t / n$")
        panels.append((ax2, "k"))
    for a, _ in panels:
        a.axvline(float(data["t_burn"]), color="0.4", linestyle=":", linewidth=1,
                  label="end of burn-in")  # fmt: skip
        _legend_outside(a, wrap=30)
    axes[-1].set_xlabel("time t = steps × h")
    fig.suptitle(data.get("title", ""))


#: A figure size in inches, or a function of the figure data giving it.
Size = tuple[float, float] | Callable[[dict[str, Any]], tuple[float, float]]


#: figure_data ``kind`` → (drawing function, figure size).
def _power_size(fig: Any, data: dict[str, Any]) -> None:
    """HARNESS-POWER: each planted bug killed or not per mode; false-alarm rate with CI vs α.

    The kill grid has one row per bug (names horizontal, readable) and one column per
    mode; killed and missed cells differ in colour (two ends of cividis, apart in
    lightness, so also in grey) and a missed cell says "missed" in words.
    """
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[2, 1])
    bugs = data["bugs"]
    modes = [("statistical", data["killed_sampler"]), ("step", data["killed_step"])]
    grid = np.array([[1.0 if k else 0.0 for k in killed] for _, killed in modes]).T
    cmap = matplotlib.colors.ListedColormap([CIVIDIS_ENDS[0], CIVIDIS_ENDS[1]])
    ax1.imshow(grid, aspect="auto", cmap=cmap, vmin=0, vmax=1, interpolation="nearest")
    for (i, j), killed in np.ndenumerate(grid):
        if not killed:
            ax1.text(j, i, "missed", ha="center", va="center", color="white", fontsize=8,
                     fontweight="bold")  # fmt: skip
    ax1.set_xticks(range(len(modes)))
    ax1.set_xticklabels([f"{m} mode\n{int(sum(k))}/{len(k)} killed" for m, k in modes])
    ax1.xaxis.tick_top()
    ax1.set_yticks(range(len(bugs)))
    ax1.set_yticklabels(bugs)
    ax1.grid(False)
    # thin white lines between the cells, so neighbouring rows stay apart
    ax1.set_xticks(np.arange(-0.5, len(modes)), minor=True)
    ax1.set_yticks(np.arange(-0.5, len(bugs)), minor=True)
    ax1.grid(which="minor", color="white", linewidth=1, alpha=1.0)
    ax1.tick_params(which="minor", length=0)
    ax1.set_title(
        f"planted bugs: yellow = rejected (killed), dark = missed; "
        f"target ≥ {data['kill_target']:.0%} per mode",
        fontsize=9,
    )
    rate, (lo, hi) = data["false_alarm_rate"], data["false_alarm_ci"]
    ax2.errorbar([0], [rate], yerr=[[rate - lo], [hi - rate]], fmt="o", capsize=4,
                 color=_colour(0), label="reject rate, 95% CI")  # fmt: skip
    ax2.axhline(
        data["alpha"], color="k", linestyle="--", linewidth=1, label=f"α = {data['alpha']:g}"
    )
    ax2.set_xlim(-1, 1)
    ax2.set_xticks([])
    ax2.set_ylim(0, max(hi, data["alpha"]) * 1.3)
    ax2.set_title(f"false alarms:\n{data['validations']} reference runs")
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.03), borderaxespad=0.0)


KINDS: dict[str, tuple[Callable[[Any, dict[str, Any]], None], Size]] = {
    "bias_vs_h": (_bias_vs_h, _bias_vs_h_size),
    "staleness_pmf": (_staleness_pmf, (8.0, 3.5)),
    "xi_law": (_xi_law, (10.0, 3.5)),
    "dw_densities": (_dw_densities, (10.5, 3.5)),
    "loglog_fit": (_loglog_fit, (9.5, 4.5)),
    "loglog_panels": (_loglog_panels, _loglog_panels_size),
    "vr_compare": (_vr_compare, (11.0, 6.5)),
    "xi_trace": (_xi_trace, (9.5, 6.0)),
    "power_size": (_power_size, _power_size_size),
}


def _draw(kind: str, data: dict[str, Any]) -> bytes:
    """The PNG bytes of a ``kind`` figure of ``data``."""
    buf = io.BytesIO()
    with matplotlib.rc_context(_RC):
        fig = _figure(kind, data)
        fig.savefig(buf, format="png", metadata=_PNG_META)
    return buf.getvalue()


def warm_up() -> None:
    """Draw a small log-log figure and discard it, in this process.

    The first figure a process draws loads its fonts and builds matplotlib's mathtext
    parser (log-axis tick labels are mathtext): about 0.23 s of CPU, against 0.26 s for a
    typical figure once warm.  ``report --jobs N`` forks a worker per claim and each draws
    its claim's figures, so the parent warms up once and every later worker inherits it.
    Caches only: what is drawn afterwards is byte for byte the same.
    """
    from matplotlib.figure import Figure as MplFigure

    with matplotlib.rc_context(_RC):
        fig = MplFigure(figsize=(2.0, 2.0), layout="constrained")
        ax = fig.add_subplot()
        ax.loglog([1.0, 10.0], [1.0, 100.0], label="a")
        ax.set_title("t")
        ax.set_ylabel(r"$\xi_t$")
        ax.legend()
        fig.savefig(io.BytesIO(), format="png", metadata=_PNG_META)


def _figure(kind: str, data: dict[str, Any]) -> Any:
    """The drawn (not yet saved) matplotlib figure; call inside ``rc_context(_RC)``."""
    # a bare Figure renders through Agg without pyplot, so no global backend is touched
    from matplotlib.figure import Figure as MplFigure

    draw, size = KINDS[kind]
    if callable(size):
        size = size(data)
    fig = MplFigure(figsize=size, layout="constrained")
    draw(fig, data)
    return fig


#: PNGs drawn ahead of the report, keyed by :func:`_key` (``report --jobs N`` draws each
#: claim's figures in the worker that ran the claim, in parallel with the other claims).
_DRAWN: dict[str, bytes] = {}


def _key(claim_id: str, name: str, data: dict[str, Any]) -> str:
    """Content key of one figure: the same data gives the same PNG (drawing is deterministic)."""
    blob = json.dumps([claim_id, name, data], sort_keys=True, default=repr).encode()
    return hashlib.sha256(blob).hexdigest()


def prerender(result: ClaimResult) -> dict[str, bytes]:
    """Draw ``result``'s figures now: ``{key: PNG}`` for :func:`remember` in another process."""
    return {
        _key(result.claim_id, name, data): _draw(data["kind"], data)
        for name, data in sorted(result.figure_data.items())
        if data.get("kind") in KINDS
    }


def remember(drawn: dict[str, bytes]) -> None:
    """Keep figures drawn elsewhere (:func:`prerender`) for :func:`render_figures`."""
    _DRAWN.update(drawn)


def render_figures(results: Sequence[ClaimResult]) -> list[Figure]:
    """Every figure of ``results``, in result order then figure-name order (drawn here
    unless :func:`remember` already holds the same figure of the same data)."""
    out = []
    for r in results:
        for name in sorted(r.figure_data):
            data = r.figure_data[name]
            if data.get("kind") not in KINDS:
                continue
            png = _DRAWN.get(_key(r.claim_id, name, data)) or _draw(data["kind"], data)
            out.append(Figure(r.claim_id, name, data.get("title", name), png))
    return out
