"""Issue 17, point 1: trials are stochastic and seeded. Two trials of a clean conversation differ (wording, reaction
time, speaking rate and pitch drawn within the persona's bounds), the same seed replays a trial bit for bit, clean
pass^k <= pass@1 with strict inequality possible, a jitter outside the persona's bounds is one config error, and a
cell with nothing random runs one trial."""

from __future__ import annotations

import logging
import re
from datetime import date
from pathlib import Path

import numpy as np
import pytest
import yaml
from mlflow.tracking import MlflowClient

from evalkit.cell import plan_cell, run_cell, run_cell_conversations
from evalkit.cell.run import ConversationRunner
from evalkit.config.schema import ConfigError, PersonaConfig, validate_config
from evalkit.config.variation import PersonaVariationConfig, jittered_rate
from evalkit.domains import DOMAINS
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics import aggregate_cell
from evalkit.metrics.task_completion import task_completion
from evalkit.simulator import paraphrase
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.scripted.style import PersonaStyle
from evalkit.speech.voices import Prosody
from evalkit.spoken import parse_code, parse_date, parse_name, parse_seat_preference, parse_yes_no
from evalkit.text_dialogue import run_text_dialogue, transcript
from evalkit.tracking import resolve_target
from tests.conftest import CONF_DIR
from tests.test_config import composed
from tests.test_launch_equivalence import _compare_module

_strip = _compare_module()._strip  # the record checker's rule for timing fields (measured compute time moves them)
PERSONAS = sorted(p.stem for p in (CONF_DIR / "persona").glob("*.yaml"))
# Found by search (airline, k=3, the default persona on the neutral voice, stack below): a scenario whose trials split,
# one failing the change of day and two completing it. Searched again on 28 Nov 2026 when the caller began to say
# flight numbers and times as a person does (AL-001..AL-008 then gave no split: each passes or fails all three), and
# again when the TTS front end began to say a spelled A as the letter (AL-009's code 4HZDAL: seed 0 then split 1 of 3,
# seeds 1 and 3 too; seed 2 splits 2 of 3). If the wording tables, the jitter draws or the offline stack change,
# search again (tools: run ConversationRunner over a few scenarios and seeds).
SPLIT_SCENARIO, SPLIT_SEED = "AL-009", 2


def _persona_config(name: str) -> PersonaConfig:
    return PersonaConfig.model_validate(yaml.safe_load((CONF_DIR / "persona" / f"{name}.yaml").read_text()))


def _user_turns(record: dict) -> list[dict]:
    return [t for t in record["conversation"]["turns"] if t["role"] == "user"]


# -- wording ---------------------------------------------------------------------------------------------------


def test_paraphrases_keep_what_the_agent_parses() -> None:
    """Every alternative of a fixed sentence means what the script's sentence means to the agent's parsers, and
    the words put around an entity never change the entity the agent takes from the turn."""
    for original, options in paraphrase.SENTENCES.items():
        assert options[0] == original and len(options) >= 2
        for option in options:
            assert parse_yes_no(option) == parse_yes_no(original), option
            assert not re.search(r"\d", option) and parse_code(option) is None, option
    for label in paraphrase.CODE_LABELS:
        for code in ("WK2EXB", "7HQ4TZ"):
            assert parse_code(f"{label[:1].upper()}{label[1:]} {' '.join(code)}.") == code
    today = date(2026, 6, 15)
    for prefix in paraphrase.ANSWER_PREFIXES:
        assert parse_name(f"{prefix}Brooks.") == "Brooks"
        assert parse_date(f"{prefix}June 22nd.", today) == parse_date("June 22nd.", today)
        assert parse_seat_preference(f"{prefix}window, please.") == "window"
        assert parse_yes_no(f"{prefix}Brooks.") is not False  # no negation slips in with the words around a value


@pytest.mark.slow
@pytest.mark.parametrize("domain", sorted(DOMAINS.names()))
def test_every_scenario_still_completes_with_a_perfect_ear_whatever_the_wording(domain: str) -> None:
    """The shipped default persona paraphrases: over several trials of every scenario, a perfect ear still hears
    everything the decision tree needs (the wording varies, the task does not)."""
    spec = PersonaSpec.from_config(_persona_config("default"))
    assert spec.paraphrase and spec.reaction_jitter_ms > 0
    failed, worded = [], set()
    for scenario in load_scenarios(domain):
        for trial in range(4):
            conversation = run_text_dialogue(scenario, persona=spec, rng=np.random.default_rng(trial))
            if not task_completion(conversation).passed:
                failed.append((scenario.id, trial, transcript(conversation)))
            worded.add((scenario.id, tuple(t.intended_text for t in conversation.turns if t.role == "user")))
    assert failed == []
    assert len(worded) > 2 * len(load_scenarios(domain))  # trials of a scenario are worded differently


def test_without_variation_the_default_persona_draws_nothing() -> None:
    """The deterministic claim behind 'one trial instead of k': variation off, every seed says the same."""
    config = _persona_config("default").model_copy(update={"variation": PersonaVariationConfig()})
    spec = PersonaSpec.from_config(config)
    scenario = load_scenarios("airline")[1]
    runs = {
        tuple(transcript(run_text_dialogue(scenario, persona=spec, rng=np.random.default_rng(seed))))
        for seed in range(5)
    }
    assert len(runs) == 1
    assert validate_config(composed("persona.variation.enabled=false")).random_sources() == []


# -- bounds ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PERSONAS)
def test_draws_stay_within_the_persona_bounds(name: str) -> None:
    persona = _persona_config(name)
    config = validate_config(composed(f"persona={name}"))
    bounds, variation = persona.bounds, persona.variation
    assert variation.enabled and variation.rate_jitter_pct > 0 and variation.pitch_jitter > 0
    prosody = Prosody.from_persona(persona)
    style = PersonaStyle(PersonaSpec.from_config(persona), np.random.default_rng(1))
    for speaker, (rate, pitch) in config.voice.nominal_prosody(persona).items():
        rng = np.random.default_rng(0)
        drawn = [prosody.draw(rate, pitch, rng) for _ in range(400)]
        rates, pitches = {r for r, _ in drawn}, {p for _, p in drawn}
        assert bounds.rate_wpm[0] <= min(rates) and max(rates) <= bounds.rate_wpm[1], speaker
        assert bounds.pitch[0] <= min(pitches) and max(pitches) <= bounds.pitch[1], speaker
        assert min(rates) >= jittered_rate(rate, variation.rate_jitter_pct)[0] and len(rates) > 5  # really varies
        assert len(pitches) == 2 * variation.pitch_jitter + 1
    reactions = [config.simulator.user_reaction_ms + style.reaction_jitter() for _ in range(400)]
    assert bounds.reaction_ms[0] <= min(reactions) and max(reactions) <= bounds.reaction_ms[1]
    assert np.ptp(reactions) > variation.reaction_jitter_ms  # spread over the range, not one value


@pytest.mark.parametrize(
    ("override", "knob"),
    [
        ("persona.variation.rate_jitter_pct=30", "rate_jitter_pct=30"),
        ("persona.variation.pitch_jitter=20", "pitch_jitter=20"),
        ("persona.variation.reaction_jitter_ms=450", "reaction_jitter_ms=450"),
        ("persona.bounds.rate_wpm=[100,120]", "rate_jitter_pct=6"),  # narrower bounds: the nominal rate is outside
    ],
)
def test_a_jitter_outside_the_persona_bounds_is_one_config_error(override: str, knob: str) -> None:
    with pytest.raises(ConfigError) as info:
        validate_config(composed(override), {"persona": "default"})
    lines = str(info.value).splitlines()[1:]
    assert len(lines) == 1, lines  # one message, naming the knob, the persona's bounds and the persona's file
    assert f"variation.{knob}" in lines[0] and "bounds." in lines[0]
    assert lines[0].strip().startswith("persona:") and lines[0].endswith("[from conf/persona/default.yaml]")


# -- audio path: trials differ, a seed replays, pass^k <= pass@1 -------------------------------------------------


@pytest.fixture(scope="module")
def split_cell(tmp_path_factory: pytest.TempPathFactory) -> tuple[list, object]:
    config = validate_config(
        composed(
            "domain=airline",
            f"domain.scenarios=[{SPLIT_SCENARIO}]",
            f"seed={SPLIT_SEED}",
            "trials=3",
            "progress=false",
            "metrics=[task_completion,user_wer]",
            # the agent's plain hearing (one best transcript): with format-aware hearing (issue 17.2) all three
            # trials of this scenario pass; the test is about trials splitting, not hearing
            "agent.alternatives=1",
            # the stack the split was found on (eSpeak caller and agent, the 30 s window): on the Piper default all
            # three trials pass; the test is about a split, which needs a scenario that splits
            "voice=neutral",
            "agent.tts.kind=espeak",
            "agent.tts.voice=en-gb",
            "agent.tts.rate_wpm=185",
            "agent.tts.pitch=40",
            "agent.asr.short_window=false",
        )
    )
    plan = plan_cell(config)
    assert plan.trials == 3
    records = run_cell_conversations(plan, tmp_path_factory.mktemp("split"), log_audio=False)
    return records, config


@pytest.mark.slow
def test_clean_trials_differ_and_stay_within_bounds(split_cell) -> None:
    records, config = split_cell
    dumps = [r.model_dump(mode="json") for r in records]
    turns = [_user_turns(d) for d in dumps]
    assert [d["conversation"]["trial"] for d in dumps] == [0, 1, 2]
    # different wording or different audio from the first caller turn on: no two trials are one conversation
    firsts = {(t[0]["intended_text"], t[0]["audio_sha256"]["user_clean"]) for t in turns}
    assert len(firsts) == 3
    assert len({tuple(u["intended_text"] for u in t) for t in turns}) > 1  # the wording varies, not only the audio
    bounds = config.persona.bounds
    for turn in (u for t in turns for u in t):
        drawn = turn["variation"]
        assert set(drawn) == {"reaction_ms", "rate_wpm", "pitch"}
        assert bounds.reaction_ms[0] <= drawn["reaction_ms"] <= bounds.reaction_ms[1]
        assert bounds.rate_wpm[0] <= drawn["rate_wpm"] <= bounds.rate_wpm[1]
        assert bounds.pitch[0] <= drawn["pitch"] <= bounds.pitch[1]


def test_clean_pass_hat_k_is_below_pass_at_1_when_trials_split(split_cell) -> None:
    records, _ = split_cell
    passed = [r.metrics["task_completion"].passed for r in records]
    assert sorted(passed) == [False, True, True], passed  # the trials split (see SPLIT_SCENARIO)
    aggregates = aggregate_cell(records)
    pass_at_1, pass_hat_k = aggregates["task_completion_pass_at_1"], aggregates["task_completion_pass_hat_k"]
    assert pass_at_1 == pytest.approx(2 / 3) and pass_hat_k == pytest.approx((2 / 3) ** 3)
    assert pass_hat_k < pass_at_1 <= aggregates["task_completion_pass_at_k"] == 1.0


def test_the_same_seed_replays_a_trial_bit_for_bit(split_cell) -> None:
    """A fresh runner (new engines, nothing cached from the cell) replays trial 2 exactly: every text, every drawn
    value and every audio hash (caller clean and heard, agent)."""
    records, config = split_cell
    plan = plan_cell(config)
    again = ConversationRunner(config).run(plan.scenarios[0], 2).conversation
    before = records[2].conversation.model_dump(mode="json")
    assert _strip(again.model_dump(mode="json")) == _strip(before)
    assert any(t["audio_sha256"] for t in before["turns"])


# -- no randomness: one trial ------------------------------------------------------------------------------------


def test_sources_of_randomness_are_named() -> None:
    default = validate_config(composed())
    assert default.trials_to_run == default.trials == 2
    assert any("wording" in s for s in default.random_sources())
    quiet = "persona.variation.enabled=false"
    assert validate_config(composed(quiet, "+perturb=noise_cafe")).random_sources() == [
        "perturbation chain 'noise_cafe' (seeded per turn)"
    ]
    sampled = validate_config(composed(quiet, "agent.asr.temperature=0.7"))
    assert sampled.random_sources() == ["agent: ASR sampling (temperature 0.7)"] and sampled.trials_to_run == 2
    behaviour = validate_config(composed("persona=forgetful_disorganized", quiet))
    assert behaviour.random_sources() and behaviour.trials_to_run == 2  # disfluency draws from the rng


@pytest.mark.slow
def test_a_cell_with_nothing_random_runs_one_trial_and_says_so(tmp_path: Path, caplog) -> None:
    config = validate_config(
        composed(
            "persona.variation.enabled=false",
            "domain.scenarios=[AL-003]",
            "trials=3",
            "progress=false",
            "metrics=[task_completion]",
            f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}",
            "mlflow.log_audio=false",
        )
    )
    target = resolve_target(config.mlflow.tracking_uri, config.mlflow.experiment, None, tmp_path)
    with caplog.at_level(logging.INFO, logger="evalkit"):
        result = run_cell(config, target, tmp_path / "cell")
    assert result.n_conversations == 1 and len(list((tmp_path / "cell" / "records").glob("*.json"))) == 1
    run = MlflowClient(target.tracking_uri).get_run(result.run_id)
    assert run.data.params["trials_run"] == "1" and run.data.params["randomness"] == "none"
    assert run.data.params["cfg.trials"] == "3"  # k stays part of the cell's identity
    assert run.data.tags["evalkit.deterministic"] == "true"
    assert any("nothing in it is random" in r.getMessage() and "k=3" in r.getMessage() for r in caplog.records)


# -- optional ASR sampling ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_asr_sampling_is_seeded_per_call_and_off_by_default() -> None:
    from evalkit.speech import EspeakTTS, WhisperASR

    audio, rate = EspeakTTS("en-us", 165, 50).synthesize("My code is W K 2 E X B and my name is Brooks.")
    greedy = WhisperASR().transcribe(audio, rate).text
    sampler = WhisperASR(temperature=1.0, candidates=4)
    assert sampler.transcribe(audio, rate).text == greedy  # unseeded (a metric's listener): greedy
    drawn = {seed: sampler.transcribe(audio, rate, seed=seed).text for seed in range(6)}
    assert all(sampler.transcribe(audio, rate, seed=seed).text == drawn[seed] for seed in (0, 3))
    assert len(set(drawn.values())) > 1
