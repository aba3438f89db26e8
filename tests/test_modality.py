"""MM-τ-p²'s modality axis: `modality=text` runs the same cell over a perfect text channel, paired with its voice
twin; the analysis reports the modality gap (voice / text ratio, voice − text difference)."""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.config.schema import ConfigError, cell_key, identity_payload, twin_config
from tests.conftest import REPO
from tests.test_axes import composed
from tests.test_end_to_end import run_evalkit
from tests.test_preflight import assert_no_cell_started, preflight_refusal


def test_text_cells_refuse_audio_settings_and_agents_without_a_text_path():
    with pytest.raises(ConfigError, match=r"modality=text has no audio, so \+perturb=noise_cafe cannot apply"):
        composed("modality=text", "+perturb=noise_cafe")
    with pytest.raises(ConfigError, match="modality=text has no audio, so voice=accent_french cannot apply"):
        composed("modality=text", "voice=accent_french")
    with pytest.raises(ConfigError, match=r"agent=twilio_ws .* has no text path"):
        composed("modality=text", "agent=twilio_ws")


def test_voice_cells_keep_their_keys_and_the_text_twin_is_the_voice_cell():
    voice, text = composed(), composed("modality=text")
    assert "modality" not in identity_payload(voice)  # the axis changed no existing cell key
    assert identity_payload(text)["modality"] == {"name": "text"} and cell_key(text) != cell_key(voice)
    assert twin_config(text).modality.name == "voice" and cell_key(twin_config(text)) == cell_key(voice)
    # what varies between a text cell's trials: the caller's words and timing, never a voice or the agent's ears
    assert text.random_sources() == [s for s in voice.random_sources() if s.startswith(("caller wording", "reaction"))]
    assert text.random_sources() and len(voice.random_sources()) > len(text.random_sources())


def test_a_text_audio_override_is_one_line_before_any_cell(tmp_path):
    [line] = preflight_refusal(tmp_path, "modality=text", "+perturb=noise_cafe")
    assert "modality=text has no audio" in line
    assert_no_cell_started(tmp_path)


def _report_rows(path: Path) -> list[dict[str, str]]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_text_cell_with_its_voice_twin_and_the_modality_gap_in_the_report(tmp_path):
    run = run_evalkit(
        tmp_path, "domain.scenarios=[AL-001,AL-005]", "trials=1", "modality=text", "progress=false",
        "metrics=[task_completion,user_wer,key_entity_accuracy]", "-m",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    records = {}
    for path in tmp_path.glob("multirun/**/records/*.json"):
        cell_dir = path.parent.parent
        modality = yaml.safe_load((cell_dir / "config.yaml").read_text())["modality"]["name"]
        records.setdefault(modality, []).append((path, json.loads(path.read_text())))
    assert set(records) == {"voice", "text"}
    for path, record in records["text"]:
        assert not (path.parent.parent / "audio").exists()  # no audio in a text cell
        heard = [t for t in record["conversation"]["turns"] if t["role"] == "user" and t["heard_text"] is not None]
        assert heard and all(t["heard_text"] == t["intended_text"] for t in heard)  # a perfect channel
    first_caller = {
        modality: sorted(
            (r["conversation"]["scenario_id"], next(t["intended_text"] for t in r["conversation"]["turns"][1:]
                                                    if t["role"] == "user"))
            for _, r in recs
        )
        for modality, recs in records.items()
    }  # fmt: skip
    assert first_caller["voice"] == first_caller["text"]  # the same caller seeds: the same first words

    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"} | {"PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "evalkit.analyze", "plots=false", f"output_dir={tmp_path / 'analysis'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [r for r in _report_rows(tmp_path / "analysis" / "deltas.csv") if r["condition"] == "text"]
    assert {r["metric"] for r in rows} >= {"task_completion", "user_wer"}
    report = (tmp_path / "analysis" / "report.md").read_text()
    assert "## Modality gap (voice against text, MM-τ-p²)" in report
    for row in rows:
        voice, text = float(row["clean_mean"]), float(row["perturbed_mean"])
        ratio = f"{voice / text:.3f}" if text else "–"
        line = (
            f"| {row['metric']} | cascade_local | airline | {row['n_scenarios']} | {voice:.3f} | {text:.3f} | {ratio} |"
        )
        assert line in report
        assert math.isclose(voice - text, -float(row["delta"]), abs_tol=1e-9)
    wer = next(r for r in rows if r["metric"] == "user_wer")
    assert float(wer["perturbed_mean"]) == 0.0  # the text channel hears every word
