"""Recovery after the caller cuts in (IHBench §3, the recoveries each interruption type expects), deterministic:
read from the ``interruption`` effects of the timeline (what the caller heard, what it did not) and the agent's
next turn. IHBench judges recovery quality with an LLM; these are the checks that need none:

- ``interruption_yield_ms``: how long the agent kept talking after the caller started (effect end − start), mean
  over the call's interruptions; the input of the turn-taking metric's yield score (EVA-Bench App. E.5.3).
- ``interruption_no_redelivery``: share of filler and impatient interruptions after which the agent does not
  repeat what the caller had already heard (no word 4-gram of the delivered part in its next turn); the other types
  expect a fresh start, which may say the cut sentence again.
- ``interruption_recovery``: share of interruptions recovered as the type expects:
  filler -> the next turn continues the cut-off utterance exactly (it starts with the undelivered words) and
  repeats nothing delivered; impatient -> it skips the rest: none of the undelivered explanation (all but its last
  sentence) comes back, nothing delivered is repeated; normal, topic switch, pushback -> a fresh start (it does not
  carry on mid-sentence where the cut fell) that steers back to the pending question (the utterance's last
  sentence);
  correction -> correction uptake: the caller gave a value wrong earlier and corrects it (the interruption's
  ``corrects``: field, right, wrong); the agent's next tool call that uses either value after the correction must use
  the right one (IHBench: "use the corrected value"). Unscored when no call uses either value, or when the caller only
  restated its answer (a caller that cannot slip: no corrected value exists).
- ``interruption_correction_uptake``: that check alone, over the call's correction interruptions.
- ``interruptions_planned`` / ``interruptions_delivered``: how many cuts the condition planned and made in the call
  (the record's ``interruptions``); a condition that delivered none leaves the metrics above unscored with the reason
  (what was planned and dropped), never silently empty.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.metrics.base import Metric, unscored, value
from evalkit.metrics.registry import register_all
from evalkit.records import Conversation, Turn, no_interruption_reason
from evalkit.textnorm import last_sentence

NGRAM = 4  # a repeated run of four words is a re-delivery; shorter runs are common phrases ("can I help you")
CONTINUATION_WORDS = 3  # a continuation starts with (up to) the first three undelivered words


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _ngrams(words: list[str], n: int = NGRAM) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def interruptions(conversation: Conversation) -> list[tuple[Turn, dict[str, Any], Turn | None, Any]]:
    """(the cut agent turn, the effect's params, the agent's next turn or None, the effect) per interruption."""
    turns = conversation.turns
    out = []
    for i, turn in enumerate(turns):
        for effect in turn.effects:
            if effect.type != "interruption":
                continue
            following = next((t for t in turns[i + 1 :] if t.role == "assistant"), None)
            out.append((turn, effect.params, following, effect))
    return out


def redelivers(delivered: str, reply: str) -> bool:
    return bool(_ngrams(_words(delivered)) & _ngrams(_words(reply)))


def continues(undelivered: str, reply: str) -> bool:
    head = _words(undelivered)[:CONTINUATION_WORDS]
    return bool(head) and _words(reply)[: len(head)] == head


def _norm(value: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(value).lower())


def _values(arguments: Any) -> list[str]:
    """Every scalar in a tool call's arguments (nested ones too), normalised."""
    if isinstance(arguments, dict):
        return [v for item in arguments.values() for v in _values(item)]
    if isinstance(arguments, list):
        return [v for item in arguments for v in _values(item)]
    return [_norm(arguments)]


def correction_uptake(conversation: Conversation, cut: Turn, params: dict[str, Any]) -> tuple[bool | None, dict]:
    """(the corrected value is used, the evidence): the first tool call after the correction whose arguments hold
    the right or the wrong value decides; None when there is no corrected value or no such call."""
    corrects = params.get("corrects")
    if not isinstance(corrects, dict):
        return None, {"reason": "the caller restated its answer: no corrected value"}
    right, wrong = _norm(corrects.get("right", "")), _norm(corrects.get("wrong", ""))
    for turn in conversation.turns[cut.index + 1 :]:
        for call in turn.tool_calls if turn.role == "assistant" else []:
            values = _values(call.arguments)
            if right in values or wrong in values:
                used = right in values and wrong not in values
                return used, {"tool": call.name, "tool_turn": turn.index, "field": corrects.get("field")}
    return None, {"reason": f"no tool call used the {corrects.get('field')} after the correction"}


def recovered(kind: str, cut: Turn, params: dict[str, Any], reply: str) -> tuple[bool | None, dict[str, bool]]:
    """(recovered as the type expects, the checks) for one interruption; None: not checkable (correction)."""
    delivered, undelivered = str(params.get("delivered", "")), str(params.get("undelivered", ""))
    if kind == "filler":
        checks = {"continues_cut_off_utterance": continues(undelivered, reply), "no_redelivery": not redelivers(
            delivered, reply)}  # fmt: skip
    elif kind == "impatient":
        pending = last_sentence(cut.intended_text)
        skipped = undelivered[: max(0, len(undelivered) - len(pending))]
        checks = {"skips_the_rest": not redelivers(skipped, reply), "no_redelivery": not redelivers(delivered, reply)}
    elif kind in ("normal", "topic_switch", "pushback"):
        pending = last_sentence(cut.intended_text)
        n = min(NGRAM, max(1, len(_words(pending))))  # a pending question shorter than a 4-gram is matched whole
        checks = {
            "fresh_start": not continues(undelivered, reply) or undelivered.strip() == pending.strip(),
            "steers_back": bool(_ngrams(_words(pending), n) & _ngrams(_words(reply), n)),
        }
    else:
        return None, {}
    return all(checks.values()), checks


def _no_interruptions(name: str, conversation: Conversation) -> Any:
    return unscored(name, no_interruption_reason(conversation.interruptions))


def _tally(name: str, conversation: Conversation, field: str) -> Any:
    tally = conversation.interruptions
    if tally is None:
        return unscored(name, "no interruption condition (+interrupt): nothing planned or delivered")
    return value(name, float(getattr(tally, field)), None, **tally.model_dump())


def planned_count(conversation: Conversation) -> Any:
    return _tally("interruptions_planned", conversation, "planned")


def delivered_count(conversation: Conversation) -> Any:
    return _tally("interruptions_delivered", conversation, "delivered")


def yield_ms(conversation: Conversation) -> Any:
    cuts = interruptions(conversation)
    if not cuts:
        return _no_interruptions("interruption_yield_ms", conversation)
    times = [effect.end_ms - effect.start_ms for _, _, _, effect in cuts]
    return value("interruption_yield_ms", sum(times) / len(times), None, per_interruption_ms=times)


NO_REPEAT_KINDS = ("filler", "impatient")  # IHBench: "no repeating" (filler), "no re-explaining" (impatient)


def no_redelivery(conversation: Conversation) -> Any:
    cuts = [
        (p, nxt) for _, p, nxt, _ in interruptions(conversation) if nxt is not None and p.get("kind") in NO_REPEAT_KINDS
    ]
    if not cuts:
        return _no_interruptions("interruption_no_redelivery", conversation)
    clean = [not redelivers(str(p.get("delivered", "")), nxt.intended_text) for p, nxt in cuts]
    return value("interruption_no_redelivery", sum(clean) / len(clean), 1.0, per_interruption=clean)


def recovery(conversation: Conversation) -> Any:
    rows, outcomes = [], []
    for cut, params, nxt, _ in interruptions(conversation):
        if nxt is None:
            continue
        kind = str(params.get("kind", ""))
        if kind == "correction":
            ok, evidence = correction_uptake(conversation, cut, params)
            checks = {"uses_corrected_value": ok} if ok is not None else {}
            rows.append({"turn": cut.index, "kind": kind, "recovered": ok, **checks, **evidence})
            if ok is not None:
                outcomes.append(ok)
            continue
        ok, checks = recovered(kind, cut, params, nxt.intended_text)
        rows.append({"turn": cut.index, "kind": kind, "recovered": ok, **checks})
        if ok is not None:
            outcomes.append(ok)
    if not rows:
        return _no_interruptions("interruption_recovery", conversation)
    if not outcomes:
        return unscored(
            "interruption_recovery",
            "correction interruptions only, none checkable: no corrected value (the caller only restated its "
            "answer) or no tool call used the corrected field afterwards",
            interruptions=rows,
        )
    return value("interruption_recovery", sum(outcomes) / len(outcomes), 1.0, interruptions=rows)


def uptake(conversation: Conversation) -> Any:
    rows = []
    for cut, params, _, _ in interruptions(conversation):
        if params.get("kind") == "correction":
            ok, evidence = correction_uptake(conversation, cut, params)
            rows.append({"turn": cut.index, "uses_corrected_value": ok, **evidence})
    if not rows:
        return _no_interruptions("interruption_correction_uptake", conversation)
    checked = [r["uses_corrected_value"] for r in rows if r["uses_corrected_value"] is not None]
    if not checked:
        return unscored(
            "interruption_correction_uptake",
            "no correction could be checked: no corrected value, or no tool call used the field afterwards",
            interruptions=rows,
        )
    return value("interruption_correction_uptake", sum(checked) / len(checked), 1.0, interruptions=rows)


SOURCE = "IHBench §3 (interruption types and expected recoveries)"
METRICS = (
    Metric(
        name="interruptions_planned",
        kind="deterministic",
        source=SOURCE,
        inputs=("interruptions",),
        fn=planned_count,
        description="cuts the +interrupt condition planned in the call (made or dropped: the agent's turn ended "
        "before the onset); unscored without an interruption condition",
    ),
    Metric(
        name="interruptions_delivered",
        kind="deterministic",
        source=SOURCE,
        inputs=("interruptions",),
        fn=delivered_count,
        description="cuts the caller made in the call (it talked over the agent); 0 under an interrupt condition "
        "means the interruption metrics are unscored, with the reason",
    ),
    Metric(
        name="interruption_yield_ms",
        kind="deterministic",
        source=SOURCE + "; EVA-Bench App. E.5.3 (yield)",
        inputs=("turns.effects",),
        fn=yield_ms,
        description="mean time the agent kept talking after the caller cut in (ms)",
        lower_is_better=True,
    ),
    Metric(
        name="interruption_no_redelivery",
        kind="deterministic",
        source=SOURCE,
        inputs=("turns.effects", "turns.intended_text"),
        fn=no_redelivery,
        threshold=1.0,
        description="share of filler/impatient interruptions after which the agent repeats nothing already heard",
    ),
    Metric(
        name="interruption_recovery",
        kind="deterministic",
        source=SOURCE,
        inputs=("turns.effects", "turns.intended_text"),
        fn=recovery,
        threshold=1.0,
        description="share of interruptions recovered as the type expects (filler: continue exactly; impatient: "
        "skip; normal/topic switch/pushback: fresh start back to the pending question; correction: the corrected "
        "value in the next tool call that uses the field)",
    ),
    Metric(
        name="interruption_correction_uptake",
        kind="deterministic",
        source=SOURCE,
        inputs=("turns.effects", "turns.tool_calls"),
        fn=uptake,
        threshold=1.0,
        description="share of corrections after which the next tool call using the corrected field uses the "
        "corrected value, not the wrong one said before",
    ),
)

register_all(METRICS, __name__)
