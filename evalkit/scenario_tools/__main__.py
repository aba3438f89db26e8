"""Scenario files from the command line.

python -m evalkit.scenarios check [--domain D ...] [FILE ...]     # validate (exit 1 on problems)
python -m evalkit.scenarios check FOLDER                          # a folder of scenario files (YAML, JSONL, JSON):
    # one line per problem naming the file and field; exit 2 on any problem (nothing would run)
python -m evalkit.scenarios check --plugin MODULE FOLDER          # ... of a domain a plug-in module registers
python -m evalkit.scenarios new FOLDER [--id ID]                  # write one commented scenario file to FOLDER
python -m evalkit.scenarios import-eva PATH --out DIR [--culture en] [--names native|romanized] [--domain D ...]
    # EVA-Bench's records -> scenario files in DIR/<domain>/; PATH: an EVA checkout, its data folder or one
    # <domain>_dataset.json. Prints "imported N, failed M" and "<id>: <reason>" per failed record.
python -m evalkit.scenarios replay PATH [--culture en] [--names native|romanized]
    # ground-truth tool calls through evalkit's tools vs the expected DB, per domain (PATH: as above, or a
    # folder of scenario files)
python -m evalkit.scenarios text-run PATH [--limit N] [--quiet]
    # task completion in text mode (local agent, scripted caller, perfect ear) per domain; PATH: as for replay,
    # or a domain's name for its own scenarios
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from evalkit.domains import DOMAINS, tool_registry
from evalkit.domains.scenarios import scenario_dir
from evalkit.safe_paths import inside
from evalkit.scenario_tools.check import check_file, check_folder, scenario_files, summarise
from evalkit.scenario_tools.eva_import import ImportOptions, import_eva
from evalkit.scenario_tools.replay import render, replay
from evalkit.scenario_tools.text_run import render as render_text_run
from evalkit.scenario_tools.text_run import text_run
from evalkit.scenarios.store import ScenarioError


def known_domains() -> list[str]:
    return DOMAINS.names()


def _culture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--culture", default="en", help="EVA-Bench culture whose names and opening line are used")
    parser.add_argument(
        "--names",
        choices=("native", "romanized"),
        default="native",
        help="name placeholders in the culture's own script (EVA-Bench's runtime) or romanized",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evalkit.scenarios", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate scenario files (all domains by default)")
    check.add_argument("--domain", action="append", help="only this domain (repeatable)")
    check.add_argument(
        "--plugin",
        action="append",
        default=[],
        help="a module on sys.path to import first: it registers your own domain (as domain.plugin does; repeatable)",
    )
    check.add_argument(
        "files",
        nargs="*",
        type=Path,
        help="scenario JSON files, or one folder of scenario files (default: every domain's folder)",
    )
    new = sub.add_parser("new", help="write one commented scenario file (YAML) to a folder")
    new.add_argument("folder", type=Path, help="the folder (created when missing)")
    new.add_argument("--id", default=None, help="the scenario's id and file name (default: scenario-N)")
    eva = sub.add_parser("import-eva", help="convert EVA-Bench's published records into scenario files")
    eva.add_argument("path", type=Path, help="an EVA-Bench checkout, its data folder, or one <domain>_dataset.json")
    eva.add_argument("--out", type=Path, required=True, help="folder to write <domain>/<id>.json scenario files to")
    eva.add_argument("--domain", action="append", help="only this domain (EVA's or evalkit's name; repeatable)")
    _culture_options(eva)
    rep = sub.add_parser("replay", help="replay each record's ground-truth tool calls and compare the end state")
    rep.add_argument("path", type=Path, help="an EVA-Bench checkout / data folder, or a folder of scenario files")
    _culture_options(rep)
    txt = sub.add_parser("text-run", help="task completion in text mode (perfect ear), per domain")
    txt.add_argument("path", help="as for replay, or a domain's name (its own scenario folder)")
    txt.add_argument("--limit", type=int, default=None, help="at most N scenarios per domain")
    txt.add_argument("--quiet", action="store_true", help="only the per-domain counts")
    _culture_options(txt)
    args = parser.parse_args(argv)
    if args.command == "new":
        return new_command(args.folder, args.id)
    for module in getattr(args, "plugin", None) or []:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            print(f"error: --plugin: cannot import plug-in module {module!r}: {exc}", file=sys.stderr)
            return 2
    if args.command == "check" and len(args.files) == 1 and args.files[0].is_dir():
        return check_folder_command(args.files[0])
    if args.command == "text-run":
        return text_run_command(args.path, ImportOptions(args.culture, args.names), args.limit, args.quiet)
    if args.command == "import-eva":
        return import_eva_command(args.path, args.out, ImportOptions(args.culture, args.names), args.domain)
    if args.command == "replay":
        return replay_command(args.path, ImportOptions(args.culture, args.names))

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


def check_folder_command(folder: Path) -> int:
    """Exit 0: every scenario usable; 2: a problem (each one line naming its file and field) or no scenario file."""
    checked, lines = check_folder(folder)
    if not checked:
        print(f"error: {folder}: no scenario files (*.yaml, *.yml, *.jsonl, *.json)", file=sys.stderr)
        return 2
    print(
        "\n".join(
            [*lines, f"{checked} scenario files checked: {'no problems' if not lines else f'{len(lines)} problems'}"]
        )
    )
    return 2 if lines else 0


def new_command(folder: Path, scenario_id: str | None) -> int:
    """Write the commented example scenario (the custom domain's) as ``<folder>/<id>.yaml``; never overwrite."""
    from evalkit.safe_paths import SAFE_NAME_RULE, is_safe_name
    from evalkit.scenarios.file import EXAMPLE_DIR

    if scenario_id is not None and not is_safe_name(scenario_id):
        print(f"error: --id {scenario_id!r}: ids are {SAFE_NAME_RULE}", file=sys.stderr)
        return 2
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"error: {folder}: cannot create the folder: {exc.strerror}", file=sys.stderr)
        return 2
    taken = {p.stem for p in folder.iterdir()}
    chosen = scenario_id or next(f"scenario-{n}" for n in range(1, len(taken) + 2) if f"scenario-{n}" not in taken)
    path = folder / f"{chosen}.yaml"
    if path.exists():
        print(f"error: {path} exists; choose another --id", file=sys.stderr)
        return 2
    template = (EXAMPLE_DIR / "example.yaml").read_text(encoding="utf-8")
    path.write_text(template.replace("\nid: example ", f"\nid: {chosen} ", 1), encoding="utf-8")
    print(f"wrote {path}: edit it, then python -m evalkit.scenarios check {folder}")
    return 0


def _tool_names(domain: str) -> list[str]:
    return tool_registry(domain).names


def import_eva_command(path: Path, out: Path, options: ImportOptions, domains: list[str] | None = None) -> int:
    """Exit 0: every record imported; 1: some failed (each named); 2: nothing to import."""
    try:
        reports = import_eva(path, options, domains, _tool_names)
    except (ScenarioError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for domain, report in reports.items():
        folder = out / domain
        folder.mkdir(parents=True, exist_ok=True)
        for scenario in report.scenarios:
            path = inside(folder, f"{scenario.id}.json")  # ids are checked by the schema; the path is checked here
            path.write_text(scenario.model_dump_json(indent=1) + "\n", encoding="utf-8")
    imported = sum(len(r.scenarios) for r in reports.values())
    failures = [f for r in reports.values() for f in r.failures]
    per_domain = ", ".join(f"{d} {len(r.scenarios)}/{len(r.scenarios) + len(r.failures)}" for d, r in reports.items())
    print(f"imported {imported}, failed {len(failures)} ({per_domain}) into {out}")
    for record_id, reason in failures:
        print(f"{record_id}: {reason}")
    return 1 if failures else 0


def replay_command(path: Path, options: ImportOptions) -> int:
    """Exit 0: every record reproduces its expected DB; 1: some do not; 2: nothing to replay."""
    try:
        reports = replay(path, options)
    except (ScenarioError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not reports:
        print(f"error: {path}: no EVA-Bench dataset and no scenario files found", file=sys.stderr)
        return 2
    print(render(reports))
    return 0 if all(r.count("equal") == len(r.records) for r in reports) else 1


def text_run_command(target: str, options: ImportOptions, limit: int | None, quiet: bool) -> int:
    """Exit 0: every task completed; 1: some did not; 2: nothing to run."""
    path = scenario_dir(target) if target in DOMAINS and not Path(target).exists() else Path(target)
    if not path.exists():
        print(f"error: {target}: no such folder, and not a domain ({', '.join(known_domains())})", file=sys.stderr)
        return 2
    reports = text_run(path, options, limit)
    if not reports:
        print(f"error: {path}: no EVA-Bench dataset and no scenario files found", file=sys.stderr)
        return 2
    print(render_text_run(reports, verbose=not quiet))
    return 0 if all(r.completed == len(r.outcomes) for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
