"""Built-in ops; importing this package registers them."""

from perturbations.ops.noise import Noise

__all__ = ["Noise"]
