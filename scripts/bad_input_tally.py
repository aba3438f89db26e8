"""The bad-input tally (issue 16 point 9): run ``python -m evalkit`` on each malformed input and print
``input -> exit code, seconds, the one-line answer``. Every input fails before any cell starts, so this is quick.

    python scripts/bad_input_tally.py            # from the repository root
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cases(tmp: Path) -> dict[str, list[str]]:
    (tmp / "a_file").write_text("x")
    (tmp / "conf" / "experiment").mkdir(parents=True, exist_ok=True)
    (tmp / "conf" / "experiment" / "evil.yaml").write_text("seed: !!python/object:os.system\n  a: 1\n")
    return {
        "unknown scenario id": ["domain.scenarios=[NOPE-1]"],
        "duplicated scenario id": ["domain.scenarios=[AL-001,AL-001]"],
        "missing agent.asr.model folder": ["agent.asr.model=/nonexistent/whisper"],
        "unset judge.api_key_env": ["judge=openai_compatible", "judge.api_key_env=EVALKIT_UNSET_KEY"],
        "+perturb=noise_files without folder": ["+perturb=noise_files"],
        "noise_files folder missing": ["+perturb=noise_files", "perturb.folder=/nonexistent/noise"],
        "YAML with !!python/object": [f"hydra.searchpath=[file://{tmp}/conf]", "+experiment=evil"],
        "unreachable tracking server": [f"mlflow.tracking_uri=http://127.0.0.1:{closed_port()}"],
        "garbage tracking URI": ["mlflow.tracking_uri=garbage"],
        "empty experiment name": ["mlflow.experiment=''"],
        "SQLite URI in a missing folder": [f"mlflow.tracking_uri=sqlite:///{tmp}/typo/mlflow.db"],
        "unwritable artifact location": [f"mlflow.artifact_location={tmp}/a_file/artifacts"],
        "sweep perturb.snr_db=500,15": ["+perturb=noise_cafe", "perturb.snr_db=500,15", "-m"],
        "+judge.api_key=...": ["+judge.api_key=sk-abcdef"],
        "credentials in judge.base_url": ["judge=openai_compatible", "judge.base_url=http://u:sk-abcdef@h/v1"],
    }


def run(tmp: Path, overrides: list[str], cwd: Path) -> tuple[int, float, str]:
    store = (
        []
        if any(o.startswith("mlflow.tracking_uri=") for o in overrides)
        else [f"mlflow.tracking_uri=sqlite:///{tmp}/m.db"]
    )
    args = [f"hydra.run.dir={tmp}/run", f"hydra.sweep.dir={tmp}/sweep", *store, *overrides]
    started = time.monotonic()
    env = os.environ | {"PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "evalkit", *args], cwd=cwd, env=env, capture_output=True, text=True)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    answer = lines[0] if len(lines) == 1 else f"{len(lines)} lines: {' | '.join(lines)[:300]}"
    return proc.returncode, time.monotonic() - started, answer


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        runs = [(label, overrides, tmp) for label, overrides in cases(tmp).items()]
        for label, overrides, cwd in [*runs, ("read-only launch directory", [], Path("/proc"))]:
            code, seconds, answer = run(tmp, overrides, cwd)
            print(f"{label} -> exit {code}, {seconds:.1f} s: {answer}", flush=True)


if __name__ == "__main__":
    main()
