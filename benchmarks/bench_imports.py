"""Start-up cost: ``import sgmcmc_verify`` and ``sgmcmc-verify --help`` in fresh interpreters.

Not a timed test (``tests/test_imports.py`` checks *which* modules load, never how long):
a script that prints the median and range of several fresh-process runs of each command,
next to a bare ``python -c pass`` and ``import numpy`` for scale.  Runs are interleaved
(command 1, 2, 3, 4, 1, 2, ...) so that a change in machine load hits every command alike.

    python benchmarks/bench_imports.py [--repeat 11]

Wall time of the whole process is what a user waits for; it includes the interpreter's
own start-up (the ``python -c pass`` row).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import numpy": [sys.executable, "-c", "import numpy"],
    "import sgmcmc_verify": [sys.executable, "-c", "import sgmcmc_verify"],
    "sgmcmc-verify --help": [sys.executable, "-m", "sgmcmc_verify.cli", "--help"],
}


def _once(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=11, help="runs of each command (default 11)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    for cmd in COMMANDS.values():  # warm the file cache; not counted
        _once(cmd)
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for _ in range(args.repeat):
        for name, cmd in COMMANDS.items():
            times[name].append(_once(cmd))
    print(f"| command | median (s) | min–max (s) |   ({args.repeat} interleaved runs each)")
    print("|---|---|---|")
    for name, ts in times.items():
        print(f"| `{name}` | {statistics.median(ts):.3f} | {min(ts):.3f}–{max(ts):.3f} |")


if __name__ == "__main__":
    main()
