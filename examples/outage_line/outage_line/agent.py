"""Robin, Northvale Power's outage-line agent: a small rule-based voice agent written as an evalkit plug-in.

It is an example of *your* agent, not evalkit's: its own wording, its own dialogue, its own tools (the
``outage_line`` domain of ``outage_line.backend``, which the harness runs and records). It hears text on a text
channel (``modality=text``) and audio otherwise (Whisper tiny.en, bundled with evalkit), and speaks with eSpeak NG.

    conf/agent/outage_line.yaml:   kind: outage_line / name: outage_line / plugin: outage_line.agent
"""

from __future__ import annotations

import re
import time
from typing import Any, Literal

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.agents.registry import AGENTS, AgentConfig
from evalkit.records import AudioClip

# -- hearing values: the agent's own parsers -----------------------------------------------------------------------

NUMBER_WORDS = {
    w: str(i) for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"])
} | {"oh": "0"}
# the phonetic alphabet, as callers spell with it ("V as in Victor", "Victor")
ALPHABET = "alfa alpha bravo charlie delta echo foxtrot golf hotel india juliett juliet kilo lima mike november"
ALPHABET += " oscar papa quebec romeo sierra tango uniform victor whiskey whisky xray x-ray yankee zulu"
PHONETIC = {w: w[0].upper() for w in ALPHABET.split()}


def heard_characters(text: str) -> str:
    """Letters and digits the caller said one by one or in groups ("7 7 3 1", "seven seven", "N V 3", "Victor",
    "NV3 8QT"); ordinary words are skipped. "double 7" is 77."""
    out, repeat = "", 1
    for token in re.findall(r"[A-Za-z0-9-]+", text):
        low = token.lower()
        piece = ""
        if low in ("double", "triple"):
            repeat = 2 if low == "double" else 3
            continue
        if low in NUMBER_WORDS:
            piece = NUMBER_WORDS[low]
        elif low in PHONETIC:
            piece = PHONETIC[low]
        elif token.isdigit() or (token.isupper() and (len(token) == 1 or any(c.isdigit() for c in token))):
            piece = token  # a digit group, a capital letter said alone, or a group like "NV3"
        out += piece * repeat if len(piece) == 1 else piece
        repeat = 1
    return out


def heard_digits(text: str) -> str:
    return "".join(c for c in heard_characters(text) if c.isdigit())


YES = re.compile(r"\s*(yes|yeah|yep|correct|that'?s (right|correct)|right|sure|please do|go ahead)\b", re.I)
CLOSING = re.compile(r"\b(bye|thank|that'?s all|that'?s it)", re.I)


def said_yes(text: str) -> bool:
    return bool(YES.match(text))


def said_no(text: str) -> bool:
    return bool(re.match(r"\s*(no|nope|not quite|that'?s (wrong|not right))\b", text, re.I))


def one_by_one(value: str) -> str:
    return " ".join(value)


INTENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("hazard", ("wire", "line down", "line is down", "spark", "cable")),
    ("callback", ("call me back", "callback", "call back", "ring me", "to call me")),
    ("status", ("when", "back on", "restor", "update", "estimate", "how long")),
    (
        "report",
        (
            "power cut",
            "no power",
            "outage",
            "power is out",
            "power's out",
            "lost power",
            "power off",
            "blackout",
            "electricity",
            "report",
            "lights are out",
        ),
    ),
)


def intent_of(text: str) -> str | None:
    low = text.lower()
    return next((name for name, words in INTENTS if any(w in low for w in words)), None)


# -- the dialogue --------------------------------------------------------------------------------------------------

Step = Literal["intent", "account", "account_check", "postcode", "confirm_report", "phone", "phone_check", "more"]


class OutageLineAgent:
    """One conversation at a time: ``start`` greets, ``respond`` answers one caller turn."""

    def __init__(self, voice: bool) -> None:
        self.voice = voice
        self._asr: Any = None
        self._tts: Any = None

    # the harness's interface ------------------------------------------------------------------------------------

    def start(self, context: AgentContext) -> AgentReply:
        self.tools: ToolBox = context.tools
        self.step: Step = "intent"
        self.intent: str | None = None
        self.slots: dict[str, str] = {}
        self.verified: dict[str, Any] | None = None
        return self._say(
            time.perf_counter(),
            "Northvale Power outage line, Robin speaking. Is your power off, is "
            "there a wire down, or can I help with something else?",
        )

    def respond(self, user: AudioClip | str) -> AgentReply:
        started = time.perf_counter()
        heard = user if isinstance(user, str) else self._transcribe(user)
        text, end = self._answer(heard)
        return self._say(started, text, heard, end)

    # turns ------------------------------------------------------------------------------------------------------

    def _answer(self, heard: str) -> tuple[str, bool]:
        step = self.step
        if step == "intent" or step == "more":
            return self._new_request(heard)
        if step == "account":
            return self._take(
                "account",
                heard_digits(heard),
                8,
                "account_check",
                "Let me read that back: {spaced}. Does that match your bill?",
                "Sorry, I need the eight digits of the account number. Could you say them again?",
            )
        if step == "account_check":
            return self._checked("account", heard, "account", "Thanks. And the postcode of the property?", "postcode")
        if step == "postcode":
            self.slots["postcode"] = heard_characters(heard)
            return self._verify()
        if step == "confirm_report":
            if said_yes(heard):
                return self._report(hazard=False)
            self.step = "more"
            return "No problem, I won't log anything. Anything else today?", False
        if step == "phone":
            return self._take(
                "phone",
                heard_digits(heard),
                10,
                "phone_check",
                "So the engineer rings {spaced}, is that right?",
                "Sorry, which number should the engineer use? Digit by digit, please.",
            )
        if step == "phone_check":
            return self._checked("phone", heard, "phone", "", "")
        return "Sorry, could you say that again?", False

    def _new_request(self, heard: str) -> tuple[str, bool]:
        intent = intent_of(heard)
        if intent is None:
            if self.step == "more" and (said_no(heard) or CLOSING.search(heard)):
                return "Thanks for calling Northvale Power. Bye for now.", True
            return (
                "Sorry, I didn't catch what's happened. Is your power off, is a wire down, or would you like an "
                "engineer to ring you?",
                False,
            )
        self.intent = intent
        if self.verified is not None:  # a second request on the same call: the account is known
            return self._act()
        self.step = "account"
        if intent == "hazard":
            return (
                "That is dangerous, so first: stay at least ten metres away from the wire, keep everyone else "
                "back, and don't touch anything it is resting on. I'll get a crew out. What's the account "
                "number on your bill?",
                False,
            )
        return "I can look into that. What's the account number on your bill?", False

    def _take(self, slot: str, value: str, size: int, next_step: Step, read_back: str, again: str) -> tuple[str, bool]:
        if len(value) < size - 2:  # too few digits to be one: ask again rather than read back nonsense
            return again, False
        self.slots[slot] = value
        self.step = next_step
        return read_back.format(spaced=one_by_one(value)), False

    def _checked(self, slot: str, heard: str, retry: Step, ok_text: str, ok_step: str) -> tuple[str, bool]:
        if said_yes(heard):
            if slot == "phone":
                return self._callback()
            self.step = ok_step  # type: ignore[assignment]
            return ok_text, False
        fresh = heard_digits(heard)
        if len(fresh) >= 6:  # "no, it's 7 7 3 1 ..." : the correction came with the no
            self.slots[slot] = fresh
            return f"Let me read that back: {one_by_one(fresh)}. Is that right now?", False
        self.step = retry
        return "Sorry about that. Could you give it to me again, one digit at a time?", False

    def _verify(self) -> tuple[str, bool]:
        slots = self.slots
        result = self.tools.call("verify_account", account_number=slots["account"], postcode=slots["postcode"])
        if result.get("status") == "error":
            return (
                "I can't match that account number to that postcode, so I can't act on the account. Please ring "
                "back with your latest bill to hand. Goodbye.",
                True,
            )
        self.verified = result
        return self._act()

    def _act(self) -> tuple[str, bool]:
        assert self.verified is not None
        first = str(self.verified["name"]).split()[0]
        if self.intent == "hazard":
            return self._report(hazard=True)
        if self.intent == "callback":
            self.step = "phone"
            return f"Thanks, {first}. What number should the engineer ring you on?", False
        fault = self.tools.call("outage_status", district=self.verified["district"])
        self.step = "more"
        if fault.get("known_fault"):
            known = (
                f"Thanks, {first}. We already know about a fault in your area: {fault['cause']}. The crew expects "
                f"power back by {fault['restore_eta']}."
            )
            if self.intent == "report":
                known += " There's no need to log it again."
            return known + " Anything else today?", False
        self.step = "confirm_report"
        return (
            f"Thanks, {first}. I can't see a known fault near you, so this may be a new one. Shall I log it now?",
            False,
        )

    def _report(self, hazard: bool) -> tuple[str, bool]:
        result = self.tools.call("report_outage", account_number=self.slots["account"], hazard=hazard)
        self.step = "more"
        if result.get("status") == "error":
            return "Something went wrong logging that; please ring back in a few minutes. Anything else?", False
        reference = one_by_one(str(result["reference"]))
        if hazard:
            return (
                f"I've raised it as an emergency, reference {reference}. A crew is on its way; remember, keep well "
                "back from the wire. Anything else today?",
                False,
            )
        return (
            f"Logged. Your fault reference is {reference}, and an engineer will be assigned within the hour. "
            "Anything else today?",
            False,
        )

    def _callback(self) -> tuple[str, bool]:
        result = self.tools.call("request_callback", account_number=self.slots["account"], phone=self.slots["phone"])
        self.step = "more"
        if result.get("status") == "error":
            return "I couldn't book that callback, sorry. Anything else?", False
        return (
            f"Booked: an engineer will ring {one_by_one(self.slots['phone'])} within two hours. Anything else today?",
            False,
        )

    # speech -----------------------------------------------------------------------------------------------------

    def _say(self, started: float, text: str, heard: str | None = None, end: bool = False) -> AgentReply:
        audio = None
        if self.voice:
            if self._tts is None:
                from evalkit.speech import EspeakTTS

                self._tts = EspeakTTS("en-gb")
            samples, rate = self._tts.synthesize(text)
            audio = AudioClip(samples=samples, sample_rate=rate)
        return AgentReply(
            text=text,
            audio=audio,
            heard_text=heard,
            tool_calls=self.tools.drain(),  # the calls this turn made, recorded in the turn by the harness
            end_call=end,
            compute_ms=(time.perf_counter() - started) * 1000.0,
        )

    def _transcribe(self, clip: AudioClip) -> str:
        if self._asr is None:
            from evalkit.speech.asr import WhisperASR

            self._asr = WhisperASR()
        return self._asr.transcribe(clip.samples, clip.sample_rate).text.strip()


@AGENTS.register("outage_line")
class OutageLineConfig(AgentConfig):
    kind: Literal["outage_line"] = "outage_line"
    TEXT_MODALITY = True  # it has a text path: modality=text runs it on a text channel

    def build(self) -> OutageLineAgent:
        return OutageLineAgent(voice=True)

    def text_agent(self) -> OutageLineAgent:
        return OutageLineAgent(voice=False)

    def random_sources(self) -> list[str]:
        return []  # rule-based: the same caller turns get the same answers
