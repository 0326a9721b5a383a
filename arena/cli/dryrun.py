"""`arena run --dry-run`: the night's plan without playing it.

It reads the bots folder as a run would, but builds nothing, starts nothing
and creates no folder, so the organiser can see who would play, who would be
skipped and why, and how many games the schedule really holds before
committing an evening to it. It says what the real run would do first: which
bots it would build (an unchanged one is not built again, `arena.bots.builds.buildstamp`),
and that an extra the run needs is missing, which the real run refuses at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from arena.bots.builds import buildstamp
from arena.bots.manifest import discover
from arena.cli.webpage import web_server
from arena.cluster.connect import ray_module
from arena.errors import ArenaError
from arena.store.address import is_url
from arena.text import printable
from arena.tournament.config import TournamentConfig, TournamentError, too_few
from arena.tournament.schedule.round_robin import explain

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console


def dry_run(
    config: TournamentConfig, console: Console, web: bool = False, cluster: bool = False
) -> int:
    """The plan; `web` and `cluster`: the run would serve a live page, or play on Ray."""
    assert config.bots_dir is not None  # a dry run needs --bots, checked by the caller

    def say(text: str) -> None:  # it quotes manifests (a build command) and entries' names
        console.print(printable(text), highlight=False, markup=False)

    found, problems = discover(config.bots_dir)
    skipped = list(problems)
    playing = []
    for bot in found:
        missing = bot.missing_programs()
        if missing:
            skipped.append((bot.name, f"needs {', '.join(missing)}, not found on PATH"))
            continue
        playing.append(bot.name)
        if bot.build is None:
            continue
        if not config.rebuild and buildstamp.current(bot):
            say(f"{bot.name}: unchanged since its last build: would not be built again")
        else:
            say(
                f"{bot.name}: would build with `{' '.join(bot.build)}` "
                f"(up to {bot.build_timeout:.0f} s; not run in a dry run)"
            )
    for name, reason in skipped:
        say(f"{name}: would be skipped: {reason}")
    say(f"{len(playing)} bots would play: {', '.join(playing) or 'none'}")
    if len(playing) < 2:
        raise TournamentError(too_few(playing) + "; nothing to plan")
    size = config.table_size or min(len(playing), 6)
    if size > len(playing):
        raise TournamentError(
            f"--table-size {size} does not fit {len(playing)} bots that could play"
        )
    if config.gauntlet is not None and config.gauntlet not in playing:
        raise TournamentError(f"--gauntlet {config.gauntlet} is no bot that could play")
    say(explain(len(playing), size, config.games, config.gauntlet))
    changes = config.ruleset.changes()
    rules = ", ".join(f"{k}={v}" for k, v in changes.items()) or "the rulebook's defaults"
    say(f"rules: {rules}; {config.time_control().describe()}; {config.jobs} games at once")
    refusals = missing_extras(config, web, cluster)
    if refusals:  # the real run would stop at once: the dry run says so, and fails as it would
        raise TournamentError(f"the run would be refused: {'; '.join(refusals)}")
    say(
        "Dry run: no folder created, no bot built or started "
        "(a bot whose build fails or that does not connect would also be skipped)."
    )
    return 0


def missing_extras(config: TournamentConfig, web: bool, cluster: bool) -> list[str]:
    """What the run would refuse for an optional extra not installed, in its own words: each
    part is loaded here as the run would load it (nothing is started)."""
    needed: list[tuple[bool, Callable[[], object]]] = [
        (web, web_server),
        (is_url(config.league_store), lambda: importlib.import_module("arena.store.postgres")),
        (cluster, ray_module),
    ]
    refusals = []
    for wanted, load in needed:
        if not wanted:
            continue
        try:
            load()
        except ArenaError as error:
            refusals.append(str(error))
    return refusals


def check_table_size(config: TournamentConfig) -> None:
    """Refuse a table larger than the bots folder, or a gauntlet of no bot of it, before a
    folder is made for the run."""
    if config.bots_dir is None:
        return
    found, _ = discover(config.bots_dir)
    names = sorted(bot.name for bot in found)
    if config.gauntlet is not None and config.gauntlet not in names:
        raise TournamentError(
            f"--gauntlet {config.gauntlet} is no bot of {config.bots_dir} ({', '.join(names)})"
        )
    if config.table_size is None:
        return
    if config.table_size > len(found):
        raise TournamentError(
            f"--table-size {config.table_size} does not fit the {len(found)} bots "
            f"in {config.bots_dir}"
        )
