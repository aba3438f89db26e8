"""The judge kinds: ``conf/judge/<option>.yaml`` names one (``kind: none``, ``kind: openai_compatible``) and the
config class registered under that kind validates the option and builds the judge (None: no judge, offline).

A third-party judge registers through the entry-point group ``evalkit.judges`` (docs/architecture.md, "Plug-ins");
what it builds answers ``evaluate(metric, conversation, context)`` and ``describe()`` like
``evalkit.judges.judge.Judge``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalkit.kinds import KindConfig
from evalkit.plugins import Registry

if TYPE_CHECKING:
    from evalkit.judges.prompts import JudgeContext

__all__ = ["JUDGES", "NO_JUDGE", "BaseJudgeConfig"]

NO_JUDGE = "none"  # the offline kind: judge metrics report proxies or are skipped


class BaseJudgeConfig(KindConfig):
    name: str

    @property
    def enabled(self) -> bool:
        return self.kind != NO_JUDGE

    def build(self, *, context: JudgeContext | None = None) -> Any:
        """The cell's judge, or None when this config scores nothing (judge=none)."""
        raise NotImplementedError(f"judge kind {self.kind!r} does not implement build()")


JUDGES: Registry[type[BaseJudgeConfig]] = Registry(
    "judge", "evalkit.judges", builtin_modules=("evalkit.judges.config",)
)
