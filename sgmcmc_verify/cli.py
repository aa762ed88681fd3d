"""``sgmcmc-verify``: list, check and report on the papers' claims.

Exit codes: 0 success, 1 a check returned ``refuted`` or ``error`` (``check``
only), 2 bad usage (unknown ID, bad option).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time
from pathlib import Path

from . import claims, registry
from .report import environment, write_report


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, exit 2
        print(f"sgmcmc-verify: error: {message}", file=sys.stderr)
        raise SystemExit(2)


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
    r = sub.add_parser("report", help="run the claims and write the Markdown/JSON report")
    r.add_argument("--profile", choices=claims.PROFILES, default="quick")
    r.add_argument("--out", type=Path, default=Path("reports/latest"))
    r.add_argument("--seed", type=int, default=0)
    r.add_argument(
        "--claims", default="*", metavar="PATTERN", help="glob over claim IDs, e.g. 'AGLD-*'"
    )
    return p


def _list() -> int:
    print("Claims (✓ = a check is implemented):")
    for cid, info in claims.CATALOGUE.items():
        mark = "✓" if cid in claims.CHECKS else " "
        print(f"  {mark} {cid:16s} {info.paper:7s} {info.location}")
    print("\nAlgorithms:")
    for name, spec in registry.ALGORITHMS.items():
        print(f"  {name:10s} {spec.alg_id:14s} {spec.citation}")
    return 0


def _run(ids: list[str], profile: str, seed: int) -> list[claims.ClaimResult]:
    results = []
    for i, cid in enumerate(ids, 1):
        print(f"[{i}/{len(ids)}] {cid} ...", end="", file=sys.stderr, flush=True)
        r = claims.check(cid, profile=profile, seed=seed)
        print(f" {r.verdict} ({r.runtime_s:.1f} s)", file=sys.stderr, flush=True)
        results.append(r)
    return results


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
    ids = [c for c in claims.ids() if fnmatch.fnmatch(c, args.claims)]
    if not ids:
        print(
            f"sgmcmc-verify: error: no implemented claim matches {args.claims!r}", file=sys.stderr
        )
        return 2
    t0 = time.perf_counter()
    try:
        results = _run(ids, args.profile, args.seed)
    except KeyboardInterrupt:
        print("\ninterrupted; no report written", file=sys.stderr)
        return 130
    meta = {
        "profile": args.profile,
        "seed": args.seed,
        "environment": environment(),
        "wall_time_s": time.perf_counter() - t0,
    }
    paths = write_report(results, args.out, meta)
    print(f"\n{'claim':13s} {'verdict':10s} time")
    for r in results:
        print(f"{r.claim_id:13s} {r.verdict:10s} {r.runtime_s:5.1f} s")
    print(f"\nwrote {', '.join(str(p) for p in paths)} ({meta['wall_time_s']:.1f} s)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
