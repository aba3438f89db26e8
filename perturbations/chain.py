"""An ordered, seeded list of ops: what a Hydra config declares and the orchestrator applies per user turn."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from perturbations.audio import NO_CONTEXT, ClipContext, check_audio, check_rng
from perturbations.errors import PerturbationError
from perturbations.registry import Op, build_op, enabled


class _NoDraws:
    """The generator the chain hands an op that declares ``draws = False``: using it is a bug in that declaration."""

    def __getattr__(self, name: str) -> Any:
        raise PerturbationError(f"an op declared draws = False but used its rng ({name})")


NO_DRAWS: Any = _NoDraws()


class Chain:
    """Apply ops in order. ``Chain([])`` is the identity (a float32 copy and no effects). Line ops (``Op.line``:
    delay, echo) are kept in ``ops`` and ``line_ops`` for a call harness and skipped on clips."""

    def __init__(self, ops: Iterable[Op] = ()) -> None:
        self.ops: tuple[Op, ...] = tuple(ops)
        for i, op in enumerate(self.ops):
            if not isinstance(op, Op):
                raise PerturbationError(f"perturb chain[{i}]: expected an op, got {type(op).__name__}")
        self.clip_ops: tuple[Op, ...] = tuple(op for op in self.ops if not op.line)
        self.line_ops: tuple[Op, ...] = tuple(op for op in self.ops if op.line)

    @classmethod
    def from_specs(cls, specs: Sequence[Any] | None) -> Chain:
        """Build and validate every spec now, so a bad config fails before any audio is processed; specs with
        ``enabled: false`` are left out of the chain."""
        if specs is None:
            return cls()
        if isinstance(specs, str | bytes) or not isinstance(specs, Sequence):
            raise PerturbationError(f"perturb chain must be a list of op specs, got {type(specs).__name__}")
        # an op spec with ``enabled: false`` is validated all the same (a typo in a switched-off factor still fails)
        ops = [(build_op(spec, f"perturb chain[{i}]"), enabled(spec)) for i, spec in enumerate(specs)]
        return cls(op for op, on in ops if on)

    def prepare(self, sample_rate: int) -> None:
        """Every op's one-off set-up at ``sample_rate`` now (noise banks), before clips must come in real time."""
        for op in self.clip_ops:
            op.prepare(sample_rate)

    def to_specs(self) -> list[dict[str, Any]]:
        return [op.to_dict() for op in self.ops]

    def __call__(
        self,
        audio: np.ndarray,
        sample_rate: int,
        rng: np.random.Generator,
        context: ClipContext = NO_CONTEXT,
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """(perturbed float32 audio, effect entries with start/end in ms relative to the clip's start)."""
        x, rate = check_audio(audio, sample_rate)
        if not isinstance(context, ClipContext):
            raise PerturbationError(f"context must be a ClipContext, got {type(context).__name__}")
        check_rng(rng)
        # One independent child stream per op, drawn up front: what op i draws never shifts op j's randomness,
        # so editing one op's params leaves the other ops' noise identical. Line ops get none, so adding one to a
        # condition leaves its clip ops' streams as they were.
        seeds = rng.integers(0, 2**63, size=len(self.clip_ops))
        applied: list[dict[str, Any]] = []
        for op, seed in zip(self.clip_ops, seeds, strict=True):
            op_rng = np.random.default_rng(int(seed)) if op.draws else NO_DRAWS
            x, entries = op.run_checked(x, rate, op_rng, context)
            applied.extend(entries)
        return x, applied

    def __len__(self) -> int:
        return len(self.ops)

    def __iter__(self) -> Iterator[Op]:
        return iter(self.ops)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chain) and self.ops == other.ops

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Chain({list(self.ops)!r})"
