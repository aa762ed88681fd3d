"""The report reads well: a table of contents reaching every claim, a one-line "why" per
claim, folded details, no raw JSON, Markdown that outside strings cannot break, and pages
that change between same-seed runs only in their timings section (issue 14, item 7).

The layout is measured in headless Chromium on the full page rendered from the committed
baseline (``reports/baseline/report.json``, 39 claims, 23 figures): a small script is
injected into a *copy* of the page (the page itself has no script), it measures on load,
writes its numbers into the DOM, and ``chromium --dump-dom`` hands them back.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sgmcmc_verify.claims.catalogue import INFO
from sgmcmc_verify.claims.result import ClaimResult, Measurement, Part
from sgmcmc_verify.report._format import WHY_CHARS, clip, why
from sgmcmc_verify.report.html_page import render_html
from sgmcmc_verify.report.markdown import md_code, md_fence, md_text, render_markdown
from sgmcmc_verify.report.schema import results_from_document, summary

BASELINE = Path(__file__).parents[1] / "reports" / "baseline"
PAPERS = list(dict.fromkeys(info.paper for info in INFO.values()))
#: Height of the page rendered by the renderer before issue 14 from the same baseline, at a
#: 1280 px wide window (measured with the script below on commit c524778's index.html).
HEIGHT_BEFORE_PX = 80_889
#: "Far below": at most a third of it, folded.
HEIGHT_LIMIT_PX = HEIGHT_BEFORE_PX // 3


# ------------------------------------------------------------------------------------------
# Hand-made results
# ------------------------------------------------------------------------------------------


def _m(value, **kw):
    return Measurement(value, **kw)


def _result(verdict="qualified", parts=None, **kw):
    parts = parts if parts is not None else [
        Part("exact part", "confirmed", "x = 1", {"x": _m(1.0)}),
        Part("rate", "qualified", "slope 1", {"slope": _m(0.91, stderr=0.02)},
             reading="slope 0.91 (0.87, 0.95): flatter than 1. A second sentence."),
        Part("other", "not-checkable", "needs data", {}, reading="no data offline"),
    ]  # fmt: skip
    base = dict(claim_id="AGLD-R1", paper="AGLD", location="§3", statement="A statement.",
                verdict=verdict, expectation="what it predicts", reading="r", parts=parts,
                seed=3, profile="quick", runtime_s=1.25)  # fmt: skip
    return ClaimResult(**{**base, **kw})


def _doc(results, **kw):
    return {
        "status": "complete", "profile": "quick", "seed": 3, "claims_pattern": "AGLD-R1",
        "environment": {"python": "3.11", "packages": {"numpy": "2.0"}}, "wall_time_s": 2.5,
        "summary": summary(results, []), "pending": [],
        "figures": [], **kw,
    }  # fmt: skip


# ------------------------------------------------------------------------------------------
# The one-line "why"
# ------------------------------------------------------------------------------------------


def test_why_names_the_deciding_part_and_its_first_sentence():
    w = why(_result())
    # 'rate' decides (qualified); 'other' (not-checkable) also qualifies the claim
    assert w == "rate: slope 0.91 (0.87, 0.95): flatter than 1. (+1 more qualified part)"


def test_why_of_a_refuted_claim_skips_its_qualified_parts():
    parts = [
        Part("a", "qualified", "e", {}, reading="narrower"),
        Part("b", "refuted", "e", {}, reading="fails at n = 3"),
        Part("c", "refuted", "e", {}, reading="fails too"),
        Part("d", "refuted", "e", {}, reading="fails again"),
    ]
    assert why(_result("refuted", parts)) == "b: fails at n = 3 (+2 more refuted parts)"


def test_why_of_a_part_without_reading_is_its_expectation():
    parts = [Part("p", "qualified", "holds w.h.p. only", {})]
    assert why(_result("qualified", parts)) == "p: holds w.h.p. only"


def test_why_of_confirmed_and_error_verdicts():
    ok = [Part(str(i), "confirmed", "e", {}) for i in range(3)]
    assert why(_result("confirmed", ok)) == "all 3 parts hold"
    assert why(_result("confirmed", ok[:1])) == "the claim holds as stated"
    tb = "Traceback (most recent call last):\n  File 'x'\nRuntimeError: the check fell over\n"
    assert why(_result("error", [], traceback=tb)) == "RuntimeError: the check fell over"


def test_why_is_one_line_of_bounded_length():
    long = "word " * 200
    parts = [Part("p\nq", "qualified", "e", {}, reading=long), Part("x", "qualified", "e", {})]
    w = why(_result("qualified", parts))
    assert "\n" not in w and len(w) <= WHY_CHARS
    assert w.endswith("… (+1 more qualified part)")


def test_clip_cuts_at_a_word_boundary():
    assert clip("alpha beta gamma", 100) == "alpha beta gamma"
    assert clip("alpha beta gamma", 12) == "alpha beta…"
    assert clip("a\n b\t c", 10) == "a b c"


# ------------------------------------------------------------------------------------------
# Markdown escaping (CommonMark 0.31: §2.4 backslash escapes, §6.1 code spans, §4.5 fences)
# ------------------------------------------------------------------------------------------

HOSTILE = [
    "AGLD-`R*`",
    "``",
    "`x`",
    "a | b",
    "*bold* _it_ ~~s~~ [l](http://x) <b>tag</b> &amp; $x$ \\",
    "line\nbreak",
    " padded ",
]


def _code_span_content(span):
    """The content of a code span as CommonMark reads it (§6.1), or fail."""
    fence = re.match(r"`+", span).group()
    assert span.endswith(fence) and len(span) >= 2 * len(fence)
    inner = span[len(fence) : len(span) - len(fence)]
    # the span closes at the first backtick run of exactly the fence's length
    assert all(len(run) != len(fence) for run in re.findall(r"`+", inner)), span
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip(" "):
        inner = inner[1:-1]
    return inner


@pytest.mark.parametrize("text", HOSTILE)
def test_code_span_holds_any_string(text):
    assert _code_span_content(md_code(text)) == " ".join(text.split())


def test_fence_holds_any_block():
    text = "a\n```\nb\n````\nc"
    fence, *body, close = md_fence(text)
    assert fence == close == "`````" and body == text.splitlines()


@pytest.mark.parametrize("text", HOSTILE)
def test_text_escapes_every_markup_character(text):
    out = md_text(text)
    assert "\n" not in out
    # every special character is preceded by an odd number of backslashes: literal
    for m in re.finditer(r"[`*_\[\]<>|~$&]", out):
        run = len(out[: m.start()]) - len(out[: m.start()].rstrip("\\"))
        assert run % 2 == 1, (text, out, m.start())
    # and removing the escapes gives the text back (on one line)
    assert re.sub(r"\\(.)", r"\1", out) == " ".join(text.split())


def _unescaped_pipes(line):
    return len(re.findall(r"(?<!\\)\|", line))


def test_a_hostile_claims_pattern_cannot_break_the_markdown():
    pattern = "AGLD-`R*` | <b>x</b> *"
    parts = [Part("p | `q`", "qualified", "a|b", {"t": _m([{"k|": "v`|"}])}, reading="r|`")]
    r = _result("qualified", parts, statement="s | t `u`")
    md = render_markdown(_doc([r], claims_pattern=pattern), [r], PAPERS)
    meta = next(line for line in md.splitlines() if line.startswith("Profile "))
    span = re.search(r"claims (`+.*?`+): ", meta).group(1)
    assert _code_span_content(span) == pattern
    # every table row keeps its column count: no outside string adds a cell
    tables = [line for line in md.splitlines() if line.lstrip().startswith("|")]
    ledger = [line for line in tables if "AGLD-R1" in line and "](#agld-r1)" in line]
    assert len(ledger) == 1 and _unescaped_pipes(ledger[0]) == 7  # 6 columns
    assert md.count("<b>") == 1  # inside the code span, where it is literal text
    page = render_html(_doc([r], claims_pattern=pattern), [r], PAPERS, {})
    assert "<b>x</b>" not in page and "AGLD-`R*` | &lt;b&gt;x&lt;/b&gt; *" in page


# ------------------------------------------------------------------------------------------
# Same seed, same page: only the timings section changes
# ------------------------------------------------------------------------------------------


def test_pages_differ_only_in_their_timings_section():
    a = _result()
    b = dataclasses.replace(a, runtime_s=999.5)
    pages = [render_html(_doc([r], wall_time_s=w), [r], PAPERS, {}) for r, w in ((a, 1), (b, 7))]
    md = [render_markdown(_doc([r], wall_time_s=w), [r], PAPERS) for r, w in ((a, 1), (b, 7))]
    assert pages[0] != pages[1] and md[0] != md[1]
    cut_html = re.compile(r'<section class="volatile" id="timings">.*?</section>', re.S)
    cut_md = re.compile(r"## Timings .*?(?=## Environment)", re.S)
    assert cut_html.sub("", pages[0]) == cut_html.sub("", pages[1])
    assert cut_md.sub("", md[0]) == cut_md.sub("", md[1])
    assert "999.50" in pages[1] and "999.50" in md[1]


def test_timings_are_read_from_the_schema_3_section():
    r = _result()
    doc = _doc([r], timings={"wall_time_s": 41.0, "claims": {"AGLD-R1": 12.5}})
    page = render_html(doc, [r], PAPERS, {})
    assert "Total wall time 41.0 s." in page and ">12.50<" in page


# ------------------------------------------------------------------------------------------
# The full page from the committed baseline
# ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def baseline_page(tmp_path_factory):
    if not (BASELINE / "report.json").is_file():
        pytest.skip("reports/baseline/report.json is not in this checkout")
    doc = json.loads((BASELINE / "report.json").read_text())
    results = results_from_document(doc)
    pngs = {f["file"]: (BASELINE / f["file"]).read_bytes() for f in doc["figures"]}
    html = render_html(doc, results, PAPERS, pngs)
    d = tmp_path_factory.mktemp("baseline_page")
    (d / "index.html").write_text(html, encoding="utf-8")
    return d / "index.html", doc, results


class _Text(HTMLParser):
    """Text of a page as a reader sees it (style and script excluded)."""

    def __init__(self):
        super().__init__()
        self.text, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def test_page_has_no_raw_json_and_every_claim_has_a_why(baseline_page):
    path, doc, results = baseline_page
    page = path.read_text()
    parser = _Text()
    parser.feed(page)
    text = "".join(parser.text)
    assert '{"' not in text and "<script" not in page
    assert page.count('<p class="why"><strong>Why:</strong> ') == len(results)
    for r in results:  # from the table of contents and from the ledger
        assert page.count(f'href="#{r.claim_id.lower()}"') == 2, r.claim_id
    # every environment value is in a table cell, not a JSON dump
    assert f"<td>{doc['environment']['python']}</td>" in page


_MEASURE = r"""
window.addEventListener('load', function () {
  var de = document.documentElement, out = {};
  function clipped(el) {  // inside a box that scrolls or clips its own overflow
    for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      var o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
    }
    return false;
  }
  function overflowing() {
    var vw = de.clientWidth, bad = [];
    document.querySelectorAll('body *').forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return;
      if ((r.right > vw + 1 || r.left < -1) && !clipped(el))
        bad.push(el.tagName + '.' + el.className + '#' + el.id + ' right=' + Math.round(r.right));
    });
    return bad;
  }
  out.viewport_width = de.clientWidth;
  out.height_folded = de.scrollHeight;
  out.scroll_width_folded = de.scrollWidth;
  out.overflow_folded = overflowing();
  var toc = document.getElementById('contents');
  out.toc = toc ? Array.prototype.map.call(toc.querySelectorAll('a[href^="#"]'), function (a) {
    var t = document.getElementById(a.getAttribute('href').slice(1));
    return [a.getAttribute('href').slice(1), !!t && t.getClientRects().length > 0];
  }) : [];
  out.claims = Array.prototype.map.call(document.querySelectorAll('section.claim'),
                                        function (s) { return s.id; });
  out.json_folded = document.body.innerText.indexOf('{"') >= 0;
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  out.height_open = de.scrollHeight;
  out.scroll_width_open = de.scrollWidth;
  out.overflow_open = overflowing();
  out.json_open = document.body.innerText.indexOf('{"') >= 0;
  var pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""


def _measure(page: Path, width: int) -> dict:
    probe = page.with_name(f"probe-{width}.html")
    probe.write_text(
        page.read_text().replace("</body>", f"<script>{_MEASURE}</script></body>"),
        encoding="utf-8",
    )
    r = subprocess.run(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
         f"--window-size={width},1000", "--virtual-time-budget=10000", "--dump-dom",
         probe.as_uri()],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    m = re.search(r'<pre id="measured">(.*?)</pre>', r.stdout, re.S)
    assert m, f"no measurement in Chromium's DOM (exit {r.returncode}): {r.stderr[-500:]}"
    return json.loads(html.unescape(m.group(1)))


@pytest.mark.skipif(shutil.which("chromium") is None, reason="headless Chromium is not installed")
@pytest.mark.parametrize("width", [1280, 480])
def test_page_layout_in_headless_chromium(baseline_page, width):
    path, _, results = baseline_page
    m = _measure(path, width)
    # every claim section is reached by a link of the table of contents, visible when folded
    targets = {t for t, shown in m["toc"] if shown}
    assert m["claims"] == [r.claim_id.lower() for r in results]
    assert set(m["claims"]) <= targets, sorted(set(m["claims"]) - targets)
    assert all(shown for _, shown in m["toc"]), [t for t, shown in m["toc"] if not shown]
    # nothing is wider than the window, folded or with every <details> open
    for state in ("folded", "open"):
        assert m[f"scroll_width_{state}"] <= m["viewport_width"], (state, m)
        assert m[f"overflow_{state}"] == [], (state, m[f"overflow_{state}"][:5])
        assert not m[f"json_{state}"], state
    if width == 1280:
        # the folded page is far shorter than before (80,889 px); 16,768 px when written
        assert m["height_folded"] <= HEIGHT_LIMIT_PX, m["height_folded"]
