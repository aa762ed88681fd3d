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
