"""Speakability, deterministic proxy of EVA-Bench App. E.6 / M.8 (the paper uses an LLM judge; diagnostic).

Per assistant turn, rating 0 if any M.8 violation is present, else 1; score = mean over turns. M.8's violations,
as rules: markdown or visual formatting (bold/italic markers, headers, table pipes, runs of repeated symbols),
JSON/brackets, words glued together ("eighttwentypm": a token made only of two or more number/time words), emojis.
App. L's "never use visual-only elements (... URLs)" adds URLs and e-mail addresses. Diagnostic: no pass flag.
"""

from __future__ import annotations

import re

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, MetricValue

NAME = "speakability_proxy"
_NUMBER_WORDS = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"),
    *("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty"),
    *("forty", "fifty", "sixty", "seventy", "eighty", "ninety", "hundred", "thousand", "am", "pm"),
)
_GLUED = re.compile(rf"^(?:{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))}){{2,}}$")
RULES: dict[str, re.Pattern[str]] = {
    "markdown": re.compile(r"\*\*[^*]+\*\*|(?<!\w)\*[^*\s][^*]*\*(?!\w)|^\s*#{1,6}\s|^\s*\|.*\|\s*$|__[^_]+__", re.M),
    "repeated_symbols": re.compile(r"([-*_=#~])\1{2,}"),
    "json_or_brackets": re.compile(r"[{}\[\]<>]"),
    "emoji": re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f]"),
    "url_or_email": re.compile(r"https?://|www\.|\b[\w.+-]+@[\w-]+\.\w+"),
}


def violations(text: str) -> list[str]:
    found = [name for name, rule in RULES.items() if rule.search(text)]
    if any(_GLUED.match(w) for w in re.findall(r"[a-z]+", text.lower())):
        found.append("glued_words")
    return found


def speakability_proxy(conversation: Conversation) -> MetricValue:
    rows = [
        {"turn": t.index, "violations": v, "rating": int(not v)}
        for t in conversation.turns
        if t.role == "assistant" and t.intended_text.strip()
        for v in [violations(t.intended_text)]
    ]
    if not rows:
        return unscored(NAME, "the agent said nothing")
    return value(NAME, sum(r["rating"] for r in rows) / len(rows), None, turns=rows)


METRICS = (
    Metric(
        name=NAME,
        kind="proxy",
        source="EVA-Bench App. E.6 / M.8 (proxy for the LLM judge); URLs from App. L",
        inputs=("turns[assistant].intended_text",),
        fn=speakability_proxy,
        description="share of assistant turns free of markdown, brackets, glued words, emojis and URLs",
    ),
)

register_all(METRICS, __name__)
