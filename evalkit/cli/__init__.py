"""Entry points: the only modules that import hydra (DESIGN dependency rules)."""
