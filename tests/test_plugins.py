"""The shared plug-in registry: duplicate names fail naming both modules, unknown names list the options."""

from __future__ import annotations

import types

import pytest

from evalkit.plugins import PluginError, Registry, UnknownPluginError


def _in_module(name: str) -> type:
    module = types.ModuleType(name)
    cls = type("Thing", (), {"__module__": name})
    module.Thing = cls
    import sys

    sys.modules[name] = module
    return cls


def test_register_and_get() -> None:
    reg: Registry[type] = Registry("widget", "evalkit.test_widgets")
    cls = _in_module("evalkit_test_mod_a")
    reg.register("a")(cls)
    assert reg.get("a") is cls
    assert reg.names() == ["a"]
    assert "a" in reg and "b" not in reg
    assert reg.origin("a") == "evalkit_test_mod_a"


def test_duplicate_name_names_both_modules() -> None:
    reg: Registry[type] = Registry("widget", "evalkit.test_widgets")
    reg.register("x")(_in_module("evalkit_test_mod_first"))
    with pytest.raises(PluginError, match="evalkit_test_mod_first and evalkit_test_mod_second"):
        reg.register("x")(_in_module("evalkit_test_mod_second"))


def test_same_object_twice_is_not_a_duplicate() -> None:
    reg: Registry[type] = Registry("widget", "evalkit.test_widgets")
    cls = _in_module("evalkit_test_mod_same")
    reg.add("y", cls)
    reg.add("y", cls)
    assert reg.get("y") is cls


def test_unknown_name_lists_options() -> None:
    reg: Registry[int] = Registry("widget", "evalkit.test_widgets")
    reg.add("one", 1, origin="here")
    reg.add("two", 2, origin="here")
    with pytest.raises(UnknownPluginError, match=r"unknown widget 'three'; registered: one, two"):
        reg.get("three")


def test_builtin_modules_load_on_first_lookup() -> None:
    reg: Registry[object] = Registry("widget", "evalkit.test_widgets", builtin_modules=("evalkit_test_builtin",))
    module = types.ModuleType("evalkit_test_builtin")
    import sys

    sys.modules["evalkit_test_builtin"] = module
    reg.add("pre", 0, origin="here")  # registering does not trigger loading
    assert not reg._loaded
    assert reg.names() == ["pre"]
    assert reg._loaded
