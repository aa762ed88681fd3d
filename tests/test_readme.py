"""The README's Python example runs as written, and its two commands are the ones CI uses."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```bash\n(.*?)\n```", README, re.S)
    test_cmd = commands[1].split("&& ", 2)[-1]  # after creating and activating the venv
    assert test_cmd == 'pip install -e ".[test,peers]" && python -m pytest'
    assert test_cmd in (ROOT / ".ci" / "run").read_text()
    assert commands[0].endswith("sgmcmc-verify report")


def test_verdict_table_is_generated_from_the_committed_reports():
    """The README's verdicts are never typed: the block equals what report/readme.py renders
    from reports/quick and reports/baseline (regenerate with python -m
    sgmcmc_verify.report.readme)."""
    import json

    from sgmcmc_verify.report import readme

    full, quick = (json.loads(p.read_text(encoding="utf-8")) for p in (readme.FULL, readme.QUICK))
    block = readme.verdict_block(full, quick)
    assert block in README
    assert readme.update(README, block) == README
