"""Check in a real browser that a conversation is readable in the MLflow UI (issue 17, point 5).

Runs a tiny real cell (one airline scenario, one trial) into a fresh SQLite store, starts ``mlflow server`` on
127.0.0.1 over that store, opens the conversation's trace page in headless Chromium and looks for the text of one of
its turns after clicking the turn's span in the trace tree; then opens the cell run's traces view (MLflow's evaluation
view of the run) and looks for the conversation and a score column. Exit code 0: both found ("found turn text" is
printed), 1: not found, 2: cannot check (no chromium, no playwright). Screenshots are left in the work folder.

Needs Debian's chromium (``apt-get install -y chromium``) and Playwright's Python package (``pip install -e
".[browser]"``); Playwright's own browser download is never used (``executable_path``). Nothing else is fetched.

    python scripts/check_mlflow_ui.py [--workdir DIR] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCENARIO = "AL-005"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_cell(workdir: Path, uri: str) -> Path:
    """The tiny real cell, through the CLI a user types. Its folder."""
    out = workdir / "cell"
    cmd = [
        sys.executable, "-m", "evalkit", "+experiment=smoke", f"domain.scenarios=[{SCENARIO}]",
        "simulator.max_user_turns=6", "validation.enabled=false", "progress=false",
        "metrics=[task_completion,user_wer,tool_call_validity]", f"mlflow.tracking_uri={uri}",
        f"hydra.run.dir={out}",
    ]  # fmt: skip
    proc = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"the cell failed:\n{proc.stderr[-3000:]}")
    return out


def start_server(workdir: Path, uri: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
           "--backend-store-uri", uri, "--artifacts-destination", str(workdir / "server-artifacts")]  # fmt: skip
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    stop(proc)
    raise SystemExit(f"mlflow server did not start: {(workdir / 'server.log').read_text()[-2000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)  # the server's own process group (it forks workers)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def the_trace(uri: str) -> tuple[str, str, str, str, str]:
    """(experiment id, run id, trace id, span name, text) of the cell's conversation: the first user turn's
    intended text."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(uri)
    experiment = client.get_experiment_by_name("evalkit")
    if experiment is None:
        raise SystemExit("the cell logged no experiment 'evalkit'")
    traces = client.search_traces(locations=[experiment.experiment_id])
    if len(traces) != 1:
        raise SystemExit(f"expected one trace, found {len(traces)}")
    trace = traces[0]
    span = next(s for s in trace.data.spans if s.name.endswith(" user") and s.inputs.get("intended_text"))
    run_id = trace.info.trace_metadata["mlflow.sourceRun"]
    return experiment.experiment_id, run_id, trace.info.trace_id, span.name, str(span.inputs["intended_text"])


def check_pages(url: str, run_url: str, chromium: str, text: str, span_name: str, workdir: Path) -> tuple[bool, bool]:
    """(the trace page shows the turn's text, the run's evaluation view lists the conversation with a score)."""
    from playwright.sync_api import sync_playwright

    # The turn's text as the UI renders a JSON input: the visible words, without JSON escaping.
    needle = text.strip()[:60]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(url, wait_until="domcontentloaded", timeout=120_000)
            page.get_by_text(span_name, exact=False).first.wait_for(timeout=90_000)  # the trace tree is drawn
            page.get_by_text(span_name, exact=False).first.click()
            try:
                page.get_by_text(needle, exact=False).first.wait_for(timeout=30_000)
                found = True
            except Exception:
                found = needle in page.inner_text("body")
            page.screenshot(path=str(workdir / "trace_page.png"), full_page=True)
            # The cell's run as MLflow's evaluation view shows it: its traces, one row per conversation, with the
            # scores as assessment columns ("task_completion").
            page.goto(run_url, wait_until="domcontentloaded", timeout=120_000)
            try:
                page.get_by_text(SCENARIO, exact=False).first.wait_for(timeout=90_000)
                page.get_by_text("task_completion", exact=False).first.wait_for(timeout=30_000)
                listed = True
            except Exception:
                listed = False
            page.screenshot(path=str(workdir / "run_traces.png"), full_page=True)
            return found, listed
        finally:
            browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, default=None, help="keep the store, cell and screenshot here")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    if not Path(args.chromium).exists():
        print(f"cannot check: no chromium at {args.chromium} (apt-get install -y chromium)")
        return 2
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("cannot check: playwright is not installed (pip install -e '.[browser]')")
        return 2
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="evalkit-ui-"))
    workdir.mkdir(parents=True, exist_ok=True)
    uri = f"sqlite:///{workdir.resolve() / 'mlflow.db'}"
    started = time.perf_counter()
    run_cell(workdir, uri)
    experiment_id, run_id, trace_id, span_name, text = the_trace(uri)
    server, base = start_server(workdir, uri)
    try:
        url = f"{base}/#/experiments/{experiment_id}/traces?selectedEvaluationId={trace_id}&traceId={trace_id}"
        run_url = f"{base}/#/experiments/{experiment_id}/runs/{run_id}/traces"
        found, listed = check_pages(url, run_url, args.chromium, text, span_name, workdir)
    finally:
        stop(server)
    seconds = round(time.perf_counter() - started, 1)
    report = {"trace_url": url, "span": span_name, "text": text, "found": found, "run_url": run_url}
    report |= {"run_lists_conversation_with_scores": listed, "screenshots": str(workdir), "seconds": seconds}
    print(json.dumps(report, indent=1))
    print("found turn text" if found else "turn text NOT found on the trace page")
    print("run lists the conversation with its scores" if listed else "run's traces view does NOT list the scores")
    return 0 if found and listed else 1


if __name__ == "__main__":
    sys.exit(main())
