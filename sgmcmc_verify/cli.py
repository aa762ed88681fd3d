"""``sgmcmc-verify``: list, check and report on the papers' claims.

Exit codes: 0 success, 1 a check returned ``refuted`` or ``error`` (``check``
only), 2 bad usage (unknown ID, bad option).
"""

from __future__ import annotations

import argparse
import fnmatch
import functools
import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from . import claims, registry
from .report import environment, pending_entries, write_report


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, exit 2
        print(f"sgmcmc-verify: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="sgmcmc-verify",
        description="Verify the claims of the AGLD, EWSG, SGNHT and SVR-HMC papers.",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="the claims and algorithms, with IDs and citations")
    c = sub.add_parser("check", help="run the named claims and print their verdicts")
    c.add_argument("claim_ids", nargs="+", metavar="CLAIM_ID")
    c.add_argument("--profile", choices=claims.PROFILES, default="quick")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--json", action="store_true", help="print the ClaimResults as JSON")
    r = sub.add_parser(
        "report",
        help="run the claims and write the HTML/Markdown/JSON report with figures",
        description="Run the claims and write index.html, index.md, report.json and "
        "figures/*.png to --out.  The report is rewritten after each claim, so Ctrl-C "
        "leaves the results so far on disk (exit code 130).",
    )
    r.add_argument("--profile", choices=claims.PROFILES, default="quick")
    r.add_argument("--out", type=Path, default=Path("reports/latest"), help="report directory")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument(
        "--claims", default="*", metavar="PATTERN", help="glob over claim IDs, e.g. 'AGLD-*'"
    )
    r.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="run claims in N processes (default: the CPUs, at most 4; 1 with --scheduler); "
        "the report is the same for every N",
    )
    r.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run claims on a Dask cluster: a scheduler address (tcp://HOST:8786) or 'local' "
        "for a 2-worker local cluster; needs the 'dask' extra (not with --jobs > 1)",
    )
    v = sub.add_parser(
        "validate",
        help="validate your sampler (MODULE:FUNCTION) against the reference of an algorithm",
        description="FUNCTION is a SampleFunction sample(problem, h, n_steps, n_chains, seed) "
        "-> (chains, draws, d), or with --mode step a StepFunction (see the README).",
    )
    v.add_argument("target", metavar="MODULE:FUNCTION")
    v.add_argument("--algorithm", required=True, help="registry name, e.g. sgld")
    v.add_argument("--mode", choices=("sampler", "step"), default="sampler")
    v.add_argument("--profile", choices=claims.PROFILES, default="quick")
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--json", action="store_true", help="print the report as JSON")
    vs = sub.add_parser(
        "validate-samples",
        help="validate draws from files (.npy, .npz, .csv; layout chains × draws × dims)",
    )
    vs.add_argument("files", nargs="+", metavar="FILE")
    vs.add_argument("--algorithm", required=True, help="registry name, e.g. sgld")
    vs.add_argument(
        "--h", type=float, nargs="+", required=True, help="step size of each FILE, in order"
    )
    vs.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def _validate(args: argparse.Namespace) -> int:
    """``sgmcmc-verify validate MODULE:FUNCTION``: 0 pass, 1 fail or error, 2 bad input."""
    import importlib

    from . import validation

    module, _, name = args.target.partition(":")
    try:
        fn = getattr(importlib.import_module(module), name)
        registry.get(args.algorithm)
    except (ImportError, AttributeError, ValueError) as err:
        print(f"sgmcmc-verify: error: cannot use {args.target!r}: {err}", file=sys.stderr)
        return 2
    rep = validation.validate(
        fn, args.algorithm, mode=args.mode, profile=args.profile, seed=args.seed
    )
    print(rep.to_json() if args.json else rep.to_markdown())
    return 0 if rep.passed else 1


def _validate_samples(args: argparse.Namespace) -> int:
    from .validation import cli_validate_samples

    if len(args.h) != len(args.files):
        print("sgmcmc-verify: error: give one --h per FILE", file=sys.stderr)
        return 2
    code, text = cli_validate_samples(
        dict(zip(args.h, args.files, strict=True)),
        args.algorithm,
        fmt="json" if args.json else "md",
    )
    print(text, file=sys.stderr if code == 2 else sys.stdout)
    return code


def _list() -> int:
    print("Claims (✓ = a check is implemented):")
    for cid, info in claims.INFO.items():
        mark = "✓" if cid in claims.CHECKS else " "
        print(f"  {mark} {cid:16s} {info.paper:7s} {info.location}")
    print("\nAlgorithms:")
    for name, spec in registry.ALGORITHMS.items():
        print(f"  {name:10s} {spec.alg_id:14s} {spec.citation}")
    return 0


def _progress(i: int, n: int, r: claims.ClaimResult, t0: float) -> None:
    print(
        f"[{i}/{n}] {r.claim_id} {r.verdict} ({r.runtime_s:.1f} s; elapsed "
        f"{time.perf_counter() - t0:.1f} s)",
        file=sys.stderr,
        flush=True,
    )


def _run(ids: list[str], profile: str, seed: int) -> list[claims.ClaimResult]:
    """Run claims in this process (the ``check`` command)."""
    t0 = time.perf_counter()
    results = []
    for i, cid in enumerate(ids, 1):
        r = claims.check(cid, profile=profile, seed=seed)
        _progress(i, len(ids), r, t0)
        results.append(r)
    return results


def _check_in_worker(cid: str, profile: str, seed: int) -> claims.ClaimResult:
    return claims.check(cid, profile=profile, seed=seed)


def _ignore_sigint() -> None:
    # Ctrl-C is the parent's to handle: it writes the report and stops the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _failed(cid: str, exc: BaseException, profile: str, seed: int) -> claims.ClaimResult:
    """An ``error`` result for a claim whose worker died (``check`` itself never raises)."""
    info = claims.INFO[cid]
    tb = "".join(traceback.format_exception(exc))
    return claims.ClaimResult(
        cid, info.paper, info.location, info.statement, "error",
        seed=seed, profile=profile, traceback=tb,
    )  # fmt: skip


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    # a claim already running would otherwise hold the exit until it finished
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.terminate()


def _report_results(
    ids: list[str], args: argparse.Namespace, on_result: Callable[[claims.ClaimResult], None]
) -> None:
    """Run ``ids`` (in a pool for ``--jobs`` > 1, on Dask for ``--scheduler``), calling
    ``on_result`` as each finishes."""
    if args.scheduler is not None:
        from .report.dask_runner import run_on_dask

        task = functools.partial(_check_in_worker, profile=args.profile, seed=args.seed)
        run_on_dask(
            args.scheduler, ids, task, on_result,
            lambda cid, exc: _failed(cid, exc, args.profile, args.seed),
        )  # fmt: skip
        return
    if args.jobs == 1:
        for cid in ids:
            on_result(claims.check(cid, profile=args.profile, seed=args.seed))
        return
    pool = ProcessPoolExecutor(max_workers=min(args.jobs, len(ids)), initializer=_ignore_sigint)
    try:
        futures = {pool.submit(_check_in_worker, cid, args.profile, args.seed): cid for cid in ids}
        for fut in as_completed(futures):
            try:
                r = fut.result()
            except Exception as exc:  # a worker that dies loses only its own claim
                r = _failed(futures[fut], exc, args.profile, args.seed)
            on_result(r)
    except BaseException:
        _stop_workers(pool)
        raise
    pool.shutdown()


def _default_jobs() -> int:
    """The CPUs this process may use, at most 4 (claims are single-threaded numpy)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


def _report(args: argparse.Namespace) -> int:
    if args.jobs is None:
        args.jobs = 1 if args.scheduler is not None else _default_jobs()
    if args.scheduler is not None:
        from .report.dask_runner import DaskUnavailableError, require

        if args.jobs > 1:
            print("sgmcmc-verify: error: --scheduler and --jobs > 1 exclude each other",
                  file=sys.stderr)  # fmt: skip
            return 2
        try:
            require()
        except DaskUnavailableError as err:
            print(f"sgmcmc-verify: error: {err}", file=sys.stderr)
            return 2
    ids = [c for c in claims.ids() if fnmatch.fnmatch(c, args.claims)]
    if not ids:
        print(
            f"sgmcmc-verify: error: no implemented claim matches {args.claims!r}", file=sys.stderr
        )
        return 2
    t0 = time.perf_counter()
    done: dict[str, claims.ClaimResult] = {}
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
        # intermediate reports skip the figures: they are drawn once, at the end
        return write_report(results, args.out, meta, pending=pending, figures=status != "partial")

    def on_result(r: claims.ClaimResult) -> None:
        done[r.claim_id] = r
        _progress(len(done), len(ids), r, t0)
        write("partial")

    try:
        _report_results(ids, args, on_result)
    except KeyboardInterrupt:
        paths = write("interrupted")
        print(
            f"\ninterrupted: {len(done)} of {len(ids)} claims written to {paths[-1].parent}",
            file=sys.stderr,
        )
        return 130
    paths = write("complete")
    wall = time.perf_counter() - t0
    print(f"\n{'claim':13s} {'verdict':10s} time")
    for cid in ids:
        print(f"{cid:13s} {done[cid].verdict:10s} {done[cid].runtime_s:5.1f} s")
    print(f"\nwrote {args.out / 'index.html'} and {len(paths) - 1} more files ({wall:.1f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = _parser().parse_args(argv)
    if args.command == "list":
        return _list()
    if args.command == "check":
        unknown = [c for c in args.claim_ids if c not in claims.CHECKS]
        if unknown:
            print(
                f"sgmcmc-verify: error: no check for {', '.join(unknown)}; "
                f"see 'sgmcmc-verify list'",
                file=sys.stderr,
            )
            return 2
        results = _run(args.claim_ids, args.profile, args.seed)
        if args.json:
            print(json.dumps([r.to_dict() for r in results], indent=2))
        else:
            for r in results:
                print(f"{r.claim_id}: {r.verdict} — {r.reading}")
        return 1 if any(r.verdict in ("refuted", "error") for r in results) else 0
    if args.command == "validate":
        return _validate(args)
    if args.command == "validate-samples":
        return _validate_samples(args)
    return _report(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
