"""The report's figures, drawn with matplotlib (Agg) from each result's ``figure_data`` only.

PNG bytes are deterministic: fixed rcParams, fixed size and dpi, and no
``Software`` or date metadata, so the same data give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib
import numpy as np

from ..claims.result import ClaimResult

__all__ = ["Figure", "render_figures"]

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 9,
    "legend.fontsize": 6,
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


def _bias_vs_h(fig: Any, data: dict[str, Any]) -> None:
    """Log-log |bias| against h, one panel per regime, with reference slopes."""
    regimes = list(dict.fromkeys(s["regime"] for s in data["series"]))
    ncols = 2
    nrows = -(-len(regimes) // ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    cmap = matplotlib.colormaps["tab20"]
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
            ax.loglog(
                h[keep],
                np.abs(b[keep]),
                marker="o",
                markersize=3,
                linewidth=1,
                color=cmap(i % 20),
                markerfacecolor="none" if neg else cmap(i % 20),
                label=f"{s['algorithm']} {s['observable']}" + (" (−)" if neg else ""),
            )
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
        ax.legend(loc="lower right", ncol=2)
    for ax in axes[len(regimes) :]:
        ax.set_visible(False)
    fig.suptitle("|bias| against h (exact values); hollow markers: bias < 0")


def _staleness_pmf(fig: Any, data: dict[str, Any]) -> None:
    """Observed frequencies of the staleness against the exact coupon-collector pmf."""
    ax = fig.subplots()
    support = np.asarray(data["support"])
    observed = np.asarray(data["observed"], dtype=float) / data["chains"]
    ax.bar(support, observed, width=0.9, color="tab:blue", alpha=0.6, label="observed")
    ax.plot(support, data["expected_pmf"], "k.-", linewidth=1, markersize=3,
            label="coupon-collector law (exact)")  # fmt: skip
    ax.set_xlabel("max staleness M_k")
    ax.set_ylabel("probability")
    ax.set_title(f"{data['chains']} chains; χ² p = {data['chi2_p_value']:.3g}")
    ax.legend(loc="upper right")


def _xi_law(fig: Any, data: dict[str, Any]) -> None:
    """Histogram of ξ at the smallest h against N(A + B, 1/μ); E[ξ] − (A + B) against h."""
    ax1, ax2 = fig.subplots(1, 2)
    edges = np.asarray(data["bin_edges"], dtype=float)
    counts = np.asarray(data["counts"], dtype=float)
    width = np.diff(edges)
    dens = counts / max(counts.sum(), 1.0) / width
    ax1.bar(edges[:-1], dens, width=width, align="edge", color="tab:blue", alpha=0.6,
            label=f"last ξ, h = {data['h_hist']:g}")  # fmt: skip
    D, mu = float(data["D"]), float(data["mu"])
    x = np.linspace(edges[0], edges[-1], 301)
    ax1.plot(x, np.sqrt(mu / (2 * np.pi)) * np.exp(-0.5 * mu * (x - D) ** 2), "k-",
             linewidth=1, label=f"N({D:g}, 1/{mu:g})")  # fmt: skip
    ax1.set_xlabel("ξ")
    ax1.set_ylabel("density")
    ax1.set_title(f"{data['chains']} chains")
    ax1.legend(loc="upper right")
    h = np.asarray(data["h"], dtype=float)
    m = np.asarray(data["mean_minus_D"], dtype=float)
    se = np.asarray(data["se"], dtype=float)
    ax2.errorbar(h, m, yerr=2 * se, fmt="o", markersize=3, capsize=2, label="E[ξ] − (A + B) ± 2 SE")
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
    ax2.legend(loc="best")
    fig.suptitle(data["setting"])


def _dw_densities(fig: Any, data: dict[str, Any]) -> None:
    """Sampled θ densities per regime against ρ, and mean kinetic energy per regime."""
    ax1, ax2 = fig.subplots(1, 2, width_ratios=[2, 1])
    edges = np.asarray(data["bin_edges"], dtype=float)
    mids = 0.5 * (edges[1:] + edges[:-1])
    width = np.diff(edges)
    cmap = matplotlib.colormaps["tab10"]
    ax1.plot(data["grid"], data["density"], "k-", linewidth=1.5, label="ρ ∝ exp(−U) (exact)")
    names, ks, kse = [], [], []
    for i, r in enumerate(data["regimes"]):
        dens = np.asarray(r["counts"], dtype=float) / max(r["total_draws"], 1) / width
        ax1.step(mids, dens, where="mid", color=cmap(i), linewidth=1, label=r["regime"])
        names.append(r["regime"])
        ks.append(r["kinetic_energy"])
        kse.append(r["kinetic_energy_se"])
    ax1.set_xlabel("θ")
    ax1.set_ylabel("density")
    ax1.legend(loc="upper left")
    pos = np.arange(len(names))
    ax2.bar(pos, ks, yerr=2 * np.asarray(kse), color=[cmap(i) for i in pos], capsize=2)
    ax2.axhline(data["kinetic_energy_target"], color="k", linestyle="--", linewidth=1,
                label="target 0.5")  # fmt: skip
    ax2.set_xticks(pos, names)
    ax2.set_ylabel("E[K]")
    ax2.legend(loc="upper right")


#: figure_data ``kind`` → (drawing function, figure size in inches).
KINDS: dict[str, tuple[Callable[[Any, dict[str, Any]], None], tuple[float, float]]] = {
    "bias_vs_h": (_bias_vs_h, (9.0, 7.0)),
    "staleness_pmf": (_staleness_pmf, (6.0, 3.5)),
    "xi_law": (_xi_law, (8.0, 3.5)),
    "dw_densities": (_dw_densities, (9.0, 3.5)),
}


def _draw(kind: str, data: dict[str, Any]) -> bytes:
    # a bare Figure renders through Agg without pyplot, so no global backend is touched
    from matplotlib.figure import Figure as MplFigure

    draw, size = KINDS[kind]
    with matplotlib.rc_context(_RC):
        fig = MplFigure(figsize=size, layout="constrained")
        draw(fig, data)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata=_PNG_META)
    return buf.getvalue()


def render_figures(results: Sequence[ClaimResult]) -> list[Figure]:
    """Every figure of ``results``, in result order then figure-name order."""
    out = []
    for r in results:
        for name in sorted(r.figure_data):
            data = r.figure_data[name]
            if data.get("kind") not in KINDS:
                continue
            out.append(Figure(r.claim_id, name, data.get("title", name), _draw(data["kind"], data)))
    return out
