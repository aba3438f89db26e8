"""Config fields whose value is one of a registry's config classes, picked by the value's ``kind`` key.

This is the discriminated union of docs/architecture.md, decision 9, built from the registry at validation time
rather than written out in the schema, so a plug-in (built in, from an entry point, or a module the option names with
``plugin:``) validates without editing any schema. Errors of the chosen class keep their key paths
(``agent.asr.typo_key``); an unknown or missing kind is one error at ``<group>.kind`` listing the registered kinds.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SerializeAsAny, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from evalkit.plugins import Registry, UnknownPluginError

__all__ = ["KindConfig", "kind_of", "pick_kind", "validate_kind"]


class KindConfig(BaseModel):
    """The base of every plug-in config class: the registered ``kind`` it was chosen by, and optionally the module
    that registers that kind (for a plug-in that is neither built in nor installed with an entry point: a module on
    ``sys.path`` beside the YAML that names it)."""

    model_config = ConfigDict(extra="forbid")

    # What the component's usage costs (evalkit.pricing): "local" runs in this process and sends no request (0 USD
    # by this declaration, its work counted in audio seconds), "metered" sends its requests through evalkit's
    # clients (each metered, evalkit.usage), "external" spends what evalkit cannot see (a cell with one has no
    # total cost). A kind that declares nothing is external: never a 0 on a guess.
    METERING: ClassVar[str] = "external"

    kind: str  # the registered kind whose config class validates this option and builds the component
    # Left out of dumps when unset, so built-in configs (and their cell keys) carry no null plug-in entries.
    plugin: str | None = Field(
        default=None, exclude_if=lambda v: v is None, description="module imported before the kind is looked up"
    )

    def random_sources(self) -> list[str]:
        """What in this component varies from one trial of a scenario to the next (issue 17: a cell with nothing
        random runs one trial instead of k copies). A kind that does not override this counts as random, so k
        trials are never cut to one on a guess."""
        return [f"kind {self.kind!r} (not declared deterministic)"]


M = TypeVar("M", bound=KindConfig)


def _kind_error(base: type[BaseModel], message: str, value: Any, key: str = "kind") -> ValidationError:
    # Raised at loc (key,) so the message names `<group>.kind`; pydantic prefixes the group's own path.
    error = PydanticCustomError("unknown_kind", "{message}", {"message": message})
    details: list[InitErrorDetails] = [{"type": error, "loc": (key,), "input": value}]
    return ValidationError.from_exception_data(base.__name__, details)


def _import_plugin(base: type[BaseModel], module: Any) -> None:
    try:
        importlib.import_module(str(module))
    except ImportError as exc:
        raise _kind_error(base, f"cannot import plug-in module {module!r}: {exc}", module, "plugin") from None


def pick_kind(registry: Registry[type[M]], base: type[M], value: Any) -> Any:
    """Validate ``value`` with the config class registered under ``value['kind']``."""
    if isinstance(value, base) or not isinstance(value, Mapping):
        return value  # an already-built config, or a non-mapping that pydantic's own type error will describe
    if value.get("plugin"):
        _import_plugin(base, value["plugin"])  # its decorators register the kind
    kind = value.get("kind")
    if kind is None:
        raise _kind_error(
            base, f"missing: a {registry.kind} config names its kind; registered: {_options(registry)}", kind
        )
    try:
        cls = registry.get(str(kind))
    except UnknownPluginError as exc:
        raise _kind_error(base, str(exc), kind) from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise _kind_error(
            base, f"{registry.kind} plug-in {kind!r} ({registry.origin(str(kind))}) is not a {base.__name__}", kind
        )
    return cls.model_validate(dict(value))


def _options(registry: Registry[Any]) -> str:
    return ", ".join(registry.names()) or "(none)"


def kind_of(registry: Registry[type[M]], base: type[M]) -> Any:
    """The annotation of a field holding any registered ``base`` subclass: ``agent: kind_of(AGENTS, AgentConfig)``.

    ``SerializeAsAny`` makes dumps (saved configs, the cell key) include the chosen class's own fields, not only
    the base's."""
    return Annotated[SerializeAsAny[base], BeforeValidator(functools.partial(pick_kind, registry, base))]


def validate_kind(registry: Registry[type[M]], base: type[M], value: Any) -> M:
    """One value through the same dispatch (e.g. a clean-twin option read from ``conf/``)."""
    result = pick_kind(registry, base, value)
    return result if isinstance(result, base) else base.model_validate(result)
