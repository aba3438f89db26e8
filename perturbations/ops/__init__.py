"""Built-in ops; importing this package registers them."""

from perturbations.ops import channel, codec, line, packet_loss  # noqa: F401  (connection, channel and line ops)
from perturbations.ops.events import Events, Muffle, OutOfTurnSpeech  # noqa: F401  (time-varying realism)
from perturbations.ops.noise import Noise
from perturbations.ops.noise_files import NoiseFiles  # noqa: F401  (noise from the user's own recordings)

__all__ = ["Noise"]
