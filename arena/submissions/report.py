"""What a submission's worker says, line by line, and the check report the store keeps.

The worker (`arena.submissions.worker`) writes one JSON object a line on its
standard output; the server (`arena.submissions.pipeline`) reads them back
here into typed events. The check report is the checks made, as JSON, kept
with the submission in the league store for the author's page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.checkbot.verdict import Check
from arena.records import Json

LINE_CHARS = 2000
"""The longest line of a build's output passed on; a longer one is cut."""
DETAIL_CHARS = 4000


@dataclass(frozen=True, slots=True)
class Line:
    """A line of the worker's own ("note") or of the build's output ("build")."""

    stage: str
    text: str


@dataclass(frozen=True, slots=True)
class End:
    """The worker's last word: whether the bot passed, and if not, the first thing that failed."""

    passed: bool
    failure: str = ""


Event = Line | Check | End


def check_to_json(check: Check) -> Json:
    return {
        "name": check.name,
        "passed": check.passed,
        "detail": check.detail[:DETAIL_CHARS],
        "warning": check.warning[:DETAIL_CHARS],
        "log_tail": [line[:LINE_CHARS] for line in check.log_tail],
    }


def check_from_json(data: Any) -> Check:
    return Check(
        str(data["name"]),
        bool(data["passed"]),
        str(data.get("detail", "")),
        str(data.get("warning", "")),
        tuple(str(line) for line in data.get("log_tail", [])),
    )


def encode(event: Event) -> str:
    """One event as the worker writes it: a line of JSON."""
    if isinstance(event, Line):
        data: Json = {"line": {"stage": event.stage, "text": event.text[:LINE_CHARS]}}
    elif isinstance(event, Check):
        data = {"check": check_to_json(event)}
    else:
        data = {"end": {"passed": event.passed, "failure": event.failure[:DETAIL_CHARS]}}
    return json.dumps(data)


def decode(line: bytes) -> Event | None:
    """An event from a line of the worker's output; None for a line that is not one."""
    try:
        data = json.loads(line)
        if "line" in data:
            return Line(str(data["line"]["stage"]), str(data["line"]["text"]))
        if "check" in data:
            return check_from_json(data["check"])
        if "end" in data:
            return End(bool(data["end"]["passed"]), str(data["end"]["failure"]))
    except (ValueError, KeyError, TypeError):
        return None
    return None


def report_json(checks: list[Check]) -> str:
    return json.dumps([check_to_json(check) for check in checks])


def first_failure(checks: list[Check]) -> str:
    """The first check failed, and what the bot sent: the reason of a refusal."""
    for check in checks:
        if not check.passed:
            return f"check {check.name!r} failed: {check.detail}"
    return "no check was made"
