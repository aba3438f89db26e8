"""A domain is one registered object: found by name, unknown names list the registered ones, a toy domain
registered by a test is found by every look-up (tools, scenarios, prompts, local policy, simulator)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalkit.agents.base import ToolBox
from evalkit.agents.reference.dialogue import make_policy
from evalkit.agents.reference.policy import POLICIES, PolicyReply
from evalkit.agents.reference.workflow_policy import WorkflowPolicy
from evalkit.domains import DOMAINS, Domain, DomainTexts, get_domain, register_domain, tool_registry
from evalkit.domains.base import ToolArgs, ToolExecutor, ToolRegistry
from evalkit.domains.scenarios import load_scenarios, scenario_dir
from evalkit.plugins import PluginError, UnknownPluginError
from evalkit.prompts import domain_texts, render_agent_prompt
from evalkit.scenarios import ScenarioError
from evalkit.simulator.scripted.caller import domain_workflows

NOW = "2026-03-02T09:00"
TOY_TOOLS = ToolRegistry()


class NoteArgs(ToolArgs):
    text: str


@TOY_TOOLS.tool(NoteArgs, writes=True)
def add_note(db: dict, args: NoteArgs) -> dict:
    """Add a note."""
    db.setdefault("notes", []).append(args.text)
    return {"notes": len(db["notes"])}


@TOY_TOOLS.tool(NoteArgs, writes=True, irreversible=True)
def shred_notes(db: dict, args: NoteArgs) -> dict:
    """Shred every note."""
    db["notes"] = []
    return {}


@pytest.fixture
def toy_domain(tmp_path: Path) -> Iterator[Domain]:
    (tmp_path / "scenarios").mkdir()
    domain = Domain(
        name="toy_notes",
        tools=TOY_TOOLS,
        texts=DomainTexts("You are Toy.", "Take notes.", "You call the note line.", "Notes only."),
        scenario_dir=tmp_path / "scenarios",
        workflows={},
        greeting="Toy notes, hello.",
    )
    register_domain(domain, __name__)
    yield domain
    # The registry has no public removal (plug-ins live for the process); keep other tests' domain list clean.
    DOMAINS._items.pop("toy_notes")
    DOMAINS._origins.pop("toy_notes")


def test_builtin_domains_are_registered_with_their_tools_texts_and_scenarios() -> None:
    # hr: medical_hr's alias, not listed; custom: scenario files for anyone's agent (no harness tools)
    assert DOMAINS.names() == ["airline", "custom", "itsm", "medical_hr"]
    assert tool_registry("custom").names == [] and any(get_domain("custom").scenario_dir.glob("*.yaml"))
    for name in ("airline", "itsm", "medical_hr"):
        domain = get_domain(name)
        assert domain.name == name and tool_registry(name) is domain.tools
        assert any(domain.scenario_dir.glob("*.json"))
        assert domain.texts.agent_instructions and domain.texts.simulator_role
    # one dialogue engine for every built-in domain: each declares workflows, none registers a policy of its own
    assert all(get_domain(name).workflows for name in ("airline", "hr", "itsm"))
    assert POLICIES.names() == []


def test_an_unknown_domain_fails_with_the_registered_options() -> None:
    with pytest.raises(
        UnknownPluginError, match=r"unknown domain 'circus'; registered: airline, custom, itsm, medical_hr"
    ):
        get_domain("circus")
    with pytest.raises(ValueError, match=r"registered: airline, custom, itsm, medical_hr"):
        tool_registry("circus")
    with pytest.raises(
        ScenarioError, match=r"unknown domain 'circus'; known domains: \['airline', 'custom', 'itsm', 'medical_hr'\]"
    ):
        scenario_dir("circus")
    with pytest.raises(
        ValueError, match=r"no dialogue policy for domain 'circus'.*registered: airline, custom, itsm, medical_hr"
    ):
        make_policy("circus", ToolBox(ToolExecutor(TOY_TOOLS, {})), NOW)


def test_two_packages_registering_one_domain_name_fail_naming_both(toy_domain: Domain) -> None:
    with pytest.raises(PluginError, match=r"'toy_notes': tests.test_domain_registry and other_pkg.toy"):
        register_domain(Domain("toy_notes", TOY_TOOLS, toy_domain.texts, toy_domain.scenario_dir), "other_pkg.toy")


def test_a_toy_domain_registered_in_a_test_is_found_by_every_lookup(toy_domain: Domain) -> None:
    assert get_domain("toy_notes") is toy_domain and tool_registry("toy_notes") is TOY_TOOLS
    assert domain_texts("toy_notes").agent_personality == "You are Toy."
    assert "Take notes." in render_agent_prompt("toy_notes", NOW) and '"name": "shred_notes"' in render_agent_prompt(
        "toy_notes", NOW
    )
    assert scenario_dir("toy_notes") == toy_domain.scenario_dir
    source = json.loads((get_domain("airline").scenario_dir / "AL-001.json").read_text())
    (toy_domain.scenario_dir / "TOY-1.json").write_text(json.dumps({**source, "id": "TOY-1", "domain": "toy_notes"}))
    assert [s.id for s in load_scenarios("toy_notes")] == ["TOY-1"]
    assert domain_workflows("toy_notes") == {}
    policy = make_policy("toy_notes", ToolBox(ToolExecutor(TOY_TOOLS, {})), NOW)
    assert isinstance(policy, WorkflowPolicy) and policy.greet().text == "Toy notes, hello."  # its own greeting


def test_a_domain_without_workflows_or_registered_policy_is_refused_by_the_local_agent(tmp_path: Path) -> None:
    bare = Domain("toy_bare", TOY_TOOLS, DomainTexts("a", "b", "c", "d"), tmp_path)
    register_domain(bare, __name__)
    try:
        with pytest.raises(ValueError, match=r"'toy_bare': it declares no workflows and no policy is registered"):
            make_policy("toy_bare", ToolBox(ToolExecutor(TOY_TOOLS, {})), NOW)
        assert domain_workflows("toy_bare") is None  # the simulator falls back to its cue-based script
    finally:
        DOMAINS._items.pop("toy_bare")
        DOMAINS._origins.pop("toy_bare")


def test_a_policy_registered_for_a_domain_is_run_instead_of_its_workflows(toy_domain: Domain) -> None:
    """The extension point for a domain whose tasks do not fit workflows: a plug-in's hand-written policy."""

    class Echo:
        def greet(self) -> PolicyReply:
            return PolicyReply("Echo here.")

        def step(self, heard: str) -> PolicyReply:
            return PolicyReply(heard)

    POLICIES.add("toy_notes", lambda tools, now: Echo(), origin=__name__)
    try:
        policy = make_policy("toy_notes", ToolBox(ToolExecutor(TOY_TOOLS, {})), NOW)
        assert policy.greet().text == "Echo here." and policy.step("hello").text == "hello"
    finally:
        POLICIES._items.pop("toy_notes")
        POLICIES._origins.pop("toy_notes")


def test_irreversible_is_declared_on_the_tool_and_must_be_a_write() -> None:
    assert TOY_TOOLS["shred_notes"].irreversible and not TOY_TOOLS["add_note"].irreversible
    assert TOY_TOOLS.irreversible_tools == ["shred_notes"]
    assert get_domain("airline").irreversible_tools == {
        "cancel_reservation",
        "rebook_flight",
        "process_refund",
        "issue_meal_voucher",
    }
    assert get_domain("hr").irreversible_tools == frozenset()
    with pytest.raises(ValueError, match="irreversible tool must be a write tool"):
        ToolRegistry().tool(NoteArgs, writes=False, irreversible=True)


@pytest.mark.parametrize("module", ["evalkit.agents.reference.workflow_policy"])
def test_policies_do_not_import_the_dialogue_module(module: str) -> None:
    """The old cycle: dialogue imported the policies and the policies imported dialogue (for PolicyReply, ok)."""
    code = f"import sys, {module}; print('evalkit.agents.reference.dialogue' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_unknown_domain_in_a_config_fails_at_validation_naming_the_file_and_the_options() -> None:
    from evalkit.config.schema import ConfigError, validate_config
    from tests.test_config import composed

    raw = composed()
    raw["domain"]["name"] = "space"
    with pytest.raises(ConfigError) as info:
        validate_config(raw, {"domain": "airline"})
    message = str(info.value)
    assert "domain.name" in message and "conf/domain/airline.yaml" in message
    assert "unknown domain 'space'; registered: airline, custom, itsm, medical_hr" in message


def test_a_registered_domain_passes_config_validation(toy_domain: Domain) -> None:
    from evalkit.config.schema import DomainConfig

    assert DomainConfig(name="toy_notes").name == "toy_notes"  # no Literal to edit for a new domain
