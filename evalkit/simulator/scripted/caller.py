"""The scripted user simulator: follows a scenario's decision tree, answers only what it is asked.

It reads the agent's *intended* text (the simulator's own ear is taken as perfect; EVA-Bench's simulator has
its own STT, which an LLM simulator can add later). Behaviour follows App. K's guardrails: begin with the
starting utterance, give information only when asked, spell codes one character at a time and fall back to
the NATO alphabet on the second attempt, never end the call in the turn that gives information, end the call
once the agent has reported the outcome, after a refused transfer, or after 5 turns without progress.

Workflow domains (every domain whose ``Domain`` declares workflows: all built-in ones) are answered from the
workflows themselves: the slot whose question (or ``label``) the agent's text names is
answered from ``scripted.answers``, read-backs are confirmed or corrected, Confirm questions get yes (or no when
``answers["confirm"]`` is "no"), and after each finished task the next ``scripted.followups`` request is made.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date

import numpy as np

from evalkit.dialogue_acts import DialogueAct
from evalkit.domains import get_domain
from evalkit.domains.workflow import TEXT_REFERENCE, Call, Confirm, Offer, Refuse, Slot, Workflow, parse_slot
from evalkit.plugins import UnknownPluginError
from evalkit.scenarios import Scenario
from evalkit.simulator.corrections import correctable, wrong_value
from evalkit.simulator.persona import PersonaSpec, is_code, is_mixed_case_id
from evalkit.simulator.scripted.field_answers import FieldAnswers, say_record
from evalkit.simulator.scripted.listening import (
    ALPHABET_CUE,
    CONFIRM_CUES,
    NO_PROGRESS_LIMIT,
    REQUEST_CUES,
    SPELLED_KINDS,
    Listening,
    UserUtterance,
)
from evalkit.simulator.scripted.read_back import quoted_total, restated_number
from evalkit.simulator.scripted.style import PersonaStyle, as_offered, say_code_list
from evalkit.simulator.scripted.understanding import (
    FactBook,
    scenario_facts,
)
from evalkit.spoken import parse_flight_numbers, spell_with_alphabet
from evalkit.spoken_values import FLIGHT_NUMBER, say_written_values

OFFERED = re.compile(r"\bor\b", re.IGNORECASE)  # a question that names options: "a window, an aisle or a middle seat?"
CHOICE_QUESTION = re.compile(r"\bwhich\b(?:\s+[\w-]+){0,3}\s+would you like\b|\bwhich flight\b")
# The goal's yes/no decisions on one thing (``scripted.answers``) and the word a question about it names.
DECIDED_TOPICS = (("standby", "standby"), ("refund_instead", "refund instead"))

ROUTE_FIELDS = ("new_origin", "new_destination")
CHOSEN = "chosen option"  # ``last_field`` after the caller took the option its goal names
REPEATABLE_CUES = ("which would you like", "total of", "shall i go ahead")  # offers and quotes worth re-hearing
STALL_CUES = ("sorry", "didn't get", "still didn't", "again")
REFUSAL_CUES = ("not able to", "can't issue")  # refusals in words no workflow declares (an agent's own)
# a code inside free text: letters and digits mixed ("3L2U", "DN55"), or digits named a code ("code 5677"); eSpeak
# reads "3L2U" as a word (tiny.en: "real to"), spelled it was heard 3L2U or 3L2 (scripts: issue 17.2 note)
CODE_IN_TEXT = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{3,}\b|(?<=\bcode )\d{3,}\b")
TOKEN_IN_TEXT = re.compile(r"(?<![\w-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*(?![\w-])")  # a word, number or dashed ID
SPELL_CUE = re.compile(r"\bspell\b", re.IGNORECASE)
TRANSFER_OFFER = "would you like me to transfer you"  # slots whose read-back is spelled character by character
# Slot kinds a paraphrase may put words before (and whether the value's first letter is then lower-cased).
REPHRASED_KINDS = {"name": "keep", "date": "keep", "time": "keep", "number": "keep", "choice": "lower"}
# a read-back in the reference agent's form ("I have W K 2 E X B. Is that right?"), checked character by character
OWN_READ_BACK = re.compile(r"\bI have\b.*\bIs that right", re.DOTALL)


def spell_mixed_case_ids(text: str) -> str:
    """``text`` with each ID in mixed case spelled as a caller reads it out ("request REQ-SW-214a4860fa72" ->
    "request R, E, Q, S, W, 2, 1, 4, A, ..."; ``is_mixed_case_id``), other words as they are."""
    return TOKEN_IN_TEXT.sub(
        lambda m: spell_with_alphabet(m.group(0), "letters") if is_mixed_case_id(m.group(0)) else m.group(0), text
    )


def domain_record_plan(scenario: Scenario) -> tuple[list[str], dict[str, str]] | None:
    """An imported record's workflows and answers from its domain's ``record_plan`` (None: it has none)."""
    try:
        plan = get_domain(scenario.domain).record_plan
    except UnknownPluginError:
        return None
    return plan(scenario) if plan is not None else None


def task_requests(workflows: list[Workflow], said: list[str]) -> list[str]:
    """For each workflow, the first of the record's further requests that names one of its intents, else a plain
    request naming the task."""
    out = []
    for workflow in workflows:
        own = [r for r in said if any(i in r.lower() for i in workflow.intents) and r not in out]
        out.append(own[0] if own else f"I also need help with a {workflow.name.replace('_', ' ')}.")
    return out


def domain_workflows(domain: str) -> Mapping[str, Workflow] | None:
    """A domain's declared workflows; None for a domain that declares none (the caller's script and its reading of
    unseen agents answer it) or that is not registered (a scenario a test builds for its own domain passes
    ``workflows`` instead)."""
    try:
        return get_domain(domain).workflows
    except UnknownPluginError:
        return None


def fixed_wording(workflows: list[Workflow], kind: type[Call] | type[Confirm]) -> list[str]:
    """The longest fixed piece of each refusal or confirmation (templates cut at their ``{refs}``): how the
    caller recognises one whatever values the agent filled in."""
    fragments = []
    for workflow in workflows:
        for step in workflow.steps:
            if isinstance(step, Call) and kind is Call and step.require:
                text = step.refusal
            elif (isinstance(step, Refuse) and kind is Call) or (isinstance(step, Confirm) and kind is Confirm):
                text = step.text
            elif isinstance(step, Offer) and kind is Call:  # nothing to offer ends the task as a refusal does
                text = step.none
            else:
                continue
            pieces = [p.strip(" .,").lower() for p in TEXT_REFERENCE.split(text)[::2]]
            fragments.append(max(pieces, key=len))
    return [f for f in fragments if len(f) >= 8]


class ScriptedSimulator(Listening):
    """``persona`` changes how answers are said (``PersonaStyle``); ``rng`` is the conversation's own stream, so
    a persona's choices replay exactly for a (cell seed, scenario, trial)."""

    def __init__(
        self,
        scenario: Scenario,
        persona: PersonaSpec | None = None,
        rng: np.random.Generator | None = None,
        workflows: Mapping[str, Workflow] | None = None,
    ) -> None:
        self.style = PersonaStyle(persona, rng)
        self.pending_repeat: str | None = None
        self.stalled = False
        self.alphabet = False
        self.goal = scenario.user_goal
        self.plan = scenario.user_goal.scripted
        self.asked: dict[str, int] = {}
        self.rejected = 0
        self.offered: set[str] = set()  # flight numbers the agent has offered so far
        self.last_read_back = ""  # the agent's last wrong read-back, and how often it came back unchanged
        self.same_read_back = 0
        # the position the last one-character correction was for, and how often in a row it had to be corrected
        self.corrected_at, self.missed = -1, 0
        self.push_backs = 0
        self.no_progress = 0
        self.respells = 0  # whole-value re-spellings after wrong-length read-backs
        self.last = ""
        self.last_field = ""
        # IHBench correction interruptions (set by the call loop): ``slip(field, value)`` says whether to give this
        # answer wrong first; ``slipped`` is (field, right, wrong) of the slip just made, for the loop to correct
        self.slip: Callable[[str, str], bool] | None = None
        self.slipped: tuple[str, str, str] | None = None
        known = workflows if workflows is not None else domain_workflows(scenario.domain)
        # Workflow mode: the scenario's workflows in call order, and every slot they can ask for. An imported
        # record plays in workflow mode when its domain reads its tasks and answers from it (Domain.record_plan).
        names = scenario.workflow.split("+")
        record = domain_record_plan(scenario) if scenario.source == "eva_import" and known else None
        if record is not None:
            names = record[0]
            scenario = scenario.model_copy(
                update={"user_goal": scenario.user_goal.model_copy(
                    update={"scripted": scenario.user_goal.scripted.model_copy(update={"answers": record[1]})}
                )}
            )  # fmt: skip
            self.plan = scenario.user_goal.scripted
        self.workflows = [known[n] for n in names if n in known] if known else []
        self.task_names = [n.replace("_", " ") for n in known or {}]  # how the agent names the tasks it lists
        if record is not None:  # one further request per further task (a record's "instead" is not a new task)
            self.plan = self.plan.model_copy(
                update={"followups": task_requests(self.workflows[1:], self.plan.followups)}
            )
        self.slots: dict[str, Slot] = {s.name: s for w in self.workflows for s in w.slots}
        # the slots an Offer fills: answered by choosing among what the agent offered (the option the goal names)
        self.offer_slots = {st.slot.name for w in self.workflows for st in w.steps if isinstance(st, Offer)}
        self.refusals = fixed_wording(self.workflows, Call)
        self.confirmations = fixed_wording(self.workflows, Confirm)
        self.followups_said = 0
        self.today = date.fromisoformat(scenario.current_date_time[:10])
        # A workflow evalkit does not know (an imported EVA-Bench record): answer from the scenario's fields.
        self.fallback = None if record is not None else FieldAnswers.for_scenario(scenario, known)
        if self.fallback is not None:
            self.plan = self.plan.model_copy(update={"answers": self.fallback.fields})
            self.slots = self.fallback.slots  # no workflow of its own: the domain's slots of the record's fields
        # What the caller knows, for agents it has never seen (scripted.understanding): its answers and the
        # scenario's facts where the model has them; a fact not among the answers is answered like one.
        self.book = FactBook(scenario_facts(self.plan.answers, getattr(scenario, "facts", None)))
        extra = {n: f.value for n, f in self.book.facts.items() if n not in self.plan.answers}
        if extra:
            self.plan = self.plan.model_copy(update={"answers": {**self.plan.answers, **extra}})
        self.acts: list[DialogueAct] = []  # the dialogue acts the agent attached to its last turn (hear_acts)

    def first_utterance(self) -> UserUtterance:
        return self._say(self.style.opening(self.goal.starting_utterance))

    def _say(self, text: str, end_call: bool = False) -> UserUtterance:
        # a record's written values as a person says them ("1997-09-14" -> "September 14th, 1997"); the year is
        # always said: a date of birth this year ("a newborn's") needs it as much as any other
        text = say_written_values(text)
        self.last = text
        return UserUtterance(text, end_call, self.style.reaction_jitter())

    def _answer_field(self, field: str) -> UserUtterance:
        self.asked[field] = self.asked.get(field, 0) + 1
        self.last_field = field
        value = self.plan.answers.get(field)
        if value is None and field in ROUTE_FIELDS:  # the caller keeps to the booked airport
            return self._say(self.style.reply("No, I need to keep that airport."))
        if value is None:
            return self._say(self.style.reply("I don't have that, sorry."))
        vague = self.style.vague_first(field, value)
        if vague is not None:
            self.asked[field] -= 1  # a non-answer: the real first attempt is still to come
            return self._say(vague)
        value = self._maybe_slip(field, value)
        if FLIGHT_NUMBER.fullmatch(value):  # said as in a sentence, in pairs ("SK three oh two"), not spelled
            return self._say(self.style.answer(field, f"{value}.", self.stalled, rephrase="keep"))
        if field in ("confirmation_number", *ROUTE_FIELDS) or is_code(value):
            # App. K says to fall back to the NATO alphabet on a second attempt; eSpeak's NATO words are
            # harder for the offline ASR than its letters, so a repeat is plain letters with pauses and NATO
            # is kept for single-character corrections ("the fourth one is Echo").
            return self._say(self.style.code(field, value, self.asked[field], self.stalled, alphabet=self.alphabet))
        if field == "last_name":
            text = f"{value}." if self.asked[field] == 1 else f"{value}, {' '.join(value.upper())}."
            return self._say(self.style.answer(field, text, self.stalled, rephrase="keep"))
        if field == "seat_preference":
            text = f"{value.capitalize()}, please."
            return self._say(self.style.answer(field, text, self.stalled, rephrase="lower"))
        value = say_record(value) or say_code_list(value) or value  # a record's mapping, a list of codes: read out
        return self._say(self.style.answer(field, f"{value}.", self.stalled, rephrase="keep"))

    def _maybe_slip(self, field: str, value: str) -> str:
        """The value to say: a wrong one on a first answer the call loop wants slipped (IHBench correction)."""
        if self.slip is None or self.asked.get(field, 0) != 1 or not correctable(field, value):
            return value
        wrong = wrong_value(value)
        if wrong is None or not self.slip(field, value):
            return value
        self.slipped = (field, value, wrong)
        return wrong

    def _styled(self, text: str, end_call: bool = False) -> UserUtterance:
        return self._say(self.style.reply(text, self.stalled), end_call)

    def respond(self, agent_text: str) -> UserUtterance:
        acts, self.acts = self.acts, []
        low = agent_text.lower()
        ending = any(c in low for c in ("transferring you", "transfer you", "goodbye", "thank you for calling"))
        if self.pending_repeat is not None and not ending:
            # The agent's answer to "could you repeat that?" stands for the repetition: answer the original.
            agent_text, self.pending_repeat = self.pending_repeat, None
            low = agent_text.lower()
        elif any(c in low for c in REPEATABLE_CUES) and not ending:
            request = self.style.ask_repeat()
            if request is not None:
                self.pending_repeat = agent_text
                return self._say(request)
        self.stalled = any(c in low for c in STALL_CUES) or self.no_progress > 0
        self.alphabet = ALPHABET_CUE.search(low) is not None  # asked to spell with the phonetic alphabet
        if acts and (reply := self._from_acts(acts, agent_text)) is not None:  # the agent's own acts first
            return reply
        if TRANSFER_OFFER in low:  # an offer, not a transfer: the decision tree says whether to take it
            return self._yes_no("accept_transfer", "Yes, please transfer me.", "No, thank you.")
        if "transferring you" in low or "transfer you" in low:
            return self._styled("Okay. Goodbye.", end_call=True)
        if "goodbye" in low or "thank you for calling" in low:
            return self._styled("Bye.", end_call=True)
        if self.workflows:
            return self._respond_workflow(agent_text, low)
        if self.fallback is not None and (reply := self._fallback(agent_text, low)) is not None:
            return reply
        if "anything else" in low:
            refused = "not able to" in low or "can't issue" in low
            if refused and self.push_backs < self.plan.push_back_times and self.plan.push_back_say:
                self.push_backs += 1
                return self._styled(self.plan.push_back_say)
            return self._styled(self.plan.closing, end_call=True)
        if "is that right" in low and OWN_READ_BACK.search(agent_text):
            return self._check_read_back(agent_text)
        if (reply := self._read_back(agent_text)) is not None:  # a read-back in other words
            return reply
        if CHOICE_QUESTION.search(low):  # "which would you like?", "which return flight would you like?"
            return self._choose(agent_text)
        if "?" in agent_text and (topic := self._decided_topic(low)) is not None:  # "... a full refund instead?"
            return self._yes_no(topic, "Yes, please.", "No, thank you.")

        if any(c in low for c in CONFIRM_CUES):
            return self._confirm(agent_text)
        return self._when_not_understood(agent_text, low)

    def _when_not_understood(self, agent_text: str, low: str) -> UserUtterance:
        """What the caller says when no cue of its task matched: the last thing again if asked to repeat, else what
        it understood of the turn, else a plea for help, until the call has gone nowhere for too long."""
        if "sorry" in low and ("catch" in low or "again" in low or "repeat" in low):
            return self._say(self.last)
        if (reply := self._understand(agent_text)) is not None:
            return reply
        self.no_progress += 1
        if self.no_progress >= NO_PROGRESS_LIMIT:
            return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
        return self._styled("Sorry, can you help me with that?")

    def _choose(self, agent_text: str) -> UserUtterance:
        # Flights offered earlier count: "Sorry, which flight would you like?" re-asks about the same list.
        offered_now = set(parse_flight_numbers(agent_text))
        # further flights the caller takes (``answers["accept_also"]``: a round trip's return leg), when offered now
        also = [f for f in self.plan.answers.get("accept_also", "").split() if f in offered_now]
        if also and self.plan.accept_option not in offered_now:
            self.last_field = CHOSEN  # a read-back next is of this choice
            return self._styled(f"I'll take flight {also[0]}.")
        self.offered |= offered_now
        if self.plan.accept_option and self.plan.accept_option in self.offered:
            self.last_field = CHOSEN  # a read-back next is of this choice
            if also:  # offered together (standby on several flights): taken together
                return self._styled(
                    f"I'll take flight {self.plan.accept_option} and flight {' and flight '.join(also)}."
                )
            return self._styled(self.plan.accept_say or f"I'll take flight {self.plan.accept_option}.")
        self.rejected += 1
        if self.rejected <= self.plan.reject_limit and self.plan.reject_say:
            return self._styled(self.plan.reject_say)
        return self._styled("Then I'll keep my original flight. Goodbye.", end_call=True)

    def _yes_no(self, field: str, yes: str, no: str) -> UserUtterance:
        """A yes/no decision the decision tree fixes in ``answers[field]`` (absent: no)."""
        self.no_progress = 0
        wants = self.plan.answers.get(field, "no").strip().lower().startswith("yes")
        return self._styled(yes if wants else no)

    def _decided_topic(self, low: str) -> str | None:
        """A question about a thing the goal decides apart ("... standby list ...": its "standby" answer)."""
        return next((k for k, word in DECIDED_TOPICS if word in low and k in self.plan.answers), None)

    def _confirm(self, agent_text: str) -> UserUtterance:
        if (topic := self._decided_topic(agent_text.lower())) is not None:
            return self._yes_no(topic, "Yes, please.", "No, thank you.")
        if self.plan.answers.get("confirm", "yes").strip().lower().startswith("no"):
            return self._styled("No, please don't do that.")
        total = quoted_total(agent_text)
        if self.plan.max_fee is not None and total is not None and total > self.plan.max_fee:
            return self._styled("No, that's too expensive. I'll keep my original flight.")
        return self._styled("Yes, please go ahead.")

    # -- workflow domains ------------------------------------------------------------------------------------
    def _respond_workflow(self, agent_text: str, low: str) -> UserUtterance:
        if "anything else" in low:
            refused = any(f in low for f in self.refusals) or any(c in low for c in REFUSAL_CUES)
            if refused and self.push_backs < self.plan.push_back_times and self.plan.push_back_say:
                self.push_backs += 1
                return self._styled(self.plan.push_back_say)
            if self.followups_said < len(self.plan.followups):
                self.followups_said += 1
                self.no_progress = 0
                return self._styled(self.plan.followups[self.followups_said - 1])
            return self._styled(self.plan.closing, end_call=True)
        if "is that right" in low and OWN_READ_BACK.search(agent_text):
            return self._check_workflow_read_back(agent_text)
        if (reply := self._read_back(agent_text)) is not None:  # a read-back in other words
            return reply
        # A slot's own question first, then a confirmation (which often restates details and so names slot
        # labels: "I'll file leave for employee ID ..."), then a slot named by its label alone.
        slot = self._asked_slot(agent_text, exact=True)
        if slot is None and "which one" in low and any(n in low for n in self.task_names):  # tasks named: which
            current = self.workflows[min(self.followups_said, len(self.workflows) - 1)]
            return self._styled(f"The {current.name.replace('_', ' ')}, please.")
        if slot is None and any(c in low for c in (*CONFIRM_CUES, *self.confirmations)):
            return self._confirm(agent_text)
        slot = slot or self._asked_slot(agent_text, exact=False)
        offer = slot is not None and slot.name in self.offer_slots and self._task_value(slot.name) is None
        if offer and self.plan.accept_option:  # no value to give: the choice among the options its goal names
            self.no_progress = 0
            return self._choose(agent_text)
        if slot is not None:
            self.no_progress = 0
            return self._answer_slot(
                slot, slowly="slowly" in low, alphabet=ALPHABET_CUE.search(low) is not None, question=agent_text
            )
        if any(cue in low for cue in REQUEST_CUES):
            # Asked to restate the request (after "sorry, I didn't catch that" got the same words again): say it
            # in the plainest words, the task's name, as a caller does when not understood.
            current = self.workflows[min(self.followups_said, len(self.workflows) - 1)]
            return self._styled(self.style.words.request(current.name.replace("_", " ")))
        if "what else" in low and self.followups_said:
            return self._say(self.last)
        return self._when_not_understood(agent_text, low)

    def _asked_slot(self, agent_text: str, exact: bool) -> Slot | None:
        """The slot whose exact question (or, not ``exact``, whose label) the agent's text contains; the one that
        comes last wins (a turn may start with what the agent did and end with the next question)."""
        low = agent_text.lower()
        keys = {name: (slot.question if exact else slot.label).lower() for name, slot in self.slots.items()}
        found = [(low.rfind(key), len(key), name) for name, key in keys.items() if key in low]
        return self.slots[max(found)[2]] if found else None

    def _task_value(self, field: str) -> str | None:
        """The answer for the current task: a workflow the call comes back to (a second application's access) has
        its own answers under ``<field>#<n>``."""
        if self.workflows:
            index = min(self.followups_said, len(self.workflows) - 1)
            n = sum(w.name == self.workflows[index].name for w in self.workflows[: index + 1])
            if n > 1 and f"{field}#{n}" in self.plan.answers:
                return self.plan.answers[f"{field}#{n}"]
        return self.plan.answers.get(field)

    def _answer_slot(
        self, slot: Slot, slowly: bool = False, alphabet: bool = False, question: str | None = None
    ) -> UserUtterance:
        """``slowly``: the agent asked for the value slowly, one character at a time (its clearer re-ask);
        ``alphabet``: it asked for the phonetic alphabet (a code is spelled the persona's way, a name letter by
        letter); ``question``: the agent's words, when they need not be the slot's (an agent evalkit did not write
        them for: whether it asks to spell a name, how it offers a choice)."""
        field, question = slot.name, question or slot.question
        self.asked[field] = self.asked.get(field, 0) + 1
        self.last_field = field
        value = self._task_value(field)
        if value is None:
            return self._say(self.style.reply("I don't have that, sorry."))
        value = dict(slot.said_as).get(value, value)  # "OH" is said "Ohio", as a person names a state
        vague = self.style.vague_first(field, value)
        if vague is not None:
            self.asked[field] -= 1
            return self._say(vague)
        value = self._maybe_slip(field, value)
        if slot.kind in ("code", "digits") or (slot.kind == "text" and is_code(value)):  # not "11 AM"
            # spelled plainly first, with a pause after each character on a repeat (style.code). A long ID used to be
            # said with pauses from the start (measured on eSpeak); on the natural voice that loses: tiny.en heard
            # employee IDs exactly 33/40 plain against 23/40 with pauses, NPIs 36/40 against 33/40
            # (scripts/bench_entity_asr.py --hr 8 and --hr 12 --seed 5, --voice piper)
            doubles = slot.kind == "digits"  # a number read out ("double 9"); a code's letters and digits: spelled
            return self._say(
                self.style.code(
                    field,
                    value,
                    self.asked[field],
                    self.stalled,
                    slowly,
                    doubles,
                    alphabet=alphabet,
                )
            )
        if slot.kind == "name" and value.isalpha() and (alphabet or SPELL_CUE.search(question)):
            # asked to spell a name: letter by letter with a pause after each (App. K), or with the phonetic
            # alphabet when that is what the agent asked for
            spelled = self.style.alphabet(value) if alphabet else spell_with_alphabet(value, "letters")
            return self._say(self.style.answer(field, f"{spelled}.", self.stalled))
        offered = OFFERED.search(question) and re.search(rf"\b{re.escape(value)}\b", question, re.I)
        if slot.kind == "text" and offered and value.strip(" .").lower() != "none":  # "none": below
            # one of the options the question names ("a window, an aisle or a middle seat?"): said as a person takes
            # an option, not as a bare word (audio, tiny.en: "window." heard "Wendell." in 5 of 50 airline calls)
            return self._say(self.style.answer(field, f"{value.capitalize()}, please.", self.stalled, rephrase="lower"))
        if slot.kind == "choice":
            value = as_offered(value, question)
        if slot.kind != "text":  # free text is said as written: the agent writes it down verbatim
            value = f"{value[:1].upper()}{value[1:]}"
        elif value.strip(" .").lower() == "none":  # "none" alone was heard "Thank you very much" (0/4 voices)
            value = f"No {slot.label}."  # "No blackout dates.": 4/4 with the question as the prompt
        else:  # ... but a code in it is spelled, as a caller reads one out ("with code 3, L, 2, U"), codes of a list
            # one by one ("P R V - O N C - 0 0 9 and ...")
            spelled = spell_mixed_case_ids(value)
            spelled = CODE_IN_TEXT.sub(lambda m: spell_with_alphabet(m.group(0), "letters"), spelled)
            value = say_code_list(value) or spelled
        rephrase = REPHRASED_KINDS.get(slot.kind)  # free text and email addresses get no words around them
        ended = value if value.endswith((".", "!", "?")) else f"{value}."  # "7 a.m." is not said "7 a.m.."
        return self._say(self.style.answer(field, ended, self.stalled, rephrase=rephrase))

    def _check_workflow_read_back(self, agent_text: str, said: str | None = None) -> UserUtterance:
        """Spelled values are checked character by character (as for airline); others (a date, an email) by
        what they mean: the read-back must parse to what the true answer parses to, else restate it. ``said``: the
        value the agent read back, as its confirm act states it (None: read from its words)."""
        if self.last_field == CHOSEN:  # the option it chose, read back: right when it names the flight its goal names
            self.no_progress = 0
            taken = {self.plan.accept_option, *self.plan.answers.get("accept_also", "").split()}
            if taken & set(parse_flight_numbers(agent_text)):  # the one its goal names, or a further one it takes
                return self._styled("Yes, that's right.")
            # another option read back: a "no" with the choice again, until the same wrong read-back has come
            # back too often (App. K: no progress)
            if self._read_back_again(agent_text):
                return self._styled("This isn't going anywhere. Goodbye.", end_call=True)
            choice = self._choose(agent_text)
            return choice if choice.end_call else self._say(f"No, {choice.text}")
        slot = self.slots.get(self.last_field)
        if slot is None or slot.kind in SPELLED_KINDS:
            return self._check_read_back(agent_text)
        truth = self._task_value(slot.name) or ""
        if said is None:
            found = re.search(r"I have (.*?)\. Is that right", agent_text)
            said = found.group(1) if found else None
        heard = parse_slot(slot, said, self.today) if said is not None else None
        self.no_progress = 0
        if heard is not None and heard == parse_slot(slot, truth, self.today):
            return self._styled("Yes, that's right.")
        restated = restated_number(truth) if slot.kind == "number" else None
        if slot.kind == "choice":  # an option offered that is not the caller's: said as it was offered ("List A")
            truth = as_offered(truth, slot.question)
        return self._say(self.style.answer(slot.name, restated or f"No, it's {truth}.", self.stalled))
