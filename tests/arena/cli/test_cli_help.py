"""Every option of every command says what it is and, where it has one, its default: the whole
parser walked, every sub-command's own."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest
from cli_harness import Cli

from arena.cli.main import _parser
from arena.tournament.config import OPTIONS
from arena.tournament.options import Command

UNSAID = (None, False, [], argparse.SUPPRESS)
"""Defaults not worth saying: none, a flag's off, an empty list."""


def _actions(
    parser: argparse.ArgumentParser, path: str
) -> Iterator[tuple[str, argparse.ArgumentParser, argparse.Action]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction):
            yield path, parser, action


def test_every_option_of_every_command_has_help_and_its_default() -> None:
    missing, no_default = [], []
    walked = list(_actions(_parser(), "arena"))
    assert len(walked) > 200  # the whole CLI, sub-commands and all
    for path, parser, action in walked:
        name = f"{path} {'/'.join(action.option_strings) or action.dest}"
        if not action.help or action.help == argparse.SUPPRESS:
            missing.append(name)
            continue
        said = parser._get_formatter()._expand_help(action)
        constant = isinstance(action, argparse._StoreConstAction | argparse._CountAction)
        worth_saying = action.option_strings and action.default not in UNSAID and not constant
        if worth_saying and "default" not in said:
            no_default.append(f"{name} ({action.default!r})")
    assert missing == [], "options with no help: " + ", ".join(missing)
    assert no_default == [], "options whose help hides their default: " + ", ".join(no_default)


def _help(cli: Cli, *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        cli(*args, "--help")
    assert done.value.code == 0
    return cli.capsys.readouterr().out


def test_token_add_help_says_its_name_and_where_the_token_goes(cli: Cli) -> None:
    said = _help(cli, "token", "add")
    assert "the bot's name" in said and "(default: results/league.sqlite)" in said
    assert "its token on stdout alone" in _help(cli, "token")


CONNECTION = ("--admin", "--token-file", "--league")
"""The flags every `arena admin` action takes: where the server is, and its token."""
OWN = {
    ("status",): (),
    ("stop",): (),
    ("submissions",): ("--author",),
    ("withdraw",): (),
    ("requests",): ("--author",),
    ("ladder", "start"): (),
    ("ladder", "stop"): (),
    ("ladder", "status"): (),
    ("final", "status"): (),
}
"""Each `arena admin` action that takes no night's options, and the flags of its own."""


def _flags(said: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", said)) - {"--help"}


@pytest.mark.parametrize("action", list(OWN), ids=" ".join)
def test_each_admin_action_says_only_its_own_flags(cli: Cli, action: tuple[str, ...]) -> None:
    """`arena admin status --help` is three flags, not `arena admin start`'s fifty."""
    assert _flags(_help(cli, "admin", *action)) == {*CONNECTION, *OWN[action]}


def test_admin_start_and_final_start_say_the_nights_options_and_their_own(cli: Cli) -> None:
    night = {o.flag for o in OPTIONS if Command.ADMIN_START in o.commands}
    start = _flags(_help(cli, "admin", "start"))
    final = _flags(_help(cli, "admin", "final", "start"))
    assert night <= start and night <= final
    assert {*CONNECTION, "--resume", "--bots", "--only"} <= start and "--top" not in start
    assert {*CONNECTION, "--resume", "--top"} <= final and "--bots" not in final


LEAGUE_OWN = {
    "check": ("--league", "--results", "--full"),
    "rebuild": ("--league", "--results"),
    "remove": ("--league",),
    "backup": ("--league",),
    "restore": ("--league", "--results", "--to"),
    "export": ("--league", "--results", "--ladder", "--nights", "--since", "--author", "--to"),
    "prune": ("--league", "--results", "--before"),
    "archive": ("--league", "--results", "--check"),
}
"""Each `arena league` action and the flags it reads."""


@pytest.mark.parametrize("action", list(LEAGUE_OWN))
def test_each_league_action_says_only_its_own_flags(cli: Cli, action: str) -> None:
    """`arena league check --help` says `--full`, not the export's filters nor prune's date."""
    assert _flags(_help(cli, "league", action)) == set(LEAGUE_OWN[action])
