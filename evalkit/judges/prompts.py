"""Judge prompts with the structure and output schemas of EVA-Bench App. M, in our own words.

Each prompt is a `JudgePrompt`: a version string, a system message (role, rubric, rating scale, answer format), a
user-message template filled from a `Conversation` (+ a `JudgeContext` for what the record does not hold, e.g. the
agent's instructions), the pydantic output schema, and the rule that turns a validated answer into a score.
Sections mirror the paper (inputs -> disclaimers -> interruption-tag glossary -> dimensions with "is / is not a
flag" -> rating scale -> JSON format); the wording is ours. Bump ``version`` whenever a text or rule changes: the
prompt hash (and so the cache key) changes with it.

Which trace rows the judge sees follows App. E.1 Table 12: for cascade pipelines the user rows are the agent's STT
(what it acted on); for hybrid and S2S they are the user's intended text. Assistant rows are the intended text,
except for S2S where only a transcript of the agent's audio exists.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from string import Template
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evalkit.judges.cache import canonical_json
from evalkit.judges.client import InvalidOutput
from evalkit.judges.schemas import (
    CONCISENESS_FAILURE_MODES,
    BehavioralFidelityOutput,
    ConcisenessOutput,
    FaithfulnessOutput,
    ProgressionOutput,
    SpeakabilityOutput,
    SpeechFidelityOutput,
    TranscriptionOutput,
)
from evalkit.records import Conversation, Turn

Architecture = Literal["cascade", "hybrid", "s2s"]


class JudgeContext(BaseModel):
    """What a judge needs beyond the conversation record: the agent's configuration and pipeline type.

    The metric layer fills it from the domain (instructions, tool schemas) and the agent config (architecture).
    ``assistant_transcripts`` holds an ASR transcript of the agent's audio per assistant turn index (S2S trace rows
    and the transcript-based speech-fidelity judge use it).
    """

    model_config = ConfigDict(extra="forbid")

    architecture: Architecture = "cascade"
    agent_role: str | None = None
    agent_instructions: str | None = None
    available_tools: list[dict[str, Any]] | None = None
    current_date_time: str | None = None
    user_simulator_instructions: str | None = None
    modification_tools: list[str] | None = None
    assistant_transcripts: dict[int, str] = Field(default_factory=dict)


class NotApplicable(Exception):
    """The conversation lacks what this judge needs (e.g. no assistant turn has an audio transcript)."""


# --- Shared fragments (App. M.1), our wording -------------------------------------------------------------------

INTERRUPTION_TAGS = """Bracketed tags inside turns are annotations added after the call; nobody spoke them.
- [assistant interrupts]: the assistant started talking while the user was still speaking. At the start of assistant
  text it opens the overlapping speech; inside user text it marks roughly where the assistant came in.
- [user interrupts]: the user started talking while the assistant was still speaking. At the start of user text it
  opens the overlapping speech; inside assistant text it marks roughly where the user came in.
- [likely cut off by user]: in assistant text. Words before the tag may never have been voiced; words after it were
  most likely said once the assistant resumed.
- [likely cut off by assistant]: in user text. Words before the tag may never have been voiced.
- [speaker likely cut itself off]: the speaker stopped by itself (perhaps on hearing overlap) and then resumed.
  Words before the tag may not have been voiced; words after it were.
- [likely interruption]: a break in assistant speech whose cause could not be attributed.
- [not heard by the assistant]: the call ended before the assistant could hear this user turn.
Do not penalise content that an overlap or cut-off may have swallowed; judge only what the speaker chose to say."""

USER_DISCLAIMER = {
    "cascade": (
        "User rows are the output of the assistant's speech-to-text (STT). That text is the only view of the "
        "user the assistant had, and it may contain recognition errors (wrong names, dropped digits). Judge the "
        "assistant against what the transcript says, not against what the user may really have said; the "
        "accuracy of the transcript itself is not the assistant's fault."
    ),
    "audio": (
        "The assistant listened to the user's audio directly (no separate STT step). User rows show the text the "
        "simulated user INTENDED to say, not what the assistant understood. Understanding the audio is part of "
        "the assistant's job: acting on a misheard value counts against it, unless it asked the user to confirm "
        "or clarify when unsure."
    ),
}

ASSISTANT_DISCLAIMER = {
    "text": (
        "Assistant rows are the text the agent's language model produced before speech synthesis. If a user "
        "reply seems to dispute or misread an assistant turn that looks correct, the likeliest cause is an STT "
        "error on the user side; do not call the assistant's earlier wording confusing because of it."
    ),
    "s2s": (
        "The agent produces audio directly, so assistant rows are a speech-to-text transcript of that audio, not "
        "text the model wrote. How clearly the agent pronounced entities is scored by a separate metric; do not "
        "penalise what may be rendering or transcription artefacts. Tool-call arguments and tool results are the "
        "literal values exchanged through the API."
    ),
}

DISAMBIGUATION_CONTEXT = {
    "cascade": (
        "The assistant works from an STT transcript and should allow for recognition errors: it must clarify "
        "unclear values before write or irreversible actions. Plain lookups need no clarification, but a failed "
        "lookup should lead to a clarification."
    ),
    "audio": (
        "The assistant hears raw audio, where letters, digits, names and codes are easily misheard. It should "
        "confirm uncertain values, above all alphanumeric codes and values that feed write or irreversible "
        "actions. Plain lookups need no clarification, but a failed lookup should lead to a clarification."
    ),
}

S2S_TOKEN_NOTE = (
    "Because assistant rows are transcribed audio, small token-level differences between what the assistant said "
    "and a tool value (a dash dropped or added, one character swapped, a digit missing in a long identifier, "
    "spacing) usually come from synthesis or transcription and are scored by speech fidelity. Flag them here only "
    "when the meaning clearly differs (a different amount, date, time or option)."
)


def _audio_input(architecture: Architecture) -> bool:
    return architecture in ("hybrid", "s2s")


# --- Rendering a Conversation ----------------------------------------------------------------------------------


def _tool_rows(turn: Turn) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    for call in turn.tool_calls:
        rows.append(("tool_call", f"{call.name} {canonical_json(call.arguments)}"))
        rows.append(("tool_response", f"{call.name} {canonical_json(call.result)}"))
    return rows


def user_text_for_judge(turn: Turn, architecture: Architecture) -> str:
    """Cascade: what the agent's STT produced; audio-native: what the user meant to say (Table 12)."""
    if _audio_input(architecture):
        return turn.intended_text
    if turn.heard_text is None:
        return f"{turn.intended_text} [not heard by the assistant]"
    return turn.heard_text


def assistant_text_for_judge(turn: Turn, context: JudgeContext) -> str:
    if context.architecture == "s2s":
        return context.assistant_transcripts.get(turn.index) or turn.heard_text or turn.intended_text
    return turn.intended_text


def _turn_rows(
    turn: Turn, context: JudgeContext, *, user_view: Literal["pipeline", "intended"]
) -> list[tuple[str, str]]:
    """Rows of one turn in time order: the agent calls its tools before it speaks."""
    if turn.role == "user":
        text = turn.intended_text if user_view == "intended" else user_text_for_judge(turn, context.architecture)
        return [("user", text)]
    rows = _tool_rows(turn)
    text = assistant_text_for_judge(turn, context)
    if text:
        rows.append(("assistant", text))
    return rows


def conversation_trace(
    conversation: Conversation, context: JudgeContext, *, user_view: Literal["pipeline", "intended"] = "pipeline"
) -> str:
    """Linear trace, one row per utterance or tool event, each prefixed with its turn id."""
    return "\n".join(
        f"[turn {turn.index}] {kind}: {text}"
        for turn in conversation.turns
        for kind, text in _turn_rows(turn, context, user_view=user_view)
    )


def conversation_turns(conversation: Conversation, context: JudgeContext) -> str:
    """Trace grouped by turn id (the Conciseness layout): all assistant entries of a turn are rated together."""
    blocks = []
    for turn in conversation.turns:
        rows = _turn_rows(turn, context, user_view="pipeline")
        blocks.append(f"turn_id {turn.index}:\n" + "\n".join(f"  {kind}: {text}" for kind, text in rows))
    return "\n".join(blocks)


def _assistant_turns(conversation: Conversation) -> list[Turn]:
    return [t for t in conversation.turns if t.role == "assistant" and t.intended_text.strip()]


# --- The prompt object -----------------------------------------------------------------------------------------

ScoreFn = Callable[[Any, dict[str, Any]], tuple[float | None, dict[str, Any]]]
InputsFn = Callable[[Conversation, JudgeContext], dict[str, Any]]

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


@dataclass(frozen=True)
class JudgePrompt:
    metric: str
    version: str
    paper_section: str
    system: str
    template: str
    output_model: type[BaseModel]
    build_inputs: InputsFn
    score: ScoreFn
    required_context: tuple[str, ...] = ()

    @property
    def prompt_hash(self) -> str:
        """sha256 over everything that shapes the judge's answer: name, version, texts and output schema."""
        material = {
            "metric": self.metric,
            "version": self.version,
            "system": self.system,
            "template": self.template,
            "schema": self.output_model.model_json_schema(),
        }
        return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()

    def missing_context(self, context: JudgeContext) -> list[str]:
        return [name for name in self.required_context if getattr(context, name) in (None, "", [], {})]

    def render(self, inputs: dict[str, Any]) -> list[dict[str, Any]]:
        """Both messages are `string.Template`s: pipeline-specific notes go into the rubric, record data below it."""
        text_inputs = {k: v for k, v in inputs.items() if isinstance(v, str)}
        return [
            {"role": "system", "content": Template(self.system).substitute(text_inputs)},
            {"role": "user", "content": Template(self.template).substitute(text_inputs)},
        ]

    def parse(self, text: str, inputs: dict[str, Any]) -> tuple[BaseModel, float | None, dict[str, Any]]:
        """Text -> validated output -> (output, score, details). Any mismatch raises InvalidOutput with the reason."""
        match = _FENCE.match(text)  # some servers wrap JSON in a code fence even in JSON mode
        body = match.group(1) if match else text
        try:
            data = json.loads(body)
        except json.JSONDecodeError as exc:
            raise InvalidOutput(f"answer is not JSON ({exc.msg} at char {exc.pos}): {text[:120]!r}") from exc
        try:
            output = self.output_model.model_validate(data)
        except ValueError as exc:
            raise InvalidOutput(f"answer does not match the {self.metric} schema: {_short(exc)}") from exc
        score, details = self.score(output, inputs)
        return output, score, details


def _short(exc: Exception, limit: int = 400) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit] + "..."


def _by_turn(turns: list[Any], expected: list[int], allowed: list[int] | None = None) -> dict[int, Any]:
    """Index per-turn answers by turn id; every expected turn must be answered once, unknown ids are rejected."""
    allowed_set = set(allowed if allowed is not None else expected)
    seen: dict[int, Any] = {}
    for entry in turns:
        if entry.turn_id in seen:
            raise InvalidOutput(f"turn_id {entry.turn_id} answered twice")
        if entry.turn_id not in allowed_set:
            raise InvalidOutput(f"turn_id {entry.turn_id} is not a turn of this conversation to rate")
        seen[entry.turn_id] = entry
    missing = [t for t in expected if t not in seen]
    if missing:
        raise InvalidOutput(f"no rating for turn_id(s) {missing}")
    return seen


def _dimension_details(dimensions: BaseModel) -> dict[str, dict[str, Any]]:
    return {name: verdict.model_dump() for name, verdict in dimensions}


# --- Faithfulness (App. E.4.2 / M.2) ---------------------------------------------------------------------------

FAITHFULNESS_SYSTEM = """You are an expert reviewer of customer-service voice agents. You decide whether the
assistant stayed faithful to the information it was given, to its tool results and to its policies during one
conversation.

There are five dimensions. They do not overlap: any single problem belongs to exactly one of them.

1. fabricating_tool_parameters — scope: the arguments of tool calls.
   Flag: an argument value that neither the user said nor an earlier tool returned (invented IDs, placeholders such
   as "?" or "UNKNOWN", values taken from an unrelated context, padding a code with extra characters); an enum or
   category the facts do not support; invented content in free-text tool fields.
   Do not flag: values the user stated; values returned earlier; standard format conversions or unambiguous domain
   mappings (city to airport code); values following from policy and earlier results; simple arithmetic on known
   numbers; retrying a failed lookup with plausible spelling variants of what the user said.
   A made-up argument sent to a read-only tool that fails harmlessly is minor (2); sent to a tool that writes or
   changes records it is severe (1).

2. misrepresenting_tool_result — scope: how tool results are reported to the user.
   Flag: wrong values for fields the tool returned; statements that contradict a result; leaving out something that
   changes the meaning (a non-zero fee, an approval requirement, a warning); arithmetic mistakes on tool data (check
   every computation yourself, e.g. a fare difference is new fare minus old fare plus fees).
   Do not flag: rounding or formatting differences; leaving out non-essential details; paraphrase that keeps the
   facts; not mentioning a fee that is zero or waived; filtering options by the user's stated constraints; sound
   inferences from results plus context; 24-hour to 12-hour time conversions.
   $misrepresentation_note

3. violating_policies — scope: the agent instructions.
   Flag: skipping a required procedural step (such as verification); offering or doing what the instructions forbid;
   not applying a policy that clearly applies; stating a policy wrongly; executing a consequential write (cancel,
   rebook, refund, account change) without the disclosure or explicit confirmation the instructions require,
   including chaining a lookup and a costly write in one turn without asking the user in between.
   Do not flag: reasonable readings of ambiguous instructions; small wording differences in a required disclosure;
   situations no policy covers; granting a free benefit the user is clearly entitled to; acting on the user's clear
   request when the instructions do not demand explicit confirmation; predicting "no fee" from policy when the tool
   then confirms it.

4. failing_to_disambiguate — scope: ambiguous or contradictory input.
   $disambiguation_context
   Flag: acting when the request could mean several things without asking which; silently choosing between
   contradictory statements (two different dates, two spellings of a code); not asking the user to spell or verify
   after a lookup fails on an unusual name or code; not using information the conversation makes clearly available.
   Do not flag: acting on a clear request; asking a clarifying question; an inference the context makes obvious;
   retrying after the user spells or confirms a value.

5. hallucination — scope: anything the assistant states that has no source at all and that the other dimensions do
   not already cover.
   Flag: facts, numbers, IDs, deadlines, benefits or policies found in no tool result, user turn, instruction or
   system context; offering a capability no available tool provides; naming the wrong company or role.
   Do not flag: facts that follow from tool results or context (including the current date); courtesies; hedged
   common-sense advice; general domain knowledge that nothing contradicts.
   Before flagging, check every source: tool results, user turns, agent instructions, the current date/time. A
   misquoted source is misrepresenting_tool_result; an unsupported capability actually attempted through a tool call
   is fabricating_tool_parameters.

Evaluate faithfulness only: not conversation flow, not whether the task was completed.

Rating for each dimension (severity is about the impact on the user, during and after the call):
- 3: no issue.
- 2: minor or ambiguous — a single isolated issue with no material effect: a read-only tool called with a wrong
  argument and quickly corrected, a small embellishment with no consequence, a minor policy deviation that changed
  nothing for the user, skipping a read-back of values that match the transcript when nothing suggests a recognition
  problem, or any borderline case.
- 1: clear violation with material impact — a wrong or invented argument to a write tool; committing a value to a
  write tool despite visible signs of an STT divergence (the user corrected a read-back, or the transcript holds two
  versions of the value) without resolving it; an irreversible action without the confirmation or disclosure the
  instructions require; wrong fees, refunds, balances or commitments told to the user; leaving the user with a wrong
  understanding of a policy; consequential invented information; or any faithfulness problem that repeatedly blocks
  the conversation.

The overall rating is the minimum over the five dimensions.

Answer with one JSON object and nothing else:
{"dimensions": {"fabricating_tool_parameters": {"evidence": "<1-2 sentences citing the transcript, or 'None'>",
"flagged": <true|false>, "rating": <1|2|3>}, "misrepresenting_tool_result": {...same fields...},
"violating_policies": {...}, "failing_to_disambiguate": {...}, "hallucination": {...}}, "rating": <1|2|3, the
minimum over dimensions>}"""

FAITHFULNESS_TEMPLATE = """## Agent role
$agent_role

## Agent instructions
$agent_instructions

## Tools available to the agent (JSON schemas)
$available_tools

## Current date and time
$current_date_time

## How to read the turns
$user_turns_disclaimer

$assistant_turns_disclaimer

## Interruption tags
$interruption_tags

## Conversation with tool calls
$conversation_trace"""


def faithfulness_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    audio = _audio_input(context.architecture)
    return {
        "agent_role": context.agent_role or "customer-service voice assistant",
        "agent_instructions": context.agent_instructions or "",
        "available_tools": canonical_json(context.available_tools or []),
        "current_date_time": context.current_date_time or "not provided",
        "user_turns_disclaimer": USER_DISCLAIMER["audio" if audio else "cascade"],
        "assistant_turns_disclaimer": ASSISTANT_DISCLAIMER["s2s" if context.architecture == "s2s" else "text"],
        "misrepresentation_note": S2S_TOKEN_NOTE if context.architecture == "s2s" else "",
        "disambiguation_context": DISAMBIGUATION_CONTEXT["audio" if audio else "cascade"],
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_trace": conversation_trace(conversation, context),
    }


def faithfulness_score(output: FaithfulnessOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Overall = min over dimensions (recomputed; the judge's own overall is kept for audit); score = (r-1)/2."""
    rating = min(verdict.rating for _, verdict in output.dimensions)
    return (rating - 1) / 2, {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "dimensions": _dimension_details(output.dimensions),
    }


# --- Conversation progression (App. E.5.1 / M.4) ---------------------------------------------------------------

PROGRESSION_SYSTEM = """You are an expert reviewer of customer-service voice agents. You decide whether the
assistant moved the conversation forward efficiently.

Scope: progress only. Whether the assistant followed its policies, respected the user's constraints or stayed
faithful to its instructions is judged elsewhere (faithfulness); do not flag those here.
This was a spoken call: speech recognition errors are common, and asking again after a visibly garbled or misheard
turn is expected, not a progression problem. Overlap tags are not problems in themselves; flag an interruption only
for its downstream consequences (e.g. critical details cut off and never repeated).

There are four dimensions. They do not overlap: any single problem belongs to exactly one of them.

1. unnecessary_tool_calls — scope: tool calls.
   Flag: repeating a call with the same arguments after it succeeded, with no new input in between; calling a tool
   with empty or missing required arguments so that it predictably fails; calling for data an earlier result already
   gave; re-verifying what a result already confirmed.
   Do not flag: a retry with corrected arguments after an error; the same tool with different arguments; a chain of
   calls that each bring new necessary data; an unforeseeable failure; a necessary call made too early (that is a
   policy matter); calls the instructions prescribe.
   Three or more unnecessary calls make this dimension a 1.

2. information_loss — scope: the assistant forgetting or ignoring facts already established, by the user or by a
   tool result.
   $information_loss_note
   Flag: asking again for something the user already gave and that was used successfully; ignoring a constraint the
   user stated; not using data from an earlier result when the next step needs it.
   Do not flag: asking for what was not yet given; clarifying something truly ambiguous; asking for identification
   the instructions require at the start; acting against the user's wishes because of a policy or faithfulness
   problem.

3. redundant_statements — scope: the assistant repeating its own earlier output.
   Flag: restating details, amounts, times or status it already told the user, unprompted, outside a final recap;
   repeating the same explanation after the user acknowledged it.
   Do not flag: one final recap (only the last recap is exempt); a single read-back of a value the user just gave;
   first mention of information; repeating because the user asked; restating a policy while the user keeps disputing
   it (unless verbatim, turn after turn); asking again after a visible recognition failure.

4. question_quality — scope: how well the assistant asks, when the problem is not forgetting.
   Flag: a vague open question when it had what it needed to act; several questions where one tool call would have
   settled it; not asking when the request was truly ambiguous or several options fit; not asking for required
   details before acting; not giving the user what they need to choose between options; an irreversible action
   without first checking input that is ambiguous or contradicts the records.
   Do not flag: identification questions the instructions require; genuine clarifying questions; follow-ups prompted
   by a new tool result; read-backs of error-prone values (codes, names, dates, amounts); policy disclosures (a
   faithfulness matter); using information from its own instructions without a tool call.

Rating for each dimension:
- 3: no issue.
- 2: minor — a single isolated issue that barely affected the flow (one unnecessary call, one redundant restatement,
  one vague question), or a borderline case.
- 1: clear — several instances of the same kind, or one severe issue that derailed or stalled the call.

Overall rating:
- 3 when no dimension is flagged;
- 2 when one or two dimensions are flagged, all of them at 2;
- 1 when any dimension is rated 1, or when three or more dimensions are flagged.

Answer with one JSON object and nothing else. "evidence" is always required (1-2 sentences citing the transcript;
when not flagged, say why):
{"dimensions": {"unnecessary_tool_calls": {"evidence": "<text>", "flagged": <true|false>, "rating": <1|2|3>},
"information_loss": {...same fields...}, "redundant_statements": {...}, "question_quality": {...}}, "rating":
<1|2|3>}"""

PROGRESSION_TEMPLATE = """## How to read the turns
$user_turns_disclaimer

$assistant_turns_disclaimer

## Interruption tags
$interruption_tags

## Conversation with tool calls
$conversation_trace"""


def progression_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    audio = _audio_input(context.architecture)
    return {
        "user_turns_disclaimer": USER_DISCLAIMER["audio" if audio else "cascade"],
        "assistant_turns_disclaimer": ASSISTANT_DISCLAIMER["s2s" if context.architecture == "s2s" else "text"],
        "information_loss_note": S2S_TOKEN_NOTE if context.architecture == "s2s" else "",
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_trace": conversation_trace(conversation, context),
    }


def progression_rating(output: ProgressionOutput) -> int:
    """M.4's overall rule: any 1 or >= 3 flagged dimensions -> 1; some flagged (all at 2) -> 2; none -> 3."""
    verdicts = [verdict for _, verdict in output.dimensions]
    flagged = [v for v in verdicts if v.flagged or v.rating < 3]
    if any(v.rating == 1 for v in verdicts) or len(flagged) >= 3:
        return 1
    return 2 if flagged else 3


def progression_score(output: ProgressionOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    rating = progression_rating(output)
    return (rating - 1) / 2, {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "dimensions": _dimension_details(output.dimensions),
    }


# --- Conciseness (App. E.5.2 / M.5) ----------------------------------------------------------------------------

CONCISENESS_SYSTEM = """You are an expert reviewer of voice assistants. You judge, turn by turn, whether the
assistant's spoken responses were concise and easy to take in by ear.

The conversation is grouped by turn_id. A turn can hold user speech, assistant speech, tool calls and tool results.
When a turn holds several assistant entries (it spoke, called a tool, spoke again), rate them together as one
response. Rate only what the assistant said; everything else is context. Do not penalise content that an
interruption may have cut short.

A good spoken response is brief and conversational (usually two to four sentences), summarises long lists instead of
reading them out, does not pile up information or requests, and offers options conversationally. Ask: does it get to
the point? Is everything relevant now? Is the amount of detail right for a listener rather than a reader? If it
enumerates items, does that help? Is anything repeated within the turn? Details the user must note down (codes,
reference numbers) are never a fault, however long.

Allowed exceptions (not verbosity or density): spelling a code with the phonetic alphabet, especially after a
mishearing; reading out a full identifier the user needs; a slightly longer wrap-up in the final assistant turn.

Failure modes (a turn can have several):
- verbosity_or_filler: needless words, repetition within the turn, hedging, explanation beyond what is needed.
- excess_information_density: too many facts, options, numbers, steps or requests at once for a listener (a
  reference number plus one or two closely related details of the same transaction is fine).
- over_enumeration_or_list_exhaustion: reading out long lists, or options in exhaustive detail, instead of
  summarising and inviting follow-up.
- contextually_disproportionate_detail: more background or explanation than the situation calls for.
Modest extra wording that the user needs to understand or act is acceptable.

Rating per turn with assistant speech:
- 3: concise and comfortably digestible; no failure mode.
- 2: adequate; exactly one minor failure mode, still easy to follow. Use it only when you can name content that
  should have been left out.
- 1: not concise; one or more significant failure modes that overload the listener.
Turns without assistant speech get rating null. Failure_modes must be an empty list when the rating is 3 or null.

Answer with one JSON object and nothing else, one entry per turn_id of the conversation:
{"turns": [{"turn_id": <int>, "explanation": "<analysis tying weaknesses to the failure modes; empty when null>",
"failure_modes": ["<mode>", ...], "rating": <1|2|3|null>}]}"""

CONCISENESS_TEMPLATE = """## Interruption tags
$interruption_tags

## Conversation
$conversation_turns"""


def conciseness_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    rated = [t.index for t in _assistant_turns(conversation)]
    if not rated:
        raise NotApplicable("the conversation has no assistant speech to rate")
    return {
        "interruption_tags": INTERRUPTION_TAGS,
        "conversation_turns": conversation_turns(conversation, context),
        "rated_turn_ids": rated,
        "all_turn_ids": [t.index for t in conversation.turns],
    }


def conciseness_score(output: ConcisenessOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Mean over assistant turns of (r-1)/2, plus the per-failure-mode rates the paper reports as sub-metrics."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"], inputs["all_turn_ids"])
    rated = [by_turn[t] for t in inputs["rated_turn_ids"]]
    unrated = [entry.turn_id for entry in rated if entry.rating is None]
    if unrated:
        raise InvalidOutput(f"assistant turn_id(s) {unrated} rated null")
    n = len(rated)
    rates = {mode: sum(mode in e.failure_modes for e in rated) / n for mode in CONCISENESS_FAILURE_MODES}
    per_turn = {e.turn_id: e.model_dump(exclude={"turn_id"}) for e in rated}
    score = sum((e.rating - 1) / 2 for e in rated) / n  # type: ignore[operator]
    return score, {"turns": per_turn, "failure_mode_rates": rates, "n_turns": n}


# --- Agent speech fidelity (App. E.4.3 / M.3), transcript variant -------------------------------------------------

SPEECH_FIDELITY_SYSTEM = """You are an expert reviewer of text-to-speech output in a voice agent. For each assistant
turn you get the text the agent intended to say and a speech-to-text transcript of the audio it actually produced.
Decide whether the audio reproduced the intended text faithfully, paying most attention to entities that must
survive speech synthesis.

Compare the intended text word by word with the transcript. The transcript comes from an ASR system: formatting
differences that a listener would not hear ("$$15" vs "fifteen dollars", "21C" vs "twenty one C", "3:55 PM" vs
"three fifty five p m") are not errors.

Non-spoken text in the intended turns: direction tags such as [slow] or [firm] are never spoken. Interruption tags
mark regions that were probably never voiced:
$interruption_tags
Do not penalise words missing from such regions.

Entities to check closely: confirmation codes; flight, ticket, order and case numbers; dollar amounts; seat and room
numbers; spelled-out codes (every letter and digit: "K O L T S F" vs "K O L T S S F" is an error); segmented
reference IDs (every segment: "M E L" vs "M E A L" is an error); times; dates; names.

Rating per turn:
- 1 (faithful): every entity is right and nothing meaningful was dropped or added.
- 0 (not faithful): any entity said wrongly (digits, letters, amounts); missing words that change the meaning or
  drop an entity; added words that introduce a wrong entity; a substitution that changes an entity.
Ignore: variants that do not change an entity ("Ms." vs "Miss"); fillers; pacing and prosody; tags; regions flagged
as interrupted; words missing only at the very end of the LAST turn, provided its entities were all said before the
cut.

Answer with one JSON object and nothing else, one entry per turn listed:
{"turns": [{"turn_id": <int>, "transcript": "<the transcript you compared>", "explanation": "<1-3 sentences naming
intended vs actual mismatches and any skipped regions>", "rating": <0|1>}]}"""

SPEECH_FIDELITY_TEMPLATE = """## Assistant turns: intended text and transcript of the audio
$intended_turns"""


def speech_fidelity_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    blocks, ids = [], []
    for turn in _assistant_turns(conversation):
        heard = context.assistant_transcripts.get(turn.index, turn.heard_text)
        if heard is None:
            continue
        ids.append(turn.index)
        blocks.append(f"turn_id {turn.index}:\n  intended: {turn.intended_text}\n  audio transcript: {heard}")
    if not ids:
        raise NotApplicable(
            "no assistant turn has a transcript of the agent's audio (set JudgeContext.assistant_transcripts)"
        )
    return {"interruption_tags": INTERRUPTION_TAGS, "intended_turns": "\n".join(blocks), "rated_turn_ids": ids}


def binary_turn_score(output: Any, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """Mean of the per-turn 0/1 ratings over the turns we asked about."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"])
    per_turn = {t: by_turn[t].model_dump(exclude={"turn_id"}) for t in inputs["rated_turn_ids"]}
    ratings = [by_turn[t].rating for t in inputs["rated_turn_ids"]]
    return sum(ratings) / len(ratings), {"turns": per_turn, "n_turns": len(ratings)}


# --- Speakability (App. E.6 / M.8) -------------------------------------------------------------------------------

SPEAKABILITY_SYSTEM = """You are an expert reviewer of text that a voice agent sends to a text-to-speech engine.
Decide, turn by turn, whether the text can be spoken as it stands.

A turn is NOT speakable (rating 0) when it contains any of:
1. Markdown or visual formatting: bold or italic markers, headings, tables, runs of symbols used for emphasis or
   separation (such as --- or *****).
2. Other written-only structure, such as JSON or bracketed data.
3. Words run together so that speech synthesis would fail (e.g. "eighttwentypm" for "eight twenty PM"); ordinary
   acronyms are fine.
4. Emojis.
Otherwise the turn is speakable (rating 1). A single violation makes the turn 0.

Answer with one JSON object and nothing else, one entry per turn listed:
{"turns": [{"turn_id": <int>, "explanation": "<1-3 sentences citing any problem found>", "rating": <0|1>}]}"""

SPEAKABILITY_TEMPLATE = """## Assistant turns
$assistant_turns"""


def speakability_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    turns = _assistant_turns(conversation)
    if not turns:
        raise NotApplicable("the conversation has no assistant text to check")
    return {
        "assistant_turns": "\n".join(f"turn_id {t.index}: {t.intended_text}" for t in turns),
        "rated_turn_ids": [t.index for t in turns],
    }


# --- Transcription accuracy of key entities (App. E.6 / M.9) -----------------------------------------------------

TRANSCRIPTION_SYSTEM = """You are an expert reviewer of speech-to-text accuracy. For every user turn you get the
text the user meant to say (expected) and what the agent's speech recogniser produced (transcribed). Find the key
entities in the expected text and decide whether each one survived in the transcript.

A key entity is a specific, concrete value a program could take as input: names of people, places or organisations;
specific dates and times (not "tomorrow" or "this morning"); confirmation codes and reference numbers; flight
numbers; amounts (the value only: "under $$120" gives "$$120"); addresses; phone numbers; e-mail addresses; seat,
loyalty and booking identifiers. Vague time words, general descriptions and open-ended qualifiers are not entities.

The expected text may hold tags that were never spoken: direction tags such as [slow] (ignore them) and interruption
tags:
$interruption_tags
An entity in a region that was probably never voiced is still listed, with "skipped": true.

Correctness: the entity must be present and carry the same value; formatting may differ ("150" = "one hundred
fifty", "Dec 15" = "December 15th", "A B C one two three" = "ABC123"); names must match exactly apart from letter
case.

Answer with one JSON object and nothing else, one entry per user turn listed (an empty entity list when a turn has
none):
{"turns": [{"turn_id": <int>, "entities": [{"type": "<e.g. confirmation_code, date, name, amount>", "value": "<as in
the expected text>", "transcribed_value": "<as in the transcript, or null when missing>", "analysis": "<short
reason>", "correct": <true|false>, "skipped": <true|false>}], "summary": "<one sentence>"}]}"""

TRANSCRIPTION_TEMPLATE = """## Entities known from the scenario (the user may say them in spoken form)
$known_entities

## User turns to evaluate
$user_turns"""


def transcription_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    turns = [t for t in conversation.user_turns if t.heard_text is not None]
    if not turns:
        raise NotApplicable("no user turn was heard by the agent")
    known = "\n".join(f"- {k}: {v}" for k, v in sorted(conversation.key_entities.items())) or "(none listed)"
    return {
        "interruption_tags": INTERRUPTION_TAGS,
        "known_entities": known,
        "user_turns": "\n".join(
            f"turn_id {t.index}:\n  expected: {t.intended_text}\n  transcribed: {t.heard_text}" for t in turns
        ),
        "rated_turn_ids": [t.index for t in turns],
    }


def transcription_score(output: TranscriptionOutput, inputs: dict[str, Any]) -> tuple[float | None, dict[str, Any]]:
    """Correct / non-skipped entities over the conversation; None (not 0) when there was nothing to check."""
    by_turn = _by_turn(output.turns, inputs["rated_turn_ids"])
    checked = [e for t in inputs["rated_turn_ids"] for e in by_turn[t].entities if not e.skipped]
    details = {
        "turns": {t: [e.model_dump() for e in by_turn[t].entities] for t in inputs["rated_turn_ids"]},
        "n_entities": len(checked),
        "n_skipped": sum(e.skipped for t in inputs["rated_turn_ids"] for e in by_turn[t].entities),
    }
    if not checked:
        return None, {**details, "reason": "no key entity to check"}
    return sum(e.correct for e in checked) / len(checked), details


# --- User behavioural fidelity (App. D.1 / M.7): a simulator-validation gate ---------------------------------------

BEHAVIORAL_SYSTEM = """You are an expert reviewer of simulated callers used to evaluate voice agents. Decide whether
the simulated user's behaviour corrupted the evaluation, i.e. whether what the user did left the database in a
different state than it should be, or kept the agent from completing the modifications the goal needed.

Judge the user from the user's point of view: the user only hears the agent's words and never sees tool calls or
results. Use the tool trace asymmetrically: it may always clear the user (the agent claimed an action but never
called the tool; a tool error the user could not prevent); it may count against the user only when the user's own
words, refusals or decision to hang up were the direct cause of the modification problem. A missing or wrong
modification alone is not evidence against the user. Only the modification tools listed matter; read-only calls
never do.

Corruption types:
1. extra_modifications: the user asked for something outside the assigned goal AND that led the agent to call a
   modification tool.
2. premature_ending: the user ended the call before the agent could complete modifications it was competently
   working towards, when a user following the instructions could have let it finish. Never flag this when the agent
   stopped responding. Do not flag it after an agent error or retry offer, a claimed but never executed action, an
   off-script demand, the agent being stuck or unhelpful, or once the goal was met. Do flag a user who hangs up
   while the agent is actively progressing, who leaves without the confirmation or reference the instructions say to
   wait for, or who says goodbye before a requested transfer tool call actually happens (ending right after a
   completed transfer is correct).
3. missing_information: the agent explicitly asked for information the user's instructions contain, the user did not
   give it, and that blocked a needed modification.
4. duplicate_modifications: the user repeated a request in a loop and that caused the same modification tool to be
   called more than once.
5. decision_tree_violation: the user broke a specific instruction (negotiation rules, edge cases, escalation,
   resolution or failure conditions) while a correct choice was available, AND that caused a wrong modification
   call.

Rating: 1 = clean (no corruption; small deviations that did not touch the database are fine); 0 = corrupted (one or
more types detected).

Answer with one JSON object and nothing else:
{"corruption_analysis": {"extra_modifications": {"analysis": "<reasoning>", "detected": <true|false>},
"premature_ending": {...same fields...}, "missing_information": {...}, "duplicate_modifications": {...},
"decision_tree_violation": {...}}, "rating": <0|1>}"""

BEHAVIORAL_TEMPLATE = """## Conversation (user rows are what the user said; tool rows are hidden from the user)
$conversation_evidence

## How the conversation ended
$conversation_end

## The user simulator's instructions (the source of truth for what the user was told to do)
$user_simulator_instructions

## Modification tools (the only tools that matter here)
$modification_tools"""

END_REASONS = {
    "user_end_call": "the user called the end-call tool",
    "agent_end_call": "the agent ended the call",
    "agent_no_response": "the agent failed to respond to the user's last turn",
    "max_turns": "the call hit the turn or duration limit",
    "error": "an infrastructure error stopped the call",
}


def behavioral_inputs(conversation: Conversation, context: JudgeContext) -> dict[str, Any]:
    return {
        "conversation_evidence": conversation_trace(conversation, context, user_view="intended"),
        "conversation_end": END_REASONS.get(conversation.end_reason, conversation.end_reason),
        "user_simulator_instructions": context.user_simulator_instructions or "",
        "modification_tools": ", ".join(context.modification_tools or []),
    }


def behavioral_score(output: BehavioralFidelityOutput, inputs: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """1 unless a corruption type was detected (recomputed from the analysis; the stated rating is kept)."""
    detected = [name for name, check in output.corruption_analysis if check.detected]
    rating = 0 if detected else 1
    return float(rating), {
        "rating": rating,
        "judge_stated_rating": output.rating,
        "detected": detected,
        "corruption_analysis": {n: c.model_dump() for n, c in output.corruption_analysis},
    }


# --- Registry ----------------------------------------------------------------------------------------------------

PROMPTS: dict[str, JudgePrompt] = {
    p.metric: p
    for p in (
        JudgePrompt(
            "faithfulness",
            "faithfulness/v1",
            "E.4.2, M.2",
            FAITHFULNESS_SYSTEM,
            FAITHFULNESS_TEMPLATE,
            FaithfulnessOutput,
            faithfulness_inputs,
            faithfulness_score,
            required_context=("agent_instructions", "available_tools"),
        ),
        JudgePrompt(
            "agent_speech_fidelity",
            "agent_speech_fidelity/transcript-v1",
            "E.4.3, M.3 (transcript variant)",
            SPEECH_FIDELITY_SYSTEM,
            SPEECH_FIDELITY_TEMPLATE,
            SpeechFidelityOutput,
            speech_fidelity_inputs,
            binary_turn_score,
        ),
        JudgePrompt(
            "conversation_progression",
            "conversation_progression/v1",
            "E.5.1, M.4",
            PROGRESSION_SYSTEM,
            PROGRESSION_TEMPLATE,
            ProgressionOutput,
            progression_inputs,
            progression_score,
        ),
        JudgePrompt(
            "conciseness",
            "conciseness/v1",
            "E.5.2, M.5",
            CONCISENESS_SYSTEM,
            CONCISENESS_TEMPLATE,
            ConcisenessOutput,
            conciseness_inputs,
            conciseness_score,
        ),
        JudgePrompt(
            "speakability",
            "speakability/v1",
            "E.6, M.8",
            SPEAKABILITY_SYSTEM,
            SPEAKABILITY_TEMPLATE,
            SpeakabilityOutput,
            speakability_inputs,
            binary_turn_score,
        ),
        JudgePrompt(
            "transcription_accuracy_key_entities",
            "transcription_accuracy_key_entities/v1",
            "E.6, M.9",
            TRANSCRIPTION_SYSTEM,
            TRANSCRIPTION_TEMPLATE,
            TranscriptionOutput,
            transcription_inputs,
            transcription_score,
        ),
        JudgePrompt(
            "user_behavioral_fidelity",
            "user_behavioral_fidelity/v1",
            "D.1, M.7",
            BEHAVIORAL_SYSTEM,
            BEHAVIORAL_TEMPLATE,
            BehavioralFidelityOutput,
            behavioral_inputs,
            behavioral_score,
            required_context=("user_simulator_instructions", "modification_tools"),
        ),
    )
}
