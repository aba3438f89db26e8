"""perturbations: a seeded, composable audio degradation library (standalone: no evalkit, Hydra or MLflow).

    from perturbations import Chain
    chain = Chain.from_specs([{"op": "noise", "environment": "cafe", "snr_db": 15.0}])
    out, applied = chain(audio, sample_rate, np.random.default_rng(seed))

An op is a pure function of (audio, sample_rate, rng) returning (audio, effect entries); each entry is
``{"type", "start_ms", "end_ms", "params"}`` with the values actually applied (e.g. the measured SNR).
Line ops (``line_delay``, ``speakerphone_echo``: ``perturbations.ops.line``) act on a call, not a clip: the chain
keeps them in ``Chain.line_ops`` for a call harness and skips them on clips. Any spec may carry ``enabled: false``,
which leaves the op out. New ops are ``@register_op(name)`` pydantic dataclasses (see ``perturbations.registry``);
new noise environments are ``@register_environment(name)`` generators (see ``perturbations.environments``).
"""

from perturbations.audio import ClipContext
from perturbations.chain import Chain
from perturbations.environments import available_environments, generate, register_environment
from perturbations.errors import PerturbationError
from perturbations.mixing import mix_at_snr
from perturbations.ops import Noise
from perturbations.registry import Op, available_ops, build_op, register_op
from perturbations.speech_sources import available_speech_sources, register_speech_source

__all__ = [
    "Chain",
    "ClipContext",
    "Noise",
    "Op",
    "PerturbationError",
    "available_environments",
    "available_ops",
    "available_speech_sources",
    "build_op",
    "generate",
    "mix_at_snr",
    "register_environment",
    "register_op",
    "register_speech_source",
]
