"""Personas (conf/persona/*.yaml): behaviour visible in what the scripted caller says, still goal-directed against
the local agent's policy in text mode, deterministic for a seed; the accent x persona clash is a config error."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from evalkit.config.schema import ConfigError, PersonaConfig, validate_config
from evalkit.config.variation import PersonaVariationConfig
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.records import Conversation
from evalkit.scenarios import Scenario
from evalkit.simulator.persona import PersonaSpec
from evalkit.simulator.scripted.style import PersonaStyle
from evalkit.spoken import parse_code, parse_correction, parse_yes_no
from evalkit.text_dialogue import run_text_dialogue, transcript
from tests.conftest import CONF_DIR
from tests.test_config import composed
from tests.test_dialogue import expected_end

SCENARIOS = load_scenarios("airline")
PERSONA_FILES = sorted((CONF_DIR / "persona").glob("*.yaml"))
PERSONAS = ["default", "aggressive_impatient", "elderly_slow", "forgetful_disorganized"]
LEVELS = ["none", "easy", "hard"]


def _persona(name: str, level: str = "none", varied: bool = True) -> PersonaSpec:
    config = PersonaConfig.model_validate(yaml.safe_load((CONF_DIR / "persona" / f"{name}.yaml").read_text()))
    update: dict[str, object] = {"level": level}
    if not varied:  # the decision tree's own words, every trial alike (issue 17: persona.variation.enabled=false)
        update["variation"] = PersonaVariationConfig()
    return PersonaSpec.from_config(config.model_copy(update=update))


def talk(scenario: Scenario, spec: PersonaSpec, seed: int) -> tuple[Conversation, list[tuple[str, str]]]:
    conversation = run_text_dialogue(scenario, persona=spec, rng=np.random.default_rng(seed))
    return conversation, transcript(conversation)


def user_lines(name: str, level: str = "none", seeds: range = range(6), varied: bool = True) -> list[str]:
    spec = _persona(name, level, varied)
    return [t for s in SCENARIOS for seed in seeds for r, t in talk(s, spec, seed)[1] if r == "user"]


@pytest.mark.parametrize("path", PERSONA_FILES, ids=lambda p: p.stem)
def test_every_persona_yaml_validates_and_has_a_prompt(path: Path) -> None:
    config = PersonaConfig.model_validate(yaml.safe_load(path.read_text()))
    assert config.name == path.stem and config.prompt and len(config.prompt) > 80


def test_the_four_personas_ship_and_sound_different() -> None:
    assert {p.stem for p in PERSONA_FILES} >= set(PERSONAS)
    configs = {
        n: PersonaConfig.model_validate(yaml.safe_load((CONF_DIR / "persona" / f"{n}.yaml").read_text()))
        for n in PERSONAS
    }
    assert configs["aggressive_impatient"].rate_wpm > 180 and configs["aggressive_impatient"].pitch_shift > 0
    assert configs["elderly_slow"].rate_wpm < 130 and configs["elderly_slow"].pause_ms > 0
    assert configs["elderly_slow"].word_gap_ms > 0 and configs["forgetful_disorganized"].pause_ms > 0


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", PERSONAS)
def test_every_persona_and_level_still_completes_every_scenario(name: str, level: str) -> None:
    for scenario in SCENARIOS:
        for seed in range(4):
            conversation, transcript = talk(scenario, _persona(name, level), seed)
            assert conversation.end_reason == expected_end(scenario), transcript
            assert task_completion(conversation).passed, transcript


def test_default_persona_says_exactly_the_decision_tree() -> None:
    # With its variation off: since issue 17 the shipped default persona paraphrases (tests/test_trials.py checks
    # that the paraphrases keep every entity); the decision tree's own words are what is left without it.
    lines = user_lines("default", seeds=range(1), varied=False)
    assert SCENARIOS[0].user_goal.starting_utterance in lines
    assert not any("..." in line or re.search(r"\b[A-Z]{4,}\b", line) for line in lines)
    # Varied, the opening still ends with the starting utterance word for word, and nothing is styled.
    varied = user_lines("default", seeds=range(1))
    assert any(line.endswith(SCENARIOS[0].user_goal.starting_utterance) for line in varied)
    assert not any("..." in line or re.search(r"\b[A-Z]{4,}\b", line) for line in varied)


def test_aggressive_is_terse_shouts_and_gets_frustrated() -> None:
    lines = user_lines("aggressive_impatient")
    shouted = [line for line in lines if re.search(r"\b(?!SK\d)[A-Z']{4,}\b", line)]
    assert len(shouted) > 0.2 * len(lines)
    assert not any(re.search(r"\bplease\b|\bthank you\b", line, re.IGNORECASE) for line in lines)
    # A stalled agent (the hard level's vague first answer makes it re-ask) draws open frustration.
    hard = user_lines("aggressive_impatient", "hard")
    assert any(re.search(r"taking so long|already told you|taking forever|hurry", line, re.I) for line in hard)


def test_elderly_spells_codes_with_pauses_and_asks_to_repeat() -> None:
    lines = user_lines("elderly_slow")
    code = SCENARIOS[0].user_goal.scripted.answers["confirmation_number"]
    assert any("... ".join(code) in line for line in lines)
    assert sum("..." in line for line in lines) > 0.8 * len(lines)
    repeats = [line for line in lines if re.search(r"say that again|repeat that", line)]
    assert repeats and len(repeats) <= 2 * len(SCENARIOS) * 6  # at most twice a call


def test_forgetful_is_disfluent_and_self_corrects_to_the_right_code() -> None:
    lines = user_lines("forgetful_disorganized")
    assert sum(bool(re.search(r"\b(Um|Uh|Hmm)\b", line)) for line in lines) > 0.3 * len(lines)
    corrections = [line for line in lines if "oh wait, sorry, actually" in line]
    assert corrections
    codes = {s.user_goal.scripted.answers["confirmation_number"] for s in SCENARIOS}
    for line in corrections:
        wrong, right = (parse_code(part) for part in line.split("oh wait"))
        assert right in codes and wrong not in codes and wrong != right
        assert parse_code(line) == right  # what the agent takes from the whole turn: the corrected code


def test_styled_turns_keep_their_meaning_for_the_agents_parsers() -> None:
    """Over many seeds: a styled code still parses to the code, a yes stays a yes, a correction stays itself."""
    for name in PERSONAS[1:]:
        for level in LEVELS:
            style = PersonaStyle(_persona(name, level), np.random.default_rng(7))
            for i in range(60):
                assert parse_code(style.code("confirmation_number", "WK2EXB", 1 + i % 2, i % 3 == 0)) == "WK2EXB"
                assert parse_yes_no(style.reply("Yes, please go ahead.", stalled=i % 2 == 0)) is True
                assert parse_yes_no(style.reply("No, that's all. Thank you, goodbye.")) is False
                assert parse_correction(style.reply("No, the fourth one is Echo.", stalled=True)) == (4, "E")


def test_levels_change_what_is_said() -> None:
    easy = user_lines("default", "easy", range(1))
    assert any(line.startswith("The confirmation number is ") for line in easy)
    assert any(line.startswith("The last name is ") for line in easy)
    hard = user_lines("default", "hard", range(1))
    assert any(re.search(r"where would I find that|not sure I have that", line) for line in hard)
    assert any(line.startswith("I think it's ") for line in hard)


@pytest.mark.parametrize("name", PERSONAS[1:])
def test_behaviour_is_deterministic_for_a_seed_and_varies_across_seeds(name: str) -> None:
    scenario = SCENARIOS[1]
    runs = {seed: [talk(scenario, _persona(name), seed)[1] for _ in range(2)] for seed in range(8)}
    assert all(a == b for a, b in runs.values())
    assert len({str(a) for a, _ in runs.values()}) > 1


def test_accent_with_behavioural_persona_is_rejected_naming_both_and_the_rule() -> None:
    raw = composed("voice=accent_french", "persona=elderly_slow")
    with pytest.raises(ConfigError) as info:
        validate_config(raw, {"voice": "accent_french", "persona": "elderly_slow"})
    message = str(info.value)
    assert "accent_french" in message and "elderly_slow" in message and "App. G.1" in message


def test_accent_with_default_persona_and_any_level_is_allowed() -> None:
    config = validate_config(composed("voice=accent_chinese", "persona.level=hard"))
    assert config.voice.accent == "chinese" and config.persona.level == "hard"
    config = validate_config(composed("voice=neutral", "persona=forgetful_disorganized"))
    assert config.persona.behaviour.self_correct > 0


def test_unknown_level_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"persona\.level"):
        validate_config(composed("persona.level=expert"))


def test_the_shared_persona_module_holds_the_knobs_and_the_scripted_caller_its_wording() -> None:
    """Issue 28 point 4/5: what every caller shares (``PersonaSpec``, ``is_code``) is in evalkit.simulator.persona;
    how the scripted caller words a persona (``PersonaStyle``, ``say_code_list``) is in its own package."""
    from evalkit.simulator import persona
    from evalkit.simulator.scripted import style

    assert not hasattr(persona, "PersonaStyle") and not hasattr(persona, "say_code_list")
    assert style.PersonaStyle(PersonaSpec()).spec == PersonaSpec()
    assert style.say_code_list("GRP-A1, GRP-B2") == "G R P - A 1 and G R P - B 2"
