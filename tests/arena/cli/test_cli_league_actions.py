"""`arena league ACTION`: each action a sub-command of its own, read as it was typed when the
action was a positional choice (`--league` and `--results` before or after the action's name;
each action's argument and flags after it), and what an action lacks said as before."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from cli_harness import Cli, one_line

from arena.cli.admin import DEFAULT_LEAGUE
from arena.cli.main import _parser


@pytest.mark.parametrize(
    "typed",
    [
        ["league", "--league", "x.sqlite", "--results", "r", "check"],
        ["league", "check", "--league", "x.sqlite", "--results", "r"],
        ["league", "--results", "r", "check", "--league", "x.sqlite"],
    ],
)
def test_the_league_and_results_flags_are_read_before_or_after_the_action(
    typed: list[str],
) -> None:
    args = _parser().parse_args(typed)
    assert (args.action, args.league, args.results, args.full) == (
        "check",
        Path("x.sqlite"),
        [Path("r")],
        False,
    )


def test_each_action_reads_its_argument_and_flags_as_typed_before() -> None:
    def parsed(*typed: str) -> dict[str, object]:
        return vars(_parser().parse_args(["league", *typed]))

    assert parsed("check")["league"] == DEFAULT_LEAGUE and parsed("check")["results"] is None
    assert parsed("check", "--full")["full"] is True
    assert parsed("remove", "night1")["tournament"] == "night1"
    assert parsed("backup", "copy.sqlite")["dest"] == "copy.sqlite"
    restored = parsed("restore", "season.tar.gz", "--to", "new")
    assert (restored["source"], restored["to"]) == ("season.tar.gz", Path("new"))
    assert parsed("restore", "copy.sqlite")["to"] is None
    exported = parsed("export", "--ladder", "--author", "alice", "--to", "games.jsonl")
    assert (exported["ladder"], exported["nights"], exported["author"], exported["to"]) == (
        True,
        False,
        "alice",
        Path("games.jsonl"),
    )
    before = datetime.datetime(2026, 11, 1).timestamp()
    assert parsed("prune", "--before", "2026-11-01")["before"] == before
    archived = parsed("archive", "season.tar.gz", "--results", "out")
    assert (archived["file"], archived["results"], archived["check"]) == (
        "season.tar.gz",
        [Path("out")],
        None,
    )
    assert parsed("archive", "--check", "season.tar.gz")["check"] == Path("season.tar.gz")


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (["remove"], "arena league remove needs a tournament id"),
        (["backup"], "arena league backup needs where to write the copy: DEST"),
        (["restore"], "arena league restore needs the backup to restore: SRC"),
        (["restore", "--to", "new"], "arena league restore --to DIR needs the archive: FILE"),
        (["prune"], "arena league prune needs --before WHEN"),
        (["archive"], "arena league archive needs the file to write (FILE)"),
    ],
)
def test_what_an_action_lacks_is_said_as_before(
    tmp_path: Path, cli: Cli, typed: list[str], said: str
) -> None:
    code, out, err = cli("league", *typed, "--league", str(tmp_path / "league.sqlite"))
    assert code == 1 and out == ""
    assert said in one_line(err), err


def test_an_action_refuses_another_actions_flag(cli: Cli) -> None:
    """Each action's flags are its own: `--full` is the check's, not the export's."""
    code, _, err = cli.exits("league", "export", "--full")
    assert code == 2
    assert "unrecognized arguments: --full" in err
