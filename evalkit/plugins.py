"""One registry pattern for every plug-in kind: agents, simulators, TTS engines, ASR engines, metrics, domains,
judges (perturbation ops have their own in ``perturbations.registry``, which imports nothing from evalkit).

A plug-in registers by name with a decorator in its own module::

    from evalkit.agents.registry import AGENTS, AgentConfig  # each kind's registry lives with the kind

    @AGENTS.register("my_agent")
    class MyAgentConfig(AgentConfig): ...

and third-party packages register through a Python entry point in the group ``evalkit.<kind>`` (e.g.
``evalkit.agents``) whose value is the module to import (``my_pkg.my_agent``): importing it runs the decorator.
Built-in plug-ins are found the same way, by importing the modules listed in ``builtin_modules``, so adding one is
a module plus its YAML file (and one line in the kind's ``builtin_modules`` only for built-ins).

Two plug-ins registering one name fail at import, naming both modules; an unknown name fails with the options
registered (``UnknownPluginError``).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from typing import Generic, TypeVar

T = TypeVar("T")


class PluginError(ValueError):
    """A plug-in registry problem: a duplicate name, an unknown name, a broken entry point."""


class UnknownPluginError(PluginError):
    def __init__(self, kind: str, name: str, options: list[str]) -> None:
        self.kind, self.name, self.options = kind, name, options
        super().__init__(f"unknown {kind} {name!r}; registered: {', '.join(options) or '(none)'}")


def _origin(obj: object) -> str:
    """The module an object was defined in (for messages about duplicates)."""
    module = inspect.getmodule(obj)
    return getattr(module, "__name__", None) or getattr(obj, "__module__", None) or repr(obj)


class Registry(Generic[T]):
    """Name -> plug-in for one kind. Loading (built-in modules, then entry points) happens on first look-up, so
    importing a registry is cheap and registration order never depends on who asked first."""

    def __init__(self, kind: str, group: str, builtin_modules: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.group = group  # entry-point group, e.g. "evalkit.agents"
        self.builtin_modules = builtin_modules
        self._items: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._aliases: dict[str, str] = {}  # a former name -> the registered one (looked up, never listed)
        self._loaded = False
        self._loading = False

    def register(self, name: str) -> Callable[[T], T]:
        def add(obj: T) -> T:
            self.add(name, obj)
            return obj

        return add

    def add(self, name: str, obj: T, origin: str | None = None) -> T:
        where = origin or _origin(obj)
        if name in self._items and self._items[name] is not obj:
            raise PluginError(f"two {self.kind} plug-ins register the name {name!r}: {self._origins[name]} and {where}")
        self._items[name] = obj
        self._origins[name] = where
        return obj

    def alias(self, alias: str, name: str) -> None:
        """``alias`` finds the plug-in ``name`` (a renamed plug-in's old name keeps working); ``names()`` and
        iteration list ``name`` only."""
        if alias in self._items:
            raise PluginError(f"{self.kind} alias {alias!r} is already a registered name")
        self._aliases[alias] = name

    def canonical(self, name: str) -> str:
        """The registered name ``name`` stands for (itself, unless it is an alias)."""
        self.load()
        return self._aliases.get(name, name)

    def same(self, a: str, b: str) -> bool:
        """Two names of one plugin (a renamed plugin's former name is an alias of it)."""
        return a == b or self.canonical(a) == self.canonical(b)

    def load(self) -> None:
        """Import the built-in modules and every installed entry point of this kind (once)."""
        if self._loaded or self._loading:
            return
        self._loading = True
        try:
            for module in self.builtin_modules:
                importlib.import_module(module)
            for ep in entry_points(group=self.group):
                try:
                    ep.load()
                except Exception as exc:  # a broken third-party plug-in must say which one it is
                    raise PluginError(
                        f"{self.kind} entry point {ep.name!r} ({ep.value}) failed to load: {exc}"
                    ) from exc
            self._loaded = True
        finally:
            self._loading = False

    def get(self, name: str) -> T:
        self.load()
        try:
            return self._items[self._aliases.get(name, name)]
        except KeyError:
            raise UnknownPluginError(self.kind, name, self.names()) from None

    def names(self) -> list[str]:
        self.load()
        return sorted(self._items)

    def origin(self, name: str) -> str:
        self.get(name)
        return self._origins[self._aliases.get(name, name)]

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._items or name in self._aliases

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def items(self) -> list[tuple[str, T]]:
        self.load()
        return sorted(self._items.items())
