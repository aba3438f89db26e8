"""What every command-line entry point shares (``python -m evalkit``, ``evalkit.analyze``, ``evalkit.arena``,
``evalkit.serve``): bad input as one line on stderr and exit 2, never a traceback. Light on purpose: the analysis
and arena entry points may not import agents, simulators or speech (import contracts in pyproject.toml)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from evalkit.config.secrets import redact_text

EXIT_BAD_INPUT = 2


def one_line(exc: BaseException) -> str:
    """A config error as one line: the schema's indented per-key lines are joined with '; ', secrets redacted."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return redact_text(f"{lines[0]} {'; '.join(lines[1:])}")
    return redact_text("; ".join(lines))


def problem_lines(exc: BaseException) -> list[str]:
    """A config error as one line per problem (secrets redacted): the schema's indented per-key lines each get its
    heading ("invalid evalkit config: agent.url: ..."); preflight's lines are one problem each already. Several
    problems used to share one line joined by '; ', which hid all but the first on a narrow terminal."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(":"):
        return [redact_text(f"{lines[0]} {line}") for line in lines[1:]]
    return [redact_text(line) for line in lines] or [redact_text(type(exc).__name__)]


def is_input_error(exc: BaseException) -> bool:
    """Errors that mean "the config files or overrides are malformed", raised while Hydra composes."""
    import yaml
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    return isinstance(exc, yaml.YAMLError | HydraException | OmegaConfBaseException)


def input_error_line(exc: BaseException) -> str:
    """A Hydra composition error as one line: an unknown option lists the group's options, comma-separated, and
    leaves out Hydra's config search path (where evalkit's own folders are: noise for a typo)."""
    text = str(exc).split("Config search path:")[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.startswith("Available options"):
            return redact_text("; ".join([*lines[:i], f"{line} {', '.join(lines[i + 1 :])}"]))
    return one_line(exc)


def run_entry_point(task: Callable[[], object], prog: str) -> None:
    """Run a ``@hydra.main`` entry point (``evalkit.analyze``, ``evalkit.arena``) so that a malformed override
    (unknown key, bad value syntax, missing option) is one line on stderr and exit 2, not Hydra's multi-line
    report and exit 1. ``HYDRA_FULL_ERROR=1`` set by the user keeps Hydra's full traceback."""
    user_wants_full_errors = os.environ.get("HYDRA_FULL_ERROR") == "1"
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra then raises composition errors to us instead of printing them
    try:
        task()
    except Exception as exc:
        if user_wants_full_errors or not is_input_error(exc):
            raise
        print(f"{prog}: config error: {input_error_line(exc)}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT) from None


def config_number(cfg: Any, key: str, kind: type[int] | type[float]) -> Any:
    """``cfg[key]`` as ``kind``, or a ValueError that names the key (``int("abc")`` alone says only the value); a
    fractional count (``permutations=2.5``) is refused, not truncated."""
    value = cfg.get(key)
    try:
        if isinstance(value, bool) or (kind is int and isinstance(value, float) and not value.is_integer()):
            raise ValueError
        return kind(value)
    except (TypeError, ValueError):
        what = "a whole number" if kind is int else "a number"
        raise ValueError(f"{key} must be {what}, got {value!r}") from None
