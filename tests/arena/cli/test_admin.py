"""`arena admin ACTION`: each action a sub-command of its own, read as it was typed before
they were (the connection flags before or after the action's name; `ladder` and `final`
alone their status)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.admin import DEFAULT_ADMIN, DEFAULT_LEAGUE
from arena.cli.main import _parser


@pytest.mark.parametrize(
    "typed",
    [
        ["admin", "--admin", "10.0.0.1:9", "--league", "x.sqlite", "status"],
        ["admin", "status", "--admin", "10.0.0.1:9", "--league", "x.sqlite"],
        ["admin", "--admin", "10.0.0.1:9", "ladder", "--league", "x.sqlite", "start"],
        ["admin", "ladder", "start", "--league", "x.sqlite", "--admin", "10.0.0.1:9"],
    ],
)
def test_the_connection_flags_are_read_before_or_after_the_action(typed: list[str]) -> None:
    args = _parser().parse_args(typed)
    assert (args.admin, args.league, args.token_file) == ("10.0.0.1:9", Path("x.sqlite"), None)


def test_ladder_and_final_alone_are_their_status_on_the_default_server() -> None:
    for group in ("ladder", "final"):
        args = _parser().parse_args(["admin", group])
        assert (args.action, args.target) == (group, None)
        assert (args.admin, args.league) == (DEFAULT_ADMIN, DEFAULT_LEAGUE)


def test_start_reads_its_options_as_typed_before() -> None:
    args = _parser().parse_args(["admin", "start", "--games", "10", "--only", "a", "b"])
    assert (args.action, args.games, args.only, args.bots) == ("start", 10, ["a", "b"], None)
    args = _parser().parse_args(["admin", "final", "start", "--top", "3", "--games", "10"])
    assert (args.action, args.target, args.top, args.games) == ("final", "start", 3, 10)
    args = _parser().parse_args(["admin", "withdraw", "alice@3"])
    assert (args.action, args.version) == ("withdraw", "alice@3")
