"""The flags of every command are made from the options' declarations: `arena admin start`
takes every option of `arena run` that a server can use, and each command refuses a bad
value or pair of values in the same words."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from cli_harness import Cli, one_line

from arena.cli import options
from arena.cli.main import _parser
from arena.tournament.config import OPTIONS
from arena.tournament.options import Command
from engine import CalzaRule

NOT_ON_A_SERVER = {
    "--out": "the server writes to its own results folder (arena serve --out)",
    "--league": "the server keeps its own league store (arena serve --league)",
    "--dry-run": "it reads a bots folder on this machine; a server's entrants are the bots "
    "connected to it (arena admin status)",
    "--web": "the server's live page is its own, for every night it runs (arena serve --web)",
    "--cluster": "a league server plays on its own referee, which remote bots dial",
    "--hosts": "with --cluster only",
    "--max-bots-per-host": "with --cluster only",
    "--ship-bots": "with --cluster only",
    "--toolchains": "the server's toolchains are its own, for every build (arena serve "
    "--toolchains)",
}
"""The flags of `arena run` that `arena admin start` does not take, and why."""

PARSERS = {
    Command.RUN: ("run",),
    Command.ADMIN_START: ("admin", "start"),
    Command.AB: ("ab",),
    Command.CHECK_BOT: ("check-bot",),
    Command.PLAY: ("play",),
    Command.SERVE: ("serve",),
}


def _command(*names: str) -> argparse.ArgumentParser:
    parser = _parser()
    for name in names:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


def _flags(parser: argparse.ArgumentParser) -> dict[str, tuple[str, str | None]]:
    """Each flag of the parser, where it puts its value and its help."""
    return {flag: (a.dest, a.help) for a in parser._actions for flag in a.option_strings}


@pytest.mark.parametrize("command", list(Command))
def test_each_command_has_the_flag_of_every_option_it_takes_and_of_no_other(
    command: Command,
) -> None:
    flags = _flags(_command(*PARSERS[command]))
    for declared in OPTIONS:
        if declared.flag == "--rules":  # the ruleset: a preset and a flag for each field
            assert ("--rules" in flags) == (command in declared.commands), command
            continue
        made = (declared.name, declared.help())
        if command in declared.commands:
            assert flags.get(declared.flag) == made, (command, declared.flag)
        else:  # a flag of the same name may be the command's own (ab's --table-size)
            assert flags.get(declared.flag) != made, (command, declared.flag)


def test_admin_start_takes_every_flag_of_arena_run_but_those_a_server_cannot_use() -> None:
    run = set(_flags(_command("run")))
    admin = set(_flags(_command("admin", "start")))
    declared = {
        o.flag
        for o in OPTIONS
        if Command.RUN in o.commands and Command.ADMIN_START not in o.commands
    }  # --league is admin's too, but there it is where to find the server's token
    assert sorted((run - admin) | declared) == sorted(NOT_ON_A_SERVER)
    for flag in ("--no-timeout", "--until-confident", "--gauntlet", "--memory-mb"):
        assert flag in admin


def test_only_what_was_given_is_given_and_a_flag_alone_takes_its_bare_value() -> None:
    args = _parser().parse_args(["run", "--bots", ".", "--recover", "--until-confident"])
    assert options.given(args, Command.RUN) == {"recover": 3, "until_confident": 0.95}
    args = _parser().parse_args(["run", "--bots", ".", "--no-timeout", "--calza", "any"])
    given = options.given(args, Command.RUN)
    assert given.keys() == {"timeouts", "ruleset"}
    assert given["timeouts"] is False and given["ruleset"].calza is CalzaRule.ANY
    config = options.config(args, Command.RUN, bots_dir=Path("."))
    assert (config.timeouts, config.games, config.recover) == (False, 120, 0)


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (
            ["--gauntlet", "steady", "--deals", "disjoint"],
            "--gauntlet seats its bot at every table, so no tables share no bot: "
            "use --deals own with it",
        ),
    ],
)
def test_run_and_admin_start_refuse_options_that_clash_in_the_same_words(
    tmp_path: Path, cli: Cli, flags: list[str], said: str
) -> None:
    token = tmp_path / "admin.token"
    token.write_text("whatever\n")
    admin = ("--token-file", str(token), "--admin", "127.0.0.1:9")
    for command, prefix in (
        (["run", "--bots", str(tmp_path), "--out", str(tmp_path / "out")], "arena run"),
        (["admin", "start", *admin], "arena admin"),
    ):
        code, out, err = cli(*command, *flags)
        assert code == 1, err
        assert one_line(err) == f"{prefix}: {said}"
        assert out == "" and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_run_and_admin_start_refuse_a_bad_value_in_the_same_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = []
    for command in (["run", "--bots", "."], ["admin", "start"], ["ab"]):
        with pytest.raises(SystemExit):
            _parser().parse_args([*command, "--move-time", "0"])
        said.append(one_line(capsys.readouterr().err).split(": error: ")[1].split(" (see ")[0])
    assert (
        said
        == ["argument --move-time: 0 s is out of range: give more than 0 and at most 3600 seconds"]
        * 3
    )
