"""The conversation viewer and the cell run's MLflow hygiene (issue 30 points 5 and 7), on one real tiny cell pair
run once in process (a noise_cafe cell and its clean twin, as a single run lays them out: the twin in
``clean_twin/``) against a real SQLite MLflow store: the page's lanes, turns, effects, tool calls, scores and twin
pairing, its escaping of agent text, the CLI; run names, descriptions, the artifacts uploaded once and no empty
file. The browser test drives Debian's chromium through playwright and skips where either is absent."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from evalkit.cell import run_cell
from evalkit.config.schema import twin_config
from evalkit.tracking import resolve_target
from evalkit.view import PAGE_FILE, load_cell_dir, render_page
from tests.test_traces import SCENARIO, tiny_cell


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One noise_cafe cell and its clean twin (one conversation each; it calls a tool), run once for the module."""
    tmp = tmp_path_factory.mktemp("viewer")
    uri = f"sqlite:///{tmp / 'mlflow.db'}"
    config = tiny_cell(uri, "+perturb=noise_cafe")  # six caller turns: the booking is looked up
    target = resolve_target(uri, config.mlflow.experiment, None, tmp)
    out = tmp / "cell"
    (out / "__main__.log").parent.mkdir(parents=True)
    (out / "__main__.log").write_text("")  # what Hydra leaves in a job folder when nothing was logged to it
    twin = run_cell(twin_config(config), target, out / "clean_twin")
    cell = run_cell(config, target, out)
    return {"tmp": tmp, "uri": uri, "out": out, "cell": cell, "twin": twin, "client": MlflowClient(uri)}


def _strip_audio(page: str) -> str:
    return re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,…", page)


def test_the_runner_writes_a_viewer_beside_the_twin_and_logs_it(pair: dict) -> None:
    client, out = pair["client"], pair["out"]
    page = _strip_audio((out / PAGE_FILE).read_text())
    assert "clean twin: clean|airline|" in page  # paired with the twin run found by its cell key
    names = {a.path for a in client.list_artifacts(pair["cell"].run_id)}
    assert PAGE_FILE in names  # an artifact of the cell run
    assert client.get_run(pair["cell"].run_id).data.metrics["viewer_s"] > 0
    # every lane of both conversations embedded (the page plays alone, downloaded or previewed)
    assert page.count('src="data:audio/ogg;base64,') == 4 and "linked" not in page


def test_the_page_shows_lanes_turns_effects_tools_scores_and_the_twin(pair: dict) -> None:
    cell, twin = load_cell_dir(pair["out"]), load_cell_dir(pair["out"] / "clean_twin")
    page = render_page(cell, twin, pair["out"], embed_bytes=0)  # no budget: lanes link the WAVs beside the page
    record = cell.records[(SCENARIO, 0)]
    conv = record.conversation
    assert page.count('data-role="cell"') == 1 and page.count('data-role="twin"') == 1
    for lane in ("caller", "agent"):
        assert page.count(f'<audio data-lane="{lane}"') == 2  # this cell's and the twin's
    assert f'src="audio/{SCENARIO}_t0/user_heard.wav"' in page
    assert f'src="clean_twin/audio/{SCENARIO}_t0/assistant.wav"' in page
    for turn in conv.turns:
        assert html.escape(turn.intended_text) in page
        if turn.heard_text:
            assert html.escape(turn.heard_text) in page  # what the agent heard, beside what was said
    assert page.count('data-effect="noise"') == len(conv.effects) > 0
    assert 'class="effect"' in page  # the effects row of the lanes
    calls = conv.tool_calls
    assert calls and all(f'data-tool="{c.name}"' in page for c in calls)
    assert html.escape(next(iter(calls[0].arguments.values()))) in page
    for name in record.metrics:
        assert f'data-metric="{name}"' in page
    delta = record.metrics["user_wer"].score - twin.records[(SCENARIO, 0)].metrics["user_wer"].score
    assert f"{delta:+.3f}" in page


def test_agent_text_is_inert_in_the_page(pair: dict) -> None:
    cell = load_cell_dir(pair["out"])
    record = cell.records[(SCENARIO, 0)]
    turn = next(t for t in record.conversation.turns if t.role == "assistant")
    turn.intended_text = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    record.conversation.tool_calls[0].arguments["note"] = "</pre><script>bad()</script>"
    page = render_page(cell, None, pair["out"], embed_bytes=0)
    assert "<script>alert" not in page and "<img src=x" not in page and "<script>bad" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own, allowed by hash in its Content-Security-Policy
    assert "script-src 'sha256-" in html.unescape(page)


def test_the_view_command_rebuilds_from_a_run_id_and_refuses_bad_input(pair: dict, tmp_path: Path) -> None:
    from evalkit.view.__main__ import main, run

    out = run([pair["cell"].run_id, "--tracking-uri", pair["uri"], "-o", str(tmp_path / "v.html"), "--embed-mb", "0.1"])
    page = _strip_audio(out.read_text())
    assert "clean twin: clean|airline|" in page and 'data-role="twin"' in page
    assert "left out" in page  # over the budget, a downloaded (temporary) twin is never linked
    argv = sys.argv
    try:
        sys.argv = ["evalkit.view", str(tmp_path / "nothing")]
        with pytest.raises(SystemExit) as exit_info:
            main()
    finally:
        sys.argv = argv
    assert exit_info.value.code == 2


def test_cell_runs_lead_with_the_condition_and_say_what_they_are(pair: dict) -> None:
    client = pair["client"]
    cell, twin = client.get_run(pair["cell"].run_id), client.get_run(pair["twin"].run_id)
    assert cell.info.run_name.startswith("noise_cafe|airline|") and twin.info.run_name.startswith("clean|airline|")
    note = cell.data.tags["mlflow.note.content"]
    assert "condition noise_cafe (noise at 15 dB SNR)" in note and "1 scenario(s) x 1 trial(s)" in note
    assert "clean condition" in twin.data.tags["mlflow.note.content"]
    # the twin-compare trace view (docs/running.md): this conversation's trace and its clean twin's, by tags
    trace_filter = f"tags.scenario = '{SCENARIO}' AND tags.trial = '0'"
    traces = client.search_traces(locations=[cell.info.experiment_id], filter_string=trace_filter)
    assert sorted(t.info.tags["condition"] for t in traces) == ["clean", "noise_cafe"]
    twin_key = next(t.info.tags["twin_key"] for t in traces if t.info.tags["condition"] == "noise_cafe")
    assert twin_key == cell.data.tags["twin_key"] == twin.data.tags["cell_key"]


def test_each_wav_is_stored_once_and_no_empty_file_is_uploaded(pair: dict) -> None:
    cell_root = Path(pair["client"].get_run(pair["cell"].run_id).info.artifact_uri.removeprefix("file://"))
    twin_root = Path(pair["client"].get_run(pair["twin"].run_id).info.artifact_uri.removeprefix("file://"))
    store = cell_root.parents[1]
    wavs = sorted(store.rglob("*.wav"))
    assert len(wavs) == 8 and {w.name for w in wavs} == {"user_clean.wav", "user_heard.wav", "assistant.wav",
                                                         "mixed.wav"}  # fmt: skip
    assert not (cell_root / "clean_twin").exists() and (twin_root / "audio").is_dir()
    # on a local store the cell folder and the store share each WAV's bytes (a hard link, not a copy)
    for wav in (pair["out"] / "audio").rglob("*.wav"):
        stored = cell_root / wav.relative_to(pair["out"])
        assert stored.stat().st_ino == wav.stat().st_ino and wav.stat().st_nlink == 2, wav
    assert (cell_root / "records" / f"{SCENARIO}_t0.json").stat().st_nlink == 1  # records are copies
    assert (pair["out"] / "__main__.log").exists() and not (cell_root / "__main__.log").exists()
    assert all(p.stat().st_size > 0 for p in store.rglob("*") if p.is_file())


@pytest.mark.slow
def test_the_page_plays_and_seeks_in_headless_chromium(pair: dict) -> None:
    """Open the runner's page from disk, check the turns render, the embedded lanes decode, play moves the
    playhead, a turn's ▶ seeks both lanes, and a planted <script> never runs."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("no chromium installed (apt-get install -y chromium); not part of the default set-up")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[browser]'")
    cell = load_cell_dir(pair["out"])
    turn = next(t for t in cell.records[(SCENARIO, 0)].conversation.turns if t.role == "assistant")
    turn.intended_text += "<script>window.pwned = 1</script>"
    path = pair["tmp"] / "planted.html"
    path.write_text(render_page(cell, load_cell_dir(pair["out"] / "clean_twin"), pair["tmp"], 40_000_000))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--autoplay-policy=no-user-gesture-required"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        assert page.locator(".conv").count() == 2 and page.locator("tr[data-turn]").count() > 4
        page.wait_for_function(
            "() => [...document.querySelectorAll('audio')].every(a => a.readyState >= 1)", timeout=20000
        )
        durations = page.evaluate("[...document.querySelectorAll('audio')].map(a => a.duration)")
        assert len(durations) == 4 and all(d > 1 for d in durations)
        page.locator(".conv[data-role=cell] tr.assistant button[data-seek]").nth(1).click()
        at = float(
            page.locator(".conv[data-role=cell] tr.assistant button[data-seek]").nth(1).get_attribute("data-seek")
        )
        times = page.evaluate("[...document.querySelectorAll('.conv[data-role=cell] audio')].map(a => a.currentTime)")
        assert all(abs(t - at) < 0.5 for t in times), (times, at)
        page.locator(".conv[data-role=cell] button.play").click()
        page.wait_for_function("() => document.querySelector('.conv[data-role=cell] audio').currentTime > "
                               f"{at + 0.2}", timeout=20000)  # fmt: skip
        assert float(page.locator(".conv[data-role=cell] .playhead").get_attribute("x1")) > 0
        assert page.evaluate("window.pwned") is None and not errors, errors
        browser.close()


def test_the_sweep_parent_records_the_command_line_overrides(tmp_path: Path) -> None:
    """At on_multirun_start Hydra's HydraConfig is not set yet: the overrides come from the composed config."""
    from hydra import compose, initialize_config_dir

    from evalkit.cli.callbacks import TrackingCallback, close_sweep
    from tests.test_config import CONF_DIR

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    overrides = ["+perturb=noise_cafe", "domain.limit=2", f"mlflow.tracking_uri={uri}"]
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", [*overrides, f"hydra.sweep.dir={tmp_path / 'sweep'}"], return_hydra_config=True)
    TrackingCallback().on_multirun_start(cfg)
    close_sweep(cfg, None)
    (parent,) = MlflowClient(uri).search_runs(["1"])
    assert parent.data.params["overrides"] == " ".join(overrides)  # hydra.* overrides are not the task's
    assert "+perturb=noise_cafe domain.limit=2" in parent.data.tags["mlflow.note.content"]


def test_a_long_lane_encodes_without_crashing_the_process(tmp_path: Path) -> None:
    """libsndfile's Vorbis encoder crashed the whole run (SIGSEGV) on one write of a 160 s lane: the lane is encoded
    in blocks, in a child process here so that a crash fails this test instead of killing the suite."""
    import numpy as np
    import soundfile as sf

    wav = tmp_path / "long.wav"
    sf.write(wav, (np.random.default_rng(0).standard_normal(16_000 * 160) * 0.1).astype("float32"), 16_000)
    script = (
        "from pathlib import Path\nfrom evalkit.view.audio import encode_vorbis\n"
        f"print(len(encode_vorbis(Path({str(wav)!r}))))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and int(proc.stdout) > 100_000, (proc.returncode, proc.stderr[-1000:])
