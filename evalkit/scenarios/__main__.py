"""Scenario files from the command line.

    python -m evalkit.scenarios check [--domain D ...] [FILE ...]     # validate (exit 1 on problems)
    python -m evalkit.scenarios import-eva DATASET.jsonl DB_DIR --domain D --out DIR
                                                                     # EVA-Bench records -> our scenario files
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evalkit.domains import DOMAINS
from evalkit.scenarios.check import check_file, scenario_files, summarise
from evalkit.scenarios.eva_import import import_dataset
from evalkit.scenarios.store import ScenarioError, scenario_dir


def known_domains() -> list[str]:
    return DOMAINS.names()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalkit.scenarios", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate scenario files (all domains by default)")
    check.add_argument("--domain", action="append", help="only this domain (repeatable)")
    check.add_argument("files", nargs="*", type=Path, help="scenario JSON files (default: every domain's folder)")
    eva = sub.add_parser("import-eva", help="convert EVA-Bench's published records into scenario files")
    eva.add_argument("dataset", type=Path, help="<domain>_dataset.jsonl (or .json list)")
    eva.add_argument("db_dir", type=Path, help="folder with one initial DB <id>.json per record")
    eva.add_argument("--domain", required=True)
    eva.add_argument("--out", type=Path, required=True, help="folder to write <id>.json scenario files to")
    args = parser.parse_args(argv)
    if args.command == "import-eva":
        return import_eva(args.dataset, args.db_dir, args.domain, args.out)

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


def import_eva(dataset: Path, db_dir: Path, domain: str, out: Path) -> int:
    try:
        scenarios = import_dataset(dataset, db_dir, domain)
    except (ScenarioError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    for scenario in scenarios:
        (out / f"{scenario.id}.json").write_text(scenario.model_dump_json(indent=1) + "\n")
    print(f"imported {len(scenarios)} EVA-Bench records into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
