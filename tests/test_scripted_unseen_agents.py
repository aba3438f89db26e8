"""The scripted caller talks to agents it has never seen (issue 29 point 3): three small agents written here, each in
its own words (a dentist's booking line, a bank, a staff help desk), none of them evalkit's reference agent. Each
asks for what it needs in its own terms, reads values back its own way, mishears once, and carries out the task
through its own tools; the caller must answer from the scenario's facts and reach the goal (the DB end state)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np
import pytest

from evalkit.agents.base import AgentContext, AgentReply, ToolBox
from evalkit.call import CallSettings, TextChannel
from evalkit.call.conversation import run_text_conversation
from evalkit.call.events import DialogueAct
from evalkit.domains.base import ToolArgs, ToolError, ToolExecutor, ToolRegistry
from evalkit.records import Conversation
from evalkit.scenarios import Scenario
from evalkit.simulator.scripted.caller import ScriptedSimulator
from evalkit.simulator.scripted.understanding import FactBook, is_spelled_value, scenario_facts, spell_mode, spelled
from evalkit.spoken import NATO, parse_correction, parse_date

# -- the agents' back end: their own tools, run by the harness's executor --------------------------------------------


class MoveArgs(ToolArgs):
    reference: str
    surname: str
    new_date: str


class FreezeArgs(ToolArgs):
    account: str
    dob: str


class BadgeArgs(ToolArgs):
    staff_number: str
    family_name: str


def toy_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool(MoveArgs, writes=True)
    def move_appointment(db: dict[str, Any], args: MoveArgs) -> dict[str, Any]:
        """Move an appointment (the reference and surname must match)."""
        booking = db["appointments"].get(args.reference)
        if booking is None or booking["surname"].lower() != args.surname.lower():
            raise ToolError("not_found", "no match")
        booking["date"] = args.new_date
        return {"done": True}

    @registry.tool(FreezeArgs, writes=True)
    def freeze_card(db: dict[str, Any], args: FreezeArgs) -> dict[str, Any]:
        """Freeze an account's card (the date of birth must match)."""
        account = db["accounts"].get(args.account)
        if account is None or account["dob"] != args.dob:
            raise ToolError("not_verified", "no match")
        account["card"] = "frozen"
        return {"done": True}

    @registry.tool(BadgeArgs, writes=True)
    def reset_badge(db: dict[str, Any], args: BadgeArgs) -> dict[str, Any]:
        """Reset a staff member's badge (the family name must match)."""
        staff = db["staff"].get(args.staff_number)
        if staff is None or staff["family_name"] != args.family_name:
            raise ToolError("not_verified", "no match")
        staff["badge"] = "reset"
        return {"done": True}

    return registry


DB = {
    "appointments": {"WK2EXB": {"surname": "Brooks", "date": "2026-03-01"}},
    "accounts": {"44129087": {"dob": "1985-03-03", "card": "active"}},
    "staff": {"EMP417258": {"family_name": "Okafor", "badge": "lost"}},
}


# -- what the agents hear: their own parsers of the caller's words --------------------------------------------------


def heard_code(text: str) -> str:
    """Letters and digits the caller spelled or said ("W as in Whiskey", "Kilo", "2", "WK2EXB")."""
    text = re.sub(r"\b[A-Z] as in ", "", text)
    out = ""
    for token in re.findall(r"[A-Za-z0-9]+", text):
        if token.lower() in NATO and len(token) > 1:
            out += NATO[token.lower()]
        elif re.fullmatch(r"[A-Z0-9]+", token) and (len(token) == 1 or any(c.isdigit() for c in token)):
            out += token
    return out


def heard_name(text: str) -> str:
    letters = re.findall(r"\b[A-Z]\b", text)
    if len(letters) >= 3:
        return "".join(letters).capitalize()
    words = [w for w in re.findall(r"[A-Z][a-z]+", text) if w not in {"It", "The", "My", "Yes", "No", "Sure"}]
    return words[-1] if words else ""


def heard_iso_date(text: str) -> str:
    """A date in the caller's words ("March 3, 2026", "1985-03-03"), its year when said, else the call's year."""
    found = parse_date(text, date(2026, 2, 20))
    year = re.search(r"\b(?:19|20)\d{2}\b", text)
    if found is None:
        return ""
    return found.replace(year=int(year.group(0))).isoformat() if year else found.isoformat()


# -- one small agent, written three times over in different words ---------------------------------------------------


@dataclass
class Wording:
    greeting: str
    ask_task: str  # when the caller has not said what it wants
    task_words: tuple[str, ...]
    questions: dict[str, str]  # slot -> question
    kinds: dict[str, str]  # slot -> code | name | date
    read_back: dict[str, str]  # slot -> template with {value}; slots without one are not read back
    respell: str  # asked after a "no" it could not apply
    permission: str
    done: str
    goodbye: str
    tool: str
    args: dict[str, str]  # tool argument -> slot
    mishear: dict[str, str] = field(default_factory=dict)  # slot -> how the first hearing goes wrong (swap | drop)
    acts: bool = False  # attach dialogue acts to its turns


class ToyAgent:
    def __init__(self, wording: Wording) -> None:
        self.w = wording
        self.slots: dict[str, str] = {}
        self.pending: str | None = None  # the slot asked for or read back
        self.checking = False
        self.stage = "task"
        self.tools: ToolBox | None = None
        self.misheard: set[str] = set()

    def _reply(self, text: str, acts: list[DialogueAct] | None = None, end: bool = False) -> AgentReply:
        return AgentReply(text, None, end_call=end, acts=(acts or []) if self.w.acts else [])

    def start(self, context: AgentContext) -> AgentReply:
        self.tools = context.tools
        return self._reply(self.w.greeting)

    def _next(self) -> AgentReply:
        for slot in self.w.questions:
            if slot not in self.slots:
                self.pending, self.checking = slot, False
                return self._reply(self.w.questions[slot], [DialogueAct("ask", slot)])
        self.stage = "permission"
        return self._reply(self.w.permission, [DialogueAct("ask", "confirm")])

    def _hear(self, slot: str, text: str) -> str:
        kind = self.w.kinds[slot]
        value = heard_code(text) if kind == "code" else heard_name(text) if kind == "name" else heard_iso_date(text)
        how = self.w.mishear.get(slot)
        if how and slot not in self.misheard and len(value) > 3:
            self.misheard.add(slot)
            value = value[:2] + ("Z" if value[2] != "Z" else "Y") + value[3:] if how == "swap" else value[:-1]
        return value

    def _read_back(self, slot: str) -> AgentReply:
        self.checking = True
        value = self.slots[slot]
        kind = self.w.kinds[slot]
        said = " ".join(value) if kind == "code" else value
        if kind == "date" and value:  # read back in words: "March 3, 1985"
            day = date.fromisoformat(value)
            said = f"{day:%B} {day.day}, {day.year}"
        return self._reply(self.w.read_back[slot].format(value=said), [DialogueAct("confirm", slot, value)])

    def respond(self, text: str) -> AgentReply:
        low = text.lower()
        if self.stage == "task":
            if not any(word in low for word in self.w.task_words):
                return self._reply(self.w.ask_task)
            self.stage = "slots"
            return self._next()
        if self.stage == "slots" and self.pending is not None:
            slot = self.pending
            if self.checking and low.startswith("yes"):
                return self._next()
            if self.checking:  # a "no": a correction of one character, a whole new value, or ask to spell
                correction = parse_correction(text)
                value = self.slots[slot]
                respelled = self._hear(slot, text)
                if correction is not None and correction[0] <= len(value):
                    i = correction[0] - 1
                    self.slots[slot] = value[:i] + correction[1] + value[i + 1 :]
                elif len(respelled) >= 3:
                    self.slots[slot] = respelled
                else:
                    self.checking = False
                    return self._reply(self.w.respell, [DialogueAct("ask", slot)])
                return self._read_back(slot)
            self.slots[slot] = self._hear(slot, text)
            if slot in self.w.read_back:
                return self._read_back(slot)
            return self._next()
        if self.stage == "permission":
            if not low.startswith("yes"):
                self.stage = "closing"
                return self._reply("Okay, I won't. Anything else?")
            assert self.tools is not None
            args = {arg: self.slots[slot] for arg, slot in self.w.args.items()}
            result = self.tools.call(self.w.tool, **args)
            self.stage = "closing"
            if result.get("status") == "error":
                return self._reply("I couldn't do that, sorry. Anything else?")
            return self._reply(self.w.done, [DialogueAct("done")])
        return self._reply(self.w.goodbye, [DialogueAct("goodbye")], end=True)


DENTIST = Wording(
    greeting="Hi, you've reached Bright Smile Dental. What can I do for you?",
    ask_task="Sorry, what brings you to us today?",
    task_words=("move", "reschedule", "appointment"),
    questions={
        "reference": "Could you give me your booking reference?",
        "surname": "Thanks. And your surname?",
        "new_date": "Which day works better for you?",
    },
    kinds={"reference": "code", "surname": "name", "new_date": "date"},
    read_back={"reference": "I've noted {value}. Did I get that correctly?"},
    respell="Sorry, could you spell that using the phonetic alphabet, like A as in alpha?",
    permission="Can I go ahead and move it?",
    done="All set, your appointment has been moved.",
    goodbye="Have a lovely day!",
    tool="move_appointment",
    args={"reference": "reference", "surname": "surname", "new_date": "new_date"},
    mishear={"reference": "swap"},
)
BANK = Wording(
    greeting="Good morning, Northwind Bank.",
    ask_task="How may I assist you?",
    task_words=("freeze", "block", "lost my card"),
    questions={"account": "Please tell me your account number.", "dob": "And your DOB?"},
    kinds={"account": "code", "dob": "date"},
    read_back={"account": "So that's {value}, correct?", "dob": "Just to confirm, date of birth {value}?"},
    respell="Sorry, could you repeat the account number?",
    permission="Would you like me to freeze the card now?",
    done="Your card is now frozen. Is there anything else I can do for you?",
    goodbye="Thanks for banking with Northwind. Take care.",
    tool="freeze_card",
    args={"account": "account", "dob": "dob"},
    mishear={"account": "drop"},
)
HELP_DESK = Wording(
    greeting="Staff help desk, go ahead.",
    ask_task="What do you need?",
    task_words=("badge",),
    questions={"staff": "Staff number?", "family": "Spell your family name for me, letter by letter."},
    kinds={"staff": "code", "family": "name"},
    read_back={"staff": "Got {value} on my screen, right?"},
    respell="Once more, slowly?",
    permission="Reset it now, OK?",
    done="Done. The badge works again.",
    goodbye="Bye.",
    tool="reset_badge",
    args={"staff_number": "staff", "family_name": "family"},
    mishear={"staff": "swap"},
    acts=True,  # this one states its acts: ask(staff), confirm(staff, value), done
)


def toy_scenario(sid: str, answers: dict[str, str], opening: str, request: str | None = None) -> Scenario:
    scripted: dict[str, Any] = {"answers": answers, "closing": "No, that's everything. Thanks, bye."}
    if request is not None:
        scripted["request"] = request
    return Scenario.model_validate(
        {
            "id": sid,
            "domain": "toy_unseen",  # a domain evalkit does not know: no workflows, no reference agent
            "workflow": "task",
            "type": "single_intent",
            "current_date_time": "2026-02-20 09:00 PST",
            "persona": {"name": "Sam Brooks", "gender": "female", "text": "Plain and polite."},
            "user_goal": {
                "high_level_user_goal": "Get the task done.",
                "must_have_criteria": [],
                "starting_utterance": opening,
                "information_required": answers,
                "decision_tree": [],
                "resolution_condition": "done",
                "failure_condition": "not done",
                "escalation_behavior": "none",
                "scripted": scripted,
            },
            "key_entities": {},
            "scenario_db": DB,
            "expected_scenario_db": DB,
        }
    )


def talk(agent: ToyAgent, scenario: Scenario) -> tuple[Conversation, list[tuple[str, str]]]:
    executor = ToolExecutor(toy_registry(), scenario.scenario_db)
    simulator = ScriptedSimulator(scenario, None, np.random.default_rng(0))
    settings = CallSettings(max_user_turns=25, max_duration_s=float("inf"))
    conversation = run_text_conversation(scenario, agent, simulator, TextChannel(lambda t: t), executor, settings)
    return conversation, [(t.role, t.intended_text) for t in conversation.turns]


def caller_lines(transcript: list[tuple[str, str]]) -> list[str]:
    return [text for role, text in transcript if role == "user"]


def test_a_dentist_asking_for_a_booking_reference_and_did_i_get_that_correctly():
    # the scenario names its facts in evalkit's usual terms; the agent says "booking reference" and "surname"
    scenario = toy_scenario(
        "toy-dentist",
        {"confirmation_number": "WK2EXB", "last_name": "Brooks", "appointment_date": "March 3, 2026"},
        "Hi, I need to move my appointment.",
    )
    conversation, transcript = talk(ToyAgent(DENTIST), scenario)
    said = caller_lines(transcript)
    assert conversation.final_db["appointments"]["WK2EXB"]["date"] == "2026-03-03", transcript
    assert conversation.end_reason == "user_end_call", transcript
    assert not any("help me with that" in s for s in said), transcript
    # the misheard read-back (WKZEXB) was corrected at its third character, then confirmed
    assert any(s.startswith("No, the third") for s in said), transcript
    assert "Yes, that's right." in said, transcript


def test_a_bank_that_asks_how_it_can_help_reads_back_in_its_own_words_and_drops_a_digit():
    scenario = toy_scenario(
        "toy-bank",
        {"account_number": "44129087", "date_of_birth": "1985-03-03"},
        "Hello.",  # no task in the opening: the caller restates its goal when asked
        request="I lost my card and need to freeze it.",
    )
    # the scenario's facts (issue 29's scenario file) give the date's spoken form and an alias the agent uses
    spoken = {"value": "1985-03-03", "spoken": "March 3rd, 1985", "aliases": ["DOB"]}
    scenario = scenario.model_copy(update={"facts": {"date_of_birth": spoken}})
    conversation, transcript = talk(ToyAgent(BANK), scenario)
    said = caller_lines(transcript)
    assert conversation.final_db["accounts"]["44129087"]["card"] == "frozen", transcript
    assert said[1] == "I lost my card and need to freeze it.", transcript
    # "So that's 4 4 1 2 9 0 8, correct?" (a digit dropped) is answered by spelling the number again
    assert any(s.startswith("No") and "4" in s for s in said), transcript
    # the date of birth read back in words is confirmed as the same day; the call ends on the caller's closing
    assert "March 3rd, 1985." in said and said.count("Yes, that's right.") == 2, transcript
    assert said[-1] == "No, that's everything. Thanks, bye." and conversation.end_reason == "user_end_call"


def test_a_terse_help_desk_that_states_its_dialogue_acts():
    scenario = toy_scenario(
        "toy-desk",
        {"employee_id": "EMP417258", "last_name": "Okafor"},
        "My badge stopped working, can you reset it?",
    )
    conversation, transcript = talk(ToyAgent(HELP_DESK), scenario)
    said = caller_lines(transcript)
    assert conversation.final_db["staff"]["EMP417258"]["badge"] == "reset", transcript
    # asked to spell the family name letter by letter: plain letters
    assert "O, K, A, F, O, R." in said, transcript
    # the act confirm(staff, EMZ417258) is corrected at its third character; done ends the call with the closing
    assert any(s.startswith("No, the third one is") for s in said), transcript
    assert said[-1] == "No, that's everything. Thanks, bye." and conversation.end_reason == "user_end_call"


def test_the_same_agent_without_acts_still_reaches_the_goal():
    wording = Wording(**{**HELP_DESK.__dict__, "acts": False})
    scenario = toy_scenario(
        "toy-desk-words", {"employee_id": "EMP417258", "last_name": "Okafor"}, "My badge needs a reset."
    )
    conversation, transcript = talk(ToyAgent(wording), scenario)
    assert conversation.final_db["staff"]["EMP417258"]["badge"] == "reset", transcript
    assert conversation.end_reason == "user_end_call", transcript


def test_facts_with_spoken_forms_and_aliases_are_matched_and_said():
    facts = {
        "policy": {"value": "PX-88", "spoken": "P X, eight eight", "aliases": ["plan code"]},
        "pet": "Rex",
    }
    book = FactBook(scenario_facts({"last_name": "Brooks", "confirm": "yes"}, facts))
    assert book.named("What's the plan code on your letter?") == ["policy"]
    assert book.named("And your family name, then the pet's name?") == ["last_name", "pet"]
    assert book.named("Shall I confirm?") == []  # a decision is never a field
    assert book.facts["policy"].spoken == "P X, eight eight"


@pytest.mark.parametrize(
    ("request_text", "mode", "said"),
    [
        ("Can you spell that?", "letters", "W, K, 2, E, X, B"),
        ("Could you give it to me in groups?", "grouped", "W K 2... E X B"),
        ("Please use the phonetic alphabet.", "phonetic", "Whiskey, Kilo, 2, Echo, X-ray, Bravo"),
        ("Spell it like A as in alpha, please.", "as_in", "W as in Whiskey, K as in Kilo, 2, E as in Echo"),
    ],
)
def test_spelling_on_request(request_text, mode, said):
    assert spell_mode(request_text) == mode
    assert spelled("WK2EXB", mode).startswith(said)


class ActsOnlyAgent:
    """Says nothing a caller could understand; its dialogue acts say what it wants."""

    def __init__(self) -> None:
        self.turn = 0
        self.tools: ToolBox | None = None
        self.heard: list[str] = []

    def start(self, context: AgentContext) -> AgentReply:
        self.tools = context.tools
        return AgentReply("Beep.", None)

    def respond(self, text: str) -> AgentReply:
        self.heard.append(text)
        self.turn += 1
        if self.turn == 1:
            return AgentReply("Item one?", None, acts=[DialogueAct("ask", "staff_number")])
        if self.turn == 2:
            return AgentReply("Item two?", None, acts=[DialogueAct("confirm", "staff_number", "EMP417258")])
        if self.turn == 3:
            return AgentReply("Item three?", None, acts=[DialogueAct("ask", "surname")])
        assert self.tools is not None
        self.tools.call("reset_badge", staff_number=heard_code(self.heard[1]), family_name=heard_name(self.heard[3]))
        return AgentReply("Beep beep.", None, acts=[DialogueAct("done")])


def test_the_caller_prefers_the_agents_acts_to_its_words():
    # "staff number" and "surname" are the table's synonyms of the scenario's employee_id and last_name
    scenario = toy_scenario("toy-acts", {"employee_id": "EMP417258", "last_name": "Okafor"}, "Badge reset, please.")
    conversation, transcript = talk(ActsOnlyAgent(), scenario)
    said = caller_lines(transcript)
    assert said[1:4] == ["It's E M P 4 1 7 2 5 8.", "Yes, that's right.", "Okafor."], transcript
    assert conversation.final_db["staff"]["EMP417258"]["badge"] == "reset", transcript
    assert said[-1] == "No, that's everything. Thanks, bye." and conversation.end_reason == "user_end_call"


def test_the_reference_agent_states_its_acts():
    from evalkit.agents.reference.local_text import LocalTextAgent
    from evalkit.domains import tool_registry
    from evalkit.domains.scenarios import load_scenarios

    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-001")
    tools = ToolBox(ToolExecutor(tool_registry("airline"), scenario.scenario_db))
    agent = LocalTextAgent()
    agent.start(AgentContext("airline", scenario.current_date_time, tools))
    asked = agent.respond("Can you move me to an earlier flight today?")
    assert asked.acts == [DialogueAct("ask", "confirmation_number")]
    checked = agent.respond("It's W K 2 E X B.")
    assert checked.acts == [DialogueAct("confirm", "confirmation_number", "W K 2 E X B")]  # as read back


@pytest.mark.parametrize(
    ("value", "spelled_out"),
    [
        ("WK2EXB", True),
        ("44129087", True),
        ("555 123 4567", True),
        ("1985-03-03", False),
        ("March 3, 2026", False),
        ("Brooks", False),
        ("window", False),
    ],
)
def test_which_values_are_compared_character_by_character(value, spelled_out):
    assert is_spelled_value(value) is spelled_out


def test_read_backs_of_words_and_dates_are_confirmed_or_corrected():
    scenario = toy_scenario("toy-words", {"last_name": "Brooks"}, "Hello.")
    spoken = {"value": "1985-03-03", "spoken": "March 3rd, 1985", "aliases": ["birthday"]}
    simulator = ScriptedSimulator(
        scenario.model_copy(update={"facts": {"dob": spoken}}), None, np.random.default_rng(0)
    )
    simulator.first_utterance()
    assert simulator.respond("What's your family name?").text == "Brooks."
    assert simulator.respond("Just to confirm, surname Brook, correct?").text == "No, it's Brooks."
    assert simulator.respond("So that's Brooks, right?").text == "Yes, that's right."
    assert simulator.respond("And your birthday?").text == "March 3rd, 1985."
    assert simulator.respond("Did I get that correctly: March 4, 1985?").text == "No, it's March 3rd, 1985."
    assert simulator.respond("March 3, 1985, is that correct?").text == "Yes, that's right."
    bye = simulator.respond("Thanks, that's all taken care of. Have a nice day!")
    assert bye.end_call


def test_asked_to_pick_one_of_the_tasks_an_agent_lists_the_caller_names_the_closest_to_its_goal():
    from evalkit.simulator.scripted.understanding import closest_offered

    question = "I can help with cancellation refund or voluntary change. Which one is it?"
    assert closest_offered(question, "My flight time got changed and I need to cancel and get a refund.") == (
        "cancellation refund"
    )
    assert closest_offered("Please say password reset, new laptop or VPN access.", "my VPN access stopped") == (
        "VPN access"
    )
    assert closest_offered(question, "I have a question about baggage.") is None  # nothing fits: no guess


def test_a_choice_that_mentions_a_decided_topic_is_a_choice_and_a_question_about_it_a_yes_or_no():
    """An agent without declared workflows: "Which flight ...? (one is full, standby on it is free)" asks for a flight,
    not about standby; "Would you like to go on the standby list?" is the goal's standby decision."""
    from evalkit.domains.scenarios import load_scenarios

    scenario = next(s for s in load_scenarios("airline") if s.id == "AL-015")  # standby: yes, flight SK321
    assert scenario.user_goal.scripted.answers["standby"] == "yes"
    offer = "I have 2 options: flight SK321 at 2:10 PM, which is full, but standby on it is free; or flight SK900."
    chose = ScriptedSimulator(scenario, workflows={}).respond(f"{offer} Which flight would you like?").text
    assert "SK three twenty-one" in chose and not chose.startswith("Yes"), chose
    asked = ScriptedSimulator(scenario, workflows={}).respond("It is full. Would you like to go on the standby list?")
    assert asked.text == "Yes, please."
