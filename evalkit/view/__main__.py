"""`python -m evalkit.view TARGET [--twin T] [-o FILE]` — (re)build a cell's conversation viewer (docs/viewer.md)
from a cell folder the runner wrote or from a finished cell run in the MLflow store. Exit 0: written; 2: bad input
(one line)."""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from evalkit.commandline import EXIT_BAD_INPUT, OneLineParser
from evalkit.view import PAGE_FILE, CellView, ViewInputError, cell_from_run, load_cell_dir, twin_from_store, write_page

PROG = "evalkit.view"
RUN_ID = re.compile(r"^[0-9a-f]{32}$")

EPILOG = """\
examples:
  python -m evalkit.view outputs/2026-11-28/01-43-10            a single run's folder (its clean_twin/ beside it)
  python -m evalkit.view multirun/2026-11-28/01-50-00-ab12/3     a sweep job's folder (twin: a sibling job folder)
  python -m evalkit.view 0ac4052deb2840489518c68f9a02e1f3 -o cell.html   a cell run in the store (./mlflow.db)
  python -m evalkit.view RUN_ID --tracking-uri http://127.0.0.1:5000 --embed-mb 100

The twin: --twin (a folder or run id); else a folder's clean_twin/, else the sibling job folder whose config is the
cell's clean twin, else the store's newest finished run of the twin's cell key.
exit status: 0 written (its path on stdout), 2 bad input (one line on stderr).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        PROG,
        description="Write one static HTML page for a cell: per conversation the caller and agent audio lanes, the "
        "turns (said vs heard), effects, tool calls and scores, beside the clean twin's conversation.",
        epilog=EPILOG,
    )
    parser.add_argument("target", metavar="FOLDER|RUN_ID", help="a cell folder (with records/) or a cell run id")
    parser.add_argument("--twin", metavar="FOLDER|RUN_ID", help="the clean twin to show beside it")
    parser.add_argument("-o", "--out", metavar="FILE", help=f"default: FOLDER/{PAGE_FILE}, or viewer_<run>.html")
    parser.add_argument("--tracking-uri", help="default: $MLFLOW_TRACKING_URI, else sqlite:///mlflow.db here")
    parser.add_argument("--experiment", default="evalkit", help="the experiment (default: evalkit)")
    parser.add_argument("--embed-mb", type=float, default=40.0, help="audio embedded in the page, MB (default 40)")
    return parser


class _Store:
    """The tracking store, opened on first use (a folder with its twin beside it never needs one)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._target = None

    def target(self):  # type: ignore[no-untyped-def]
        if self._target is None:
            from evalkit.tracking import resolve_target

            uri = self.args.tracking_uri or os.environ.get("MLFLOW_TRACKING_URI")
            if uri is None and not Path("mlflow.db").is_file():
                raise ViewInputError(
                    "no tracking store: give --tracking-uri or set MLFLOW_TRACKING_URI (no ./mlflow.db)"
                )
            self._target = resolve_target(uri, self.args.experiment, None, Path.cwd())
        return self._target


def _cell_key_of(folder: Path, twin: bool) -> str | None:
    """The cell key (``twin``: the clean twin's) of a folder's config.yaml; None when it has none or it is invalid."""
    import yaml

    from evalkit.config.schema import cell_key, twin_config, validate_config

    path = folder / "config.yaml"
    if not path.is_file():
        return None
    try:
        config = validate_config(yaml.safe_load(path.read_text()))
    except Exception:  # an old or hand-edited config: no key to pair by
        return None
    return cell_key(twin_config(config) if twin else config)


def _twin_folder(folder: Path) -> Path | None:
    """A single run's ``clean_twin/``, else the sibling job folder (a sweep's) holding the cell's clean twin."""
    if (folder / "clean_twin" / "records").is_dir():
        return folder / "clean_twin"
    want = _cell_key_of(folder, twin=True)
    if want is None or want == _cell_key_of(folder, twin=False):
        return None
    for sibling in sorted(folder.resolve().parent.iterdir()):
        if sibling != folder.resolve() and (sibling / "records").is_dir() and _cell_key_of(sibling, False) == want:
            return sibling
    return None


def _load(target: str, store: _Store, tmp: Path, name: str) -> CellView:
    path = Path(target)
    if path.is_dir():
        return load_cell_dir(path)
    if RUN_ID.match(target):
        return cell_from_run(store.target(), target, tmp / name)
    raise ViewInputError(f"{target} is neither a cell folder nor an MLflow run id (32 hex digits)")


def _find_twin(cell: CellView, target: str, store: _Store, tmp: Path) -> CellView | None:
    if Path(target).is_dir():
        folder = _twin_folder(Path(target))
        if folder is not None:
            return load_cell_dir(folder)
        key = _cell_key_of(Path(target), twin=True)
        if key is None or key == _cell_key_of(Path(target), twin=False):
            return None
        if store.args.tracking_uri is None and "MLFLOW_TRACKING_URI" not in os.environ:
            return None  # a folder alone: the store is asked only when one is named
    else:
        key = cell.twin_key
        if key is None or key == cell.cell_key:
            return None
    found = twin_from_store(store.target(), key, tmp / "twin")
    return None if found is None else found[1]


def run(argv: list[str]) -> Path:
    args = build_parser().parse_args(argv)
    store = _Store(args)
    with tempfile.TemporaryDirectory(prefix="evalkit-view-") as tmp_name:
        tmp = Path(tmp_name)
        cell = _load(args.target, store, tmp, "cell")
        twin = _load(args.twin, store, tmp, "twin") if args.twin else _find_twin(cell, args.target, store, tmp)
        if args.out:
            out = Path(args.out)
        elif Path(args.target).is_dir():
            out = Path(args.target) / PAGE_FILE
        else:
            out = Path(f"viewer_{args.target[:8]}.html")
        return write_page(cell, twin, out, args.embed_mb)


def main() -> None:
    try:
        out = run(sys.argv[1:])
    except (ViewInputError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT) from None
    print(out)


if __name__ == "__main__":
    main()
