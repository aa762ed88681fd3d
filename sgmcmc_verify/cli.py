"""``sgmcmc-verify``: list, check and report on the papers' claims; validate samplers.

Exit codes (also in ``sgmcmc-verify --help``): 0 success; 1 a claim refuted or errored
(``check``; ``report`` per ``--fail-on``) or a validation failed or errored; 2 bad
input (unknown ID, bad option, unreadable file, unusable ``--out``, unreachable
scheduler), always with one line on stderr and never a traceback; 130 interrupted
(Ctrl-C); 143 terminated (SIGTERM).  Both of the last two keep what is done: ``report``
writes the finished claims, ``check`` prints their verdicts.

The heavy modules (claims, report, validation: numpy, scipy, sympy, matplotlib) are
imported inside the subcommands, so ``--help`` and ``--version`` stay fast.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import math
import os
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .claims import ClaimResult

#: The claim-check and validation profiles (``sgmcmc_verify.claims.PROFILES``; spelled out
#: here so that ``--help`` imports nothing heavy; tests/test_cli.py checks they agree).
PROFILES = ("quick", "full")
#: ``report --fail-on`` choices: the verdicts that make ``report`` exit 1.
FAIL_ON = {"error": ("error",), "refuted": ("error", "refuted"), "never": ()}

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143

EXIT_CODES = """\
exit codes:
  0    success: every check ran and (check, validate) none failed
  1    a claim was refuted or errored (check; report according to --fail-on),
       or a validation failed or errored (validate, validate-samples)
  2    bad input: unknown ID, bad option, unreadable file, unusable --out,
       unreachable scheduler (one line on stderr, no traceback)
  130  interrupted (Ctrl-C); 143 terminated (SIGTERM): finished results are kept
"""


class UsageError(Exception):
    """Bad input found after parsing: the CLI prints one line and exits 2."""


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that it takes Ctrl-C's clean-up path."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, exit 2
        _say(f"sgmcmc-verify: error: {message}", err=True)
        raise SystemExit(EXIT_USAGE)


# -- output that survives a closed pipe (``sgmcmc-verify list | head``) --------------------


def _say(text: str, *, err: bool = False) -> None:
    """Print a line; if the reader has gone (BrokenPipeError), drop this and later output."""
    stream = sys.stderr if err else sys.stdout
    try:
        print(text, file=stream, flush=True)
    except BrokenPipeError:
        _silence(stream)


def _silence(stream: Any) -> None:
    # Point the descriptor at /dev/null so neither later prints nor the interpreter's
    # final flush raise again (the recipe of the Python docs, "Note on SIGPIPE").
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _error(message: str) -> int:
    _say(f"sgmcmc-verify: error: {message}".splitlines()[0], err=True)
    return EXIT_USAGE


# -- argument types --------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    """A seed: a non-negative integer (``numpy.random.default_rng`` refuses negative ones)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"seeds must be non-negative integers, got {text!r}"
        ) from None
    return value


def _seconds(text: str) -> float:
    """A timeout: a finite positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _param(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``: the value as a Python literal (``ast.literal_eval``), else the string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"--param expects KEY=VALUE, got {text!r}")
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        value = raw.strip()
    return key, value


def _step_sizes(hs: Sequence[float]) -> None:
    """h ≤ 0, NaN, inf and duplicates are bad input (issue 11), in the API's own words."""
    from .validation.core import check_step_sizes

    try:
        check_step_sizes(hs)
    except ValueError as err:
        raise UsageError(f"--h: {err}") from None


# -- the parser ------------------------------------------------------------------------


def _version() -> str:
    from . import __version__

    return __version__


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="sgmcmc-verify",
        description="Verify the claims of the AGLD, EWSG, SGNHT and SVR-HMC papers, and "
        "validate other implementations of their samplers.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def cmd(name: str, help: str, **kw: Any) -> argparse.ArgumentParser:
        raw = argparse.RawDescriptionHelpFormatter
        return sub.add_parser(name, help=help, epilog=EXIT_CODES, formatter_class=raw, **kw)

    def profile_seed(q: argparse.ArgumentParser, what: str) -> None:
        q.add_argument(
            "--profile", choices=PROFILES, default="quick",
            help=f"quick (seconds to minutes) or full (larger grids, more chains) {what}",
        )  # fmt: skip
        q.add_argument(
            "--seed", type=_seed, default=0, metavar="S",
            help="non-negative integer seed for every random number drawn (default 0)",
        )  # fmt: skip

    lst = cmd("list", "the claims and algorithms, with IDs and citations")
    lst.add_argument("--json", action="store_true", help="print them as JSON")
    lst.add_argument(
        "--catalogue", action="store_true",
        help="print the claims catalogue (CLAIMS.md, shipped with the package)",
    )  # fmt: skip

    c = cmd("check", "run the named claims and print their verdicts")
    c.add_argument("claim_ids", nargs="+", metavar="CLAIM_ID")
    profile_seed(c, "for every check")
    c.add_argument("--json", action="store_true", help="print the ClaimResults as JSON")

    r = cmd(
        "report",
        "run the claims and write the HTML/Markdown/JSON report with figures",
        description="Run the claims and write index.html, index.md, report.json and "
        "figures/*.png to --out (checked before anything runs).  The report is rewritten "
        "after each claim, atomically, so Ctrl-C or SIGTERM leaves the results so far on "
        "disk (exit code 130 or 143).  A claim whose worker process dies is an 'error'.",
    )
    profile_seed(r, "for every check")
    r.add_argument("--out", type=Path, default=Path("reports/latest"), help="report directory")
    r.add_argument(
        "--claims", default="*", metavar="PATTERN", help="glob over claim IDs, e.g. 'AGLD-*'"
    )
    r.add_argument(
        "--jobs", type=_positive_int, default=None, metavar="N",
        help="run claims in N processes (default: the CPUs, at most 4; 1 with --scheduler); "
        "the report is the same for every N",
    )  # fmt: skip
    r.add_argument(
        "--scheduler", metavar="ADDRESS",
        help="run claims on a Dask cluster: a scheduler address (tcp://HOST:PORT) or 'local' "
        "for a 2-worker local cluster; needs the 'dask' extra (not with --jobs > 1)",
    )  # fmt: skip
    r.add_argument(
        "--fail-on", choices=tuple(FAIL_ON), default="error",
        help="exit 1 when a claim errors (error, the default), is refuted or errors "
        "(refuted), or never",
    )  # fmt: skip

    v = cmd(
        "validate",
        "validate your sampler (MODULE:FUNCTION or FILE.py:FUNCTION)",
        description="FUNCTION is a SampleFunction sample(problem, h, n_steps, n_chains, seed) "
        "-> (chains, draws, d), or with --mode step a StepFunction (see the README).  MODULE "
        "is imported with the current directory first on sys.path.  Without --algorithm the "
        "implementation is judged against the exact target alone, with no reference scheme "
        "(--mode step: the exact law of your step, found by probing it).",
    )
    v.add_argument("target", metavar="MODULE:FUNCTION")
    v.add_argument("--algorithm", default=None, help="registry name, e.g. sgld (optional)")
    v.add_argument("--mode", choices=("sampler", "step"), default="sampler")
    v.add_argument(
        "--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
        help="a registry parameter (repeatable); VALUE is a Python literal, else a string",
    )  # fmt: skip
    v.add_argument(
        "--h", type=float, nargs="+", default=None, metavar="H",
        help="step sizes to test (default: the harness's, per family)",
    )  # fmt: skip
    v.add_argument(
        "--timeout", type=_seconds, default=120.0, metavar="S",
        help="seconds allowed per call of FUNCTION (default 120)",
    )  # fmt: skip
    v.add_argument(
        "--state", nargs="+", default=None, metavar="KEY",
        help="--mode step: the state's keys, each a (d,) vector per chain, e.g. theta p grad "
        "(default from the algorithm's family, else theta)",
    )  # fmt: skip
    v.add_argument(
        "--noise-dim", type=_positive_int, default=None, metavar="N",
        help="--mode step: standard normals per chain and step (default d)",
    )  # fmt: skip
    v.add_argument(
        "--unit-mass", action="store_true",
        help="without --algorithm: the scheme claims E ppᵀ = I, so p is judged too "
        "(default: θ only)",
    )  # fmt: skip
    profile_seed(v, "for the validation")
    v.add_argument("--json", action="store_true", help="print the report as JSON")

    pr = cmd(
        "problem",
        "the validation problem an algorithm's sample files must come from (JSON or .npz)",
        description="Everything another language needs to write files for validate-samples: "
        "the target (centres, precisions, prior), θ0 = 0, the registry parameters (batch, "
        "friction), the step sizes, the steps to run and the layout.  Printed as JSON, or "
        "written to --export FILE.json / FILE.npz.",
    )
    pr.add_argument("algorithm", metavar="ALGORITHM", help="registry name, e.g. sgld")
    pr.add_argument(
        "--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
        help="a registry parameter overriding the harness's (repeatable)",
    )  # fmt: skip
    pr.add_argument("--profile", choices=PROFILES, default="quick",
                    help="sets the recommended chains and steps")  # fmt: skip
    pr.add_argument("--export", type=Path, default=None, metavar="FILE",
                    help="write FILE.json or FILE.npz instead of printing")  # fmt: skip

    vs = cmd(
        "validate-samples",
        "validate draws from files (.npy, .npz, .csv, ArviZ .nc; chains × draws × dims)",
        description="One FILE per step size, in the order of --h.  Files are read without "
        "unpickling and with a 2 GiB cap per array (see sgmcmc_verify.validation.files); "
        ".nc (ArviZ to_netcdf, the posterior group) needs the 'arviz' extra.",
    )
    vs.add_argument("files", nargs="+", metavar="FILE")
    vs.add_argument("--algorithm", required=True, help="registry name, e.g. sgld")
    vs.add_argument(
        "--h", type=float, nargs="+", required=True, metavar="H",
        help="step size of each FILE, in order (distinct, finite, positive)",
    )  # fmt: skip
    vs.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


# -- list, check -----------------------------------------------------------------------


def catalogue_text() -> str:
    """The claims catalogue shipped as package data (``sgmcmc_verify/data/CLAIMS.md``)."""
    from importlib.resources import files

    return (files("sgmcmc_verify") / "data" / "CLAIMS.md").read_text(encoding="utf-8")


def _list(args: argparse.Namespace) -> int:
    from . import claims, registry

    if args.catalogue:
        try:
            text = catalogue_text()
        except OSError as err:  # an installation without its package data
            raise UsageError(f"the claims catalogue is not installed ({err.strerror})") from None
        _say(text.rstrip("\n"))
        return EXIT_OK
    if args.json:
        doc = {
            "claims": [
                {"id": cid, "paper": info.paper, "location": info.location,
                 "statement": info.statement, "implemented": cid in claims.CHECKS}
                for cid, info in claims.INFO.items()
            ],
            "algorithms": [
                {"name": name, "id": spec.alg_id, "family": spec.family,
                 "citation": spec.citation}
                for name, spec in registry.ALGORITHMS.items()
            ],
        }  # fmt: skip
        _say(json.dumps(doc, indent=2, ensure_ascii=False))
        return EXIT_OK
    _say("Claims (✓ = a check is implemented; the catalogue: sgmcmc-verify list --catalogue):")
    for cid, info in claims.INFO.items():
        mark = "✓" if cid in claims.CHECKS else " "
        _say(f"  {mark} {cid:16s} {info.paper:7s} {info.location}")
    _say("\nAlgorithms:")
    for name, spec in registry.ALGORITHMS.items():
        _say(f"  {name:10s} {spec.alg_id:14s} {spec.citation}")
    return EXIT_OK


def _progress(i: int, n: int, r: ClaimResult, t0: float) -> None:
    _say(
        f"[{i}/{n}] {r.claim_id} {r.verdict} ({r.runtime_s:.1f} s; elapsed "
        f"{time.perf_counter() - t0:.1f} s)",
        err=True,
    )


def _check(args: argparse.Namespace) -> int:
    from . import claims

    unknown = [c for c in args.claim_ids if c not in claims.CHECKS]
    if unknown:
        return _error(f"no check for {', '.join(unknown)}; see 'sgmcmc-verify list'")
    t0 = time.perf_counter()
    results = []
    code = None
    try:
        for i, cid in enumerate(args.claim_ids, 1):
            r = claims.check(cid, profile=args.profile, seed=args.seed)
            _progress(i, len(args.claim_ids), r, t0)
            results.append(r)
    except KeyboardInterrupt as stop:  # print what finished, then exit 130 / 143
        code = EXIT_TERMINATED if isinstance(stop, _Terminated) else EXIT_INTERRUPTED
        _say(f"interrupted: {len(results)} of {len(args.claim_ids)} claims finished", err=True)
    if args.json:
        _say(json.dumps([r.to_dict() for r in results], indent=2))
    else:
        for r in results:
            _say(f"{r.claim_id}: {r.verdict} — {r.reading}")
    if code is not None:
        return code
    return EXIT_FAILED if any(r.verdict in ("refuted", "error") for r in results) else EXIT_OK


# -- report ----------------------------------------------------------------------------


def _check_in_worker(cid: str, profile: str, seed: int) -> ClaimResult:
    from . import claims

    return claims.check(cid, profile=profile, seed=seed)


def _failed(cid: str, reading: str, profile: str, seed: int, tb: str | None = None) -> ClaimResult:
    """An ``error`` result for a claim whose worker died (``check`` itself never raises)."""
    from . import claims

    info = claims.INFO[cid]
    return claims.ClaimResult(
        cid, info.paper, info.location, info.statement, "error",
        reading=reading, seed=seed, profile=profile, traceback=tb,
    )  # fmt: skip


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "it did not report"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        hint = " (e.g. the out-of-memory killer)" if -code == signal.SIGKILL else ""
        return f"killed by {name}{hint}"
    return f"it exited with code {code}"


def _worker(cid: str, profile: str, seed: int, conn: Any, table: dict | None = None) -> None:
    """A claim in a child process: its result goes back through ``conn``.

    ``table``: results of the claim's units already run by :func:`_unit_worker` processes
    (:func:`sgmcmc_verify.parallel.precomputed_mapper` hands them to its ``map_units``).
    """
    _child_signals()
    try:
        if table is None:
            result = _check_in_worker(cid, profile, seed)
        else:
            from .parallel import precomputed_mapper, unit_mapper

            with unit_mapper(precomputed_mapper(table)):
                result = _check_in_worker(cid, profile, seed)
    except BaseException as exc:  # check() returns errors; this is a failure around it
        import traceback

        result = _failed(cid, f"the worker failed: {type(exc).__name__}: {exc}", profile,
                         seed, "".join(traceback.format_exception(exc)))  # fmt: skip
    # the figures are drawn here, in parallel with the other claims, not serially at the end
    try:
        from .report.figures import prerender

        drawn = prerender(result)
    except Exception:  # the report draws them again (and reports what fails) itself
        drawn = {}
    conn.send((result, drawn))
    conn.close()


def _child_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's terminate() ends us
    if hasattr(signal, "pthread_sigmask"):  # blocked by the parent around start()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


#: Claims whose independent units (:mod:`sgmcmc_verify.parallel`) ``report --jobs N``
#: spreads over its worker processes: ``module:function`` (or the function) returning the
#: claim's ``(function, item)`` units for ``(profile=, seed=)``.  One such claim would otherwise
#: hold one worker for most of the run while the others idle.
_UNIT_SOURCES: dict[str, Any] = {"HARNESS-POWER": "sgmcmc_verify.claims.harness:units"}

#: Units per worker task: small enough to fill the idle workers, large enough that the
#: per-process exact-law caches are reused within a task.
_UNITS_PER_TASK = 6


def _claim_units(cid: str, profile: str, seed: int) -> list[tuple[Any, Any]]:
    import importlib

    source = _UNIT_SOURCES[cid]
    if not callable(source):
        module, name = source.split(":")
        source = getattr(importlib.import_module(module), name)
    return source(profile=profile, seed=seed)


def _unit_worker(cid: str, profile: str, seed: int, chunk: slice, conn: Any) -> None:
    """Units ``chunk`` of claim ``cid`` in a child process: ``({unit key: result}, seconds)``
    (or the exception's text) back through ``conn``."""
    _child_signals()
    t0 = time.perf_counter()
    try:
        from .parallel import run_units

        result: Any = (run_units(_claim_units(cid, profile, seed)[chunk]),
                       time.perf_counter() - t0)  # fmt: skip
    except BaseException as exc:
        result = f"{type(exc).__name__}: {exc}"
    conn.send(result)
    conn.close()


def _run_processes(
    ids: Sequence[str], args: argparse.Namespace, on_result: Callable[[ClaimResult], None]
) -> None:
    """Each claim in a process of its own, at most ``args.jobs`` at a time.

    A claim of :data:`_UNIT_SOURCES` first has its units run in chunks, each a worker
    task of its own (queued first: they are the longest work); once they are all in, the
    claim runs with their results.  Unlike a process pool, a worker that dies (OOM
    killer, segfault) loses only the claim it held (or the claim whose units it ran),
    which becomes an ``error`` saying how the worker died; the others run on.  On any
    exception (Ctrl-C, SIGTERM) the running workers are terminated.
    """
    import multiprocessing
    from multiprocessing.connection import wait

    one_blas_thread()  # inherited by the forked workers
    todo: list[tuple[Any, ...]] = []
    pending: dict[str, dict[str, Any]] = {}  # claim → {"left": chunks, "table", "error"}
    # longest first (the previous run's timings, where --out holds one of this profile): the
    # last claim to start then ends near the others; results are the same in any order
    cost = _previous_costs(args)
    ids = sorted(ids, key=lambda c: -cost.get(c, 0.0))
    for cid in ids:
        if cid in _UNIT_SOURCES and args.jobs > 1:
            # imported here, before the fork, so that no child imports it again
            n = len(_claim_units(cid, args.profile, args.seed))
            chunks = [slice(i, i + _UNITS_PER_TASK) for i in range(0, n, _UNITS_PER_TASK)]
            pending[cid] = {"left": len(chunks), "table": {}, "error": None, "seconds": 0.0}
            todo[:0] = [("units", cid, c) for c in chunks]
        else:
            todo.append(("claim", cid, None))
    running: dict[Any, tuple[tuple[Any, ...], Any]] = {}
    preloaded = False
    ready: list[ClaimResult] = []  # finished, handed to on_result once the workers are busy
    try:
        while todo or running or ready:
            if running and not preloaded:
                # The workers are forked: a check module (and the sympy/scipy it pulls in)
                # imported here once is inherited by every later child instead of being
                # imported again by each (about 0.5-1 s of CPU per claim).  Done while the
                # first workers already run, so that it delays nothing.
                _preload_checks(ids)
                preloaded = True
            while todo and len(running) < args.jobs:
                task = todo.pop(0)
                kind, cid, extra = task
                recv, send = multiprocessing.Pipe(duplex=False)
                if kind == "units":
                    target, targs = _unit_worker, (cid, args.profile, args.seed, extra, send)
                else:
                    target, targs = _worker, (cid, args.profile, args.seed, send, extra)
                proc = multiprocessing.Process(target=target, args=targs, daemon=True)
                with _signals_blocked():  # until the child has its own handlers
                    proc.start()
                send.close()  # the child's end: EOF here once the child is gone
                running[recv] = (task, proc)
            # on_result rewrites the partial report (seconds, growing with the results): do it
            # only now, with every free worker already started on the next task
            while ready:
                on_result(ready.pop(0))
            if not running:
                continue
            for conn in wait(list(running)):
                (kind, cid, extra), proc = running.pop(conn)
                try:
                    result = conn.recv()
                except (EOFError, OSError):
                    result = None
                conn.close()
                proc.join()
                if kind == "units":
                    state = pending[cid]
                    state["left"] -= 1
                    if isinstance(result, tuple):
                        state["table"].update(result[0])
                        state["seconds"] += result[1]
                    elif state["error"] is None:
                        state["error"] = (
                            f"a worker process running units of this claim died: "
                            f"{_exit_reason(proc.exitcode)}"
                            if result is None
                            else f"units of this claim failed: {result}"
                        )
                    if state["left"] == 0:
                        if state["error"] is None:  # the claim next, with its units' results
                            todo.insert(0, ("claim", cid, state["table"]))
                        else:
                            ready.append(_failed(cid, state["error"], args.profile, args.seed))
                    continue
                if isinstance(result, tuple):  # (ClaimResult, its figures drawn by the worker)
                    result, drawn = result
                    if drawn:
                        from .report.figures import remember

                        remember(drawn)
                if result is None:
                    why = _exit_reason(proc.exitcode)
                    msg = f"the worker process running this claim died: {why}"
                    result = _failed(cid, msg, args.profile, args.seed)
                elif cid in pending:  # its time includes the units' (summed over tasks)
                    result.runtime_s += pending[cid]["seconds"]
                ready.append(result)
    except BaseException:
        _stop(proc for _, proc in running.values())
        raise


def _previous_costs(args: argparse.Namespace) -> dict[str, float]:
    """Per-claim seconds of the report already in ``--out`` (same profile), else ``{}``."""
    try:
        doc = json.loads((Path(args.out) / "report.json").read_text(encoding="utf-8"))
        if doc.get("profile") != args.profile:
            return {}
        return {str(k): float(v) for k, v in doc["timings"]["claims"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _preload_checks(ids: Sequence[str]) -> None:
    """Import the check modules of ``ids`` in this process (best effort: a module that fails
    to import here fails again, with its traceback, in the worker that runs its claim)."""
    from . import claims
    from .report import figures

    figures.warm_up()  # fonts and the mathtext parser, inherited by every later worker

    try:
        # stats.fit_order imports statsmodels (and pandas: ~570 modules) when first called:
        # once here instead of in each of the six claims' workers that fit an order
        from statsmodels.regression.linear_model import WLS  # noqa: F401
    except ImportError:  # a core dependency; its absence is reported where it is used
        pass
    for cid in ids:
        try:
            claims.CHECKS[cid].resolve()
        except Exception:  # reported by the claim's own worker
            pass


_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _signals_blocked() -> Iterator[None]:
    """Block SIGINT/SIGTERM while a worker starts: a forked child would otherwise run the
    parent's handlers (raising in the child) if signalled before installing its own."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _stop(procs: Iterator[Any]) -> None:
    procs = list(procs)
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _report_results(
    ids: list[str], args: argparse.Namespace, on_result: Callable[[ClaimResult], None]
) -> None:
    """Run ``ids`` (in this process, in worker processes for ``--jobs`` > 1, or on Dask
    for ``--scheduler``), calling ``on_result`` as each finishes."""
    if args.scheduler is not None:
        import functools
        import traceback

        from .report import dask_runner

        task = functools.partial(_check_in_worker, profile=args.profile, seed=args.seed)
        try:
            dask_runner.run_on_dask(
                args.scheduler, ids, task, on_result,
                lambda cid, exc: _failed(
                    cid, f"the Dask task failed: {type(exc).__name__}: {exc}", args.profile,
                    args.seed, "".join(traceback.format_exception(exc)),
                ),
                connect_timeout=dask_runner.CONNECT_TIMEOUT,
            )  # fmt: skip
        except dask_runner.DaskUnavailableError as err:  # raised before any claim runs
            raise UsageError(str(err)) from None
        return
    if args.jobs == 1:
        for cid in ids:
            on_result(_check_in_worker(cid, args.profile, args.seed))
        return
    _run_processes(ids, args, on_result)


def one_blas_thread() -> None:
    """Limit this process's BLAS/OpenMP pools to one thread (inherited by forked children).

    ``report --jobs N`` runs N single-core workers; numpy's OpenBLAS would otherwise give
    each of them a pool of one thread per CPU, whose threads busy-wait on the cores the
    other workers need (measured: AGLD-EXP-GMM's quick check used 1.19 s of CPU with two
    BLAS threads against 0.88 s with one, at the same wall time).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)


def _default_jobs() -> int:
    """The CPUs this process may use, at most 4 (claims are single-threaded numpy)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


def check_out_dir(out: Path) -> None:
    """Raise :class:`UsageError` unless ``out`` is (or can be made) a writable directory.

    Called before any claim runs, so that a bad ``--out`` costs nothing.  It creates the
    directory and a uniquely named temporary file in it, then removes the file.
    """
    from .validation.files import display_name

    shown = display_name(out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {shown}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".write-test-"):
            pass
    except OSError as err:
        raise UsageError(f"--out {shown}: not writable ({err.strerror or err})") from None


_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx|inproc)://)?[A-Za-z0-9._\-\[\]:]+:\d{1,5}$")


def _check_scheduler(address: str) -> None:
    from .report.dask_runner import LOCAL, DaskUnavailableError, require

    if address != LOCAL and not _ADDRESS.match(address):
        raise UsageError(
            f"--scheduler {address!r}: expected 'local' or an address like tcp://HOST:PORT"
        )
    try:
        require()
    except DaskUnavailableError as err:
        raise UsageError(str(err)) from None


@contextmanager
def _deferred_signals() -> Iterator[list[int]]:
    """Hold SIGINT and SIGTERM while the final report is written (the signals are recorded
    and returned), so a second Ctrl-C cannot leave a half-written report."""
    got: list[int] = []
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, lambda signum, frame: got.append(signum))
    try:
        yield got
    finally:
        for s, h in old.items():
            signal.signal(s, h)


#: Seconds between two rewrites of the partial report while ``report`` runs.
PARTIAL_EVERY = 10.0


def _report(args: argparse.Namespace) -> int:
    from . import claims
    from .report import environment, pending_entries, write_report

    if args.jobs is None:
        args.jobs = 1 if args.scheduler is not None else _default_jobs()
    if args.scheduler is not None:
        if args.jobs > 1:
            raise UsageError("--scheduler and --jobs > 1 exclude each other")
        _check_scheduler(args.scheduler)
    ids = [c for c in claims.ids() if fnmatch.fnmatch(c, args.claims)]
    if not ids:
        raise UsageError(f"no implemented claim matches {args.claims!r}")
    check_out_dir(args.out)
    t0 = time.perf_counter()
    done: dict[str, ClaimResult] = {}
    implemented = list(claims.CHECKS)

    def write(status: str) -> list[Path]:
        results = [done[c] for c in ids if c in done]  # catalogue order, whatever finished first
        meta = {
            "profile": args.profile,
            "seed": args.seed,
            "claims_pattern": args.claims,
            "status": status,
            "environment": environment(jobs=args.jobs),
            "wall_time_s": time.perf_counter() - t0,
        }
        pending = pending_entries(results, ids, implemented)
        # figures are drawn once, at the end of a complete run (they take seconds)
        figures = status.startswith("complete")
        return write_report(results, args.out, meta, pending=pending, figures=figures)

    last = [-math.inf]

    def on_result(r: ClaimResult) -> None:
        done[r.claim_id] = r
        _progress(len(done), len(ids), r, t0)
        # the partial report shows progress and survives a hard kill; rewriting it after every
        # claim cost seconds of CPU on a short run, so at most every PARTIAL_EVERY seconds (an
        # interruption still writes every finished claim, and the end writes the whole report)
        now = time.perf_counter()
        if now - last[0] >= PARTIAL_EVERY:
            write("partial")
            last[0] = now

    try:
        _report_results(ids, args, on_result)
    except KeyboardInterrupt as stop:
        code = EXIT_TERMINATED if isinstance(stop, _Terminated) else EXIT_INTERRUPTED
        with _deferred_signals():
            paths = write("interrupted")
        _say(
            f"\ninterrupted: {len(done)} of {len(ids)} claims written to {paths[-1].parent}",
            err=True,
        )
        return code
    errored = any(done[cid].verdict == "error" for cid in ids)
    with _deferred_signals() as late:
        paths = write("complete-with-errors" if errored else "complete")
    wall = time.perf_counter() - t0
    _say(f"\n{'claim':13s} {'verdict':10s} time")
    for cid in ids:
        _say(f"{cid:13s} {done[cid].verdict:10s} {done[cid].runtime_s:5.1f} s")
    _say(f"\nwrote {args.out / 'index.html'} and {len(paths) - 1} more files ({wall:.1f} s)")
    if late:
        return EXIT_TERMINATED if late[0] == signal.SIGTERM else EXIT_INTERRUPTED
    failing = [cid for cid in ids if done[cid].verdict in FAIL_ON[args.fail_on]]
    if failing:
        _say(
            f"{len(failing)} claim(s) {' or '.join(FAIL_ON[args.fail_on])}: "
            f"{', '.join(failing)} (--fail-on {args.fail_on}: exit 1)",
            err=True,
        )
        return EXIT_FAILED
    return EXIT_OK


# -- validate, validate-samples --------------------------------------------------------


def load_target(target: str) -> Callable[..., Any]:
    """The function named by ``MODULE:FUNCTION`` or ``path/to/file.py:FUNCTION``.

    :func:`sgmcmc_verify.validation.isolated.load_function`, its failures (including an
    exception raised by the user's module) as a one-line :class:`UsageError`.
    """
    from .validation.isolated import load_function

    try:
        return load_function(target)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _params(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in pairs:
        if key in params:
            raise UsageError(f"--param {key} is given twice")
        params[key] = value
    return params


def problem_document(algorithm: str, params: dict[str, Any], profile: str) -> dict[str, Any]:
    """What files for ``validate-samples ALGORITHM`` must hold, as plain data.

    The target is :func:`sgmcmc_verify.validation.targets.problem_step` (its potential
    ``U(θ) = ½(θ−μ₀)ᵀΛ₀(θ−μ₀) + Σᵢ ½(θ−cᵢ)ᵀΛᵢ(θ−cᵢ)``), the parameters those of
    :func:`~sgmcmc_verify.validation.targets.step_params`; the draws after
    ``ceil(BURN_TIME / h)`` steps are compared with the exact law at those steps.
    """
    import math

    from . import registry
    from .validation import core, targets

    spec = registry.get(algorithm)
    core.check_params(algorithm, params)  # ValueError (one line) on unknown/invalid ones
    plan = targets.plan(algorithm, params)
    prob = targets.problem_step()
    cfg = core.PROFILES[profile]
    burn = {h: math.ceil(targets.BURN_TIME / h) for h in plan.hs}
    state = ["theta"] if spec.family == "overdamped" else ["theta", "p"]
    return {
        "algorithm": algorithm,
        "scheme": {"id": spec.alg_id, "family": spec.family, "citation": spec.citation},
        "params": plan.params,
        "problem": {
            "name": prob.name,
            "N": prob.N,
            "d": prob.d,
            "potential": "U(θ) = ½(θ−μ₀)ᵀΛ₀(θ−μ₀) + Σ_i ½(θ−c_i)ᵀΛ_i(θ−c_i), i = 1..N",
            "component_gradient": "∇f_i(θ) = Λ_i (θ − c_i); prior gradient Λ₀ (θ − μ₀)",
            "centres": prob.centres.tolist(),
            "precisions": prob.precisions.tolist(),
            "prior_precision": prob.prior_precision.tolist(),
            "prior_mean": prob.prior_mean.tolist(),
            "target_mean": prob.exact["mean"].value.tolist(),
            "target_cov": prob.exact["cov"].value.tolist(),
        },
        "initial_state": {k: [0.0] * prob.d for k in state},
        "step_sizes": list(plan.hs),
        "burn_in_steps": {f"{h:g}": burn[h] for h in plan.hs},
        "recommended": {
            "chains": cfg["chains"],
            "steps": {f"{h:g}": burn[h] + math.ceil(cfg["window_time"] / h) for h in plan.hs},
        },
        "layout": "one file per step size, arrays (chains, steps, d): draw t is the state after "
        "t + 1 steps, every step kept (burn-in included); .npy holds θ, .npz may add p and xi, "
        ".csv has columns chain,draw,theta[0],...,p[0],...,xi",
    }


def _problem(args: argparse.Namespace) -> int:
    """``sgmcmc-verify problem ALG [--export FILE]``."""
    try:
        doc = problem_document(args.algorithm, _params(args.param), args.profile)
    except ValueError as err:
        raise UsageError(str(err)) from None
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    if args.export is None:
        _say(text)
        return EXIT_OK
    suffix = args.export.suffix.lower()
    if suffix not in (".json", ".npz"):
        raise UsageError(f"--export {args.export}: the file must end in .json or .npz")
    try:
        if suffix == ".json":
            args.export.write_text(text + "\n", encoding="utf-8")
        else:
            import numpy as np

            p = doc["problem"]
            np.savez(
                args.export,
                **{k: np.asarray(p[k], dtype=float) for k in
                   ("centres", "precisions", "prior_precision", "prior_mean")},
                theta0=np.zeros(p["d"]),
                step_sizes=np.asarray(doc["step_sizes"]),
                burn_in_steps=np.asarray(list(doc["burn_in_steps"].values())),
                document=np.asarray(text),  # the whole JSON, as a (non-object) string
            )  # fmt: skip
    except OSError as err:
        raise UsageError(f"--export {args.export}: {err.strerror or err}") from None
    _say(f"wrote {args.export}", err=True)
    return EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    """``sgmcmc-verify validate``: 0 pass, 1 fail or error, 2 bad input."""
    params = _params(args.param)
    if args.h is not None:
        _step_sizes(args.h)
    step_only = {"state": tuple(args.state) if args.state else None, "noise_dim": args.noise_dim}
    for option, value in step_only.items():
        if value is not None and args.mode != "step":
            raise UsageError(f"--{option.replace('_', '-')} needs --mode step")
    from . import validation
    from .validation.isolated import validate_isolated

    # the whole validation runs in a child process of its own (issue 11): a hung call, a
    # thread the user's code leaves behind or a crash cannot keep or take down this one
    try:
        rep = validate_isolated(
            args.target, args.algorithm, mode=args.mode, params=params or None,
            profile=args.profile, seed=args.seed, timeout=args.timeout,
            hs=tuple(args.h) if args.h else None, unit_mass=args.unit_mass,
            **{k: v for k, v in step_only.items() if v is not None},
        )  # fmt: skip
    except validation.ImplementationError as err:  # the user's function failed: an error
        _say(f"sgmcmc-verify: validation error: {err}".splitlines()[0], err=True)
        return EXIT_FAILED
    except ValueError as err:  # bad target, algorithm, params, h (one line, from the child)
        raise UsageError(str(err)) from None
    _say(rep.to_json() if args.json else rep.to_markdown())
    return EXIT_OK if rep.passed else EXIT_FAILED


def _validate_samples(args: argparse.Namespace) -> int:
    if len(args.h) != len(args.files):
        raise UsageError(
            f"give one --h per FILE ({len(args.files)} files, {len(args.h)} step sizes)"
        )
    _step_sizes(args.h)  # before the files are paired with them: a duplicate loses a file
    from .validation import cli_validate_samples

    code, text = cli_validate_samples(
        dict(zip(args.h, args.files, strict=True)),
        args.algorithm,
        fmt="json" if args.json else "md",
    )
    if code == EXIT_USAGE:
        return _error(text.removeprefix("error: "))
    _say(text)
    return code


# -- entry point -----------------------------------------------------------------------


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (see ``--help``)."""
    try:
        args = _parser().parse_args(argv)
        commands = {
            "list": _list,
            "check": _check,
            "report": _report,
            "validate": _validate,
            "validate-samples": _validate_samples,
            "problem": _problem,
        }
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            return commands[args.command](args)
        finally:
            signal.signal(signal.SIGTERM, previous)
    except UsageError as err:
        return _error(str(err))
    except BrokenPipeError:  # e.g. ``--help | head -1``: the reader left; nothing to report
        _silence(sys.stdout)
        return EXIT_OK
    except _Terminated:
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
