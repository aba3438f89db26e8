"""The licence check (scripts/check_licences.py) on the real environment, and on a planted GPL dependency: an
installed distribution (a real .dist-info on the path) that a copy of pyproject.toml requires."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO

SCRIPT = REPO / "scripts" / "check_licences.py"
ALLOWLIST = REPO / "scripts" / "licence_allowlist.json"


@functools.cache
def checker() -> ModuleType:
    """The script as a module (scripts/ is no package)."""
    spec = importlib.util.spec_from_file_location("check_licences", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def run_check(*args: str, extra_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(extra_path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def test_runtime_dependencies_pass_the_licence_check():
    done = run_check()
    assert done.returncode == 0, done.stderr
    assert "reviewed" in done.stdout


def test_runtime_set_excludes_test_and_bench_libraries():
    runtime = " ".join(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    for name in ("librosa", "audiomentations", "pytest"):  # ~211 MB a user never needs (issue 32)
        assert name not in runtime


@pytest.mark.parametrize(
    ("licence", "copyleft"),
    [
        ("GPL-2.0-only", True),
        ("GPL-3.0-or-later", True),
        ("AGPL-3.0", True),
        ("GNU General Public License v3 (GPLv3)", True),
        ("GNU Affero General Public License v3", True),
        ("MIT OR GPL-2.0-or-later", True),  # dual: still reviewed by a person
        ("LGPL-2.1-or-later", False),
        ("GNU Lesser General Public License v2 or later (LGPLv2+)", False),
        ("MIT", False),
        ("BSD-3-Clause AND Apache-2.0", False),
        ("MPL-2.0", False),
    ],
)
def test_copyleft_detection(licence: str, copyleft: bool):
    assert checker().is_copyleft(licence) is copyleft


def plant(site: Path, name: str, licence: str) -> None:
    """An installed distribution as pip leaves one: a .dist-info folder with METADATA, on the import path."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"  # the wheel spec's escaped name
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nLicense: {licence}\n")


def test_a_new_gpl_runtime_dependency_fails_until_reviewed(tmp_path: Path):
    site = tmp_path / "site"
    plant(site, "evalkit-planted-gpl", "GPL-3.0-or-later")
    plant(site, "evalkit-planted-lgpl", "LGPL-3.0-or-later")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    deps = ", ".join(json.dumps(d) for d in [*project, "evalkit-planted-gpl", "evalkit-planted-lgpl"])
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[project]\nname = 'x'\ndependencies = [{deps}]\n")

    done = run_check("--pyproject", str(pyproject), extra_path=site)
    assert done.returncode == 1
    assert "evalkit-planted-gpl 1.0: copyleft licence: GPL-3.0-or-later" in done.stderr
    assert "planted-lgpl" not in done.stderr  # the LGPL allows linking: not flagged

    reviewed = json.loads(ALLOWLIST.read_text()) | {"evalkit-planted-gpl": {"licence": "GPL", "reviewed": "test"}}
    allowlist = tmp_path / "allow.json"
    allowlist.write_text(json.dumps(reviewed))
    done = run_check("--pyproject", str(pyproject), "--allowlist", str(allowlist), extra_path=site)
    assert done.returncode == 0, done.stderr


def test_bundled_gpl_libraries_are_flagged_even_under_a_permissive_licence():
    """PyAV declares BSD-3-Clause, but its wheel carries FFmpeg's GPL-only x264/x265: the allow-list, not the
    metadata, is what lets it through."""
    av = checker().Dependency("av", "", "BSD-3-Clause", checker().bundled_gpl(metadata.distribution("av")))
    assert "bundles GPL-only libraries (libx264" in (checker().problem(av) or "")
    assert "av" in json.loads(ALLOWLIST.read_text())
