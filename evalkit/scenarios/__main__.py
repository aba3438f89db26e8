"""``python -m evalkit.scenarios check [--domain D ...] [FILE ...]``: validate scenario files (exit 1 on problems)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evalkit.scenarios.check import check_file, scenario_files, summarise
from evalkit.scenarios.store import DOMAINS_DIR, ScenarioError, scenario_dir


def known_domains() -> list[str]:
    return sorted(p.name for p in DOMAINS_DIR.iterdir() if (p / "scenarios").is_dir())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalkit.scenarios", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate scenario files (all domains by default)")
    check.add_argument("--domain", action="append", help="only this domain (repeatable)")
    check.add_argument("files", nargs="*", type=Path, help="scenario JSON files (default: every domain's folder)")
    args = parser.parse_args(argv)

    targets: list[tuple[Path, str | None]] = [(f, None) for f in args.files]
    if not args.files:
        try:
            for domain in args.domain or known_domains():
                targets += [(f, domain) for f in scenario_files(scenario_dir(domain))]
        except ScenarioError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if not targets:
        print("error: no scenario files found", file=sys.stderr)
        return 2
    results = {path: check_file(path, domain) for path, domain in targets}
    print(summarise(results))
    return 1 if any(results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
