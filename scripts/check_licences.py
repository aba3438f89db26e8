"""Licence check of evalkit's runtime dependencies: fails on a GPL/AGPL (or undeclared) licence not reviewed.

    python scripts/check_licences.py            # exit 1 naming each unreviewed copyleft or undeclared dependency
    python scripts/check_licences.py --list     # every runtime dependency with the licence it declares

The runtime set is ``[project].dependencies`` of pyproject.toml (no extras: test and bench tools are not shipped
to users) and everything they require, read from the installed packages' metadata (importlib.metadata: offline,
no extra tool). A package is flagged when its declared licence (License-Expression, License, or the License ::
classifiers) names the GPL or AGPL (the LGPL is not flagged: linking is allowed), when it declares none, or when
its files bundle a library known to be GPL-only (FFmpeg's x264/x265/xvid/postproc, eSpeak NG). Each flagged
package must have an entry in the reviewed allow-list (scripts/licence_allowlist.json) saying what it is and why
it is acceptable; docs/licences.md states the result. tests/test_licences.py runs this check in CI.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
# Strong copyleft only. "LGPL" and "Lesser General Public" are excluded by the look-behind / the Lesser check.
_COPYLEFT = re.compile(r"(?<![LA])\bA?GPL|(?<!L)AGPL|GNU (Affero )?General Public", re.IGNORECASE)
_LESSER = re.compile(r"\bLGPL|Lesser General Public|Library General Public", re.IGNORECASE)
# Shared libraries that are GPL-only when bundled in a wheel: FFmpeg's GPL parts and GPL-only encoders, eSpeak NG.
_GPL_BUNDLED = re.compile(r"(^|/)lib(x264|x265|xvidcore|postproc|espeak-ng)[-.]")


@dataclass(frozen=True)
class Dependency:
    name: str  # canonical name
    version: str
    licence: str  # what the metadata declares ("" when nothing)
    bundled_gpl: tuple[str, ...]  # GPL-only libraries found among its files


def is_copyleft(licence: str) -> bool:
    """True for a GPL or AGPL licence text or expression; an LGPL-only one is not."""
    parts = re.split(r"\s+(?:OR|AND|WITH)\s+|;|,|\(|\)", licence)
    return any(_COPYLEFT.search(p) and not _LESSER.search(p) for p in parts if p.strip())


def declared_licence(dist: metadata.Distribution) -> str:
    """License-Expression, else a short License field, else the License :: classifiers joined."""
    meta = dist.metadata
    expression = (meta.get("License-Expression") or "").strip()
    if expression:
        return expression
    field = (meta.get("License") or "").strip()
    classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    if field and (len(field) <= 80 or not classifiers) and field.upper() != "UNKNOWN":
        return field.splitlines()[0][:80]  # some packages paste the whole licence text here
    return "; ".join(classifiers)


def bundled_gpl(dist: metadata.Distribution) -> tuple[str, ...]:
    return tuple(sorted({Path(str(f)).name for f in dist.files or () if _GPL_BUNDLED.search(str(f))}))


def runtime_requirements(pyproject: Path) -> list[Requirement]:
    return [Requirement(r) for r in tomllib.loads(pyproject.read_text())["project"]["dependencies"]]


def runtime_closure(pyproject: Path) -> tuple[list[Dependency], list[str]]:
    """Every installed runtime dependency (transitively, no extras); and the top-level ones not installed."""
    seen: dict[str, Dependency] = {}
    missing: list[str] = []
    queue = [(r, True) for r in runtime_requirements(pyproject)]
    while queue:
        req, top = queue.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue  # an optional extra of that package, or another platform's
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            if top:
                missing.append(name)
            continue  # a transitive requirement another version of its parent needed
        seen[name] = Dependency(name, dist.version, declared_licence(dist), bundled_gpl(dist))
        queue.extend((Requirement(r), False) for r in dist.requires or ())
    return sorted(seen.values(), key=lambda d: d.name), missing


def problem(dep: Dependency) -> str | None:
    """Why a dependency needs review, or None."""
    if dep.bundled_gpl:
        return f"bundles GPL-only libraries ({', '.join(dep.bundled_gpl)}); declares {dep.licence or 'no licence'}"
    if not dep.licence:
        return "declares no licence"
    if is_copyleft(dep.licence):
        return f"copyleft licence: {dep.licence}"
    return None


def check(pyproject: Path, allowlist: Path) -> list[str]:
    """One line per unreviewed problem (empty: the check passes)."""
    reviewed = {canonicalize_name(k) for k in json.loads(allowlist.read_text())}
    deps, missing = runtime_closure(pyproject)
    errors = [f"{name}: runtime dependency not installed (pip install -e .)" for name in missing]
    for dep in deps:
        why = problem(dep)
        if why is not None and dep.name not in reviewed:
            errors.append(f"{dep.name} {dep.version}: {why}; not in the reviewed allow-list {allowlist.name}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyproject", type=Path, default=REPO / "pyproject.toml")
    parser.add_argument("--allowlist", type=Path, default=REPO / "scripts" / "licence_allowlist.json")
    parser.add_argument("--list", action="store_true", help="print every runtime dependency and its licence")
    args = parser.parse_args(argv)
    for path in (args.pyproject, args.allowlist):
        if not path.is_file():
            print(f"check_licences: no such file: {path}", file=sys.stderr)
            return 2
    if args.list:
        deps, _ = runtime_closure(args.pyproject)
        for dep in deps:
            flag = problem(dep)
            print(f"{dep.name:32s} {dep.version:14s} {dep.licence or '-'}{'   <- ' + flag if flag else ''}")
    errors = check(args.pyproject, args.allowlist)
    for line in errors:
        print(f"licence check: {line}", file=sys.stderr)
    if not errors:
        print("licence check: every GPL/AGPL or undeclared runtime dependency is reviewed")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
