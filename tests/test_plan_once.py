"""A job plans once (issue 32 point 4): the CLI validates, preflights and plans a job, and the runner reads the plan.
Counted through the real stages (compose, validate, preflight, plan, run and log in a real MLflow store): the cell's
identity is hashed once per cell (the cell and its clean twin: two), the scenarios are read once per job, and the
tags and params say what they said when every stage recomputed them."""

from __future__ import annotations

import collections
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hydra import compose, initialize_config_dir
from mlflow.tracking import MlflowClient

import evalkit.cell.plan as plan_module
import evalkit.config.schema as schema
import evalkit.config.settings as settings_module
import evalkit.domains.scenarios as domain_scenarios
import evalkit.pricing as pricing
from evalkit.cell import cell_tags, run_plan
from evalkit.cli.preflight import checked_plan
from evalkit.config.schema import cell_key, identity_payload, twin_config
from evalkit.config.settings import resolve_settings
from evalkit.pricing import external_components, load_table
from evalkit.tracking import resolve_target
from tests.conftest import CONF_DIR

# A behavioural persona in a text cell: a twin that is another cell, at the cost of a text conversation.
CHEAP = ["progress=false", "modality=text", "domain.limit=1", "trials=1", "metrics=[task_completion]"]
CELL = [*CHEAP, "persona=aggressive_impatient", "mlflow.log_viewer=false", "mlflow.log_traces=false"]
CELL += ["validation.enabled=false", "simulator.max_user_turns=2"]


def counting(monkeypatch: pytest.MonkeyPatch, counts: collections.Counter[str], label: str, owners: list[Any]) -> None:
    """Count calls of one function under every name it is called by."""
    name = label
    real: Callable[..., Any] = getattr(owners[0], name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        counts[label] += 1
        return real(*args, **kwargs)

    for owner in owners:
        monkeypatch.setattr(owner, name, counted)


def composed(tmp_path: Path) -> Any:
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        return compose("config", overrides=[*CELL, f"mlflow.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}"])


def counted(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    counts: collections.Counter[str] = collections.Counter()
    counting(monkeypatch, counts, "identity_payload", [schema, plan_module])
    counting(monkeypatch, counts, "load_scenarios", [domain_scenarios, plan_module])
    counting(monkeypatch, counts, "load_table", [pricing, settings_module])  # the pricing table
    return counts


def test_the_check_plans_once_with_both_keys_and_the_scenarios_it_read(tmp_path: Path, monkeypatch) -> None:
    cfg = composed(tmp_path)
    counts = counted(monkeypatch)
    plan = checked_plan(cfg, {"persona": "aggressive_impatient"}, CELL, tmp_path)
    assert counts == {"identity_payload": 2, "load_scenarios": 1, "load_table": 1}
    monkeypatch.undo()
    assert (plan.key, plan.twin_key) == (cell_key(plan.config), cell_key(twin_config(plan.config)))
    assert plan.twin is not None and plan.twin.key == plan.twin_key == plan.twin.twin_key
    assert cell_tags(plan, "cell")["twin_key"] == plan.twin_key
    assert plan.identity == identity_payload(plan.config) and plan.twin.scenarios is plan.scenarios


def test_the_plan_carries_the_settings_the_check_resolved(tmp_path: Path) -> None:
    """The stages below the plan read resolved values (prices, metering, caps, store), not the config: each is what
    the config says, resolved once; the twin has its own (its voice may be another), sharing the table and store."""
    cfg = composed(tmp_path)
    overrides = [*CELL, "providers.max_concurrency=3"]
    cfg.providers.max_concurrency = 3
    plan = checked_plan(cfg, {"persona": "aggressive_impatient"}, overrides, tmp_path)
    settings, config = plan.settings, plan.config
    m = config.mlflow
    assert settings.target == resolve_target(m.tracking_uri, m.experiment, m.artifact_location, tmp_path)
    assert settings.pricing == load_table(config.pricing.file, config.pricing.overrides)
    assert settings.voice is False  # modality=text: no audio seconds are counted
    assert (settings.max_concurrency, settings.caps) == (3, config.providers.caps())
    assert settings.external == tuple(external_components(config)) and "simulator=" in " ".join(settings.local)
    assert plan.twin is not None and plan.twin.settings == resolve_settings(plan.twin.config, settings.pricing,
                                                                            settings.target)  # fmt: skip
    assert plan.twin.settings.pricing is settings.pricing
    unchecked = plan_module.plan_cell(config)  # a plan no preflight fed (tests, scripts): its twin shares the table
    assert unchecked.twin is not None and unchecked.twin.settings.pricing is unchecked.settings.pricing


@pytest.mark.slow
def test_a_job_hashes_each_cell_once_and_reads_its_scenarios_once(tmp_path: Path, monkeypatch) -> None:
    cfg = composed(tmp_path)
    counts = counted(monkeypatch)
    plan = checked_plan(cfg, {"persona": "aggressive_impatient"}, CELL, tmp_path)
    assert plan.twin is not None and plan.twin.twin is None
    target = resolve_target(plan.config.mlflow.tracking_uri, plan.config.mlflow.experiment, None, tmp_path)
    twin = run_plan(plan.twin, target, tmp_path / "clean_twin")
    cell = run_plan(plan, target, tmp_path / "cell")
    # the cell and its twin; one read of the scenarios and of the pricing table, no re-read
    assert counts == {"identity_payload": 2, "load_scenarios": 1, "load_table": 1}
    monkeypatch.undo()

    # The same keys, tags and params as computed from the config itself (what every stage did before).
    config = plan.config
    assert (cell.cell_key, twin.cell_key) == (cell_key(config), cell_key(twin_config(config)))
    assert plan.twin.twin_key == cell_key(twin_config(plan.twin.config)) == twin.cell_key  # a twin is its own twin
    client = MlflowClient(target.tracking_uri)
    for result, cfg_of in ((cell, config), (twin, twin_config(config))):
        run = client.get_run(result.run_id)
        assert run.data.tags["twin_key"] == twin.cell_key and run.data.tags["cell_key"] == result.cell_key
        assert run.data.params["cfg.persona.name"] == str(identity_payload(cfg_of)["persona"]["name"])
    assert [s.id for s in plan.twin.scenarios] == [s.id for s in plan.scenarios] and len(plan.scenarios) == 1
