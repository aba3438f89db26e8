"""An argparse parser for evalkit's plain (non-Hydra) commands (``evalkit.gate``, ``evalkit.view``): a usage error
is one line naming the command, and exit 2 — argparse alone prints the whole usage first and exits 2 without
saying which command refused. Imports nothing heavy: the commands that use it start fast."""

from __future__ import annotations

import argparse
import sys

EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """``python -m evalkit.<command>``'s parser; ``command`` names it in the error line."""

    def __init__(self, command: str, description: str, epilog: str) -> None:
        super().__init__(
            prog=f"python -m {command}",
            description=description,
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        self.command = command

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.command}: {message} (see --help)", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)
