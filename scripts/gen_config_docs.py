"""Generate docs/configuration.md, the configuration reference, from the pydantic schema and conf/.

    python scripts/gen_config_docs.py           # (re)write docs/configuration.md
    python scripts/gen_config_docs.py --check   # exit 1 when it is stale or an option is undocumented

The schema is the truth: every field of ``evalkit.config.schema.RunConfig`` is walked, and a plug-in group (agent,
simulator, voice, judge, an agent's asr/tts) is expanded once per registered kind, so a new kind or field appears
here without editing this script. Each option's text comes from, in order: the field's ``description``, the comment
beside (or just above) the key in the conf/ option file that sets it, the comment beside (or just above) the field in
its class. An option with none of the three is *undocumented*: ``--check`` and tests/test_docs.py name it. The
perturbation ops (``perturbations.registry``), the option files of every conf/ group, and the keys of the other
entry points' configs (conf/analyze.yaml, conf/arena.yaml) are listed too.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import functools
import inspect
import io
import re
import sys
import textwrap
import tokenize
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

REPO = Path(__file__).resolve().parents[1]
CONF = REPO / "conf"
OUTPUT = REPO / "docs" / "configuration.md"
GENERATOR = "scripts/gen_config_docs.py"
# Groups whose option files are listed, in the order of the reference (the rest follow alphabetically).
GROUP_ORDER = (
    "domain", "agent", "simulator", "persona", "voice", "perturb", "interrupt", "behavior", "modality", "judge",
)  # fmt: skip
# Sections of RunConfig documented on their own, in this order; the remaining (top-level) fields come first.
SECTION_ORDER = (*GROUP_ORDER, "validation", "infra", "mlflow")


@dataclasses.dataclass(frozen=True)
class Option:
    """One documented key: ``path`` as written on the command line (``agent.asr.model``; ``[]`` marks a list item)."""

    path: str
    type: str
    default: str
    constraints: str
    description: str
    origin: str  # where the description came from: "schema", a conf/ file, or a class's source


# -- comments: conf/ YAML files and class sources -------------------------------------------------------------------

_KEY = re.compile(r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[A-Za-z_][\w-]*)\s*:(?P<rest>.*)$")


def _inline_comment(rest: str) -> str | None:
    """The ``# comment`` after a YAML value (a ``#`` inside quotes or braces is the value's own)."""
    quote = None
    for i, ch in enumerate(rest):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or rest[i - 1].isspace()):
            return rest[i + 1 :].strip()
    return None


@functools.cache
def yaml_comments(path: Path) -> dict[str, str]:
    """Dotted key -> its comment in one YAML file: the comment beside the key (with the comment-only lines that
    continue it, indented past the key) or else the comment block just above it (not the file's leading block, which
    describes the whole option)."""
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []
    above: list[str] = []
    seen_key = False
    lines = path.read_text(encoding="utf-8").splitlines()
    last: tuple[str, int] | None = None  # the last key with an inline comment, and that comment's column
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("#"):
            text = stripped.lstrip("#").strip()
            column = len(line) - len(line.lstrip())
            if last is not None and column >= last[1] and text:  # the inline comment goes on below its key
                comments[last[0]] += " " + text
            elif seen_key:
                above.append(text)
            continue
        last = None
        match = _KEY.match(line)
        if not stripped or not match:
            above = []
            continue
        indent = len(match["indent"]) + (2 if line.lstrip().startswith("- ") else 0)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        dotted = ".".join([*(k for _, k in stack), match["key"]])
        stack.append((indent, match["key"]))
        inline = _inline_comment(match["rest"])
        text = inline or " ".join(t for t in above if t)
        if text and dotted not in comments:
            comments[dotted] = text
            if inline:
                last = (dotted, line.index("#", len(match["indent"]) + len(match["key"])))
        above = []
        seen_key = True
    return comments


def header_comment(path: Path) -> str:
    """The first paragraph of a YAML file's leading comment block: what the option is."""
    paragraph: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if not text:
            if paragraph:
                break
            continue
        paragraph.append(text)
    return " ".join(paragraph)


@functools.cache
def source_comments(cls: type) -> dict[str, str]:
    """Field name -> the comments beside and just above its definition in ``cls``'s own source."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    by_line: dict[int, str] = {}
    code_lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            by_line[token.start[0]] = token.string.lstrip("#").strip()
        elif token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            code_lines.add(token.start[0])
    tree = ast.parse(source)
    klass = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    found: dict[str, str] = {}
    for node in klass.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above, line = [], node.lineno - 1
        while line in by_line and line not in code_lines:
            above.insert(0, by_line[line])
            line -= 1
        beside = by_line.get(node.end_lineno or node.lineno) if (node.end_lineno or 0) in code_lines else None
        text = " ".join(t for t in (*above, beside or "") if t and not t.startswith("type:"))
        text = re.sub(r"\s*type: ignore\[[^\]]*\]", "", text).strip()
        if text:
            found[node.target.id] = text
    return found


# -- the schema walk ------------------------------------------------------------------------------------------------


def kind_registry(field: FieldInfo) -> tuple[Any, type[BaseModel]] | None:
    """(registry, base class) of a plug-in field (``kind_of(AGENTS, AgentConfig)``), else None."""
    from evalkit.kinds import pick_kind

    for meta in field.metadata:
        func = getattr(meta, "func", None)
        if isinstance(func, functools.partial) and func.func is pick_kind:
            return func.args[0], func.args[1]
    return None


def _models_in(annotation: Any) -> list[tuple[type[BaseModel], bool]]:
    """Pydantic models inside an annotation, with whether they sit in a list (``speakers: list[SpeakerConfig]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    origin = typing.get_origin(annotation)
    inner = [m for a in typing.get_args(annotation) for m in _models_in(a)]
    if origin in (list, tuple):
        return [(m, True) for m, _ in inner]
    return inner


def type_name(annotation: Any) -> str:
    """A short, stable rendering of an annotation: ``int``, ``'rms' | 'silero'``, ``list[str] | null``."""
    if annotation is type(None):
        return "null"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(a) if isinstance(a, str) else str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (list, tuple, dict, set):
        shown = ", ".join("..." if a is Ellipsis else type_name(a) for a in args)
        return f"{origin.__name__}[{shown}]" if args else origin.__name__
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "mapping"
        return "path" if annotation is Path else annotation.__name__
    return str(annotation).replace("typing.", "")


def _bounds(metadata: list[Any]) -> str:
    words = []
    for meta in metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            value = getattr(meta, attr, None)
            if value is not None and isinstance(meta, annotated_types.BaseMetadata):
                words.append(f"{sign} {value:g}" if isinstance(value, int | float) else f"{sign} {value}")
        if isinstance(meta, annotated_types.MinLen):
            words.append(f"at least {meta.min_length} item(s)")
        if isinstance(meta, annotated_types.MaxLen):
            words.append(f"at most {meta.max_length} item(s)")
    return ", ".join(words)


def constraints(field: FieldInfo) -> str:
    """Ranges from the field and from inside its annotation (``Annotated[int, Field(ge=1)] | 'auto'``)."""
    found = [_bounds(field.metadata)]
    for arg in typing.get_args(field.annotation):
        if typing.get_origin(arg) is typing.Annotated:
            for meta in typing.get_args(arg)[1:]:
                found.append(_bounds(getattr(meta, "metadata", [meta])))
    return ", ".join(f for f in found if f)


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:.1f}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_yaml_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def default_of(field: FieldInfo) -> str:
    if field.default is PydanticUndefined and field.default_factory is None:
        return "required"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "see below"
    text = _yaml_value(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_option(model: type[BaseModel], name: str, path: str, conf_files: list[Path]) -> Option:
    """The documentation of one field of ``model`` at ``path``."""
    field = model.model_fields[name]
    plugin = kind_registry(field)
    nested = _models_in(field.annotation) if plugin is None else []
    type_text = "mapping (a plug-in kind, below)" if plugin else type_name(field.annotation)
    default = "see below" if plugin or (nested and not nested[0][1]) else default_of(field)
    return Option(path, type_text, default, constraints(field), *_describe(model, name, field, path, conf_files))


def walk(model: type[BaseModel], prefix: str, conf_files: list[Path]) -> Iterator[tuple[str, Option | None, Any]]:
    """Yield ("option", Option, None) for every key under ``model`` and ("kinds", None, (path, registry, base)) for
    each plug-in field, whose kinds the caller documents as their own sections."""
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        yield "option", field_option(model, name, path, conf_files), None
        plugin = kind_registry(field)
        if plugin is not None:
            yield "kinds", None, (path, *plugin)
            continue
        for sub, in_list in _models_in(field.annotation):
            yield from walk(sub, f"{path}[]." if in_list else f"{path}.", conf_files)


def _describe(
    model: type[BaseModel], name: str, field: FieldInfo, path: str, conf_files: list[Path]
) -> tuple[str, str]:
    if field.description:
        return field.description, "schema"
    for conf in conf_files:
        # conf/config.yaml spells keys in full (validation.max_reruns); a group's option file from inside the group
        key = path if conf.parent == CONF else path.split(".", 1)[-1]
        text = yaml_comments(conf).get(key.replace("[]", ""))
        if text:
            return text, str(conf.relative_to(REPO))
    for klass in model.__mro__:  # the class that (re)defines it, then the bases that declared it first
        text = source_comments(klass).get(name) if name in getattr(klass, "__annotations__", {}) else None
        if text:
            return text, f"{klass.__module__}.{klass.__qualname__}"
    # a group of keys (agent.asr, persona.behaviour): what its class says it is
    plugin = kind_registry(field)
    nested = [plugin[1]] if plugin else [m for m, _ in _models_in(field.annotation)]
    doc = (inspect.getdoc(nested[0]) or "").split("\n\n")[0].replace("\n", " ") if nested else ""
    if doc and nested[0].__doc__:  # its own docstring, not pydantic's inherited BaseModel one
        return doc, f"{nested[0].__module__}.{nested[0].__qualname__}"
    return "", ""


def group_files(group: str) -> list[Path]:
    folder = CONF / group
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def default_choices() -> dict[str, str]:
    """The defaults list of conf/config.yaml: group -> option."""
    from omegaconf import OmegaConf

    choices: dict[str, str] = {}
    for entry in OmegaConf.to_container(OmegaConf.load(CONF / "config.yaml"))["defaults"]:  # type: ignore[index]
        if isinstance(entry, dict):
            for key, value in entry.items():
                if not str(key).startswith("override"):
                    choices[str(key)] = str(value)
    return choices


def _kind_of_file(path: Path) -> str | None:
    from omegaconf import OmegaConf

    node = OmegaConf.load(path)
    return str(node.get("kind")) if "kind" in node else None


def conf_files_for(group: str, kind: str | None = None) -> list[Path]:
    """The option files of ``group`` whose comments may document its keys: the default option first, then the rest
    (for a plug-in group: only the options of ``kind``)."""
    files = group_files(group)
    if kind is not None:
        files = [f for f in files if _kind_of_file(f) == kind]
    default = default_choices().get(group)
    return sorted(files, key=lambda f: (f.stem != default, f.name))


# -- collecting sections --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Section:
    title: str
    anchor_note: str  # one line under the title: where the options live
    options: list[Option]


def _kinds_sections(path: str, registry: Any, group_conf: list[Path], parent_kind: str | None) -> list[Section]:
    sections: list[Section] = []
    group = path.split(".")[0]
    for kind in registry.names():
        cls = registry.get(kind)
        # a nested plug-in (agent.asr): the option files of its parent document it
        files = conf_files_for(group, kind) if path == group else group_conf
        options: list[Option] = []
        nested: list[Section] = []
        for what, option, plugin in walk(cls, f"{path}.", files):
            if what == "option":
                options.append(option)  # type: ignore[arg-type]
            else:
                nested += _kinds_sections(plugin[0], plugin[1], files, kind)
        where = ", ".join(f"`{f.relative_to(REPO)}`" for f in files if path == group) or "—"
        origin = registry.origin(kind)
        title = f"`{path}` kind `{kind}`" + (f" (in `{group}` kind `{parent_kind}`)" if parent_kind else "")
        note = f"Config class `{cls.__module__}.{cls.__qualname__}` (registered by `{origin}`)."
        if path == group:
            note += f" Options: {where}."
        sections.append(Section(title, note, options))
        sections += nested
    return sections


def collect() -> list[Section]:
    """Every section of the reference, in order: top-level keys, then each group (plug-in groups once per kind)."""
    from evalkit.config.schema import RunConfig

    top = CONF / "config.yaml"
    sections: dict[str, list[Section]] = {}
    top_options: list[Option] = []
    for name, field in RunConfig.model_fields.items():
        plugin = kind_registry(field)
        nested = _models_in(field.annotation)
        files = [*conf_files_for(name), top] if (CONF / name).is_dir() else [top]
        if plugin is not None:
            sections[name] = _kinds_sections(name, plugin[0], files, None)
            continue
        if not nested:
            top_options.append(field_option(RunConfig, name, name, [top]))
            continue
        options: list[Option] = []
        for what, option, _ in walk(nested[0][0], f"{name}.", files):
            if what == "option":
                options.append(option)  # type: ignore[arg-type]
        cls = nested[0][0]
        shown = [f for f in files if f.parent != CONF] or files  # the group's own option files, else config.yaml
        where = ", ".join(f"`{f.relative_to(REPO)}`" for f in shown)
        note = f"Config class `{cls.__module__}.{cls.__qualname__}`. Set in: {where}."
        sections[name] = [Section(f"`{name}`", note, options)]
    ordered = [Section("Top-level keys", "Set in `conf/config.yaml` or on the command line (`seed=1`).", top_options)]
    for name in sorted(sections, key=lambda n: (SECTION_ORDER.index(n) if n in SECTION_ORDER else 99, n)):
        ordered += sections[name]
    return ordered


def undocumented(sections: list[Section]) -> list[str]:
    """Keys with no description anywhere (schema, conf/ comment, class comment)."""
    return sorted({f"{o.path}  ({s.title})" for s in sections for o in s.options if not o.description})


# -- perturbation ops, option files, other entry points ----------------------------------------------------------


def op_rows() -> list[tuple[str, str, list[Option]]]:
    """(op name, the first line of its docstring, its fields) for every registered perturbation op."""
    import perturbations  # noqa: F401  (importing the package registers the built-in ops)
    from perturbations.registry import _OPS, available_ops

    rows = []
    for name in available_ops():
        cls = _OPS[name]
        doc = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
        comments = source_comments(cls)
        fields = []
        for fname, info in getattr(cls, "__pydantic_fields__", {}).items():
            text = info.description or comments.get(fname, "")
            fields.append(Option(fname, type_name(info.annotation), default_of(info), constraints(info), text, ""))
        rows.append((name, doc, fields))
    return rows


def yaml_keys(path: Path) -> list[tuple[str, str, str]]:
    """(dotted key, value, comment) of a plain config file (conf/analyze.yaml), the hydra block left out."""
    from omegaconf import OmegaConf

    comments = yaml_comments(path)
    node = OmegaConf.to_container(OmegaConf.load(path))
    rows: list[tuple[str, str, str]] = []

    def visit(value: Any, prefix: str) -> None:
        if isinstance(value, dict) and value and prefix != "":
            for key, sub in value.items():
                visit(sub, f"{prefix}.{key}")
            return
        rows.append((prefix, _yaml_value(value), comments.get(prefix, "")))

    for key, value in node.items():  # type: ignore[union-attr]
        if key in ("hydra", "defaults"):
            continue
        if isinstance(value, dict) and value:
            if comments.get(str(key)):
                rows.append((str(key), "mapping", comments[str(key)]))
            for sub_key, sub in value.items():
                visit(sub, f"{key}.{sub_key}")
        else:
            rows.append((str(key), _yaml_value(value), comments.get(str(key), "")))
    return rows


# -- rendering ------------------------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _summary(text: str, limit: int = 240) -> str:
    if len(text) <= limit:
        return text
    cut = text.find(". ", 0, limit)
    return text[: cut + 1] if cut > 0 else text[: limit - 3] + "..."


def _option_table(options: list[Option]) -> list[str]:
    lines = ["| key | type | default | range | description |", "|---|---|---|---|---|"]
    for o in options:
        default = o.default if o.default in ("required", "see below") else _code(o.default)
        cells = (_code(o.type), default, o.constraints, o.description)
        lines.append(f"| `{o.path}` | " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


def render() -> str:
    sections = collect()
    choices = default_choices()
    out = [
        "# Configuration reference",
        "",
        f"<!-- Generated by {GENERATOR} from evalkit/config/ (the pydantic schema) and conf/. Do not edit by hand:",
        f"     run `python {GENERATOR}`; tests/test_docs.py fails when this file is stale. -->",
        "",
        "Every key `python -m evalkit` accepts, from the pydantic schema that validates the composed config",
        "(`evalkit/config/schema.py`; plug-in groups expanded once per registered kind), with the text of the schema",
        "or of the comment beside the key in `conf/`. What the groups are for, with examples, is in",
        "[running.md](running.md#config-groups-in-practice); the architecture behind the kinds in",
        "[architecture.md](architecture.md#plug-ins).",
        "",
        "Set a key on the command line (`trials=3`, `agent.asr.beam_size=5`, `+perturb=noise_cafe perturb.snr_db=5`),",
        "pick a group's option (`agent=twilio_ws`), or write an option file under `conf/<group>/`. A value outside its",
        "range, of the wrong type or an unknown key stops the run with one line naming the key and its file.",
        "",
        "## Config groups and their options",
        "",
        "| group | default | options |",
        "|---|---|---|",
    ]
    groups = sorted(
        (p.name for p in CONF.iterdir() if p.is_dir() and p.name != "hydra"),
        key=lambda g: (GROUP_ORDER.index(g) if g in GROUP_ORDER else 99, g),
    )
    for group in groups:
        names = ", ".join(f"`{f.stem}`" for f in group_files(group))
        default = _code(choices[group]) if group in choices else f"none (`+{group}=...`)"
        out.append(f"| `{group}` | {default} | {names} |")
    out += ["", "What each option file is (its leading comment):", ""]
    for group in groups:
        out += [f"### `conf/{group}/`", "", "| option | what |", "|---|---|"]
        for f in group_files(group):
            out.append(f"| `{f.stem}` | {_cell(_summary(header_comment(f)))} |")
        out.append("")
    for section in sections:
        out += [f"## {section.title}", "", section.anchor_note, "", *_option_table(section.options), ""]
    out += [
        "## Perturbation ops (`perturb.chain`)",
        "",
        "A `perturb` option is an ordered `chain:` of ops (`{op: <name>, ...fields}`); its top-level knobs (`snr_db`,",
        "`bitrate_kbps`, `loss_rate`, `folder`) are interpolated into the chain. The ops are registered in",
        "`perturbations.registry` ([perturbations.md](perturbations.md)); each op's module docstring explains its",
        "fields.",
        "",
    ]
    for name, doc, fields in op_rows():
        out += [f"### op `{name}`", "", _cell(doc), "", *_option_table(fields), ""]
    out += ["## Hydra launchers (`hydra/launcher=...`)", ""]
    out += [
        "Hydra's own launchers (`basic`, `joblib`, `submitit_local`, `submitit_slurm`, `ray`) and evalkit's preset;",
        "see [cluster.md](cluster.md).",
        "",
        "| preset | what |",
        "|---|---|",
    ]
    for f in sorted((CONF / "hydra" / "launcher").glob("*.yaml")):
        out.append(f"| `{f.stem}` | {_cell(_summary(header_comment(f)))} |")
    out.append("")
    for entry, path in (("python -m evalkit.analyze", "analyze.yaml"), ("python -m evalkit.arena", "arena.yaml")):
        out += [
            f"## `{entry}` (`conf/{path}`)",
            "",
            f"Its own config root: {_cell(_summary(header_comment(CONF / path)))} See [analysis.md](analysis.md).",
            "",
            "| key | default | description |",
            "|---|---|---|",
        ]
        for key, value, comment in yaml_keys(CONF / path):
            out.append(f"| `{key}` | {_cell(_code(value))} | {_cell(comment)} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/configuration.md is stale or incomplete")
    args = parser.parse_args(argv)
    text = render()
    missing = undocumented(collect())
    if missing:
        print("undocumented options (add a Field description or a comment in conf/):", file=sys.stderr)
        for key in missing:
            print(f"  {key}", file=sys.stderr)
    if args.check:
        stale = not OUTPUT.exists() or OUTPUT.read_text(encoding="utf-8") != text
        if stale:
            print(f"{OUTPUT.relative_to(REPO)} is stale: run python {GENERATOR}", file=sys.stderr)
        return 1 if stale or missing else 0
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(REPO)} ({text.count(chr(10))} lines)")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
