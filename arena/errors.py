"""Every error the arena raises, in one tree, so that a caller catches one type.

The hierarchy, by the part that raises each; "(ValueError)" and "(OSError)"
mark errors that are also those, since callers catch them as such:

* ArenaError - the root: never raised itself, caught to catch them all.
    conformance:
    + CaseError - a rule case that is malformed or not met (the runner prints it as a FAIL line).
    bots:
    + ManifestError - a bot entry (bot.toml, script, folder) that cannot be used.
    + SandboxError - `--sandbox require` on a machine where bubblewrap cannot run.
    + DescriptorError - the planned bots need more open files than the arena may have.
    + JobsError (ValueError) - more games at once than the machine can run fairly.
    + ToolchainError - a toolchain file that cannot be used (it names the file and entry).
    records:
    + RecordError (ValueError) - decoded JSON that is not the record it should be.
    referee:
    + RefusalError - a Hello the referee will not accept; `.code` is the status to close with.
    + SeatingError (ValueError) - a match handed seats that are not one per player.
    + TimeControlError (ValueError) - a time control that cannot be played.
    + ListenError (OSError) - a server could not listen on the address it was given.
    + FrameError (ValueError) - bytes at the front door that are not HTTP/2 the referee takes.
    tournament:
    + TournamentError - the tournament cannot go on; `Tournament.run` raises only this.
        + StoppedError - stopped by a fault of the disk or the store; `.summary`: what it played.
        + TooFewBotsError - fewer than two bots could play; `.skipped`: the ones that could not.
    + OptionError (ValueError) - a tournament option's value it cannot have, or two that clash.
    + ScheduleError (ValueError) - entrants, table size and deal mode make no schedule.
    + ResultsError - a tournament folder holds what the arena cannot use.
    + FolderBusyError - another process is running the tournament in this folder.
    + VerifyError - a folder that cannot be verified (yet).
    + TablesGoneError - no table is left to play on (every host of a cluster is gone).
    + FinalError - the season's final cannot be played now, or its record cannot be read.
    rankings:
    + RankingError (ValueError) - finishing orders that cannot be fitted.
    matchmaking:
    + LadderError (ValueError) - a field, rules or secret the matchmaker cannot choose from.
    league:
    + LeagueOpeningError - a league store that does not match the league beside it (deleted?).
    + ArchiveError - a season archive that cannot be written, read, checked or restored as asked.
    store:
    + StoreError - the league store cannot be used as it is.
        + LeagueConflictError - the league holds another run under a name, or another game record.
        + BackupError - a backup or a restore of the league that cannot be made as asked.
        + LeagueBusyError - another league server holds this league (its folder or its store).
    ab:
    + HypothesisError (ValueError) - hypotheses or error rates that make no test.
    + BookError - a game of an A/B test that is not what its pair schedule planned.
    + ABError - an A/B test that cannot be set up.
    web:
    + WebError - the live page cannot be served as asked (a port in use, no `web` extra).
    + ReplayPageError (ValueError) - a file to draw as an HTML replay that is not a replay.
    + LogUnavailableError - a bot's log the author's page will not show (a link, no such file).
    + GameFilterError (ValueError) - an author page's filter that means nothing (says which).
    + FaultNotFoundError - a fault page asked for a fault the game's record does not hold.
    + ReplayUnavailableError - no replay of a game the league page may show (pruned, unreadable).
    cluster:
    + ClusterError - `--cluster` cannot be used as asked (no Ray, no cluster, no host left).
    + BudgetError (ValueError) - a bot budget (`--max-bots-per-host`) that cannot seat a table.
    bench (the clone's bench/, beside the package):
    + BenchError - the benchmark's bots did not get going, so there is nothing to measure.
    submissions:
    + IntakeError - an archive the league server will not unpack, or a bot it will not keep.
    + PackError - a bot folder `arena submit` cannot send as it is.
    + VersionError - a submitted version that cannot be chosen or withdrawn as asked.
    + RequestRefusedError - a request for test games that cannot be taken (it says why).
    + UploadStoppedError - an upload cut short by the league server's own stop.
    cli:
    + ReplayNotFoundError (OSError) - no replay of the game asked for.
    + UnknownAuthorError - `arena author NAME`: no entrant, version or game of that name.

Each class lives in the module that raises it and derives from `ArenaError`,
which every part may import. The command line catches `ArenaError`, and the
engine's `PerudoError` for bad rules, seeds and actions, and prints one line.

The kit (`arena.kit`) is the bot's side: a bot author has no use for the
arena's root, so the kit keeps a small tree of its own under `KitError`,
drawn in `arena.kit.errors`.
"""

from __future__ import annotations


class ArenaError(Exception):
    """The root of every error the arena raises; the arena raises only its subclasses."""
