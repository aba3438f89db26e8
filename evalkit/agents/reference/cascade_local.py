"""The embedded default agent: offline ASR -> deterministic dialogue policy -> offline TTS (a cascade)."""

from __future__ import annotations

import inspect
import time
from typing import ClassVar, Literal

from pydantic import Field

from evalkit.agents.base import AgentContext, AgentReply
from evalkit.agents.reference.barge_in import CutOff, active_dbfs, recovery
from evalkit.agents.reference.dialogue import DialoguePolicy, make_policy
from evalkit.agents.reference.hearing import choose_hypothesis, expected_form
from evalkit.agents.reference.local_text import LocalTextAgent
from evalkit.agents.reference.overlap import Overlap, keeps_talking, voiced_ms
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.dialogue_acts import DialogueAct
from evalkit.kinds import kind_of
from evalkit.records import AudioClip
from evalkit.seeds import derive_seed
from evalkit.speech.espeak import EspeakTtsConfig
from evalkit.speech.registry import ASR_ENGINES, TTS_ENGINES, AsrConfig, Recognizer, Synthesizer, TtsConfig
from evalkit.speech.whisper import FasterWhisperConfig
from evalkit.spoken import speakable


class CascadeLocalAgent:
    def __init__(self, asr: Recognizer, tts: Synthesizer, alternatives: int = 1) -> None:
        self.asr = asr
        self.tts = tts
        # Options another ASR kind may not take (a plug-in's transcribe(audio, rate)): used only where it does.
        takes = inspect.signature(asr.transcribe).parameters
        self.alternatives = (
            alternatives if "alternatives" in takes else 1
        )  # n-best size (evalkit.agents.reference.hearing)
        self._policy: DialoguePolicy | None = None
        self._context: AgentContext | None = None
        self._turns = 0
        self._cut: CutOff | None = None  # the caller cut into the last utterance (IHBench interruptions)
        self._caller_dbfs: float | None = None  # how loud the caller's turns come in (its latest)

    def hear_overlap(self, clip: AudioClip, at_ms: float) -> bool:
        """Speech over this agent's own, ``at_ms`` into its utterance: keep talking (True) or yield (False), as a
        careful person decides from how long it lasted and what its ear clearly heard (agents.reference.overlap)."""
        heard = self.asr.transcribe(clip.samples, clip.sample_rate).text
        samples, rate = clip.samples, clip.sample_rate
        return keeps_talking(Overlap(heard, voiced_ms(samples, rate), active_dbfs(samples, rate), self._caller_dbfs))

    def interrupted(self, delivered: str, undelivered: str, full: str) -> None:
        """The call loop stopped this agent mid-utterance: what the caller heard and what it did not."""
        self._cut = CutOff(delivered, undelivered, full)

    def _speak(
        self,
        text: str,
        heard: str | None,
        asr_ms: float | None,
        started: float,
        end_call: bool,
        acts: list[DialogueAct] | None = None,
    ) -> AgentReply:
        assert self._context is not None
        policy_done = time.perf_counter()
        samples, rate = self.tts.synthesize(speakable(text))  # entities said so they are heard (issue 17.3)
        done = time.perf_counter()
        return AgentReply(
            text=text,
            audio=AudioClip(samples=samples, sample_rate=rate),
            heard_text=heard,
            tool_calls=self._context.tools.drain(),
            end_call=end_call,
            asr_ms=asr_ms or 0.0,
            compute_ms=(done - started) * 1000.0,
            stt_ms=asr_ms,
            # the dialogue policy is this cascade's "LLM": its time is what is left before TTS once ASR is done
            llm_ms=(policy_done - started) * 1000.0 - (asr_ms or 0.0),
            tts_ms=(done - policy_done) * 1000.0,
            acts=list(acts or []),  # the policy's dialogue acts (evalkit.dialogue_acts)
        )

    def start(self, context: AgentContext) -> AgentReply:
        started = time.perf_counter()
        self._context = context
        self._turns = 0
        self._policy = make_policy(context.domain, context.tools, context.current_date_time)
        greeting = self._policy.greet()
        return self._speak(greeting.text, None, None, started, greeting.end_call)

    def _asr_seed(self) -> dict[str, int]:
        """A sampling ASR (``temperature`` > 0) draws each turn's transcript from (call seed, turn); a greedy one
        is called as it always was."""
        self._turns += 1
        seed = self._context.seed if self._context is not None else None
        if getattr(self.asr, "temperature", 0.0) > 0 and seed is not None:
            return {"seed": derive_seed(seed, self._turns)}
        return {}

    def respond(self, user_audio: AudioClip) -> AgentReply:
        assert self._policy is not None, "start() must be called first"
        started = time.perf_counter()
        fits = expected_form(self._policy) if self.alternatives > 1 else None
        options: dict[str, object] = {"alternatives": self.alternatives} if fits is not None else {}
        transcript = self.asr.transcribe(user_audio.samples, user_audio.sample_rate, **self._asr_seed(), **options)
        self._caller_dbfs = active_dbfs(user_audio.samples, user_audio.sample_rate)
        heard = transcript.text
        if fits is not None and getattr(transcript, "alternatives", ()):
            heard = choose_hypothesis(transcript.alternatives, fits)
        # The turn is charged the transcript's compute_s, not the wall time of this call: they are the same when
        # the ASR decodes, and a transcript-cache hit (which returns the decode's compute_s) then keeps the
        # simulated timeline of an uncached run instead of an agent that hears instantly.
        started -= transcript.compute_s - (time.perf_counter() - started)
        if self._cut is not None:  # the caller's words were an interjection: recover, the policy waits
            cut, self._cut = self._cut, None
            return self._speak(recovery(cut, heard), heard, transcript.compute_s * 1000.0, started, False)
        reply = self._policy.step(heard)
        return self._speak(reply.text, heard, transcript.compute_s * 1000.0, started, reply.end_call, reply.acts)


@AGENTS.register("cascade_local")
class CascadeLocalConfig(AgentConfig):
    METERING: ClassVar[str] = "local"  # runs in this process, sends no request: 0 USD (evalkit.pricing)
    """``conf/agent/cascade_local.yaml``: its ``asr`` and ``tts`` name their own kinds (any registered engine)."""

    kind: Literal["cascade_local"] = "cascade_local"
    # a cache returns what decoding returns; the thread count changes no transcript (evalkit.speech.cores)
    NON_IDENTITY_KEYS: ClassVar[tuple[str, ...]] = (
        "asr.cache_dir",
        "asr.cpu_threads",
        "tts.cache_dir",  # a Piper TTS's cache (evalkit.speech.piper): it changes no sample
    )
    asr: kind_of(ASR_ENGINES, AsrConfig) = FasterWhisperConfig()  # type: ignore[valid-type]
    tts: kind_of(TTS_ENGINES, TtsConfig) = EspeakTtsConfig()  # type: ignore[valid-type]
    alternatives: int = Field(
        default=5,
        ge=1,
        le=10,
        description="n-best hypotheses for an answer of a known form (a six-character code); 1: the best only",
    )

    TEXT_MODALITY: ClassVar[bool] = True

    def build(self) -> CascadeLocalAgent:
        return CascadeLocalAgent(self.asr.build(), self.tts.build(), self.alternatives)

    def text_agent(self) -> LocalTextAgent:
        return LocalTextAgent()  # the same dialogue policy and tools, without ASR and TTS

    def random_sources(self) -> list[str]:
        return self.asr.random_sources() + self.tts.random_sources()  # the dialogue policy is deterministic
