"""Entry points: the only modules that import hydra (docs/architecture.md, dependency rules)."""
