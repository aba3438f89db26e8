"""`python -m evalkit.gate THRESHOLD... [--sweep ID | --latest] [--baseline ID] [--junit F] [--json F]` — a sweep
as pass/fail for CI (docs/ci.md). Exit 0: every threshold held; 1: one or more failed (one line each); 2: bad input.

An entry point with argparse, not Hydra: its arguments are expressions and files, not config overrides.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree

from evalkit.commandline import EXIT_BAD_INPUT, OneLineParser

EXIT_OK, EXIT_FAILED = 0, 1

PROG = "evalkit.gate"

EPILOG = """\
threshold expressions ([delta:|baseline:]<cell aggregate><op><number>, op one of >= <= > < ==):
  task_completion_pass_at_1>=0.8              every cell of the sweep
  delta:task_completion_pass_at_1>=-0.1       perturbed cell minus its clean twin
  baseline:user_wer_mean<=0.02                cell minus the same cell of --baseline
  latency_response_ms_p95<=1500               latency percentiles (docs/latency.md)

examples:
  python -m evalkit.gate 'task_completion_pass_at_1>=0.8' 'delta:task_completion_pass_at_1>=-0.1'
  python -m evalkit.gate --thresholds gate.yaml --sweep 3f2c... --junit gate.xml --json gate.json
  python -m evalkit.gate 'baseline:task_completion_pass_at_1>=-0.05' --baseline 9a1b... \\
      --tracking-uri http://127.0.0.1:5000 --experiment evalkit

gate.yaml: a list of expressions, or {thresholds: [...]}.
exit status: 0 all thresholds hold, 1 one or more failed (one line each on stdout), 2 bad input.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        PROG,
        description="Turn a sweep's cells into pass/fail for CI: absolute thresholds per cell, deltas against the "
        "clean twin, or deltas against a stored baseline sweep.",
        epilog=EPILOG,
    )
    parser.add_argument("thresholds", nargs="*", metavar="THRESHOLD", help="threshold expressions (see below)")
    parser.add_argument("--thresholds", dest="threshold_file", metavar="FILE", help="YAML file of expressions")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--sweep", metavar="ID", help="the sweep's parent run id")
    which.add_argument("--latest", action="store_true", help="the newest sweep of the experiment (default)")
    parser.add_argument("--baseline", metavar="SWEEP_ID", help="a stored sweep for baseline: thresholds")
    parser.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (one testcase per check)")
    parser.add_argument("--json", dest="json_file", metavar="FILE", help="write a JSON summary")
    parser.add_argument(
        "--tracking-uri",
        default=None,
        help="MLflow store (default: $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db in the current directory)",
    )
    parser.add_argument("--experiment", default="evalkit", help="MLflow experiment (default: evalkit)")
    return parser


def read_thresholds(args: argparse.Namespace) -> list[str]:
    import yaml

    from evalkit.analysis.gate import GateInputError, thresholds_from_yaml

    texts = list(args.thresholds)
    if args.threshold_file:
        path = Path(args.threshold_file)
        try:
            data = yaml.safe_load(path.read_text())
        except OSError as exc:
            raise GateInputError(f"cannot read {path}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise GateInputError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
        texts += thresholds_from_yaml(data, str(path))
    if not texts:
        raise GateInputError("no thresholds: give expressions as arguments or --thresholds FILE")
    return texts


def junit_xml(result: object, suite: str) -> bytes:
    """One testsuite, one testcase per check (classname: the threshold, name: the cell); a failed check carries
    its failure line as the message."""
    checks = result.checks  # type: ignore[attr-defined]
    root = ElementTree.Element(
        "testsuite", name=suite, tests=str(len(checks)), failures=str(sum(not c.passed for c in checks)), errors="0"
    )
    for c in checks:
        case = ElementTree.SubElement(root, "testcase", classname=c.threshold, name=c.cell)
        if not c.passed:
            failure = ElementTree.SubElement(case, "failure", message=c.line())
            failure.text = json.dumps(c.as_dict(), indent=1)
    return ElementTree.tostring(ElementTree.ElementTree(root).getroot(), encoding="utf-8", xml_declaration=True)


def summary(result: object, sweep_id: str | None, baseline_id: str | None, store: str) -> dict[str, object]:
    checks = result.checks  # type: ignore[attr-defined]
    return {
        "passed": result.passed,  # type: ignore[attr-defined]
        "sweep": sweep_id,
        "baseline": baseline_id,
        "store": store,
        "checks": len(checks),
        "failures": sum(not c.passed for c in checks),
        "results": [c.as_dict() for c in checks],
        "gaps": list(result.gaps),  # type: ignore[attr-defined]
    }


def _finite(value: object) -> object:
    """NaN and infinities as null: JSON has no NaN, and a CI reader must not choke on Python's extension."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _write(path: str, data: bytes) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def run(argv: Sequence[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help (0) or a usage error (2, already printed): a status, for run()'s callers
        return int(stop.code or 0)
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    from evalkit.analysis.cells import AnalysisError, load_selection, select_runs
    from evalkit.analysis.gate import Check, GateInputError, check_known, evaluate, parse_threshold
    from evalkit.tracking import resolve_target
    from evalkit.tracking.store import COMPLETE_TAG

    try:
        thresholds = [parse_threshold(t) for t in read_thresholds(args)]
        if any(t.kind == "baseline" for t in thresholds) and not args.baseline:
            raise GateInputError("baseline: thresholds need --baseline SWEEP_ID")
        target = resolve_target(args.tracking_uri, args.experiment, None, Path.cwd())
        if target.tracking_uri.startswith("sqlite:///"):
            db = Path(target.tracking_uri.removeprefix("sqlite:///"))
            if not db.exists():  # reading must not create an empty store and then report "no runs"
                raise GateInputError(f"no MLflow store at {db}: pass --tracking-uri or set MLFLOW_TRACKING_URI")
        sweep = args.sweep or "latest"
        try:
            runs, sweep_id, _ = select_runs(target, sweep)
            selection = load_selection(target, sweep)
            baseline = load_selection(target, args.baseline).cells if args.baseline else None
        except AnalysisError as exc:
            raise GateInputError(str(exc)) from None
        check_known(thresholds, selection.cells + (baseline or []))
    except GateInputError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    result = evaluate(thresholds, selection.cells, {r.run_id for r in runs}, baseline)
    for r in runs:  # a cell that did not finish is a red build, whatever the thresholds
        if r.tags.get("evalkit.kind") == "cell" and r.tags.get(COMPLETE_TAG) != "true":
            why = r.tags.get("evalkit.failure", f"status {r.status}")
            result.checks.append(
                Check("cell finished", "run", "", r.name, r.run_id, None, 0.0, "", False, note=f"did not finish: {why}")
            )
    result.gaps[:0] = selection.gaps
    for check in result.failures:
        print(check.line())
    held = len(result.checks) - len(result.failures)
    print(
        f"{PROG}: {held}/{len(result.checks)} checks held on sweep {sweep_id or 'all'} "
        f"({len(selection.cells)} cells){'; baseline ' + args.baseline if args.baseline else ''}: "
        f"{'PASS' if result.passed else 'FAIL'}"
    )
    if args.junit:
        _write(args.junit, junit_xml(result, f"{PROG} {sweep_id or 'all'}"))
    if args.json_file:
        doc = _finite(summary(result, sweep_id, args.baseline, target.tracking_uri))
        _write(args.json_file, json.dumps(doc, indent=1, allow_nan=False, default=str).encode())
    return EXIT_OK if result.passed else EXIT_FAILED


def main() -> None:
    raise SystemExit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
