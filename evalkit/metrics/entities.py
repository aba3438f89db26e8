"""Entity spans in spoken text, and what grounds them: shared by the deterministic speech-fidelity and faithfulness
proxies.

Hand-written because no library knows a voice agent's entity forms. Everything works on ``normalize_for_wer``
tokens, where numbers are single digits and alphanumeric codes single characters ("SK130" -> "s k 1 3 0",
"75 dollars" -> "7 5 dollars"), so the written and the spoken form of an entity compare equal. An *entity* is what
EVA-Bench M.9 calls one ("a specific, concrete value that could be passed as an input to a program": codes,
flight numbers, amounts, times, dates, names): here a run of single-character tokens holding a digit or at least two
letters (codes, numbers, spelled names), with a month name in front (a date) or a unit after it (am/pm, dollars)
kept as part of it, plus the scenario's key entity values. A lone digit without month or unit ("six characters",
"two hours") is a count, not an entity, and is left out. The one-letter words "a" before a number and "I" after one
("a 15 dollar voucher", "on June 22 I have") are the article and the pronoun, not characters of the entity:
measured on the main job's clean cell, they made "june 2 2 i" an entity no heard text grounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from evalkit.metrics.normalize import value_forms, written_as_said
from evalkit.textnorm import normalize_for_wer

Span = tuple[str, ...]
MONTHS = {date(2000, m, 1).strftime("%B").lower() for m in range(1, 13)}
UNITS = ("am", "pm", "dollars", "cents")  # a lone digit is an entity only with a unit or a month


def tokens(text: str | None) -> list[str]:
    return normalize_for_wer(text or "").split()


def contains(haystack: list[str], needle: Span) -> bool:
    """Is ``needle`` a contiguous token run of ``haystack``?"""
    n = len(needle)
    return n > 0 and any(tuple(haystack[i : i + n]) == needle for i in range(len(haystack) - n + 1))


def _runs(toks: list[str]) -> list[Span]:
    spans: list[Span] = []
    i = 0
    while i < len(toks):
        if len(toks[i]) != 1:
            i += 1
            continue
        j = i
        while j < len(toks) and len(toks[j]) == 1:
            j += 1
        # "a 15 dollar", "June 22 I have": article / pronoun next to a plain number, not part of it
        while j - i > 1 and toks[j - 1] == "i" and all(t.isdigit() for t in toks[i : j - 1]):
            j -= 1
        if j - i > 1 and toks[i] == "a" and all(t.isdigit() for t in toks[i + 1 : j]):
            i += 1
        run = toks[i:j]
        digits = sum(t.isdigit() for t in run)
        start = i - 1 if i > 0 and toks[i - 1] in MONTHS and digits else i
        end = j + 1 if j < len(toks) and toks[j] in UNITS and digits else j
        if (len(run) >= 2 and (digits or len(run) - digits >= 2)) or (digits and (start < i or end > j)):
            spans.append(tuple(toks[start:end]))
        i = j
    return spans


def spoken_entities(text: str, key_entities: Mapping[str, str] | None = None) -> list[Span]:
    """Entity spans of one utterance, in order of appearance, without duplicates."""
    toks = tokens(text)
    spans = _runs(toks)
    for entity in (key_entities or {}).values():
        span = tuple(tokens(entity))
        if span and contains(toks, span) and not any(contains(list(s), span) for s in spans):
            spans.append(span)
    return list(dict.fromkeys(spans))


def digits_value(span: Span) -> int | None:
    """The number a span says when it is only digits (with an optional unit word after it), else None."""
    core = [t for t in span if t not in UNITS]
    return int("".join(core)) if core and all(t.isdigit() for t in core) else None


def flatten_values(node: Any) -> list[Any]:
    if isinstance(node, Mapping):
        return [v for item in node.values() for v in flatten_values(item)]
    if isinstance(node, list | tuple):
        return [v for item in node for v in flatten_values(item)]
    return [node]


def spoken_forms(value: Any) -> list[str]:
    """A structured value and the ways a person may say it ("13:00" -> "1 PM"; "2026-06-18" -> "June 18", "June 18
    2026", ...): the metrics' own normaliser (evalkit.metrics.normalize), never the agent's or the caller's."""
    return value_forms(value)


def numbers_in(values: Iterable[Any]) -> set[int]:
    out: set[int] = set()
    for v in values:
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float) and float(v).is_integer():
            out.add(int(v))
    return out


class Grounding:
    """What the agent could legitimately know: text it heard and tool I/O, plus one step of arithmetic
    (EVA-Bench E.4.2 lets parameters and statements be traced through 'simple arithmetic')."""

    def __init__(self) -> None:
        self.texts: list[list[str]] = []
        self.numbers: set[int] = set()

    def add_text(self, text: str | None) -> None:
        # a date the caller read out as written ("1997-09-14") also grounds the agent's "September 14, 1997"
        for form in dict.fromkeys((text or "", written_as_said(text or ""))):
            toks = tokens(form)
            if toks:
                self.texts.append(toks)
                self.numbers |= {v for s in _runs(toks) if (v := digits_value(s)) is not None}

    def add_structured(self, node: Any) -> None:
        values = flatten_values(node)
        self.numbers |= numbers_in(values)
        for v in values:
            for form in spoken_forms(v):
                self.add_text(form)

    def grounds(self, span: Span) -> bool:
        if any(contains(t, span) for t in self.texts):
            return True
        number = digits_value(span)
        if number is None:
            return False
        pool = sorted(self.numbers)
        return number in self.numbers or any(
            number in (a + b, abs(a - b)) for i, a in enumerate(pool) for b in pool[i:]
        )
