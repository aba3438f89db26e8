"""Record each built-in metric's version and code hash in tests/metric_signatures.json.

    python scripts/update_metric_signatures.py               # after bumping Metric(version=...) of changed metrics
    python scripts/update_metric_signatures.py --check       # exit 1 when the file and the code disagree
    python scripts/update_metric_signatures.py --accept NAME # NAME's code changed, its scores cannot (a refactor)

Refuses to record a metric whose code changed while its version did not, unless that metric is named with
--accept: the reviewer then sees the hash change without a version change in the diff of the JSON file.
tests/test_metric_signatures.py fails until the file matches the code (docs/provenance.md "Metric versions").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalkit.metrics.signatures import Signatures, builtin_signatures, signature_problems

REPO = Path(__file__).resolve().parent.parent
SIGNATURES_FILE = REPO / "tests" / "metric_signatures.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on any difference")
    parser.add_argument("--accept", nargs="*", default=[], metavar="NAME", help="code changed, scores cannot")
    parser.add_argument("--file", type=Path, default=SIGNATURES_FILE)
    args = parser.parse_args(argv)
    recorded: Signatures = json.loads(args.file.read_text()) if args.file.exists() else {}
    current = builtin_signatures()
    unknown = sorted(set(args.accept) - set(current))
    if unknown:
        print(f"update_metric_signatures: not a built-in metric: {', '.join(unknown)}", file=sys.stderr)
        return 2
    problems = signature_problems(recorded, current)
    if args.check:
        for line in problems:
            print(f"metric signature: {line}", file=sys.stderr)
        return 1 if problems else 0
    unbumped = [
        name
        for name, new in current.items()
        if name in recorded and name not in args.accept
        if recorded[name]["hash"] != new["hash"] and recorded[name]["version"] == new["version"]
    ]
    if unbumped:
        for name in unbumped:
            print(
                f"update_metric_signatures: {name}: code changed but version is still {current[name]['version']}: "
                f"bump Metric(version=...) or pass --accept {name} if its scores cannot change",
                file=sys.stderr,
            )
        return 1
    args.file.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    for line in problems:
        print(f"recorded: {line}")
    print(f"{len(current)} metric signatures in {args.file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
