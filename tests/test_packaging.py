"""Packaging: one version, the license, the shipped catalogue, an sdist the tests can run from."""

from __future__ import annotations

import fnmatch
import importlib.metadata
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

import sgmcmc_verify
from sgmcmc_verify import claims, cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_written_once():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "sgmcmc_verify.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", sgmcmc_verify.__version__)
    assert importlib.metadata.version("sgmcmc-verify") == sgmcmc_verify.__version__


def test_citation_and_changelog_name_the_version():
    yaml = pytest.importorskip("yaml")  # PyYAML comes with the test extra (dask needs it)
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == sgmcmc_verify.__version__ and cff["license"] == "MIT"
    titles = " ".join(r["title"] for r in cff["references"])
    for paper in ("Aggregated Gradient Langevin", "non-uniform", "Thermostats", "Variance"):
        assert paper in titles
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {sgmcmc_verify.__version__}" in changelog


def test_license_is_mit_as_an_spdx_expression_with_its_file():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    requires = PYPROJECT["build-system"]["requires"]
    assert requires == ["setuptools>=77"]  # the first setuptools that reads PEP 639 fields


def test_the_catalogue_ships_with_the_package_and_the_docs():
    shipped = cli.catalogue_text()
    assert shipped == (ROOT / "docs" / "CLAIMS.md").read_text(encoding="utf-8")
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["sgmcmc_verify"]
    assert any(fnmatch.fnmatch("data/CLAIMS.md", p) for p in patterns)
    for cid in claims.CATALOGUE:
        assert f"- {cid} " in shipped, cid


def test_the_sdist_manifest_carries_what_the_tests_need():
    manifest = (ROOT / "MANIFEST.in").read_text()
    grafted = set(re.findall(r"^graft (\S+)$", manifest, re.M))
    assert set(PYPROJECT["tool"]["pytest"]["ini_options"]["testpaths"]) <= grafted
    assert "docs" in grafted
    included = set(re.findall(r"^include (.+)$", manifest, re.M)[0].split())
    assert {"LICENSE", "CHANGELOG.md", "CITATION.cff", "README.md"} <= included


def test_the_test_extra_installs_what_the_tests_import_optionally():
    # tests/test_dask.py skips without distributed: the test extra must bring it
    test_extra = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(req.startswith("distributed") for req in test_extra)


@pytest.mark.slow
def test_built_sdist_contains_the_tests_proofs_and_docs(tmp_path):
    pytest.importorskip("build")
    subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--outdir", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    wanted = ["LICENSE", "CHANGELOG.md", "CITATION.cff", "docs/CLAIMS.md", "tests/conftest.py"]
    wanted += ["sgmcmc_verify/data/CLAIMS.md", "proofs_checks/README.md"]
    assert set(wanted) <= names, set(wanted) - names
