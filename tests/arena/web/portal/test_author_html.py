"""What a bot wrote is shown on the league's pages as text, never as markup or a control."""

from __future__ import annotations

import json

from arena.store.submissions import SubmissionRow, SubmissionState
from arena.submissions.versions import Verdict
from arena.web.league_view import GameLog
from arena.web.portal.author_games import GameFilter, Page
from arena.web.portal.author_html import author_page, game_log_page, log_page, verdict_page

EVIL = "<script>alert(1)</script>\x1b[2J\u202e'\"><img src=x onerror=alert(2)>"


def row(**fields: object) -> SubmissionRow:
    given: dict[str, object] = {
        "uid": "u1",
        "name": "alice",
        "sha256": "ab" * 32,
        "received": 1.0,
        "size": 10,
        "files": 2,
        "state": SubmissionState.REJECTED,
        "version": None,
    }
    return SubmissionRow(**{**given, **fields})  # type: ignore[arg-type]


def test_build_logs_check_reports_and_logs_are_escaped() -> None:
    report = json.dumps(
        [{"name": EVIL, "passed": False, "detail": EVIL, "warning": "", "log_tail": [EVIL]}]
    )
    versions = [row(build_log=f"line one\n{EVIL}\n", check_report=report, reason=EVIL)]
    pages = [
        author_page("alice", "tok'en", versions, None, Page((), 0, 1, 1), GameFilter(), [], [], []),
        verdict_page(Verdict(False, "alice", reason=EVIL), [EVIL]),
        log_page("alice", "night1", f"{EVIL}\nsecond line"),
        game_log_page("alice", "night1", "g1", GameLog(f"{EVIL}\nsecond line")),
        game_log_page("alice", "night1", "g1", GameLog(f"{EVIL}\nsecond line", instead=EVIL)),
    ]
    for page in pages:
        assert "<script>" not in page and "<img" not in page and "\x1b" not in page
        assert "\u202e" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;\\x1b[2J\\u202e" in page
    assert "line one\n&lt;script&gt;" in pages[0]  # a log keeps its lines
    assert "value='tok&#x27;en'" in pages[0]
