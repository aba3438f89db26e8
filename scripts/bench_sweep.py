"""Sweep throughput on this machine: cells per minute with one decoder thread (the issue's baseline), sequential with
the default threads, through joblib(2) and with workers=2 inside each cell; the Hydra + MLflow overhead per cell
beyond the conversations themselves; and the decode-only ceiling of two cores, measured in the same run.

    python scripts/bench_sweep.py [--cells 4] [--trials 2] [--scenario AL-005] [--modes sequential,joblib(2)]
                                  [--cached] [--decode-clips 12]

Transcripts are decoded for real (``agent.asr.cache_dir=null``): a warm transcript cache would leave the decoder,
the work the cores are shared for, out of the comparison; ``--cached`` keeps the default cache.

Each mode runs the same sweep (``--cells`` seeds of one scenario x ``--trials`` trials, twins and reuse off) in a
fresh folder with its own SQLite store. Every mode's speed-up is given against both baselines: one process with one
decoder thread (``agent.asr.cpu_threads=1``: "one core's worth of Whisper", the issue's premise) and one process
with the default ``auto`` threads (both cores), which sequential sweeps use today.

The overhead per cell is read from the store of the ``sequential`` sweep: a cell's run time minus its ``wall_s``
(the conversations), split into its conversation traces (``trace_log_s``) and the rest, plus the gap between one
cell's end and the next one's start (Hydra composing and launching the job, the progress step), averaged over the
cells after the first (the first one also loads Whisper and the store).

The decode-only ceiling (``--decode-clips`` eSpeak sentences through Whisper tiny.en int8, model load excluded):
one process with 1 thread, one with 2 threads, and two 1-thread processes side by side; what two processes can gain
at most when the work is decoding, on this machine, now.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlflow.tracking import MlflowClient

REPO = Path(__file__).resolve().parents[1]


def sweep(folder: Path, cells: int, trials: int, scenario: str, *extra: str) -> float:
    """Wall seconds of one sweep of ``cells`` seeds in ``folder`` (its own store)."""
    seeds = ",".join(str(s) for s in range(cells))
    command = [
        sys.executable,
        "-m",
        "evalkit",
        "+experiment=smoke",
        f"domain.scenarios=[{scenario}]",
        f"trials={trials}",
        f"seed={seeds}",
        "twins=false",
        "reuse=false",
        "progress=false",
        *extra,
        "-m",
    ]
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    run = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"sweep {' '.join(extra) or 'sequential'} failed:\n{run.stderr[-2000:]}")
    return wall


def cell_runs(folder: Path) -> list:
    client = MlflowClient(f"sqlite:///{folder / 'mlflow.db'}")
    experiment = client.get_experiment_by_name("evalkit")
    runs = client.search_runs([experiment.experiment_id], "tags.`evalkit.kind` = 'cell'")
    return sorted(runs, key=lambda r: r.info.start_time)


def overhead_per_cell(folder: Path) -> dict[str, float]:
    """Seconds per cell beyond its conversations, from the store: ``inside`` the run (``traces`` of it), ``between``
    one cell's end and the next one's start; means over the cells after the first."""
    runs = cell_runs(folder)
    later = runs[1:] if len(runs) > 1 else runs
    inside = [(r.info.end_time - r.info.start_time) / 1000.0 - r.data.metrics["wall_s"] for r in later]
    traces = [r.data.metrics.get("trace_log_s", 0.0) for r in later]
    gaps = [(b.info.start_time - a.info.end_time) / 1000.0 for a, b in itertools.pairwise(runs)][1:] or [float("nan")]
    return {
        "inside": statistics.mean(inside),
        "traces": statistics.mean(traces),
        "between": statistics.mean(gaps),
        "conversations": statistics.mean(r.data.metrics["conversations"] for r in later),
    }


DECODE_WORKER = """
import sys, time
from evalkit.speech import EspeakTTS, WhisperASR
sentences, threads = sys.argv[1].split("|"), int(sys.argv[2])
tts = EspeakTTS("en-us")
clips = [tts.synthesize(s) for s in sentences]
asr = WhisperASR(cpu_threads=threads)
asr.transcribe(*clips[0])  # warm-up: first-call allocations are not decoding
sys.stdout.write("ready\\n"); sys.stdout.flush(); sys.stdin.readline()  # start together
started = time.perf_counter()
for samples, rate in clips:
    asr.transcribe(samples, rate)
print(time.perf_counter() - started, flush=True)
"""


def decode_seconds(sentences: list[str], threads: list[int]) -> list[float]:
    """Seconds each process (one per entry of ``threads``, side by side) takes to decode ``sentences``."""
    env = os.environ | {"PYTHONPATH": str(REPO)}
    joined = "|".join(sentences)
    command = [sys.executable, "-c", DECODE_WORKER, joined]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True, "env": env}
    procs = [subprocess.Popen([*command, str(n)], **pipes) for n in threads]  # type: ignore[call-overload]
    for proc in procs:  # every model loaded and warm before any decoding starts
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    return [float(proc.communicate()[0].strip().splitlines()[-1]) for proc in procs]


def decode_ceiling(clips: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_speech import SENTENCES  # the speech benchmark's sentences (scripts/ is not a package)

    sentences = (SENTENCES * (clips // len(SENTENCES) + 1))[:clips]
    (one,) = decode_seconds(sentences, [1])
    (two_threads,) = decode_seconds(sentences, [2])
    pair = decode_seconds(sentences, [1, 1])
    slowest = max(pair)
    print(
        f"decode-only ceiling ({clips} eSpeak sentences, tiny.en int8): one process 1 thread {one:.1f} s, "
        f"2 threads {two_threads:.1f} s, two 1-thread processes side by side {pair[0]:.1f} s / {pair[1]:.1f} s -> "
        f"two processes do {2 * one / slowest:.2f}x the decoding of one 1-thread process, "
        f"{2 * two_threads / slowest:.2f}x that of one 2-thread process",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", type=int, default=4)
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--scenario", default="AL-005")
    parser.add_argument(
        "--modes",
        default="sequential(1 thread),sequential,joblib(2),workers=2",
        help="comma-separated, in this order",
    )
    parser.add_argument("--cached", action="store_true", help="keep the transcript cache (default: decode)")
    parser.add_argument("--decode-clips", type=int, default=12, help="0: no decode-only ceiling")
    args = parser.parse_args()
    modes = {
        "sequential(1 thread)": ("agent.asr.cpu_threads=1",),
        "sequential": (),
        "joblib(2)": ("hydra/launcher=joblib", "hydra.launcher.n_jobs=2"),
        "workers=2": ("workers=2",),
    }
    modes = {name: modes[name] for name in args.modes.split(",")}
    cache = () if args.cached else ("agent.asr.cache_dir=null",)
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results: dict[str, float] = {}
    overhead: dict[str, float] | None = None
    with tempfile.TemporaryDirectory(prefix="evalkit-bench-sweep-") as tmp:
        for name, extra in modes.items():
            folder = Path(tmp) / "".join(c if c.isalnum() else "_" for c in name)
            folder.mkdir()
            wall = sweep(folder, args.cells, args.trials, args.scenario, *cache, *extra)
            results[name] = args.cells / (wall / 60.0)
            print(
                f"{name:>20}: {args.cells} cells x {args.trials} conversations in {wall:6.1f} s = "
                f"{results[name]:5.2f} cells/min",
                flush=True,
            )
            if name == "sequential":
                overhead = overhead_per_cell(folder)
    for baseline in ("sequential(1 thread)", "sequential"):
        if baseline in results:
            ratios = ", ".join(f"{n} {r / results[baseline]:.2f}x" for n, r in results.items() if n != baseline)
            if ratios:
                print(f"speed-up vs {baseline}: {ratios} (target >= 1.7x on 2 cores)")
    if overhead is not None:
        o = overhead
        rest = o["inside"] - o["traces"]
        print(
            f"Hydra + MLflow overhead per cell (sequential, cells after the first): {o['inside']:.3f} s inside the "
            f"run = {o['traces']:.3f} s traces ({o['conversations']:.0f} conversations) + {rest:.3f} s params, "
            f"artifacts, audio upload, completion; + {o['between']:.3f} s between cells (job composition and launch, "
            f"progress) = {o['inside'] + o['between']:.3f} s; without the traces {rest + o['between']:.3f} s "
            "(target <= 0.1 s)"
        )
    if args.decode_clips > 0:
        decode_ceiling(args.decode_clips)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
