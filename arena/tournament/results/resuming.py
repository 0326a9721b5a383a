"""What a resume needs to know of its folder before it plays: where its league is, whether
anything is left to play, and the one line for each way it cannot go on.

Kept apart from the run itself so the messages that send an organiser back to
`--resume` say the same thing wherever they are made.
"""

from __future__ import annotations

from pathlib import Path

from arena.store import recorded
from arena.tournament.config import TournamentError, Venue
from arena.tournament.info import TournamentInfo
from arena.tournament.play.tables import Hosts
from arena.tournament.results.folder import TournamentFolder


def league_of(info: TournamentInfo, given: Path | str | None) -> str | Path:
    """The store a resumed run writes to: the one it recorded, or the same one given again
    with its password (tournament.json keeps a URL without it, so else libpq's own
    PGPASSWORD or ~/.pgpass give it)."""
    return given if given is not None and recorded(given) == info.plan.league else info.plan.league


def all_played(folder: TournamentFolder, info: TournamentInfo) -> bool:
    """Whether every game of the schedule is on record or dropped: nothing is left to play."""
    schedule = folder.schedule(info)
    done = folder.finished(schedule).ids | set(info.dropped) | set(info.unplayed)
    return all(game.game_id in done for game in schedule)


def journal_missing(journal: Path, tournament_id: str, league: str) -> str:
    """A resume of a run that played, whose games.jsonl is gone."""
    return (
        f"{journal} is missing: it is the record of the run's finished games, and without it "
        f"they would be played again. Put it back (from a backup) and resume; or, to play "
        f"them again, make it again empty (touch {journal}), take the run out of the league "
        f"(arena league remove {tournament_id} --league {league}) and resume"
    )


def read_info(folder: Path) -> TournamentInfo:
    try:
        return TournamentFolder(folder).info()
    except (OSError, ValueError) as error:
        raise TournamentError(f"{folder} is not a tournament folder: {error}") from None


def played_on_server(info: TournamentInfo) -> bool:
    remote = any(b.remote for b in info.bots.values())
    return info.plan.server or remote or info.plan.bots_dir is None


def resume_command(folder: Path, venue: Venue | None, hosts: Hosts | None) -> str:
    where = "" if hosts is None else f" {hosts.resume_flags()}"
    return f"arena {'admin start' if venue is not None else 'run'} --resume {folder}{where}"
