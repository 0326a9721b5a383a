"""The submitted versions at a ladder table, looked at before the table is laid out.

A table seats each entrant once and a round plays the table whole. A version that cannot
start (its files gone from the submissions folder, a manifest that no longer reads, or one
that names another entrant, so that two seats resolve to one bot) left the round with fewer
bots than seats: `--table-size 3 does not fit 2 entrants`, and the same table drawn again a
second later, its bots started each time, nothing played. So each submitted version at a
table is looked at first, as the round would load it; one that cannot play sits out with
its cause, and the table is chosen again without it. A table that still cannot start
sits out the versions it named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from arena.bots.manifest import ManifestError, load_entry
from arena.store import LeagueStore
from arena.submissions.folder import SubmissionsFolder


def unplayable(
    store: LeagueStore, files: SubmissionsFolder, names: Sequence[str]
) -> dict[str, str]:
    """Of the entrants `names` (each with a playing submitted version), those whose version
    cannot start, each with why and what to do."""
    rows = store.playing_versions(list(names))
    why: dict[str, str] = {}
    for name in names:
        row = rows.get(name)
        if row is None:
            continue  # withdrawn since the table was chosen: the round says so
        version = f"version {row.version} of {name}"
        source, bot = files.source(row.sha256), files.bot(row.sha256)
        if not (source.is_dir() and bot.is_dir()):
            why[name] = (
                f"{version} cannot play, its files are missing from {files.version(row.sha256)}: "
                f"its author can send it again, or `arena admin withdraw {name}@{row.version}` "
                f"lets an earlier version play"
            )
            continue
        try:
            spec = load_entry(bot)
        except ManifestError as error:
            why[name] = f"{version} cannot play, its manifest does not read: {error}"
            continue
        if spec is None:
            why[name] = f"{version} cannot play: {bot} holds no bot.toml"
        elif spec.name != name:
            why[name] = (
                f"{version} cannot play: its bot.toml names {spec.name!r}, not {name!r} "
                f"(a version plays under its own name only)"
            )
    return why


def culprits(
    round_id: str, local: Mapping[str, int | None], said: Mapping[str, str], error: Exception
) -> dict[str, str]:
    """Who sits out for a new table that could not start, and why: the submitted versions
    (`local`) the round `said` it skipped (a bot that did not connect, say); naming none,
    each submitted version at the table, so that the same table is not drawn again at once.
    A bot dialled in leaves the field by itself when it goes."""
    why = f"{round_id} could not start"
    return {name: f"{why}: {said.get(name, error)}" for name in (said or local)}
