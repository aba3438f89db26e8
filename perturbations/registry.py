"""The op registry and the spec factory.

Each op is a small frozen dataclass (lhotse's transform pattern: the instance *is* the spec, ``__call__``
applies it, ``to_dict``/``from_dict`` round-trip it). They are pydantic dataclasses, so one class is both the
op and its validation model; the factory discriminates on the spec's "op" key and turns pydantic's errors
into one PerturbationError per spec naming the op index and field, e.g.
``perturb chain[0] (noise): snr_db must be a number between -5 and 40, got 'loud'``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import annotated_types
import numpy as np
from pydantic import BeforeValidator, ConfigDict, TypeAdapter, ValidationError

from perturbations.audio import NO_CONTEXT, ClipContext, check_audio, check_rng
from perturbations.errors import PerturbationError

OP_CONFIG = ConfigDict(extra="forbid", frozen=True)


def _no_bool(value: Any) -> Any:
    # pydantic's lax mode reads True as 1.0; in a YAML spec that is always a mistake.
    if isinstance(value, bool):
        raise ValueError("booleans are not numbers")
    return value


# Use for numeric op fields: ``snr_db: Number = Field(15.0, ge=-5, le=40)``.
Number = typing.Annotated[float, BeforeValidator(_no_bool)]


class Op:
    """Base of all ops. Subclasses are ``@register_op(name)`` +
    ``@pydantic.dataclasses.dataclass(config=OP_CONFIG)`` and implement ``apply``; they must draw randomness
    only from the ``rng`` argument. Ops whose effect spans a whole conversation (SNR drift) override
    ``apply_in_context`` instead, which also receives the clip's ``ClipContext``."""

    name: ClassVar[str] = ""
    # False for ops that use no randomness: the chain then gives them no generator of their own (building one from
    # its seed costs ~8 us); any use of the stand-in it passes raises.
    draws: ClassVar[bool] = True
    # True for ops that act on the call, not on a clip of the caller's speech (network delay, speakerphone echo:
    # ``perturbations.ops.line``): the chain leaves them out when it processes a clip; a call harness reads them.
    line: ClassVar[bool] = False

    def apply(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """(float32 audio of the same length, effect entries); ``audio`` is checked float32, do not mutate."""
        raise NotImplementedError

    def prepare(self, sample_rate: int) -> None:
        """Do now, once, the slow set-up the op would do on its first clip at ``sample_rate`` (ops that have any
        override it): the caller's line renders in real time and cannot wait for it."""

    def apply_in_context(
        self, audio: np.ndarray, sample_rate: int, rng: np.random.Generator, context: ClipContext
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """``apply`` for ops that ignore where the clip sits in the call (most ops)."""
        return self.apply(audio, sample_rate, rng)

    def __call__(
        self,
        audio: np.ndarray,
        sample_rate: int,
        rng: np.random.Generator,
        context: ClipContext = NO_CONTEXT,
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        x, rate = check_audio(audio, sample_rate)
        return self.run_checked(x, rate, check_rng(rng), context)

    def run_checked(
        self,
        audio: np.ndarray,
        sample_rate: int,
        rng: np.random.Generator,
        context: ClipContext = NO_CONTEXT,
    ) -> tuple[np.ndarray, list[dict[str, Any]]]:
        """``apply`` on input already checked by ``check_audio`` (the chain checks once, not per op)."""
        out, entries = self.apply_in_context(audio, sample_rate, rng, context)
        if out.shape != audio.shape:
            raise RuntimeError(f"op {self.name!r} changed the length from {audio.shape} to {out.shape}")
        return out.astype(np.float32, copy=False), entries

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.name, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Op:
        """Build from a spec dict: ``Op.from_dict`` dispatches on spec["op"]; on a subclass it is optional."""
        if cls is Op:
            return build_op(spec)
        fields = dict(spec)
        if fields.pop("op", cls.name) != cls.name:
            raise PerturbationError(f"perturb {cls.name}: spec is for op {spec['op']!r}")
        return _validate(cls, fields, f"perturb {cls.name}")

    @classmethod
    def expected(cls, field: str) -> str | None:
        """What a valid value of ``field`` looks like, for error messages; override for dynamic choices."""
        return None


OpT = TypeVar("OpT", bound=type[Op])
_OPS: dict[str, type[Op]] = {}
_ADAPTERS: dict[type[Op], TypeAdapter[Any]] = {}


def register_op(name: str) -> Callable[[OpT], OpT]:
    """Class decorator: make ``cls`` buildable from ``{"op": name, ...}`` specs."""

    def decorate(cls: OpT) -> OpT:
        if not (isinstance(cls, type) and issubclass(cls, Op) and dataclasses.is_dataclass(cls)):
            raise TypeError(f"register_op({name!r}) needs an Op subclass that is a (pydantic) dataclass")
        known = _OPS.get(name)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise ValueError(f"op {name!r} is already registered by {known.__module__}.{known.__qualname__}")
        cls.name = name
        _OPS[name] = cls
        return cls

    return decorate


def available_ops() -> list[str]:
    return sorted(_OPS)


def enabled(spec: Any, where: str = "perturb") -> bool:
    """A spec's optional ``enabled`` key (default true): false leaves the op out of the chain, so a condition can
    switch one factor off from the command line (``perturb.bursts=false``, interpolated into the spec)."""
    flag = spec.get("enabled", True) if isinstance(spec, Mapping) else True
    if not isinstance(flag, bool):
        raise PerturbationError(f"{where}: enabled must be true or false, got {flag!r}")
    return flag


def build_op(spec: Any, where: str = "perturb") -> Op:
    """The factory: a plain dict spec -> a validated op; ``where`` prefixes messages ("perturb chain[2]"). An
    ``enabled`` key is checked (``enabled``) and not passed on: the op is the same with or without it."""
    if not isinstance(spec, Mapping):
        raise PerturbationError(f"{where}: each op spec must be a mapping like {{op: noise, ...}}, got {spec!r}")
    enabled(spec, where)
    fields = {k: v for k, v in spec.items() if k != "enabled"}
    name = fields.pop("op", None)
    if name is None:
        raise PerturbationError(f"{where}: missing 'op'; available ops: {', '.join(available_ops())}")
    if not isinstance(name, str) or name not in _OPS:
        raise PerturbationError(f"{where}: unknown op {name!r}; available ops: {', '.join(available_ops())}")
    return _validate(_OPS[name], fields, f"{where} ({name})")


def _validate(cls: type[Op], fields: dict[str, Any], where: str) -> Op:
    adapter = _ADAPTERS.get(cls) or _ADAPTERS.setdefault(cls, TypeAdapter(cls))
    try:
        return adapter.validate_python(fields)
    except ValidationError as exc:
        problems = [_explain(cls, error) for error in exc.errors()]
        raise PerturbationError(f"{where}: {'; '.join(problems)}") from None


def _explain(cls: type[Op], error: Any) -> str:
    loc = error.get("loc") or ()
    field = str(loc[0]) if loc else "spec"
    kind = error["type"]
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        names = ", ".join(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
        return f"unknown field {field!r} (fields: {names})"
    if kind in ("missing", "missing_argument"):
        return f"{field} is required"
    expected = cls.expected(field) or _expected_from_type(cls, field)
    got = error.get("input")
    if expected:
        return f"{field} must be {expected}, got {got!r}"
    return f"{field}: {error['msg']}, got {got!r}"


def _expected_from_type(cls: type[Op], field: str) -> str | None:
    """Describe a field from its annotation and constraints, so new ops get readable messages for free."""
    info = getattr(cls, "__pydantic_fields__", {}).get(field)
    if info is None:
        return None
    annotation = info.annotation
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(v) for v in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        return None
    if annotation is bool:
        return "true or false"
    if annotation in (int, float):
        lo = next((m.ge for m in info.metadata if isinstance(m, annotated_types.Ge)), None)
        hi = next((m.le for m in info.metadata if isinstance(m, annotated_types.Le)), None)
        noun = "an integer" if annotation is int else "a number"
        if lo is not None and hi is not None:
            return f"{noun} between {lo:g} and {hi:g}"
        if lo is not None:
            return f"{noun} >= {lo:g}"
        if hi is not None:
            return f"{noun} <= {hi:g}"
        return noun
    if annotation is str:
        return "a string"
    return None
