"""Build the API reference from the numpydoc docstrings: ``python docs/build_api.py [OUT]``.

Every module of the package is documented (the package's lazy ``__getattr__`` hides its
submodules from pdoc's own discovery, so they are listed here with ``pkgutil``).  Writes
HTML to ``OUT`` (default ``docs/api``, ignored by git); needs the ``docs`` extra
(``pip install -e '.[docs]'``).  CI runs it, so a docstring pdoc cannot render fails CI.
"""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path


def modules() -> list[str]:
    """Every importable module of ``sgmcmc_verify``, package first."""
    import sgmcmc_verify

    names = ["sgmcmc_verify"]
    for info in pkgutil.walk_packages(sgmcmc_verify.__path__, "sgmcmc_verify."):
        names.append(info.name)
    return names


def main(argv: list[str]) -> int:
    import pdoc
    import pdoc.render

    out = Path(argv[1] if len(argv) > 1 else Path(__file__).parent / "api")
    pdoc.render.configure(docformat="numpy", show_source=True)
    pdoc.pdoc(*modules(), output_directory=out)
    pages = sorted(out.rglob("*.html"))
    print(f"wrote {len(pages)} pages to {out}")
    return 0 if len(pages) > len(modules()) // 2 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
