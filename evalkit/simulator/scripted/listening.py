"""How the scripted caller takes what the agent said when it is a read-back, a dialogue act, or a turn of an agent it
has never seen (``ScriptedSimulator`` inherits it): the read-back is checked against the caller's facts and corrected,
the agent's acts are preferred to its words, and anything the cue-based script does not recognise is read with the
built-in tables of ``evalkit.simulator.scripted.understanding``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from evalkit.dialogue_acts import DialogueAct
from evalkit.simulator.scripted.read_back import same_amount, same_date
from evalkit.simulator.scripted.understanding import (
    DECISIONS,
    Fact,
    closest_offered,
    compact,
    is_question,
    is_spelled_value,
    mentions_value,
    read_back_of,
    says,
    spell_mode,
    spelled,
)
from evalkit.spoken import ORDINAL_WORDS, parse_date, say_correction

NO_PROGRESS_LIMIT = 5  # App. D / K: end the call after 5 consecutive turns without progress
REQUEST_CUES = (
    "what you need help with",
    "how can i help",
    "what can i help",
    "what do you need help",
    "what's the first one",  # after an opening that announced several requests
)
CONFIRM_CUES = ("shall i", "should i", "would you like me to", "do you want me to", "yes or no")
SPELLED_KINDS = ("code", "digits", "name")
# the agent asks for a code with the spelling alphabet ("... with the phonetic alphabet, like A as in Alpha?")
ALPHABET_CUE = re.compile(r"\b(?:phonetic|spelling|nato|radio) alphabet\b|\bas in alpha\b", re.IGNORECASE)


@dataclass
class UserUtterance:
    text: str
    end_call: bool = False
    reaction_jitter_ms: float | None = None  # drawn offset from the simulator's reaction time (None: not varied)


class Listening:
    """Read-backs, dialogue acts, unseen agents' turns and the fields a record of an unknown workflow is asked for,
    for ``ScriptedSimulator`` (whose state and answering methods these use: ``plan``, ``book``, ``slots``, ``style``,
    ``_say``, ``_answer_field``, ``_answer_slot``, ...)."""

    # the ScriptedSimulator attributes used here (set in its __init__)
    plan: Any
    goal: Any
    book: Any
    slots: dict[str, Any]
    style: Any
    acts: list[DialogueAct]
    fallback: Any  # FieldAnswers, or None: the scenario's workflow is one evalkit knows
    followups_said: int
    no_progress: int
    last_field: str
    same_read_back: int
    last_read_back: str

    def hear_acts(self, acts: list[DialogueAct]) -> None:
        """The dialogue acts the agent attached to the turn the caller is about to answer (the call loop hands them
        over when the agent sends any): preferred to reading its words."""
        self.acts = list(acts)

    def _read_back_again(self, read_back: str) -> bool:
        """Counts the same wrong read-back coming back (``same_read_back``); True once it has come back too often
        to go on (App. K: no progress)."""
        self.same_read_back = self.same_read_back + 1 if read_back == self.last_read_back else 0
        self.last_read_back = read_back
        return self.same_read_back >= NO_PROGRESS_LIMIT

    def _check_read_back(self, agent_text: str, read_back: str | None = None) -> UserUtterance:
        """Compare the agent's spelled read-back with the true value; correct the first wrong character
        (EVA-Bench decision tree rule 1: wait for the read-back, correct mismatches). ``read_back``: what the agent
        read back, found in other words than the reference agent's "I have ..." (None: read it from those)."""
        raw = self._task_value(self.last_field) or ""
        truth = re.sub(r"[\s-]", "", raw).upper()
        if read_back is None:
            heard = re.search(r"I have ((?:[A-Z0-9] ?)+)\.", agent_text)
            read_back = heard.group(1).replace(" ", "") if heard else ""
        self.no_progress = 0
        if read_back == truth or same_amount(agent_text, truth) or same_date(agent_text, raw):
            self.respells = 0
            return self._styled("Yes, that's right.")
        if len(read_back) == len(truth):
            position = next(i for i, (a, b) in enumerate(zip(read_back, truth, strict=True)) if a != b)
            if position < len(ORDINAL_WORDS) and truth[position].isalnum():
                # The same wrong read-back again means the correction did not land: say it another way (the
                # plain letter instead of its NATO word), and count it as a turn without progress (App. K).
                gave_up = self._read_back_again(read_back)
                self.no_progress = self.same_read_back
                if gave_up:
                    return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
                # A correction that did not land (the same character still wrong, whatever else the agent changed)
                # is said another way next time, as a caller does: "Juliet" kept coming back "too late".
                self.missed = self.missed + 1 if position == self.corrected_at else 0
                self.corrected_at = position
                correction = say_correction(position + 1, truth[position])
                if self.missed % 2 == 1 and truth[position].isalpha():
                    correction = f"No, the {ORDINAL_WORDS[position]} one is {truth[position]}."
                if self.missed == 2:  # neither way landed: the whole value with the alphabet (App. K)
                    correction = f"No. It's {self.style.alphabet(truth)}."
                return self._styled(correction)
            # Past the sixteenth character there is no ordinal to say: restate the whole value.
        # A wrong-length read-back means the whole value has to be spelled again. The agent may ask for that
        # without bound, so this is where App. K's "end after 5 turns without progress" rule has to hold
        # (before, each read-back reset the count and a caller the ASR kept mishearing looped until max_turns).
        self.no_progress = self.respells + 1
        if self.no_progress >= NO_PROGRESS_LIMIT:
            return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
        return self._say(self._respell(truth))

    def _respell(self, truth: str) -> str:
        """Spell the whole value again, a different way each time, as a caller does when the same spelling keeps
        being misheard: first slowly, letter by letter with pauses (what a caller does when a read-back comes back
        wrong), then the NATO alphabet (App. K's fallback), then plain letters. Issue 17.2 measured the order on
        tiny.en and eSpeak spelled surnames: paused letters were heard exactly in 7-8 of 20, plain letters 5-7,
        NATO words 2-4 (``scripts/bench_entity_asr.py``)."""
        style = self.respells % 3
        self.respells += 1
        if style == 0:
            return "No... it's... " + "... ".join(truth) + "..."
        if style == 1:
            return f"No. It's {self.style.alphabet(truth)}."
        return f"No. It's {', '.join(truth)}."

    def _understand(self, agent_text: str) -> UserUtterance | None:
        """A turn the cue-based script did not recognise, read with the built-in tables: a hand-over or goodbye, a
        spelling request, a read-back, a question naming facts, a request for the caller's goal, a request for
        permission, "anything else", the task reported done. None: not understood either."""
        question = is_question(agent_text)
        if says(agent_text, "transfer"):
            return self._styled("Okay. Goodbye.", end_call=True)
        named = self.book.named(agent_text)
        mode = spell_mode(agent_text)
        if mode is not None and (named or self.last_field in self.book.facts):
            return self._spell(named[-1] if named else self.last_field, mode)
        if (reply := self._read_back(agent_text)) is not None:
            return reply
        if says(agent_text, "done") and not question:  # the goal is met: close (a further request first)
            return self._close()
        if named and (question or says(agent_text, "ask")) and not says(agent_text, "goodbye"):  # not a statement
            self.no_progress = 0
            return self._say(" ".join(self._answer_fact(name).text for name in named))
        if says(agent_text, "anything_else") and question:
            return self._close()
        if says(agent_text, "request") and question:
            self.no_progress += 1  # asked again and again what it wants, the call makes no progress (App. K)
            if self.no_progress >= NO_PROGRESS_LIMIT:
                return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
            return self._styled(self.plan.request or self.goal.starting_utterance)
        if says(agent_text, "action_question") and question:
            self.no_progress = 0
            return self._confirm(agent_text)
        if says(agent_text, "goodbye"):
            return self._styled("Bye.", end_call=True)
        return None

    def _close(self) -> UserUtterance:
        """The task is done: the next further request (a multi-intent call), else the closing, ending the call."""
        self.no_progress = 0
        if self.followups_said < len(self.plan.followups):
            self.followups_said += 1
            return self._styled(self.plan.followups[self.followups_said - 1])
        return self._styled(self.plan.closing, end_call=True)

    def _answer_fact(self, name: str) -> UserUtterance:
        """A fact asked for in the agent's own words: its spoken form when the scenario gives one, else as the
        script answers the field (a code spelled, a name said)."""
        fact = self.book.facts[name]
        if fact.spoken:
            self.asked[name] = self.asked.get(name, 0) + 1
            self.last_field = name
            return self._say(self.style.answer(name, f"{fact.spoken}.", self.stalled, rephrase="keep"))
        return self._answer_field(name)

    def _spell(self, name: str, mode: str) -> UserUtterance:
        self.no_progress = 0
        self.asked[name] = self.asked.get(name, 0) + 1
        self.last_field = name
        return self._styled(f"{spelled(self._task_value(name) or self.book.facts[name].value, mode)}.")

    def _read_back(self, agent_text: str) -> UserUtterance | None:
        """A read-back in any words ("Did I get that correctly?", "Just to confirm, ...", "so that's ..., correct?"):
        each fact the turn names (else each whose value it says, else the one answered last) is compared with what
        the agent said; the first that differs is corrected (a spelled value character by character). None: the turn
        is no read-back."""
        if not says(agent_text, "read_back") or says(agent_text, "action_question") or says(agent_text, "ask"):
            return None
        facts = self.book.facts
        targets = [n for n in self.book.named(agent_text) if n in facts]
        if not targets:
            targets = [n for n, f in facts.items() if self._read_back_right(agent_text, f.value, f.spoken)]
        if not targets and self.last_field in facts and is_question(agent_text):
            targets = [self.last_field]
        if not targets:
            return None
        self.no_progress = 0
        for name in targets:
            fact = facts[name]
            truth = self._task_value(name) or fact.value
            if self._read_back_right(agent_text, truth, fact.spoken):
                continue
            self.last_field = name
            if is_spelled_value(truth):
                return self._check_read_back(agent_text, read_back=read_back_of(agent_text, truth) or "")
            return self._styled(f"No, it's {fact.spoken or truth}.")
        self.respells = 0
        return self._styled("Yes, that's right.")

    def _read_back_right(self, agent_text: str, truth: str, spoken: str | None = None) -> bool:
        """Whether the agent's text says ``truth``: a spelled value character for character, a date as the same day,
        anything else as the same words (or its spoken form)."""
        if is_spelled_value(truth) and read_back_of(agent_text, truth) == compact(truth):
            return True
        if mentions_value(agent_text, Fact(truth, spoken)):
            return True
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", truth.strip()):
            heard = parse_date(agent_text, date.fromisoformat(truth.strip()))
            return heard is not None and heard.isoformat() == truth.strip()
        return False

    def _from_acts(self, acts: list[DialogueAct], agent_text: str) -> UserUtterance | None:
        """The agent's stated dialogue acts, preferred to its words: the last act of the turn is what it waits for.
        None: no act the caller acts on (the words are read instead)."""
        act = acts[-1]
        kind = act.act.lower()
        if kind == "transfer":
            return self._styled("Okay. Goodbye.", end_call=True)
        if kind == "goodbye":
            return self._styled("Bye.", end_call=True)
        if kind == "done":
            return self._close()
        if kind == "ask" and act.field == "confirm":  # asked for permission: the decision tree's answer
            self.no_progress = 0
            return self._confirm(agent_text)
        if kind == "ask" and act.field in DECISIONS:
            return self._yes_no(act.field, "Yes, please.", "No, thank you.")
        name = self.book.field_for(act.field) if act.field else None
        if name is None:
            return None
        low = agent_text.lower()
        slot = self.slots.get(name)
        if kind == "ask":
            self.no_progress = 0
            if slot is not None:  # a workflow slot: answered as its kind says, slowly or spelled as asked
                return self._answer_slot(
                    slot, slowly="slowly" in low, alphabet=ALPHABET_CUE.search(low) is not None, question=agent_text
                )
            mode = spell_mode(agent_text)
            return self._spell(name, mode) if mode is not None else self._answer_fact(name)
        if kind == "confirm" and act.value is not None:
            fact = self.book.facts[name]
            truth = self._task_value(name) or fact.value
            self.last_field = name
            if slot is not None and slot.kind not in SPELLED_KINDS:  # a value compared by what it means
                return self._check_workflow_read_back(agent_text, said=act.value)
            # a read-back spelled letter by letter is checked letter by letter, whatever the value (a name too):
            # a caller who hears its name spelled wrong spells it again, differently each time
            letters = compact(act.value)
            spelled = r"\b" + r"[\s,.-]+".join(map(re.escape, letters)) + r"\b"
            spelled_back = len(letters) > 1 and re.search(spelled, agent_text, re.IGNORECASE) is not None
            if is_spelled_value(truth) or spelled_back or (slot is not None and slot.kind in SPELLED_KINDS):
                return self._check_read_back(agent_text, read_back=compact(act.value))
            self.no_progress = 0
            if self._read_back_right(act.value, truth, fact.spoken):
                self.respells = 0
                return self._styled("Yes, that's right.")
            return self._styled(f"No, it's {fact.spoken or truth}.")
        return None

    # -- scenarios of a workflow evalkit does not know (evalkit.simulator.scripted.field_answers) --------------
    def _fallback(self, agent_text: str, low: str) -> UserUtterance | None:
        """The record's further requests, its opening request again, or the fields the agent asks for; None: the
        cue-based script answers (read-backs, confirmations, offers, closing)."""
        assert self.fallback is not None
        if "anything else" in low:
            if self.followups_said < len(self.plan.followups):
                self.followups_said += 1
                self.no_progress = 0
                return self._styled(self.plan.followups[self.followups_said - 1])
            return None  # the closing (or a push-back), not a field the wrap-up restates ("your confirmation ...")
        if "is that right" in low and self.last_field in self.slots:  # checked as the field's slot says
            return self._check_workflow_read_back(agent_text)
        if "is that right" in low or any(c in low for c in CONFIRM_CUES):
            return None
        fields = self.fallback.asked(agent_text)
        if fields:
            self.no_progress = 0
            how = {"slowly": "slowly" in low, "alphabet": ALPHABET_CUE.search(low) is not None, "question": agent_text}
            said = [
                self._answer_slot(self.slots[f], **how) if f in self.slots else self._answer_field(f) for f in fields
            ]
            return self._say(" ".join(u.text for u in said))
        if "which one" in low or "please say" in low:  # asked to pick one of the tasks it lists: the closest
            wanted = " ".join([self.plan.request or "", self.goal.starting_utterance, self.goal.high_level_user_goal])
            if (task := closest_offered(agent_text, wanted)) is not None:
                return self._styled(f"The {task}, please.")
        if any(c in low for c in REQUEST_CUES):
            self.no_progress += 1
            if self.no_progress >= NO_PROGRESS_LIMIT:
                return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
            return self._styled(self.plan.request or self.goal.starting_utterance)
        return None
