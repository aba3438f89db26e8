"""An offline stand-in for an LLM judge, for run.sh and CI: evalkit's local OpenAI-compatible test server
(tests/openai_server.py) answering the ``success_judge`` prompt by a fixed rule.

The rule: a criterion passes when every phrase it quotes in double quotes ("6 pm") appears in a line the agent said;
a criterion that quotes nothing fails ("the stand-in judges quoted evidence only"). That is a real function of the
call (a broken agent fails it), not a judgment of meaning: with a real judge, run with
``judge.base_url=... judge.model=...`` instead. Prints ``ready <base_url>`` and serves until killed.

    python examples/outage_line/local_judge.py      # (the repository root on PYTHONPATH)
"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import sys
import threading

from tests.openai_server import OpenAIStubServer, RecordedRequest, Reply


def verdicts(criteria: list[str], agent_lines: list[tuple[str, str]]) -> list[dict[str, object]]:
    rows = []
    for i, criterion in enumerate(criteria, start=1):
        quoted = re.findall(r'"([^"]+)"', criterion)
        if not quoted:
            rows.append({"criterion_id": i, "passed": False, "reason": "the stand-in judges quoted evidence only"})
            continue
        found = {q: next((turn for turn, line in agent_lines if q.lower() in line.lower()), None) for q in quoted}
        missing = [q for q, turn in found.items() if turn is None]
        reason = (
            f"no agent line says {missing[0]!r}"
            if missing
            else "; ".join(f"the agent says {q!r} in turn {turn}" for q, turn in found.items())
        )
        rows.append({"criterion_id": i, "passed": not missing, "reason": reason})
    return rows


def answer(request: RecordedRequest) -> Reply:
    user = request.body["messages"][-1]["content"]
    if "## Criteria" not in user:
        return Reply(status=400, content="the stand-in judge answers the success_judge prompt only")
    criteria_text, _, trace = user.partition("## Transcript")
    criteria = [m.group(1) for m in re.finditer(r"^\d+\. (.*)$", criteria_text, re.M)]
    agent_lines = [(m.group(1), m.group(2)) for m in re.finditer(r"^\[turn (\d+)\] assistant: (.*)$", trace, re.M)]
    return Reply(content=json.dumps({"criteria": verdicts(criteria, agent_lines)}))


def main() -> None:
    server = OpenAIStubServer([answer])
    with server:
        print(f"ready {server.base_url}", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
