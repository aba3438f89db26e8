"""What a `python -m evalkit` command did, cell by cell: the closing line and the exit status (issue 26 point 5).

Exit status: 0 every cell finished (computed or reused), 1 a cell ended FAILED or a job raised, 2 bad input (the
config, before anything runs: evalkit.cli.preflight). A single run counts the cells its job ran (the clean twin
and the cell); a sweep counts what each job returned to the sweeper (``hydra_plugins.evalkit_sweeper``), whichever
process or host the launcher ran it on: a job's return value travels back to the sweeper with every launcher.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.cli.entry import EXIT_BAD_INPUT
from evalkit.records import CellResult

EXIT_OK = 0
EXIT_FAILED = 1
__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "Outcome", "current", "reset", "write_traceback"]


@dataclass
class Outcome:
    """Cells of this command by how they ended; ``raised``: one line per job that raised (its cell is failed)."""

    finished: int = 0
    failed: int = 0
    reused: int = 0
    raised: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # one line per failed cell: "<run name>: <reason>"

    def add_cell(self, result: CellResult) -> None:
        if result.failure is not None:
            self.failed += 1
            self.failures.append(result.failure)
        elif result.reused:
            self.reused += 1
        else:
            self.finished += 1

    def add_cells(self, results: Iterable[CellResult]) -> None:
        for result in results:
            self.add_cell(result)

    def add_raised(self, job: Sequence[str], exc: BaseException, folder: Path | None = None) -> str:
        """A job that raised instead of returning its cell: counted as one failed cell. Its traceback goes to
        ``folder``/traceback.txt (the job's output folder) when there is one to write; the line names the file."""
        self.failed += 1
        text = str(exc).strip()
        line = f"job [{' '.join(job) or 'defaults'}] raised {type(exc).__name__}" + (
            f": {text.splitlines()[0]}" if text else ""
        )
        written = write_traceback(exc, folder) if folder is not None else None
        self.raised.append(f"{line} (traceback: {written})" if written else line)
        return self.raised[-1]

    @property
    def cells(self) -> int:
        return self.finished + self.failed + self.reused

    @property
    def ok(self) -> bool:
        return self.failed == 0

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_FAILED

    def line(self) -> str:
        """E.g. ``evalkit: 3 cells: 2 finished, 1 failed, 0 reused`` (``(1 job raised)`` after the failed count)."""
        raised = f" ({len(self.raised)} job{'' if len(self.raised) == 1 else 's'} raised)" if self.raised else ""
        cells = f"{self.cells} cell{'' if self.cells == 1 else 's'}"
        return f"evalkit: {cells}: {self.finished} finished, {self.failed} failed{raised}, {self.reused} reused"

    def failure_reason(self) -> str | None:
        """Why the command failed, for the sweep's parent run (``evalkit.failure``); None when it did not."""
        if self.ok:
            return None
        return "; ".join([self.line().removeprefix("evalkit: "), *self.raised, *self.failures])


def write_traceback(exc: BaseException, folder: Path) -> Path | None:
    """The exception's traceback as ``folder``/traceback.txt; None when it has none (a job run in another process
    whose launcher sent back the exception alone) or the file cannot be written."""
    if exc.__traceback__ is None:
        return None
    path = folder / "traceback.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(traceback.format_exception(exc)))
    except OSError:
        return None
    return path


# This process's command: the single run's job or the sweeper record into it, the entry point reads it at the end.
_OUTCOME = Outcome()


def current() -> Outcome:
    return _OUTCOME


def reset() -> Outcome:
    global _OUTCOME
    _OUTCOME = Outcome()
    return _OUTCOME
