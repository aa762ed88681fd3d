"""The report: ``index.html``, ``index.md``, ``report.json``, ``ERRATA.md`` and figures.

Modules: :mod:`.schema` (the JSON document and its version, documented in
``docs/report_schema.md``), :mod:`.figures` (matplotlib, from each result's
``figure_data``), :mod:`.markdown` and :mod:`.html_page` (renderers of the same
document), :mod:`.errata` (the errata ledger), :mod:`.readme` (the README's verdict
table, from committed reports).  Everything but the ``timings`` section and the
``environment`` block is a deterministic function of the seed, profile and claim
selection, and every file is replaced atomically so an interrupted run leaves a readable
report.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..claims.catalogue import INFO
from ..claims.result import ClaimResult
from .errata import render_errata
from .figures import render_figures
from .html_page import render_html
from .markdown import render_markdown
from .schema import SCHEMA_VERSION, build_document, environment, pending_entries

__all__ = ["SCHEMA_VERSION", "environment", "pending_entries", "write_report"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write(path: Path, data: bytes) -> None:
    """Write through a temporary file and rename, so readers never see half a file.

    The temporary file has a unique random name in the target directory, created with
    ``O_CREAT | O_EXCL`` (:func:`tempfile.mkstemp`): two runs writing the same ``--out``
    never share it, and a symlink planted at a predictable name is never followed.  It
    gets the permissions an ordinary file would (``0o666`` less the umask), and is removed
    if anything fails before the rename.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_report(
    results: Sequence[ClaimResult],
    out: Path,
    meta: dict[str, Any],
    *,
    pending: Sequence[dict[str, str]] | None = None,
    figures: bool = True,
) -> list[Path]:
    """Write the report of ``results`` (in catalogue order) to ``out``; return the paths.

    Parameters
    ----------
    results : sequence of ClaimResult
    out : Path
        The report directory (created).
    meta : dict
        ``profile``, ``seed``, ``environment``, ``wall_time_s``; optionally
        ``status`` (:data:`.schema.STATUSES`) and ``claims_pattern``.
    pending : list of dict, optional
        Catalogue claims without a result (:func:`pending_entries`); default:
        every catalogue claim without a result, as ``pending`` or ``not-selected``.
    figures : bool
        Draw the figures (skipped for the intermediate reports of a run).
    """
    results = sorted(results, key=lambda r: list(INFO).index(r.claim_id))
    if pending is None:
        from ..claims import CHECKS

        pending = pending_entries(results, [r.claim_id for r in results], list(CHECKS))
    figs = render_figures(results) if figures else []
    doc = build_document(results, meta, pending, [f.entry() for f in figs])
    papers = list(dict.fromkeys(info.paper for info in INFO.values()))
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    if figs:
        (out / "figures").mkdir(exist_ok=True)
        for f in figs:
            _write(out / f.file, f.png)
            paths.append(out / f.file)
    pngs = {f.file: f.png for f in figs}
    for name, text in (
        ("report.json", json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"),
        ("index.md", render_markdown(doc, results, papers)),
        ("index.html", render_html(doc, results, papers, pngs)),
        # issue 12: the errata ledger, per paper, of every refuted or qualified part
        ("ERRATA.md", render_errata(results)),
    ):
        _write(out / name, text.encode("utf-8"))
        paths.append(out / name)
    return paths
