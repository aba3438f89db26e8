"""How the scripted caller plays an imported EVA-Bench ITSM record (issue 15 point 5): which of evalkit's ITSM
workflows the record's tasks are, and what the caller answers to each workflow question.

A record names its tasks in prose and keeps the caller's details in ``information_required`` (here
``user_goal.scripted.answers``); what the caller decides (is the account locked, did troubleshooting fix it, how
urgent is it, which floor instead) shows in its ground-truth tool calls and expected end state. So the tasks come
from the ground-truth calls (a tool that only one workflow uses names it, in call order), and each answer from the
ground-truth call that carries it (the value in the tools' own form), else from the record's field of the slot's
name. The caller knows its own intentions this way; the agent still hears only what the caller says and reads only
the DB.

Nothing here is per record: a record whose calls name no task (an adversarial one refused at verification) gets
None and the field fallback (``evalkit.simulator.scripted.field_answers``) answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.domains.itsm.api import REGISTRY
from evalkit.spoken import say_date, say_time

# A tool (and, for the shared ones, the argument value) -> the workflow that uses it.
_BY_TOOL = {
    "attempt_account_unlock": "login_issue",
    "attempt_password_reset": "login_issue",
    "check_existing_outage": "service_outage",
    "add_affected_user": "service_outage",
    "link_known_error": "service_outage",
    "schedule_field_dispatch": "hardware_malfunction",
    "attach_diagnostic_log": "network_vpn_issue",
    "get_application_details": "application_access",
    "submit_access_request": "application_access",
    "get_license_catalog_item": "software_license",
    "submit_license_request": "software_license",
    "get_employee_licenses": "license_renewal",
    "submit_license_renewal": "license_renewal",
    "check_desk_availability": "desk_request",
    "submit_desk_assignment": "desk_request",
    "check_parking_availability": "parking_request",
    "submit_parking_assignment": "parking_request",
    "check_ergonomic_assessment": "ergonomic_equipment",
    "submit_equipment_request": "ergonomic_equipment",
    "check_room_availability": "conference_room",
    "submit_room_booking": "conference_room",
    "lookup_new_hire": "new_employee_provisioning",
    "provision_new_account": "new_employee_provisioning",
    "get_group_memberships": "group_membership",
    "submit_group_membership_change": "group_membership",
    "check_role_change_authorized": "permission_change",
    "submit_permission_change": "permission_change",
    "get_offboarding_record": "access_removal",
    "submit_access_removal": "access_removal",
    "report_security_incident": "security_incident",
    "submit_mfa_reset": "mfa_reset",
    "get_request_status": "request_status_escalation",
}
_BY_CATEGORY = {
    "login_issue": "login_issue",
    "service_outage": "service_outage",
    "hardware_malfunction": "hardware_malfunction",
    "network_connectivity": "network_vpn_issue",
}
_BY_HARDWARE = {"laptop_replacement": "laptop_replacement", "monitor_bundle": "monitor_bundle"}
URGENCY_WORDS = {"high": "I'm completely blocked.", "medium": "It's degraded, I can work around it for now."}


def workflow_of(name: str, arguments: Mapping[str, Any]) -> str | None:
    """The workflow a ground-truth call belongs to (None: a call several workflows make, such as verification)."""
    if name in _BY_TOOL:
        return _BY_TOOL[name]
    if name in ("get_troubleshooting_guide", "mark_resolved"):
        return _BY_CATEGORY.get(arguments.get("issue_category") or arguments.get("flow_id"))
    if name == "create_incident_ticket":
        return _BY_CATEGORY.get(arguments.get("category"))
    if name in ("check_hardware_entitlement", "submit_hardware_request"):
        if arguments.get("justification") == "lost_or_stolen":
            return "security_incident"
        return _BY_HARDWARE.get(arguments.get("request_type"))
    return None


def _spoken(value: Any) -> str:
    return str(value).replace("_", " ")


def occurrences(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, int]]:
    """The tasks of a call as (workflow, index of the ground-truth call that starts it), in call order. A workflow
    comes again (two applications' access in one call) when one of its tools is called again after it has written:
    a repeated check before its write (a desk on another floor) is still the same task."""
    tasks: list[tuple[str, int]] = []
    seen: dict[str, set[str]] = {}  # per workflow: the tools of its latest occurrence
    wrote: set[str] = set()
    for i, (name, arguments) in enumerate(calls):
        workflow = workflow_of(name, arguments)
        if workflow is None:
            continue
        again = workflow in seen and name in seen[workflow] and workflow in wrote
        if workflow not in seen or again:
            tasks.append((workflow, i))
            seen[workflow] = set()
            wrote.discard(workflow)
        seen[workflow].add(name)
        if name in REGISTRY.names and REGISTRY[name].writes:
            wrote.add(workflow)
    return tasks


def record_plan(scenario: Any) -> tuple[list[str], dict[str, str]] | None:
    """(the record's workflows in call order, the caller's answer to each slot), or None when its ground-truth
    calls name no workflow. A workflow that comes again has its own answers under ``<slot>#<n>`` (its n-th time)."""
    calls = [(c.name, dict(c.arguments)) for c in scenario.reference_calls]
    tasks = occurrences(calls)
    if not tasks:
        return None
    fields = dict(scenario.user_goal.scripted.answers)
    answers = {**fields, **_answers(calls, fields, scenario.scenario_db)}
    counts: dict[str, int] = {}
    for k, (workflow, start) in enumerate(tasks):
        counts[workflow] = counts.get(workflow, 0) + 1
        if counts[workflow] > 1:  # its own calls: from its first one to the next task's
            end = tasks[k + 1][1] if k + 1 < len(tasks) else len(calls)
            own = _answers(calls[start:end], fields, scenario.scenario_db)
            answers |= {f"{slot}#{counts[workflow]}": value for slot, value in own.items()}
    return [workflow for workflow, _ in tasks], answers


def _answers(
    calls: list[tuple[str, dict[str, Any]]], fields: Mapping[str, Any], db: Mapping[str, Any]
) -> dict[str, str]:
    """The caller's answer to each slot that ``calls`` (ground-truth calls) carry."""
    found: dict[str, str] = {}

    def first(tool: str, **match: Any) -> dict[str, Any] | None:
        return next(
            (a for n, a in calls if n == tool and all(a.get(k) == v for k, v in match.items())),
            None,
        )

    def put(slot: str, value: Any) -> None:
        if value not in (None, "", []) and slot not in found:
            found[slot] = value if isinstance(value, str) else _spoken(value)

    # Credentials.
    for tool in ("verify_employee_auth", "verify_manager_auth"):
        if auth := first(tool):
            put("employee_id", auth.get("employee_id"))
            put("phone_last_four", auth.get("phone_last_four"))
            put("manager_auth_code", auth.get("manager_auth_code"))
    if otp := first("verify_otp_auth"):
        put("otp_code", otp.get("otp_code"))

    tickets = {a.get("category"): a for n, a in calls if n == "create_incident_ticket"}

    def urgency(slot: str, category: str) -> None:
        if category in tickets:
            put(slot, URGENCY_WORDS.get(tickets[category].get("urgency"), "It's minor, it can wait."))

    # Incidents: what the caller says decides the branch the ground truth took.
    fix = first("attempt_account_unlock") or first("attempt_password_reset")
    if fix:
        put("target_system", _spoken(fix.get("target_system")))
    elif "login_issue" in tickets:
        put("target_system", _spoken(tickets["login_issue"].get("affected_system")))
    put("account_locked", "yes" if first("attempt_account_unlock") else "no, my password expired")
    urgency("login_urgency", "login_issue")
    if outage := first("check_existing_outage"):
        put("affected_service", _spoken(outage.get("service_name")))
    urgency("outage_urgency", "service_outage")
    for category, slot in (("hardware_malfunction", "hardware_resolved"), ("network_connectivity", "network_resolved")):
        put(slot, "yes" if first("mark_resolved", flow_id=category) else "no")
    if hardware := tickets.get("hardware_malfunction"):
        asset = db.get("assets", {}).get(hardware.get("affected_system"), {})
        put("faulty_device", asset.get("asset_type", "laptop"))
    urgency("hardware_urgency", "hardware_malfunction")
    if dispatch := first("schedule_field_dispatch"):
        put("preferred_date", say_date(dispatch["preferred_date"]))
        put("preferred_time_window", _spoken(dispatch.get("time_window")))
        put("dispatch_building", dispatch.get("building_code"))
        put("dispatch_floor", dispatch.get("floor_code"))
    if network := tickets.get("network_connectivity"):
        put("network_type", network.get("affected_system"))
    urgency("network_urgency", "network_connectivity")
    if diagnostic := first("attach_diagnostic_log"):
        put("diagnostic_ref_code", diagnostic.get("diagnostic_ref_code"))

    # Hardware requests.
    if laptop := first("submit_hardware_request", request_type="laptop_replacement"):
        put("justification", _spoken(laptop.get("justification")))
        put("preferred_os", laptop.get("laptop_os"))
        put("laptop_size", _spoken(laptop.get("laptop_size")))
    if monitor := first("submit_hardware_request", request_type="monitor_bundle"):
        put("monitor_justification", _spoken(monitor.get("justification")))
        put("monitor_size", _spoken(monitor.get("monitor_size")))
    for tool in ("submit_hardware_request", "submit_equipment_request"):
        if delivery := first(tool):
            put("delivery_building", delivery.get("delivery_building"))
            put("delivery_floor", delivery.get("delivery_floor"))

    # Software.
    if app := first("get_application_details"):
        put("application_name", app.get("application_name"))
    if access := first("submit_access_request"):
        put("access_level", _spoken(access.get("access_level")))
    if license_ := first("get_license_catalog_item"):
        put("license_product_name", license_.get("license_name"))
    if request := first("submit_license_request"):
        days = request.get("duration_days")
        put("license_temporary", "yes" if days else "no, a permanent one")
        put("duration_days", f"{days} days" if days else None)
    if renewal := first("submit_license_renewal"):
        owner = db.get("employees", {}).get(renewal.get("employee_id"), {})
        held = owner.get("software_licenses", [])
        wanted = renewal.get("license_assignment_id")
        put(
            "renewal_product_name",
            next((x.get("software_name") for x in held if x.get("license_assignment_id") == wanted), None),
        )
    if status := first("get_request_status"):
        put("request_id", status.get("request_id"))

    # Facilities.
    desks = [a for n, a in calls if n == "check_desk_availability"]
    if desks:
        put("building_name", desks[0].get("building_code"))
        put("floor", desks[0].get("floor_code"))
        put("desk_other_floor", "yes" if len(desks) > 1 else "no")
        if len(desks) > 1:
            put("backup_desk_floor", desks[1].get("floor_code"))
    if parking := first("check_parking_availability"):
        put("zone_name", parking.get("zone_code") or fields.get("zone_name"))
    if equipment := first("submit_equipment_request"):
        put("equipment_type", _spoken(equipment.get("equipment_type")))
    if room := first("check_room_availability"):
        put("building_name", room.get("building_code"))
        put("meeting_date", say_date(room["date"]))
        put("start_time", say_time(room["start_time"]))
        put("end_time", say_time(room["end_time"]))
        put("attendee_count", str(room.get("min_capacity")))
        put("required_equipment", _spoken((room.get("equipment_required") or ["nothing"])[0]))
    rooms = [a for n, a in calls if n == "check_room_availability"]
    if len(rooms) > 1 and rooms[0].get("equipment_required"):  # searched on without the equipment, or not
        put("room_without_equipment", "no" if all(r.get("equipment_required") for r in rooms) else "yes")
    if booking := first("submit_room_booking"):
        put("attendee_count", str(booking.get("attendee_count")))

    # Accounts and security.
    if hire := first("lookup_new_hire"):
        put("new_hire_id", hire.get("new_hire_employee_id"))
    if provision := first("provision_new_account"):
        put("access_groups", " and ".join(provision.get("access_groups", [])))
    if change := first("submit_group_membership_change") or first("get_group_details"):
        put("group_code", change.get("group_code"))
        put("action", "remove me" if change.get("action") == "remove" else "add me")
    if role := first("check_role_change_authorized") or first("submit_permission_change"):
        put("new_role_code", role.get("new_role_code"))
    if removal := first("submit_access_removal") or first("get_offboarding_record"):
        put("departing_employee_id", removal.get("departing_employee_id") or removal.get("employee_id"))
        put("removal_scope", removal.get("removal_scope"))
    if recovery := first("initiate_asset_recovery"):
        put("recovery_method", _spoken(recovery.get("recovery_method")))
    if incident := first("report_security_incident"):
        asset = db.get("assets", {}).get(incident.get("asset_tag"), {})
        put("lost_device", asset.get("asset_type", "laptop"))
        put("incident_type", _spoken(incident.get("incident_type")))
    if mfa := first("submit_mfa_reset"):
        put("new_phone_last_four", mfa.get("new_phone_last_four"))

    # The record's other fields (its name, details no workflow asks for) stay answerable as they are.
    return found
