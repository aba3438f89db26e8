"""Stage 4 of a cell — score: prepare what metrics need beyond the record (an ASR transcript of the agent's audio),
wire the cell's judge, and score each finished conversation. Re-scoring (evalkit.rescore) uses the same functions."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from evalkit.call import ConversationAudio
from evalkit.config.schema import RunConfig
from evalkit.domains import tool_registry
from evalkit.judges import Judge, JudgeContext, build_judge
from evalkit.metrics import resolve, score_conversation
from evalkit.metrics.speech_fidelity import DEFAULT_ASR_PROMPT_MODE, assistant_asr_prompt, has_entities
from evalkit.records import Conversation, ConversationRecord, MetricValue
from evalkit.scenarios import Scenario

T = TypeVar("T")


def transcribe_assistant_turns(
    conversation: Any,
    audio: ConversationAudio,
    asr: Any,
    prompt_mode: str = DEFAULT_ASR_PROMPT_MODE,
    entity_turns_only: bool = False,
) -> float:
    """Put an ASR transcript of each assistant clip in the turn's ``heard_text`` (what the user would hear), for
    metrics that compare the agent's speech with its intended text. Returns the ASR wall seconds (its cost).

    The ASR is prompted with the turn's intended text (``prompt_mode``, see metrics.speech_fidelity): like the M.3
    judge, which hears the audio knowing what the agent meant to say, it then writes spelled codes in the intended
    format instead of guessing words, and the entity match measures the audio, not Whisper's spelling habits.
    ``entity_turns_only`` skips turns that speak no entity (the proxy does not rate them): about half the agent
    audio, and so half the cost, in the airline cells."""
    spent = 0.0
    for turn in conversation.turns:
        clip = audio.clips.get((turn.index, "assistant"))
        if turn.role != "assistant" or clip is None:
            continue
        if entity_turns_only and not has_entities(turn.intended_text, conversation.key_entities):
            continue
        transcript = asr.transcribe(
            clip.samples, clip.sample_rate, **assistant_asr_prompt(turn.intended_text, prompt_mode)
        )
        turn.heard_text = transcript.text
        spent += transcript.compute_s
    return spent


def heard_behind(results: Iterable[T], listen: Callable[[T], None]) -> Iterator[T]:
    """Each result of ``results``, in order, once ``listen`` has run on it: ``listen`` (the listener ASR of the agent's
    speech) runs in one background thread while the next result is produced (the next conversation is called), so it
    is off the call's critical path; a result is yielded when its successor is done (the last one at the end). An
    error in ``listen`` is raised here, on its own result, as it was when the listener ran in line."""
    pending: deque[tuple[T, Future[None]]] = deque()
    with ThreadPoolExecutor(1, "evalkit-listener") as pool:
        for result in results:
            pending.append((result, pool.submit(listen, result)))
            while len(pending) > 1:
                done, heard = pending.popleft()
                heard.result()
                yield done
        while pending:
            done, heard = pending.popleft()
            heard.result()
            yield done


class CellJudge:
    """The cell's judge: one `Judge` plus the cell's `JudgeContext` (agent instructions, tool schemas, architecture),
    completed per conversation with its scenario's date and time. Judge metrics call ``metric_value``."""

    def __init__(self, judge: Judge, context: JudgeContext, scenario_times: dict[str, str] | None = None) -> None:
        self.judge = judge
        self.context = context
        self.scenario_times = scenario_times or {}

    def context_for(self, conversation: Conversation) -> JudgeContext:
        when = self.scenario_times.get(conversation.scenario_id, self.context.current_date_time)
        return self.context.model_copy(update={"current_date_time": when})

    def metric_value(
        self,
        metric_name: str,
        conversation: Conversation,
        context: JudgeContext | None = None,
        *,
        name: str | None = None,
        threshold: float | None = None,
    ) -> MetricValue:
        ctx = context or self.context_for(conversation)
        return self.judge.metric_value(metric_name, conversation, ctx, name=name, threshold=threshold)

    def describe(self) -> dict[str, str]:
        return self.judge.describe()


def judge_context(domain: str, architecture: str = "cascade") -> JudgeContext:
    """What every judge prompt of a cell needs beyond the record: the agent's role, instructions and tools."""
    from evalkit.prompts import domain_texts

    registry = tool_registry(domain)
    texts = domain_texts(domain)
    return JudgeContext(
        architecture=architecture,  # type: ignore[arg-type]
        agent_role=texts.agent_personality,
        agent_instructions=texts.agent_instructions,
        available_tools=[registry[name].json_schema() for name in registry.names],
        modification_tools=registry.write_tools,
    )


def build_cell_judge(config: RunConfig, scenarios: list[Scenario] | None = None) -> CellJudge | None:
    """None for judge=none (judge metrics are then skipped); raises JudgeConfigError before any conversation runs
    when the judge is misconfigured (e.g. its API key variable is unset)."""
    judge = build_judge(config.judge)
    if judge is None:
        return None
    times = {s.id: s.current_date_time for s in scenarios or []}
    return CellJudge(judge, judge_context(config.domain.name, config.agent.architecture), times)


def assistant_asr_entity_turns_only(config: RunConfig) -> bool:
    """True unless a judge will read the agent transcript of every turn (agent_speech_fidelity with a judge)."""
    return not (config.judge.enabled and "agent_speech_fidelity" in resolve(config.metrics))


def judge_params(judge: CellJudge | None) -> dict[str, str]:
    """MLflow params naming the judge (endpoint, model, prompt versions and hashes); never the key."""
    return judge.describe() if judge is not None else {"judge.name": "none"}


def score_record(conversation: Conversation, metrics: list[str], judge: CellJudge | None = None) -> ConversationRecord:
    """Score one finished conversation: the one path the cell, re-scoring and tests share."""
    return ConversationRecord(conversation=conversation, metrics=score_conversation(conversation, metrics, judge))


def judge_failures(records: list[ConversationRecord]) -> tuple[int, str | None]:
    """How many judgments failed for infrastructure reasons (endpoint down, refused, misconfigured: the metric
    value carries ``details.judge_error``), and the first reason. A judgment that did not apply or an invalid
    answer is a per-conversation outcome, not counted here."""
    failed = [v for r in records for v in r.metrics.values() if v.details.get("judge_error")]
    return len(failed), (str(failed[0].details.get("failed")) if failed else None)
