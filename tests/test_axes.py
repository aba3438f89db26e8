"""The axes of a cell, declared once in evalkit.config.axes: everything twin- or axis-shaped derives from them."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from evalkit.analysis.cells import CellData
from evalkit.analysis.compare import Settings, condition_label
from evalkit.cli.sweeper import add_clean_twins, is_perturbed, twin_overrides
from evalkit.config import axes
from evalkit.config.axes import Axis, registered
from evalkit.config.schema import RunConfig, twin_config, validate_config
from tests.conftest import CONF_DIR


def composed(*overrides: str) -> RunConfig:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides))
    raw = OmegaConf.to_container(cfg, resolve=True)
    raw.pop("hydra", None)
    return validate_config(raw)


def _option_param(name: str, clean: str):
    def params(config: object) -> dict[str, str]:
        node = getattr(config, name, None)
        return {name: node.name if node is not None else clean}

    return params


# A new perturbation axis added by a plug-in (MTalk-Bench's ambient sounds, say): a group added with `+ambient=X`
# (absent = clean), like perturb and interrupt.
AMBIENT = Axis(
    "ambient",
    "ambient",
    _option_param("ambient", "none"),
    ("ambient",),
    perturbation=True,
    clean_option=None,
    perturbed=lambda option: option != "none",
    clean_params={"ambient": "none"},
)


def cell(key: str, twin_key: str, **params: str) -> CellData:
    base = {"domain": "airline", "agent": "a", "voice": "neutral", "persona": "default", "perturb": "clean"}
    base |= {"snr_db": "none", "interrupt": "none", "behavior": "none", "modality": "voice", "ambient": "none"}
    return CellData(key, key, key, key, twin_key, base | params, {})


def test_the_declaration_matches_what_cells_log():
    assert axes.condition_axes() == ("voice", "persona", "perturb", "snr_db", "modality", "interrupt", "behavior")
    config = composed("+perturb=noise_cafe", "voice=accent_french")
    params = axes.axis_params(config)
    assert tuple(params) == axes.param_names()
    assert params["voice"] == "accent_french" and params["perturb"] == "noise_cafe" and params["persona"] == "default"
    assert (
        params["scenarios"] == ",".join(config.domain.scenarios)
        and params["seed"] == "0"
        and params["trials"] == str(config.trials)
    )
    assert axes.axis_params(composed())["snr_db"] == "none"
    # the agent axis logs what the agent is, so one sweep compares architectures (issue 13 point 6)
    assert (params["agent"], params["architecture"]) == (config.agent.name, "cascade")
    assert axes.axis_params(composed("agent=twilio_ws", "agent.architecture=s2s"))["architecture"] == "s2s"
    assert {a.name for a in axes.perturbation_axes()} == {
        "voice",
        "persona",
        "perturb",
        "modality",
        "interrupt",
        "behavior",
    }
    assert axes.axis_params(composed("+interrupt=filler"))["interrupt"] == "filler" and params["interrupt"] == "none"
    assert (
        axes.axis_params(composed("+behavior=backchannel"))["behavior"] == "backchannel"
        and params["behavior"] == "none"
    )
    assert twin_overrides(["+behavior=side_speech", "behavior.rate=1.0", "seed=1"]) == ["seed=1"]  # the clean twin
    assert axes.axis_params(composed("modality=text"))["modality"] == "text" and params["modality"] == "voice"
    # the clean params of every perturbation axis are exactly what a clean cell logs
    clean = axes.axis_params(composed())
    for a in axes.perturbation_axes():
        assert {k: clean[k] for k in a.clean_params} == dict(a.clean_params)


def test_recognising_perturbed_options():
    voice, persona, perturb = axes.axis("voice"), axes.axis("persona"), axes.axis("perturb")
    assert voice.is_perturbed("accent_french") and not voice.is_perturbed("neutral")
    assert not voice.is_perturbed("deep_male")  # a non-accent voice is not a perturbation
    assert persona.is_perturbed("elderly_slow") and not persona.is_perturbed("default")
    assert perturb.is_perturbed("noise_cafe") and not perturb.is_perturbed("clean") and not perturb.is_perturbed(None)
    assert not axes.axis("domain").is_perturbed("hr")  # not a perturbation axis at all
    assert composed("persona=elderly_slow").persona.is_behavioural and not composed().persona.is_behavioural


def test_twin_choices_is_the_rule_for_configs_and_overrides_alike():
    choices = {"voice": "accent_french", "persona": "default", "perturb": "noise_cafe", "domain": "hr"}
    assert axes.twin_choices(choices) == {"voice": "neutral", "perturb": None}
    assert axes.twin_choices({"voice": "neutral", "persona": "elderly_slow"}) == {"persona": "default"}
    assert axes.twin_choices({"voice": "neutral", "perturb": None}) == {}


def test_clean_signature_resets_only_the_perturbation_axes():
    params = {"domain": "hr", "voice": "accent_french", "persona": "default", "perturb": "noise_cafe", "snr_db": "5"}
    assert axes.clean_signature(params) == {
        "domain": "hr",
        "voice": "neutral",
        "persona": "default",
        "perturb": "clean",
        "snr_db": "none",
        "interrupt": "none",  # a removable group's clean value, like perturb's
        "behavior": "none",
    }
    assert "persona" not in axes.clean_signature({"voice": "neutral"})  # an absent param stays absent


def test_a_second_axis_of_one_name_is_refused():
    with pytest.raises(ValueError, match="'voice' is already declared"):
        axes.register_axis(Axis("voice", "voice", _option_param("voice", "neutral"), ("voice",)))


def test_a_new_perturbation_axis_is_one_declaration():
    """Registering a new axis (here a plug-in's `ambient` group) is all it takes for the sweeper's twin rule, the
    twin rule on group choices (what twin_config applies) and the analysis' condition axes to pick it up; IHBench's
    `interrupt` and MM-τ-p²'s `modality` are declared so (built in), and compose with it."""
    job = ["domain=airline", "+ambient=birds", "ambient.level=3", "+interrupt=filler", "modality=text", "seed=1"]
    assert twin_overrides(job) == ["domain=airline", "+ambient=birds", "ambient.level=3", "modality=voice", "seed=1"]
    with registered(AMBIENT):
        # the sweeper
        assert twin_overrides(job) == ["domain=airline", "modality=voice", "seed=1"]
        assert is_perturbed(["+ambient=birds"]) and not is_perturbed(["modality=voice", "seed=1"])
        jobs = [["+ambient=birds"], ["+ambient=birds", "+perturb=noise_cafe"], ["modality=text"]]
        assert add_clean_twins(jobs) == [[], ["modality=voice"], *jobs]
        # the composed-config rule (twin_config applies it to the groups RunConfig has)
        choices = {"ambient": "birds", "interrupt": "filler", "modality": "text", "voice": "accent_french"}
        assert axes.twin_choices(choices) == {"ambient": None, "interrupt": None, "modality": "voice",
                                              "voice": "neutral"}  # fmt: skip
        assert axes.twin_choices({"ambient": None, "modality": "voice"}) == {}
        # the params a cell logs, and the analysis: condition names and pairing of untagged runs
        assert axes.axis_params(composed())["ambient"] == "none"
        expected = ("voice", "persona", "perturb", "snr_db", "modality", "interrupt", "behavior", "ambient")
        assert Settings().condition_axes == expected
        twin = cell("c", "c")
        assert condition_label(cell("p", "c", ambient="birds"), twin, Settings().condition_axes) == "birds"
        label = condition_label(cell("q", "c", interrupt="filler", perturb="noise_cafe"), twin, expected)
        assert label == "noise_cafe+filler"
        signature = axes.clean_signature({"ambient": "birds", "interrupt": "filler"})
        assert {k: signature[k] for k in ("ambient", "interrupt")} == {"ambient": "none", "interrupt": "none"}
    assert "ambient" not in Settings().condition_axes and "ambient" not in axes.param_names()


def test_twin_config_still_reads_the_clean_options_from_conf():
    perturbed = composed("voice=accent_french", "+perturb=noise_cafe", "seed=2")
    twin = twin_config(perturbed)
    # an eSpeak accent's twin is eSpeak's neutral voice (the default voice is Piper's: another engine)
    assert twin.perturb is None and twin.voice == composed("voice=neutral").voice
    assert twin.persona == composed().persona
    assert twin_config(composed("persona=elderly_slow")).persona == composed().persona


def test_a_cells_run_name_leads_with_every_perturbed_axis_it_sets():
    """MLflow's run list shows the start of a name: a cell with a caller behaviour or an interruption must not read
    as its clean twin there."""
    from evalkit.cell.plan import plan_cell

    def lead(*overrides: str) -> str:
        return plan_cell(composed(*overrides)).run_name.split("|")[0]

    assert lead() == "clean"
    assert lead("+behavior=backchannel") == "clean+backchannel"
    assert lead("+perturb=noise_cafe", "+interrupt=filler", "+behavior=side_speech") == "noise_cafe+filler+side_speech"
