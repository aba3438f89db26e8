"""EVA-Bench's placeholders, resolved for one culture as EVA-Bench's runtime resolves them before a call.

EVA-Bench's records and DBs store the caller's identity as placeholder tokens; the values live per language in the
record's ``culture_overrides`` (native script) and ``romanized_culture_overrides`` (ASCII). Every form that occurs in
the published data (a regex over the three datasets and their 213 initial DBs), and how each is filled:

- ``<FIRST_NAME>``, ``<LAST_NAME>``, ``<PHONE>``: the culture's override of that key (``first_name`` ...);
- ``<COMPANION_FIRST_NAME>``: a *nested* override (``{"companion": {"first_name": ...}}``, the third party of a
  record, e.g. a husband) — nested keys are flattened with ``_``, so any nested key has a placeholder;
- ``<FIRST_NAME_ROMANIZED>``, ``<LAST_NAME_ROMANIZED>`` (and ``<COMPANION_FIRST_NAME_ROMANIZED>``, which EVA-Bench
  supports and no record uses yet): the romanized override of the key (the native one when the culture has no
  romanized entry), **lower-cased**, as EVA-Bench emits them (they exist for e-mail local parts and similar slugs);
- ``<LOC:Name>`` (ITSM: ``<LOC:Headquarters>``, ``<LOC:East Campus>``, ...): the alias ``Name`` rendered for the
  culture: the name itself in English, else the first translation in ``data/<domain>_aliases/*.json``.

``names="romanized"`` fills the native-script name placeholders with the romanized values too (a caller voice that
cannot read Devanagari or Hangul still says the name). As EVA-Bench does, the DBs' objects whose ``name`` is an alias
get a ``name_aliases`` list (the alias's base forms and the culture's translations), in the initial and expected DB.

A token left after filling (a culture without the key, a typo) is reported with its field path, never imported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")
LOCATION = re.compile(r"<LOC:([^<>]+)>")
ROMANIZED = "_ROMANIZED"
Names = Literal["native", "romanized"]


class CultureError(ValueError):
    """A record whose overrides cannot fill its placeholders; the message names the field."""


@dataclass(frozen=True)
class Culture:
    """The filled values of one record for one culture: ``values`` maps a placeholder's name to its text."""

    language: str
    values: Mapping[str, str]
    aliases: Mapping[str, Mapping[str, Any]]

    def fill(self, node: Any, path: str = "") -> Any:
        """``node`` with every placeholder filled; CultureError names the path of a token it cannot fill."""
        if isinstance(node, str):
            return self._fill_text(node, path)
        if isinstance(node, list):
            return [self.fill(v, f"{path}[{i}]") for i, v in enumerate(node)]
        if isinstance(node, Mapping):
            return {k: self.fill(v, f"{path}.{k}" if path else str(k)) for k, v in node.items()}
        return node

    def _fill_text(self, text: str, path: str) -> str:
        text = LOCATION.sub(lambda m: self._location(m.group(1)), text)
        missing = [m.group(0) for m in PLACEHOLDER.finditer(text) if m.group(1) not in self.values]
        if missing:
            known = ", ".join(f"<{k}>" for k in sorted(self.values)) or "none"
            raise CultureError(
                f"field {path or '<root>'}: placeholder {missing[0]} has no value in the {self.language!r} culture "
                f"overrides (filled: {known})"
            )
        return PLACEHOLDER.sub(lambda m: self.values[m.group(1)], text)

    def _location(self, name: str) -> str:
        entry = self.aliases.get(name)
        if entry is None or self.language in ("", "en"):
            return name
        translations = (entry.get("translations") or {}).get(self.language) or []
        return str(translations[0]) if translations else name

    def add_name_aliases(self, node: Any) -> Any:
        """A copy of a DB where every object whose ``name`` is a known alias carries ``name_aliases``."""
        if isinstance(node, list):
            return [self.add_name_aliases(v) for v in node]
        if not isinstance(node, Mapping):
            return node
        out = {k: self.add_name_aliases(v) for k, v in node.items()}
        entry = self.aliases.get(out["name"]) if isinstance(out.get("name"), str) else None
        if entry is not None:
            forms = [*entry.get("base", []), *(entry.get("translations") or {}).get(self.language, [])]
            out["name_aliases"] = list(dict.fromkeys(forms))
        return out


def flatten(overrides: Mapping[str, Any], where: str, prefix: str = "") -> dict[str, str]:
    """``{"first_name": "A", "companion": {"first_name": "B"}}`` -> ``{"FIRST_NAME": "A", "COMPANION_FIRST_NAME":
    "B"}``: the placeholder name of every (nested) override."""
    flat: dict[str, str] = {}
    for key, value in overrides.items():
        name = f"{prefix}{key}".upper()
        if isinstance(value, Mapping):
            flat |= flatten(value, f"{where}.{key}", f"{name}_")
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            flat[name] = str(value)
        else:
            raise CultureError(f"field {where}.{key}: an override must be text or an object, got {value!r}")
    return flat


def culture_for(
    record: Mapping[str, Any], language: str, names: Names = "native", aliases: Mapping[str, Any] | None = None
) -> Culture:
    """The placeholder values of ``record`` for ``language`` (EVA-Bench's culture key: en, fr, fr-CA, es, ...)."""
    overrides = record.get("culture_overrides") or {}
    if not isinstance(overrides, Mapping):
        raise CultureError("field culture_overrides: must be an object keyed by language")
    if language not in overrides:
        raise CultureError(
            f"field culture_overrides.{language}: missing (the record has {', '.join(overrides) or 'no cultures'})"
        )
    native = flatten(_object(overrides[language], f"culture_overrides.{language}"), f"culture_overrides.{language}")
    romanized_all = record.get("romanized_culture_overrides") or {}
    if not isinstance(romanized_all, Mapping):
        raise CultureError("field romanized_culture_overrides: must be an object keyed by language")
    where = f"romanized_culture_overrides.{language}"
    romanized = native | flatten(_object(romanized_all.get(language) or {}, where), where)
    values = {key: (romanized[key] if names == "romanized" else value) for key, value in native.items()}
    values |= {f"{key}{ROMANIZED}": value.lower() for key, value in romanized.items()}
    return Culture(language, values, aliases or {})


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise CultureError(f"field {where}: must be an object, got {type(value).__name__}")
    return value


def load_aliases(folder: Path | None) -> dict[str, dict[str, Any]]:
    """EVA-Bench's alias store (``data/<domain>_aliases/<slug>.json``: name, base forms, translations) by name;
    empty when the folder does not exist (only ITSM has one)."""
    if folder is None or not folder.is_dir():
        return {}
    index: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            index[entry["name"]] = entry
    return index
