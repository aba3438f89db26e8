"""medical_hr in audio (issue 17.2): the agent hears a slot the way a listener who knows the answer's form does —
the format's fixed letters put back, digits heard as their homophones, an option heard nearly — on what tiny.en
actually wrote for eSpeak's caller (transcripts from the records of a clean medical_hr cell), and a failed call
re-asks the value it did not find, never one an earlier call already accepted."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

import pytest

from evalkit.agents.reference.slot_hearing import (
    choice_scores,
    doubtful_date,
    fit_known_prefix,
    hear_slot,
    homophone_digits,
    last_year_only,
    lone_letters_upper,
    month_unheard,
    near_choice,
    next_offer,
    spelled_name,
)
from evalkit.agents.reference.workflow_hearing import _slot_form
from evalkit.agents.reference.workflow_repair import stated_in
from evalkit.domains.hr.workflows import WORKFLOWS
from evalkit.domains.hr.workflows.checklist import SPELLED_GAPS
from evalkit.domains.hr.workflows.steps import CLEARANCE_FORM, EMPLOYEE_ID, EMPLOYEE_ID_FORM, NPI, POLICY_FORM
from evalkit.domains.scenarios import load_scenarios
from evalkit.metrics.task_completion import task_completion
from evalkit.scenarios import Scenario
from evalkit.simulator.scripted.read_back import same_amount as _same_amount
from evalkit.simulator.scripted.style import say_code_list
from evalkit.spoken import parse_clock_times
from evalkit.text_dialogue import run_text_dialogue, transcript

TODAY = date(2026, 7, 20)
CARRIER = next(s for s in WORKFLOWS["malpractice_update"].slots if s.name == "new_carrier")


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("CMP 417258", "EMP417258"),  # tiny.en's "E" of eSpeak's "E M P": C, D, "the", dropped
        ("the DMP17463 7.", "EMP174637"),
        ("It is the MP1-7-4-6-3-7", "EMP174637"),
        ("C-M-B-5-9-0865.", "EMP590865"),
        ("It is EMP397979", "EMP397979"),  # heard right: as it was
        ("F-C-M-P-3-9-7-9-9.", None),  # five digits: the rest does not fit, nothing is made up
        ("It's C-M-P-M-8-9-0-2-8.", None),
        ("Let's see MP5 value 085.", None),
    ],
)
def test_an_employee_id_gets_its_fixed_letters_back(heard: str, value: str | None) -> None:
    assert fit_known_prefix(heard, EMPLOYEE_ID_FORM) == value
    assert hear_slot(EMPLOYEE_ID, heard, TODAY) == value


def test_a_format_with_dashes_gets_its_fixed_letters_back() -> None:
    assert fit_known_prefix("It is B-O-L-2-0-2-6-K-7-B-A-L-F.", POLICY_FORM) == "POL-2026-K7BALF"
    assert fit_known_prefix("That's the O-L-2-0-2-6-K-7-B-A-L-F.", POLICY_FORM) == "POL-2026-K7BALF"
    assert fit_known_prefix("It's dol 2 0 2 6 k7 dl", POLICY_FORM) is None  # four characters short
    assert fit_known_prefix("Let's see a lot of OCC 493 1.9.9", CLEARANCE_FORM) == "CLR-OCC-493199"
    assert fit_known_prefix("EMP417258", r"[A-Z]{2}\d{7}") is None  # no fixed letters: nothing to put back


def test_digits_heard_as_words_count_when_they_make_the_asked_length() -> None:
    assert homophone_digits("two to zero eight, four zero five, four five zero") == "2208405450"
    assert hear_slot(NPI, "That's two to zero eight, four zero five, four five zero.", TODAY) == "2208405450"
    assert hear_slot(NPI, "one for zero six six eight for two one one", TODAY) == "1406684211"
    # nine digits with the homophones: still not an NPI, asked again
    assert hear_slot(NPI, "It is one for nearly six, six, eight, four, two, one, one", TODAY) is None
    fits = _slot_form(NPI, TODAY)  # the n-best's form check takes the same hearing
    assert fits("one for zero six six eight for two one one") and not fits("one for zero six")


@pytest.mark.parametrize(
    ("heard", "value"),
    [
        ("Sure. Magmuteal.", "mag_mutual"),
        ("mag mutual.", "mag_mutual"),
        ("the doctor's company", "the_doctors_company"),
        ("manual tool.", "mag_mutual"),  # 0.67 like it, 0.29 like the next: far nearer than any other
        ("coverage", None),  # 0.67 like coverys but 0.4 like proassurance: asked again
        ("Yes, that is right.", None),
    ],
)
def test_an_option_heard_nearly_is_the_option(heard: str, value: str | None) -> None:
    assert hear_slot(CARRIER, heard, TODAY) == value


@pytest.mark.parametrize(
    ("slot", "heard", "value"),
    [
        ("extension_type", "It's super nice.", "supervised"),
        ("oncall_tier", "Now to smack up.", "backup"),
        ("document_list_type", "It's lit tight.", None),  # List A, B or C: only the letter differs
    ],
)
def test_a_two_or_three_way_choice_takes_the_far_nearest_option(slot: str, heard: str, value: str | None) -> None:
    found = next(s for w in WORKFLOWS.values() for s in w.slots if s.name == slot)
    assert hear_slot(found, heard, TODAY) == value


def test_two_options_equally_near_are_no_answer() -> None:
    assert near_choice("the overtime", ("overtime_hours", "overtime_days")) is None
    assert near_choice("overtime ours", ("overtime_hours", "on_call_hours")) == "overtime_hours"


def test_a_failed_call_reasks_what_it_did_not_find_not_the_verified_id() -> None:
    """HR-004: the onboarding task's completion code is misheard once, so the completion call fails; the employee ID
    that verified the caller is not asked again (as the baseline agent did), the codes are, and the task completes."""
    scenario = next(s for s in load_scenarios("medical_hr") if s.id == "HR-004")
    answer = scenario.user_goal.scripted.answers["completion_codes"]
    garbled = {"done": False}

    def ear(text: str) -> str:
        if answer in SPELLED_GAPS.sub("", text) and not garbled["done"]:
            garbled["done"] = True
            return "The LS car does not look like we've called real to you."
        return text

    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert garbled["done"]
    assert not any("match for that employee ID" in text for text in agent), agent
    assert any("couldn't find a match for that" in text for text in agent), agent
    assert task_completion(conversation).passed, agent


def _garble_once(answer: str, heard: str) -> tuple[dict[str, bool], Callable[[str], str]]:
    state = {"done": False}

    def ear(text: str) -> str:
        said = SPELLED_GAPS.sub("", text)  # a code in free text is spelled with pauses ("code 3, L, 2, U")
        if (answer in text or answer in said) and not state["done"]:
            state["done"] = True
            return heard
        return text

    return state, ear


def test_a_failed_call_reasks_the_value_the_words_did_not_give_first() -> None:
    """HR-008: the privilege codes come out as nothing (no PRV code in the words), so reactivation fails; the agent
    asks for the codes again — not the leave type, a choice heard against its options — and the task completes."""
    scenario = next(s for s in load_scenarios("medical_hr") if s.id == "HR-008")
    said = say_code_list(scenario.user_goal.scripted.answers["privilege_codes"])  # each code spelled, with "and"
    assert said is not None
    state, ear = _garble_once(said, "The Army on Kneuro Mero Bion and the Army on Kneuro Mero 6.")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert state["done"]
    assert any("couldn't find a match for that privilege codes" in text for text in agent), agent
    assert not any("match for that leave type" in text for text in agent), agent
    assert task_completion(conversation).passed, agent


def test_a_dollar_amount_is_read_back_and_a_misheard_one_corrected() -> None:
    """App. L: dollar amounts are read back before a change. HR-003's $750,000 heard as 150,000 is caught there."""
    scenario = next(s for s in load_scenarios("medical_hr") if s.id == "HR-003")
    state, ear = _garble_once("750,000 dollars", "Now start with 150,000.")  # "$750,000" said as a person says it
    conversation = run_text_dialogue(scenario, ear=ear)
    lines = transcript(conversation)
    assert state["done"]
    assert ("assistant", "I have 150000. Is that right?") in lines, lines
    assert ("user", "No, it's 750,000 dollars.") in lines, lines
    assert task_completion(conversation).passed, lines


def test_an_hour_past_twelve_with_am_or_pm_is_no_time() -> None:
    assert parse_clock_times("It's 30 AM.") == []  # tiny.en's "8:30 a.m." without the 8
    assert parse_clock_times("Sure, 8:30 AM.") == ["08:30"]


def _hr(scenario_id: str) -> Scenario:
    return next(s for s in load_scenarios("medical_hr") if s.id == scenario_id)


def test_a_verification_that_does_not_match_is_tried_once_more() -> None:
    """App. L (HR): "If credentials do not match, inform the caller and try again." HR-018's date of birth heard
    as 1980 fails verification once; the agent asks for the details again and the task completes."""
    scenario = _hr("HR-018")
    state, ear = _garble_once(scenario.user_goal.scripted.answers["date_of_birth"], "June 4, 1980.")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert state["done"]
    retry = next(i for i, text in enumerate(agent) if "don't match our records. Let's try once more." in text)
    assert agent[retry].endswith("Could you give me your employee ID?"), agent
    assert task_completion(conversation).passed, agent
    verifications = [c.name for t in conversation.turns for c in t.tool_calls if c.name == "verify_employee_auth"]
    assert len(verifications) == 2


def test_a_passcode_that_does_not_match_is_asked_again_alone_and_only_once() -> None:
    """OTP: "ask the caller to check their messages and try once more": only the passcode is asked again (the ID a
    first verification matched is not), and a second mismatch is the refusal."""
    scenario = _hr("HR-018")
    otp = scenario.user_goal.scripted.answers["otp_code"]

    def misheard(times: int) -> Callable[[str], str]:
        """The passcode heard wrong ``times`` times, and the caller's correction of its read-back heard as a yes."""
        state = {"left": times, "correcting": False}

        def ear(text: str) -> str:
            digits = re.sub(r"\D", "", re.sub(r"double (\d)", r"\1\1", text))  # "double 9" is 9 9
            if otp in digits and state["left"]:  # said plainly or with commas
                state["left"] -= 1
                state["correcting"] = True
                return "It's 1 2 3 4 5 6."
            if state["correcting"]:
                state["correcting"] = False
                return "Yes, that's right."
            return text

        return ear

    conversation = run_text_dialogue(scenario, ear=misheard(1))
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    retry = next(text for text in agent if "Let's try once more." in text)
    assert retry.endswith("Please read me the passcode."), agent
    assert task_completion(conversation).passed, agent

    twice = run_text_dialogue(scenario, ear=misheard(2))
    agent = [text for role, text in transcript(twice) if role == "assistant"]
    assert sum("Let's try once more." in text for text in agent) == 1, agent
    assert any("That passcode doesn't match" in text for text in agent), agent
    assert not task_completion(twice).passed


def test_the_caller_takes_a_figure_read_back_as_the_number_it_is() -> None:
    """A caller answering from a record's fields ("12.0", "$750,000") hears "I have 12." as its value, not as a
    spelled code one character short (which it would re-spell until it gave up)."""
    assert _same_amount("I have 12. Is that right?", "12.0")
    assert _same_amount("I have 12.5. Is that right?", "12.5")
    assert _same_amount("I have 750000. Is that right?", "$750,000")
    assert not _same_amount("I have 12. Is that right?", "12.5")
    assert not _same_amount("I have E M P 1 2. Is that right?", "EMP12")


def test_a_time_is_heard_among_the_open_slots_the_lookup_offered() -> None:
    """The n-best's form check for the appointment time: a time the availability check offered ("8:30 AM"), not
    another ("8 AM", tiny.en's "8:30 a.m." with the half hour lost); with no offer, any clock time."""
    from evalkit.agents.base import ToolBox
    from evalkit.agents.reference.workflow_policy import Run, WorkflowPolicy
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.hr.tools import REGISTRY
    from evalkit.domains.workflow import Ask

    workflow = WORKFLOWS["privilege_reactivation"]
    policy = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, {})), TODAY, WORKFLOWS)
    index = next(i for i, s in enumerate(workflow.steps) if isinstance(s, Ask) and s.slot.name == "preferred_time")
    offer = {"status": "success", "available_slots": ["08:30", "10:00", "11:00"], "date": "2026-07-30"}
    policy.run, policy.pending = Run(workflow, index, scope={"slots": offer}), "slot"
    fits = policy.expected_form()
    assert fits is not None and fits("Sure, 8:30 AM.") and fits("10 a.m.")
    assert not fits("Sure, 8 AM.") and not fits("It's 30 AM.")
    policy.run = Run(workflow, index, scope={})
    assert policy.expected_form()("Sure, 8 AM.")


def test_a_completion_code_heard_without_its_task_is_matched_on_the_checklist() -> None:
    """HR-016: "BLS card upload with code A5AZ" came back "The LS car not locked with COVA-5-A-Z". No task is named,
    but the spelled A 5 A Z is the code of one pending task on the checklist the agent looked up: that task is
    completed; words that hold no pending task's code complete nothing (the agent asks again)."""
    scenario = _hr("HR-016")
    answer = scenario.user_goal.scripted.answers["completion_codes"]
    state, ear = _garble_once(answer, "The LS car not locked with COVA-5-A-Z")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert state["done"] and not any("couldn't find a match" in text for text in agent), agent
    assert task_completion(conversation).passed, agent

    state, ear = _garble_once(answer, "The LS car.log will come.")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert any("couldn't find a match for that completion codes" in text for text in agent), agent
    assert task_completion(conversation).passed, agent  # asked again, heard right the second time


def test_a_read_back_answer_is_taken_from_the_n_best_as_a_clear_correction_or_the_whole_value() -> None:
    """After "I have L D E 1 5 U. Is that right?": among the recogniser's n best, a correction whose character was
    heard as itself ("... is Alpha") or the code restated in full wins over the best guess "... is melted" (which
    the lenient parser would read as Delta); with neither in the list, the best guess stands."""
    from evalkit.agents.base import ToolBox
    from evalkit.agents.reference.hearing import choose_hypothesis
    from evalkit.agents.reference.workflow_hearing import clear_correction
    from evalkit.agents.reference.workflow_policy import Run, WorkflowPolicy
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.hr.tools import REGISTRY
    from evalkit.domains.workflow import Ask

    workflow = WORKFLOWS["malpractice_update"]
    policy = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, {})), TODAY, WORKFLOWS)
    index = next(i for i, s in enumerate(workflow.steps) if isinstance(s, Ask) and s.slot.name == "facility_code")
    policy.run, policy.pending = Run(workflow, index), "check"
    fits = policy.expected_form()
    assert fits is not None
    best = "No, the second one is melted."
    assert choose_hypothesis([best, "No, the second one is Alpha."], fits).endswith("Alpha.")
    assert choose_hypothesis([best, "No, it's L, A, B, 1, 5, U."], fits) == "No, it's L, A, B, 1, 5, U."
    assert choose_hypothesis([best, "No, the second one is mellow."], fits) == best
    assert clear_correction("No, the sixth character is the number seven.") and not clear_correction(best)


def test_a_date_of_birth_is_heard_only_as_a_full_date() -> None:
    """ "February 9, 1974" heard "family ride in 1974" is no date of birth: the agent asks again instead of failing
    the verification with it (which cost HR-026 its verified employee ID); the n-best takes a full date first."""
    from evalkit.domains.hr.workflows.steps import DATE_OF_BIRTH

    assert hear_slot(DATE_OF_BIRTH, "February 9, 1974.", TODAY) == "1974-02-09"  # in ISO, as the tools take it
    assert hear_slot(DATE_OF_BIRTH, "1974-02-09", TODAY) == "1974-02-09"
    assert hear_slot(DATE_OF_BIRTH, "family ride in 1974", TODAY) is None
    assert hear_slot(DATE_OF_BIRTH, "October 1998", TODAY) is None
    scenario = _hr("HR-026")
    state, ear = _garble_once(scenario.user_goal.scripted.answers["date_of_birth"], "family ride in 1974")
    conversation = run_text_dialogue(scenario, ear=ear)
    agent = [text for role, text in transcript(conversation) if role == "assistant"]
    assert state["done"] and "Sorry, I didn't catch that. And your date of birth?" in agent, agent
    assert task_completion(conversation).passed, agent


def test_a_failed_call_reasks_the_value_its_error_names() -> None:
    """A verification refused for an invalid date of birth re-asks the date of birth, not the employee ID (which
    the re-ask order would otherwise put first)."""
    from evalkit.agents.base import ToolBox
    from evalkit.agents.reference.workflow_policy import Run, WorkflowPolicy
    from evalkit.domains.base import ToolExecutor
    from evalkit.domains.hr.tools import REGISTRY
    from evalkit.domains.workflow import Call

    workflow = WORKFLOWS["shift_swap"]
    policy = WorkflowPolicy(ToolBox(ToolExecutor(REGISTRY, {})), TODAY, WORKFLOWS)
    index = next(i for i, s in enumerate(workflow.steps) if isinstance(s, Call) and s.tool == "verify_employee_auth")
    policy.run = Run(workflow, index, scope={"employee_id": "EMP890324", "date_of_birth": "1974-02-31"})
    step = workflow.steps[index]
    bad_date = {"status": "error", "error_type": "invalid_date_format", "message": "Invalid date_of_birth '1974-02-31'"}
    assert policy._after_error(step, bad_date, []).text.endswith("And your date of birth?")
    policy.run = Run(workflow, index, scope={"employee_id": "EMP890324", "date_of_birth": "1974-02-09"})
    not_found = {"status": "error", "error_type": "not_found", "message": "No employee EMP890324"}
    assert policy._after_error(step, not_found, []).text.endswith("Could you give me your employee ID?")


# -- issue 28.6: what the agent does when a value may be misheard (generic, as a careful agent on a bad line) -------


def _run(scenario_id: str, ear: Callable[[str], str]) -> tuple[list[tuple[str, str]], bool]:
    conversation = run_text_dialogue(_hr(scenario_id), ear=ear)
    return transcript(conversation), task_completion(conversation).passed


def test_a_choice_not_heard_twice_is_offered_as_yes_or_no_questions() -> None:
    """HR-022: "List A" heard "less day" every time. After the plain re-ask the agent offers the nearest option as
    a yes-or-no question (before: a third "which list?" and a transfer)."""
    lines, passed = _run("HR-022", lambda text: re.sub(r"(?i)\blist a\b", "less day", text))
    assert ("assistant", "Sorry, the line is unclear. I have LIST A. Is that right?") in lines, lines
    assert passed, lines


def test_a_refused_option_leads_to_the_next_one() -> None:
    """The nearest option to what was heard ("Lisbee": List B) is not the caller's: their "no" (the right option
    misheard again) brings the next one, and the task completes."""
    lines, passed = _run("HR-022", lambda text: re.sub(r"(?i)\blist a\b", "Lisbee", text))
    at = lines.index(("assistant", "Sorry, the line is unclear. I have LIST B. Is that right?"))
    assert lines[at + 1 : at + 4] == [
        ("user", "No, it's List A."),  # as the caller says its option
        ("assistant", "I have LIST A. Is that right?"),
        ("user", "Yes, that's right."),
    ], lines  # as the caller says its option
    assert passed, lines
    assert next_offer("x", ("LIST_A", "LIST_B"), ["LIST_A", "LIST_B"]) is None  # every option offered: asked again


def test_a_short_option_is_not_heard_in_a_short_word() -> None:
    """HR-036: "Sick leave." heard "Make sure to leave.": "to" is no PTO (before: PTO booked instead of sick leave);
    the agent asks again."""
    pto_type = next(s for s in WORKFLOWS["pto_request"].slots if s.name == "pto_type")
    assert hear_slot(pto_type, "Make sure to leave.", TODAY) is None
    assert hear_slot(pto_type, "PTO.", TODAY) == "pto"  # said as itself it is heard
    assert (0.0, "pto") in choice_scores("to", ("pto", "sick"))


@pytest.mark.parametrize(
    ("heard", "read_back"),
    [
        ("May 7, 1900, 1990.", "I have May 7, 1990. Is that right?"),  # two years: the last one, read back
        ("May 7, 1900.", "I have May 7, 1900. Is that right?"),  # no living person's birth year: read back
    ],
)
def test_a_date_of_birth_in_doubt_is_read_back(heard: str, read_back: str) -> None:
    """HR-031: "May 7, 1990" heard "May 7, 1900, 1990" — the agent took 1900 and failed the verification twice.
    A date heard with two years, or further back than anyone living, is read back before it is used."""
    scenario = _hr("HR-031")
    state, ear = _garble_once(scenario.user_goal.scripted.answers["date_of_birth"], heard)
    lines, passed = _run("HR-031", ear)
    assert state["done"]
    assert ("assistant", read_back) in lines, lines
    assert passed, lines
    assert last_year_only("May 7, 1900, 1990") == "May 7, 1990" and last_year_only("May 7, 1990") == "May 7, 1990"
    assert not doubtful_date("May 7, 1990.", "1990-05-07", TODAY)  # one plausible year: not read back


def test_a_spelled_name_is_read_back_letter_by_letter() -> None:
    """HR-035: the dependent's name spelled "P, R, I, Y, A" heard "D R I Y A" was added as Driya. A spelled name is
    read back as a code is, and the caller's correction of its first letter lands."""
    state, ear = _garble_once("P, R, I, Y, A", "D R I Y A.")
    lines, passed = _run("HR-035", ear)
    assert state["done"]
    assert ("assistant", "I have D R I Y A. Is that right?") in lines, lines
    assert passed, lines
    first_name = next(s for s in WORKFLOWS["visa_dependent"].slots if s.name == "dependent_first_name")
    assert spelled_name(first_name, "P, R, I, Y, A.") and not spelled_name(first_name, "Priya.")  # said: as heard


def test_a_date_heard_without_its_month_is_read_back_with_it() -> None:
    """HR-006: "October 12" heard "That sucked over 12." was taken as the 12th of this month and the check-in
    failed twice. A day heard without a month is read back with the month the agent took, and corrected."""
    state, ear = _garble_once("October 12", "That sucked over 12.")
    lines, passed = _run("HR-006", ear)
    assert state["done"]
    assert ("assistant", "I have July 12. Is that right?") in lines, lines
    assert ("user", "No, it's October 12.") in lines, lines
    assert passed, lines
    preferred = next(s for s in WORKFLOWS["fmla_leave"].slots if s.name == "preferred_date")
    assert not month_unheard(preferred, "October 12.") and not month_unheard(preferred, "Tomorrow, please.")


def test_a_code_written_in_lower_case_letters_is_heard() -> None:
    """HR-041: the DEA number "A, K, 3, 2, 0, 1, 8, 9, 5" written "It's a k 3 2 0 1 8 9 5" three times (the letters
    in lower case, the "a" like an article) and the call transferred. Case is writing: the code is heard."""
    answer = _hr("HR-041").user_goal.scripted.answers["dea_number"]

    def ear(text: str) -> str:  # every way the caller says it (plain, slowly, "Alpha, Kilo, ...") written so
        return "It's a k 3 2 0 1 8 9 5" if answer in re.sub(r"[^A-Z0-9]", "", text) else text

    lines, passed = _run("HR-041", ear)
    assert ("assistant", "I have A K 3 2 0 1 8 9 5. Is that right?") in lines, lines
    assert passed, lines
    assert lone_letters_upper("It's a K-3 and I'm") == "It's A K-3 and I'm"


def test_a_value_a_later_call_refuses_is_asked_again_though_a_lookup_took_it() -> None:
    """HR-042: "October 14" heard "October 4 in"; the availability check took October 4 (no slots, alternatives),
    the booking refused it ("... on or after the leave's end (2026-10-11), not 2026-10-04") and the agent asked
    the time again twice, then transferred. The date the error states is asked again, and the task completes."""
    state, ear = _garble_once("October 14", "That's October 4 in.")
    lines, passed = _run("HR-042", ear)
    assert state["done"]
    agent = [text for role, text in lines if role == "assistant"]
    assert any("couldn't find a match for that appointment date" in text for text in agent), agent
    assert passed, lines
    assert stated_in("2026-10-04", "..., not 2026-10-04") and not stated_in("2026-10-04", "not 2026-10-041")


def test_a_state_the_record_gives_as_its_postal_code_is_said_by_its_name() -> None:
    """EVA-Bench's records give the caller "GA" where a person says "Georgia" (``Slot.said_as``); the agent hears the
    name against the states and the tools get the code (issue 28.5)."""
    scenario = _hr("HR-005").model_copy(deep=True)
    answers = scenario.user_goal.scripted.answers
    answers["new_state_code"] = "GA"  # as an EVA-Bench record writes it
    conversation = run_text_dialogue(scenario)
    said = [text for role, text in transcript(conversation) if role == "user"]
    assert any("Georgia" in text for text in said) and not any(re.search(r"\bGA\b", text) for text in said), said
    assert task_completion(conversation).passed, said
