"""Print the success metrics of a run's conversations (one row per scenario) and exit 1 if any conversation failed
a success criterion or was not scored where it should be.

    python examples/outage_line/summary.py <run folder> [--unscored-judge]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

KINDS = ("success_db", "success_tool_calls", "success_transcript", "success_judge", "success_overall")


def cell(metric: dict | None) -> str:
    if metric is None or metric.get("score") is None:
        return "unscored"
    return "pass" if metric["score"] == 1.0 else f"FAIL ({metric['score']:.2f})"


def main(folder: Path, judge_unscored: bool) -> int:
    records = sorted(p for p in folder.rglob("records/*.json"))
    if not records:
        print(f"no conversation records under {folder}", file=sys.stderr)
        return 1
    print(f"{'scenario':<22}" + "".join(f"{k.removeprefix('success_'):<14}" for k in KINDS))
    bad = 0
    reasons: dict[str, str] = {}  # the first reason per metric (they differ only in counts)
    for path in records:
        data = json.loads(path.read_text())
        metrics = data["metrics"]
        print(f"{data['conversation']['scenario_id']:<22}" + "".join(f"{cell(metrics.get(k)):<14}" for k in KINDS))
        for kind in KINDS:
            value = metrics.get(kind) or {}
            success = data["conversation"]["success"] or {}
            declared = kind == "success_overall" or kind.removeprefix("success_") in success
            if value.get("score") is None and declared:
                reason = (value.get("details") or {}).get("reason", "")
                reasons.setdefault(kind, reason)
                if not (judge_unscored and kind in ("success_judge", "success_overall")):
                    bad += 1
            elif value.get("score") is not None and value["score"] < 1.0:
                bad += 1
                print(f"    {kind}: {json.dumps((value.get('details') or {}).get('failures') or value.get('details'))}")
    for kind, reason in reasons.items():
        print(f"unscored {kind}: {reason}")
    print(f"{len(records)} conversations, {'all success criteria met' if not bad else f'{bad} failures'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), "--unscored-judge" in sys.argv[2:]))
