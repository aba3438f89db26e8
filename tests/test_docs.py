"""The documentation stays true (issue 32 point 1): the README is a short front door, docs/ is the manual, nothing
refers outside the repository, every relative link resolves, and the generated configuration reference covers
every option of the schema and matches what the generator writes today."""

from __future__ import annotations

import functools
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Literal

from pydantic import BaseModel, Field

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
README_MAX_LINES = 300
# Built from parts so this file does not itself contain the strings it forbids.
OUTSIDE_REFERENCES = ("../" + "shared", "shared/" + "DESIGN.md")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


@functools.cache
def _generator() -> ModuleType:  # scripts/ is not a package: load the generator the docs name
    spec = importlib.util.spec_from_file_location("gen_config_docs", REPO / "scripts" / "gen_config_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _tracked_files() -> list[Path]:
    """The repository's files as git sees them (a copy without .git: every file outside hidden folders)."""
    result = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=False)
    if result.returncode == 0:
        return [REPO / name for name in result.stdout.decode().split("\0") if name]
    return [p for p in REPO.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts[-3:])]


def _manual() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (``_`` and ``-`` kept), spaces to ``-``."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in FENCE.sub("", markdown).splitlines():
        if line.startswith("#"):
            base = slug(line.lstrip("#"))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(page: Path, root: Path = REPO) -> list[str]:
    """Relative links of ``page`` whose file does not exist, or whose #anchor is no heading of that file."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code is not a link
    problems = []
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        file = (page.parent / path_part).resolve() if path_part else page
        if not file.exists():
            problems.append(f"{page.relative_to(root)}: {target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            problems.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return problems


def test_the_readme_is_a_front_door_of_at_most_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move detail into docs/"


def test_the_readme_names_the_commands_ci_runs() -> None:
    readme = README.read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for command in ('pip install -e ".[dev]"', "bash scripts/conformance_env.sh", "pytest -m slow"):
        assert command in readme and command in ci, command
    assert "python -m evalkit +perturb=noise_cafe -m" in readme
    assert re.search(r"^pytest\b", readme, re.M) and re.search(r"^pytest$", ci, re.M)


def test_no_tracked_file_refers_outside_the_repository() -> None:
    offenders = []
    for path in _tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files (audio fixtures) hold no paths
        offenders += [f"{path.relative_to(REPO)}: {ref}" for ref in OUTSIDE_REFERENCES if ref in text]
    assert not offenders, offenders


def test_every_relative_link_of_the_manual_resolves() -> None:
    pages = _manual()
    assert {p.name for p in pages} >= {
        "architecture.md",
        "configuration.md",
        "metrics.md",
        "perturbations.md",
        "agents.md",
        "scenarios.md",
        "analysis.md",
        "cluster.md",
        "measurements.md",
    }
    problems = [problem for page in pages for problem in broken_links(page)]
    assert not problems, problems


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    (tmp_path / "there.md").write_text("# A heading (`with=code`)\n")
    page.write_text(
        "[ok](there.md#a-heading-withcode) [gone](missing.md) [bad](there.md#nope) `[code](x.md)` [web](https://x.y)\n"
    )
    problems = broken_links(page, tmp_path)
    assert problems == ["page.md: missing.md (no such file)", "page.md: there.md#nope (no such heading)"]


def test_the_configuration_reference_documents_every_option() -> None:
    generator = _generator()
    missing = generator.undocumented(generator.collect())
    assert not missing, "undocumented options (a Field description or a comment in conf/):\n" + "\n".join(missing)


def test_the_configuration_reference_is_current() -> None:
    generated = _generator().render()
    written = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert written == generated, "docs/configuration.md is stale: run python scripts/gen_config_docs.py"


def test_every_schema_key_is_in_the_reference() -> None:
    """Independent of the renderer: each field of RunConfig's own groups appears as a key of the reference."""
    from evalkit.config.schema import RunConfig

    written = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for name, field in RunConfig.model_fields.items():
        assert f"`{name}" in written, name
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for sub in annotation.model_fields:
                assert f"`{name}.{sub}`" in written, f"{name}.{sub}"


def test_an_undocumented_field_is_reported() -> None:
    generator = _generator()

    class Toy(BaseModel):
        said: int = Field(default=1, description="documented in the schema")
        commented: Literal["a", "b"] = "a"  # documented beside the field
        silent: float = 0.5

    options = [o for kind, o, _ in generator.walk(Toy, "toy.", []) if kind == "option"]
    by_path = {o.path: o for o in options}
    assert by_path["toy.said"].description == "documented in the schema"
    assert by_path["toy.commented"].description == "documented beside the field"
    assert by_path["toy.commented"].type == "'a' | 'b'"
    section = generator.Section("toy", "", options)
    assert generator.undocumented([section]) == ["toy.silent  (toy)"]


def test_yaml_comments_beside_and_above_a_key(tmp_path: Path) -> None:
    conf = tmp_path / "option.yaml"
    conf.write_text(
        "# what the whole option is (not a key's comment)\n"
        "name: x\n"
        "# above the block\n"
        "block:\n"
        "  inner: 3   # beside the inner key\n"
        "             # and its continuation\n"
        "  url: 'a#b'\n"
    )
    comments = _generator().yaml_comments(conf)
    assert "name" not in comments
    assert comments["block"] == "above the block"
    assert comments["block.inner"] == "beside the inner key and its continuation"
    assert "block.url" not in comments


def test_every_builtin_metric_is_in_the_metrics_page() -> None:
    """Each registered metric has its formula row in docs/metrics.md; the interaction metrics' minimum count and
    windows there are the code's (issue 31 point 2)."""
    from evalkit.metrics import METRICS
    from evalkit.metrics import interaction as im

    page = (DOCS / "metrics.md").read_text(encoding="utf-8")
    assert not [name for name in sorted(METRICS) if f"`{name}`" not in page]
    section = " ".join(page.split("## Interaction (τ-voice)", 1)[1].split("\n## ", 1)[0].split())
    assert f"fewer than **{im.MIN_EVENTS}** events" in section
    for ms in (im.YIELD_WINDOW_MS, im.SELECTIVITY_YIELD_WINDOW_MS, im.SELECTIVITY_RESPONSE_WINDOW_MS):
        assert f"{ms / 1000:.1f} s" in section, ms
