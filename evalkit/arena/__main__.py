"""`python -m evalkit.arena [overrides]` — agents head to head by a judge; see conf/arena.yaml and docs/analysis.md
"Arena".

An entry point: the only kind of module that imports hydra (docs/architecture.md, dependency rules).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf


def _judge(section: Any) -> Any:
    from pydantic import ValidationError

    from evalkit.judges.config import JudgeConfig
    from evalkit.judges.judge import Judge

    settings = OmegaConf.to_container(section, resolve=True) if isinstance(section, DictConfig) else dict(section)
    settings = {"kind": "openai_compatible", **settings}  # type: ignore[dict-item]
    try:
        return Judge(JudgeConfig.model_validate(settings))
    except ValidationError as exc:
        raise ValueError("; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())) from None


@hydra.main(version_base="1.3", config_path="../../conf", config_name="arena")
def main(cfg: DictConfig) -> int:
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    from evalkit.analysis.cells import AnalysisError
    from evalkit.arena.judging import Rubric
    from evalkit.arena.pairs import ArenaError
    from evalkit.arena.run import ArenaSettings, run_arena
    from evalkit.cli.entry import config_number
    from evalkit.judges.client import JudgeError
    from evalkit.tracking import resolve_target

    try:
        agents = cfg.agents
        settings = ArenaSettings(
            agents=tuple(agents) if agents is not None else None,
            condition=str(cfg.condition) if cfg.condition is not None else None,
            seed=config_number(cfg, "seed", int),
            n_bootstrap=config_number(cfg, "bootstrap", int),
            n_permutations=config_number(cfg, "permutations", int),
            elo_k=config_number(cfg, "elo_k", float),
            baseline=str(cfg.baseline) if cfg.get("baseline") is not None else None,
        )
        judge = _judge(cfg.judge)
        second = _judge(cfg.second_judge) if cfg.get("second_judge") is not None else None
        rubric = Rubric.load(Path(cfg.rubric)) if cfg.rubric else None
        target = resolve_target(cfg.mlflow.tracking_uri, cfg.mlflow.experiment, None, Path.cwd())
        out_dir = Path(cfg.output_dir) if cfg.output_dir else Path(HydraConfig.get().runtime.output_dir)
        outcome = run_arena(target, out_dir, judge, settings, str(cfg.sweep), second, rubric, bool(cfg.log_to_mlflow))
    except (ArenaError, AnalysisError, JudgeError, ValueError, RuntimeError) as exc:
        print(f"evalkit.arena: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for r in outcome.ratings:
        ci = f"[{r.bt_ci_low:.1f}, {r.bt_ci_high:.1f}]"
        print(f"{r.model}: Elo {r.elo:.1f}, Bradley-Terry {r.bradley_terry:.1f} {ci}, win rate {r.win_rate:.2f} over "
              f"{r.comparisons} comparisons")  # fmt: skip
    for model, tf in outcome.tf.items():
        print(f"{model}: TF win rate {tf.rate:.3f} against {settings.baseline} ({tf.wins}/{tf.n})")
    print(f"{len(outcome.verdicts)} pairs judged, {len(outcome.failed)} failed; report: {outcome.files['report']}")
    if outcome.run_id:
        print(f"MLflow arena run: {outcome.run_id}")
    return 0


if __name__ == "__main__":
    from evalkit.cli.entry import run_entry_point

    run_entry_point(main, "evalkit.arena")
