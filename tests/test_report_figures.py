"""The report's figure kinds render to valid, deterministic PNGs from hand-made data, and the
claims that emit the new kinds give data of the documented shape (``docs/report_schema.md``).
"""

from __future__ import annotations

import contextlib
import json
import math

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex, to_rgb, to_rgba

from sgmcmc_verify import claims
from sgmcmc_verify.claims import rates, sgnht_thermostat
from sgmcmc_verify.report import write_report
from sgmcmc_verify.report.figures import _RC, CIVIDIS_ENDS, KINDS, OKABE_ITO, _draw, _figure

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

_edges = np.linspace(-1.0, 5.0, 13)
_grid = np.linspace(-1.0, 5.0, 25)
_t = np.arange(1, 41) * 0.5


def _series(label, x, y, yerr=None, slope=None, ci=None, claimed=None):
    return {"label": label, "x": x, "y": y, "yerr": yerr, "slope": slope, "slope_ci": ci,
            "claimed_slope": claimed}  # fmt: skip


_PANEL = {
    "title": "panel",
    "xlabel": "h",
    "ylabel": "MSE",
    "series": [
        _series("MSE ± 2 SE", [0.1, 0.2, 0.4], [0.2, 0.11, 0.06], [0.01, 0.01, 0.005],
                -0.95, [-1.1, -0.8]),
        _series("bias² (exact)", [0.1, 0.2, 0.4], [8e-6, 1.7e-4, 4e-3], claimed=2.0),
        _series("one non-positive", [0.1, 0.2, 0.4], [1e-3, -1e-3, 2e-3]),
        _series("all non-positive", [0.1, 0.2], [0.0, -1.0]),
    ],
    "reference_slopes": [1.0, 2.0, 4.0],
}  # fmt: skip

DATA = {
    "xi_law": {
        "kind": "xi_law",
        "setting": "1-D Gaussian, A = 1, B = 1",
        "D": 2.0,
        "mu": 1.0,
        "h_hist": 0.05,
        "bin_edges": _edges.tolist(),
        "counts": [0, 1, 3, 8, 15, 20, 22, 16, 9, 4, 1, 1],
        "chains": 100,
        "h": [0.05, 0.1, 0.2],
        "mean_minus_D": [0.04, 0.09, 0.2],
        "se": [0.01, 0.01, 0.02],
        "b_star": 1.5,
    },
    "dw_densities": {
        "kind": "dw_densities",
        "bin_edges": _edges.tolist(),
        "grid": _grid.tolist(),
        "density": np.exp(-0.5 * (_grid - 2.0) ** 2).tolist(),
        "kinetic_energy_target": 0.5,
        "regimes": [
            {"regime": "ξ = 1", "counts": [0, 1, 3, 8, 15, 20, 22, 16, 9, 4, 1, 1],
             "total_draws": 100, "kinetic_energy": 0.5, "kinetic_energy_se": 0.01},
            {"regime": "ξ = 0.1", "counts": [5, 6, 8, 9, 10, 10, 10, 9, 8, 7, 6, 5],
             "total_draws": 100, "kinetic_energy": 4.8, "kinetic_energy_se": 0.1},
        ],
    },
    "loglog_fit": {"kind": "loglog_fit", **_PANEL, "title": "one panel"},
    "loglog_panels": {
        "kind": "loglog_panels",
        "title": "three panels",
        "panels": [_PANEL, {**_PANEL, "reference_slopes": []}, {**_PANEL, "series": []}],
    },
    "vr_compare": {
        "kind": "vr_compare",
        "title": "variance reduction",
        "N": 4,
        "families": [
            {"name": "LD", "baseline": "sgld", "algorithms": ["sgld", "svrg-ld"],
             "h": [0.5, 0.1], "cost": [1, 3], "var_ratio": [[1.46, 1.27], [1.08, 0.98]],
             "asymptotic_variance": [[9.0, 7.8], [38.9, 37.6]],
             "mse_per_pass": [[2.2, 5.8], [9.7, 28.2]]},
            {"name": "HMC", "baseline": "sghmc-svr", "algorithms": ["sghmc-svr", "svrg-hmc",
             "saga-hmc"], "h": [0.4], "cost": [1, 3, 2], "var_ratio": [[1.19, 1.05, 1.15]],
             "asymptotic_variance": [[10.8, 9.5, 10.4]], "mse_per_pass": [[2.7, 7.1, 5.2]]},
        ],
    },
    "xi_trace": {
        "kind": "xi_trace",
        "title": "ξ traces",
        "setting": "1-D Gaussian, A = 1, B = 1",
        "h": 0.05,
        "D": 2.0,
        "mu": 1.0,
        "t_burn": 5.0,
        "chains": 100,
        "t": _t.tolist(),
        "xi": [(2 + np.sin(_t + i)).tolist() for i in range(3)],
        "xi_mean": (2 + 0.01 * np.sin(_t)).tolist(),
        "kinetic_running": [(1 + np.cos(_t + i) / _t).tolist() for i in range(3)],
        "kinetic_mean": (1 + 0.02 * np.cos(3 * _t)).tolist(),
    },
}  # fmt: skip


#: The older kinds, hand-made too, so that every kind is drawn here.
OLDER = {
    "bias_vs_h": {
        "kind": "bias_vs_h",
        "reference_slopes": [1, 2],
        "series": [
            {"regime": "exact" if i < 9 else "Monte Carlo", "algorithm": f"alg{i}",
             "observable": "var_theta", "h": [0.1, 0.05, 0.025],
             "bias": [(-1) ** i * 0.1 * (i + 1) * f for f in (1, 0.5, 0.25)],
             **({"bias_se": [0.01, 0.005, 0.003]} if i >= 9 else {})}
            for i in range(11)
        ],
    },
    "staleness_pmf": {
        "kind": "staleness_pmf", "chains": 100, "chi2_p_value": 0.4,
        "support": list(range(8)), "observed": [0, 5, 20, 30, 25, 12, 6, 2],
        "expected_pmf": [0.0, 0.06, 0.19, 0.29, 0.24, 0.13, 0.06, 0.03],
    },
    "power_size": {
        "kind": "power_size", "alpha": 0.01, "kill_target": 0.95, "validations": 600,
        "bugs": [f"alg{i}/bug-{i}" for i in range(12)],
        "killed_sampler": [i != 4 for i in range(12)], "killed_step": [i != 7 for i in range(12)],
        "false_alarm_rate": 0.01, "false_alarm_ci": [0.004, 0.02],
    },
}  # fmt: skip
ALL = {**DATA, **OLDER}

#: The Okabe–Ito palette as published (Okabe & Ito 2008, "Color Universal Design", Fig. 16).
OKABE_ITO_PUBLISHED = {"#000000", "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2",
                       "#d55e00", "#cc79a7"}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(DATA))
def test_figure_renders_deterministically(kind):
    assert kind in KINDS
    a = _draw(kind, DATA[kind])
    b = _draw(kind, json.loads(json.dumps(DATA[kind])))  # as read back from report.json
    assert a.startswith(PNG_MAGIC)
    assert len(a) > 1000
    assert a == b


# ------------------------------------------------------------------------------------------
# Readable by everyone: legends off the data, colour-blind-safe colours, text ≥ 8 pt
# ------------------------------------------------------------------------------------------


def test_every_kind_is_drawn_by_these_tests():
    assert set(ALL) == set(KINDS)


@contextlib.contextmanager
def _drawn(kind):
    # inside the report's rcParams: colours stored as 'C0' resolve against its cycle
    with matplotlib.rc_context(_RC):
        fig = _figure(kind, ALL[kind])
        canvas = FigureCanvasAgg(fig)
        canvas.draw()  # runs the constrained layout: positions are final
        yield fig, canvas.get_renderer()


@pytest.mark.parametrize("kind", sorted(ALL))
def test_legends_cover_no_axes_and_stay_in_the_figure(kind):
    with _drawn(kind) as (fig, renderer):
        axes = [ax for ax in fig.axes if ax.get_visible()]
    legends = [ax.get_legend() for ax in axes if ax.get_legend() is not None] + fig.legends
    assert legends, "every kind has a legend"
    boxes = [leg.get_window_extent(renderer) for leg in legends]
    for i, box in enumerate(boxes):
        for ax in axes:  # the data area of every panel, not only the legend's own
            assert not box.overlaps(ax.bbox), (kind, i, ax.get_title())
        for other in boxes[i + 1 :]:
            assert not box.overlaps(other), (kind, i)
        # inside the canvas (1 px of rounding), so no legend is cut off
        assert box.x0 >= -1 and box.y0 >= -1, (kind, box)
        assert box.x1 <= fig.bbox.x1 + 1 and box.y1 <= fig.bbox.y1 + 1, (kind, box)


@pytest.mark.parametrize("kind", sorted(ALL))
def test_no_text_is_smaller_than_8_pt(kind):
    with _drawn(kind) as (fig, _):
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()]
    assert texts
    small = [(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < 8]
    assert not small, small[:5]


def _colours(fig):
    """Every colour an artist of ``fig`` paints with, as (hex, where), transparent ones left out."""
    out = []

    def add(c, where):
        rgba = to_rgba(c)
        if rgba[3] > 0:
            out.append((to_hex(rgba, keep_alpha=False), where))

    for a in fig.findobj():
        name = type(a).__name__
        if isinstance(a, matplotlib.lines.Line2D):
            for c in (a.get_color(), a.get_markerfacecolor(), a.get_markeredgecolor()):
                add(c, name)
        elif isinstance(a, matplotlib.patches.Patch):
            add(a.get_facecolor(), name)
            add(a.get_edgecolor(), name)
        elif isinstance(a, matplotlib.collections.Collection):
            for c in [*a.get_facecolors(), *a.get_edgecolors()]:
                add(c, name)
        elif isinstance(a, matplotlib.image.AxesImage):
            for v in np.unique(a.get_array()):
                add(a.cmap(a.norm(v)), name)
    return out


def test_palettes_are_the_published_ones():
    assert {c.lower() for c in OKABE_ITO} <= OKABE_ITO_PUBLISHED
    cividis = matplotlib.colormaps["cividis"]
    assert [to_hex(cividis(0.0)), to_hex(cividis(1.0))] == [c.lower() for c in CIVIDIS_ENDS]


@pytest.mark.parametrize("kind", sorted(ALL))
def test_colours_are_okabe_ito_cividis_or_grey(kind):
    allowed = OKABE_ITO_PUBLISHED | {to_hex(matplotlib.colormaps["cividis"](x)) for x in (0.0, 1.0)}
    with _drawn(kind) as (fig, _):
        found = _colours(fig)
    assert found
    bad = {(c, w) for c, w in found if c not in allowed and len(set(to_rgb(c))) != 1}
    assert not bad, bad


def _luminance(c):
    # WCAG 2.2 relative luminance of an sRGB colour
    lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in to_rgb(c)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_heat_map_cells_differ_in_lightness_and_in_words():
    with _drawn("power_size") as (fig, _):
        (image,) = fig.axes[0].get_images()
        killed, missed = (image.cmap(image.norm(v)) for v in (1.0, 0.0))
        words = [t for t in fig.axes[0].texts if t.get_text() == "missed"]
    hi, lo = sorted((_luminance(killed), _luminance(missed)), reverse=True)
    # WCAG 2.2 contrast ratio ≥ 4.5 (level AA): told apart without any colour vision
    assert (hi + 0.05) / (lo + 0.05) >= 4.5
    n_missed = sum(not k for k in OLDER["power_size"]["killed_sampler"]) + sum(
        not k for k in OLDER["power_size"]["killed_step"]
    )
    assert len(words) == n_missed == 2


@pytest.mark.parametrize("kind", sorted(ALL))
def test_png_carries_no_text_or_time_chunk(kind):
    png = _draw(kind, ALL[kind])
    chunks, pos = [], 8
    while pos < len(png):
        length = int.from_bytes(png[pos : pos + 4], "big")
        chunks.append(png[pos + 4 : pos + 8].decode("ascii"))
        pos += 12 + length
    assert chunks[0] == "IHDR" and chunks[-1] == "IEND"
    assert not {"tEXt", "iTXt", "zTXt", "tIME"} & set(chunks), chunks


def test_xi_trace_without_kinetic_energy_renders():
    data = {**DATA["xi_trace"], "kinetic_running": None, "kinetic_mean": None}
    assert _draw("xi_trace", data).startswith(PNG_MAGIC)


# ------------------------------------------------------------------------------------------
# The documented keys of the new kinds (docs/report_schema.md, "Figure data")
# ------------------------------------------------------------------------------------------


def _finite(v, path):
    assert isinstance(v, int | float) and not isinstance(v, bool), (path, v)
    assert math.isfinite(v), (path, v)


def _finite_list(v, path, depth=1):
    assert isinstance(v, list) and v, (path, v)
    for i, x in enumerate(v):
        if depth > 1:
            _finite_list(x, f"{path}[{i}]", depth - 1)
        else:
            _finite(x, f"{path}[{i}]")


def _check_panel(p, path):
    assert set(p) <= {"kind", "title", "xlabel", "ylabel", "series", "reference_slopes"}, path
    for k in ("xlabel", "ylabel"):
        assert isinstance(p[k], str), (path, k)
    for k in p["reference_slopes"]:
        _finite(k, f"{path}.reference_slopes")
    for i, s in enumerate(p["series"]):
        q = f"{path}.series[{i}]"
        assert set(s) == {"label", "x", "y", "yerr", "slope", "slope_ci", "claimed_slope"}, q
        assert isinstance(s["label"], str)
        _finite_list(s["x"], f"{q}.x")
        _finite_list(s["y"], f"{q}.y")
        assert len(s["x"]) == len(s["y"]), q
        if s["yerr"] is not None:
            _finite_list(s["yerr"], f"{q}.yerr")
            assert len(s["yerr"]) == len(s["y"]), q
        for k in ("slope", "claimed_slope"):
            if s[k] is not None:
                _finite(s[k], f"{q}.{k}")
        if s["slope_ci"] is not None:
            lo, hi = s["slope_ci"]
            _finite(lo, q)
            _finite(hi, q)
            assert lo <= s["slope"] <= hi, q


def check_figure_data(fig, path="figure"):
    """Assert ``fig`` has the documented keys of its (new) kind and finite numbers."""
    kind = fig["kind"]
    assert isinstance(fig["title"], str) and fig["title"], path
    if kind == "loglog_fit":
        assert set(fig) == {"kind", "title", "xlabel", "ylabel", "series", "reference_slopes"}
        _check_panel(fig, path)
    elif kind == "loglog_panels":
        assert set(fig) == {"kind", "title", "panels"}, path
        for i, p in enumerate(fig["panels"]):
            assert isinstance(p["title"], str), path
            _check_panel(p, f"{path}.panels[{i}]")
    elif kind == "vr_compare":
        assert set(fig) == {"kind", "title", "N", "families"}, path
        for fam in fig["families"]:
            keys = {"name", "baseline", "algorithms", "h", "cost", "var_ratio",
                    "asymptotic_variance", "mse_per_pass"}  # fmt: skip
            assert set(fam) == keys, path
            n_alg, n_h = len(fam["algorithms"]), len(fam["h"])
            assert fam["baseline"] == fam["algorithms"][0]
            _finite_list(fam["h"], path)
            assert len(fam["cost"]) == n_alg
            for k in ("var_ratio", "asymptotic_variance", "mse_per_pass"):
                _finite_list(fam[k], f"{path}.{k}", depth=2)
                assert np.shape(fam[k]) == (n_h, n_alg), (path, k)
    elif kind == "xi_trace":
        keys = {"kind", "title", "setting", "h", "D", "mu", "t_burn", "chains", "t", "xi",
                "xi_mean", "kinetic_running", "kinetic_mean"}  # fmt: skip
        assert set(fig) == keys, path
        for k in ("h", "D", "mu", "t_burn", "chains"):
            _finite(fig[k], f"{path}.{k}")
        n = len(fig["t"])
        assert 0 < n <= 500
        _finite_list(fig["t"], path)
        _finite_list(fig["xi_mean"], path)
        _finite_list(fig["xi"], path, depth=2)
        assert len(fig["xi_mean"]) == n and all(len(tr) == n for tr in fig["xi"])
        if fig["kinetic_mean"] is not None:
            _finite_list(fig["kinetic_mean"], path)
            _finite_list(fig["kinetic_running"], path, depth=2)
            assert len(fig["kinetic_mean"]) == n
            assert all(len(tr) == n for tr in fig["kinetic_running"])
    else:  # older kinds are checked by their own claims' tests
        assert kind in KINDS, path


@pytest.mark.parametrize("kind", sorted(set(DATA) - {"xi_law", "dw_densities"}))
def test_synthetic_data_follows_the_schema(kind):
    check_figure_data(json.loads(json.dumps(DATA[kind])))


# ------------------------------------------------------------------------------------------
# The claims emit their figures (quick profile)
# ------------------------------------------------------------------------------------------

#: claim → (figure names, kind); SGNHT-XI runs one setting to stay fast.
EMITTERS = {
    "SVRHMC-T2": ({"mse_vs_h"}, "loglog_panels"),
    "SVRHMC-T4": ({"mse_vs_h"}, "loglog_panels"),
    "SVRHMC-T5": ({"mse_vs_h"}, "loglog_panels"),
    "SVRHMC-T6": ({"mse_vs_h"}, "loglog_panels"),
    "EWSG-T4": ({"mse"}, "loglog_panels"),
    "X-VR": ({"vr_compare"}, "vr_compare"),
    "EWSG-T2": ({"kernel_distance"}, "loglog_panels"),
}


@pytest.fixture(scope="session")
def results(once):
    def run():
        out = {
            cid: claims.run_check(cid, claims.CHECKS[cid], profile="quick", seed=0)
            for cid in EMITTERS
        }
        out["SGNHT-XI"] = claims.run_check(
            "SGNHT-XI", claims.CHECKS["SGNHT-XI"], profile="quick", seed=0, select=["gauss1"]
        )
        return out

    return once("report_figures-results", run)


@pytest.mark.parametrize("claim_id", sorted(EMITTERS))
def test_claim_emits_its_figure(results, claim_id):
    r = results[claim_id]
    assert r.verdict != "error", r.traceback
    names, kind = EMITTERS[claim_id]
    assert set(r.figure_data) == names
    doc = r.to_dict()  # what report.json holds
    for name in names:
        fig = doc["figure_data"][name]
        assert fig["kind"] == kind
        check_figure_data(fig, f"{claim_id}.{name}")


def test_svrhmc_figure_matches_the_tables(results):
    r = results["SVRHMC-T5"]
    mc, exact = r.figure_data["mse_vs_h"]["panels"]
    table = r.part("MSE of the time average of θ² (Monte Carlo)").measured["table"].value
    assert mc["series"][0]["y"] == [row["MSE"] for row in table]
    mse_part = r.part("MSE of the time average of θ² (Monte Carlo)")
    assert mc["series"][0]["slope"] == mse_part.measured["MSE slope vs h at fixed T"].value
    assert exact["reference_slopes"] == [1.0, 2.0, 4.0]
    assert {s["claimed_slope"] for s in exact["series"]} == {4.0}
    assert exact["series"][0]["x"] == list(rates.H_ORDER)


def test_sgnht_xi_emits_traces(results):
    r = results["SGNHT-XI"]
    assert set(r.figure_data) == {"xi_gauss1", "xi_trace_gauss1"}
    fig = r.to_dict()["figure_data"]["xi_trace_gauss1"]
    check_figure_data(fig)
    assert fig["D"] == 2.0 and fig["mu"] == 1.0 and fig["h"] == 0.02
    assert len(fig["xi"]) == 3 and fig["chains"] == 3000
    assert abs(np.mean(fig["xi_mean"]) - 2.0) < 0.1
    assert abs(np.mean(fig["kinetic_mean"]) - 1.0) < 0.05


def test_xi_trace_builder_thins_to_500_points():
    rng = np.random.default_rng(0)
    m, n_rec = 7, 1201
    out = {
        "m1": rng.standard_normal(m),
        "trace_xi": rng.standard_normal((3, n_rec)),
        "trace_k": rng.chisquare(2, (3, n_rec)) / 2,
        "sum_xi": rng.standard_normal((2, n_rec)),
        "sum_k": rng.standard_normal((2, n_rec)),
    }
    fig = sgnht_thermostat._xi_trace_figure("setting", out, 0.01, 1.5, 2, 20.0)
    check_figure_data(fig)
    assert len(fig["t"]) == 401 and fig["t"][0] == 0.1 and fig["chains"] == m
    assert fig["t"][-1] == pytest.approx(120.1)  # every 3rd of the points recorded every 0.1
    run = np.cumsum(out["trace_k"][0]) / np.arange(1, n_rec + 1)
    assert fig["kinetic_running"][0][-1] == round(float(run[-1]), 4)
    assert fig["kinetic_running"][0][1] == round(float(run[3]), 4)
    assert fig["xi_mean"][0] == round(float(out["sum_xi"][:, 0].sum() / m), 4)


def test_report_with_the_new_kinds_validates(results, tmp_path):
    from test_report import validate_report

    chosen = [results[c] for c in ("X-VR", "SVRHMC-T5", "SGNHT-XI")]
    from sgmcmc_verify.report import environment

    meta = {"profile": "quick", "seed": 0, "environment": environment(), "wall_time_s": 1.0}
    write_report(chosen, tmp_path, meta)
    doc = json.loads((tmp_path / "report.json").read_text())
    validate_report(doc)
    files = {(f["claim_id"], f["name"]): f["file"] for f in doc["figures"]}
    assert {("X-VR", "vr_compare"), ("SVRHMC-T5", "mse_vs_h"), ("SGNHT-XI", "xi_trace_gauss1")
            } <= set(files)  # fmt: skip
    # report.json holds every number of each figure: redrawn from it, the PNG is the same
    for c in doc["claims"]:
        for name, data in c["figure_data"].items():
            if data["kind"] in ("vr_compare", "loglog_panels", "xi_trace"):
                png = (tmp_path / files[c["claim_id"], name]).read_bytes()
                assert _draw(data["kind"], data) == png, (c["claim_id"], name)
