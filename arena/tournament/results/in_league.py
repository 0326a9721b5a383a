"""A tournament's folder against what the league holds of it.

The league is a function of the results folders: every game is in its
folder's games.jsonl before the league hears of it, so the folder is the
truth and the league its index. A run is told apart from another of its name
by its identity (`arena.store.identity`). Before any bot starts, a new run
whose name the league holds is refused, and so is a resume whose folder is not
the run the league holds, or lacks games the league has (a games.jsonl lost
or cut short): playing on would make the league say what no folder does.
`arena league check` lists the same differences for every folder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.records import GameLine
from arena.store import LeagueStore, StoredTournament, taken_name_way_out
from arena.store.identity import described, line_difference, same_record
from arena.tournament.config import TournamentError
from arena.tournament.info import TournamentInfo

SHOWN_GAMES = 3
"""Game ids named in a refusal; `arena league check` names them all."""


@dataclass(frozen=True, slots=True)
class Difference:
    """One way in which the league and the folders disagree about a tournament."""

    tournament: str
    what: str

    def __str__(self) -> str:
        return f"{self.tournament}: {self.what}"


def refuse_taken_name(store: LeagueStore, tournament_id: str) -> None:
    """A new run under a name the league holds: refused, before anything is laid out."""
    held = store.tournament(tournament_id)
    if held is not None:
        raise TournamentError(
            f"the league {store.where} already holds a tournament named {tournament_id!r} "
            f"({described(held.info)}, {held.games} games) from another run: a new run under "
            f"that name would mix two nights; {taken_name_way_out(tournament_id, store.where)}"
        )


def check_resume(
    store: LeagueStore, folder: Path, info: TournamentInfo, lines: Sequence[GameLine]
) -> None:
    """A resume whose folder the league contradicts: refused before any bot starts."""
    held = store.tournament(info.id)
    if held is None:
        return  # not yet in (stopped before play began): play adds it
    remove = f"`arena league remove {info.id} --league {store.where}`"
    if held.run_id != info.identity:
        raise TournamentError(
            f"the league {store.where} holds another run under the name {info.id!r} "
            f"({described(held.info)}, {held.games} games) than the one in {folder} "
            f"({described(info.to_json())}); take that one out with {remove}, then resume"
        )
    stored = store.games_of(info.id)
    mine = {line.game: line for line in lines}
    lost = [game for game in stored if game not in mine]
    if lost:
        raise TournamentError(
            f"the league {store.where} holds {len(lost)} games of {info.id} that "
            f"{folder / 'games.jsonl'} lacks ({_some(lost)}): the file was lost or cut short. "
            f"Restore it from a backup and resume; or, to play those games again, take the "
            f"tournament out of the league with {remove} and resume (its folder's games go "
            f"back in)"
        )
    differ = [
        game
        for game, line in mine.items()
        if game in stored and not same_record(stored[game], line)
    ]
    if differ:
        first = differ[0]
        raise TournamentError(
            f"{len(differ)} games of {info.id} differ between the league {store.where} and "
            f"{folder / 'games.jsonl'} ({first}, league vs folder: "
            f"{line_difference(stored[first], mine[first])}); the folder is the record: take "
            f"the tournament out of the league with {remove} and resume (its folder's games "
            f"go back in)"
        )


def differences(
    held: StoredTournament,
    stored: Mapping[str, GameLine],
    info: TournamentInfo,
    lines: Sequence[GameLine],
    folder: Path,
) -> list[Difference]:
    """Every difference between the league's record of a tournament and its folder's."""
    tid = info.id
    if held.run_id != info.identity:
        return [
            Difference(
                tid,
                f"the league holds another run of that name ({described(held.info)}, "
                f"{held.games} games) than {folder} ({described(info.to_json())}, "
                f"{len(lines)} games)",
            )
        ]
    found = []
    mine = {line.game: line for line in lines}
    journal = folder / "games.jsonl"
    for game, line in mine.items():
        if game not in stored:
            found.append(Difference(tid, f"game {game} is in {journal}, not in the league"))
        elif not same_record(stored[game], line):
            difference = line_difference(stored[game], line)
            found.append(Difference(tid, f"game {game} differs, league vs folder: {difference}"))
    found += [
        Difference(tid, f"game {game} is in the league, not in {journal}")
        for game in stored
        if game not in mine
    ]
    return found


def _some(games: Sequence[str]) -> str:
    shown = ", ".join(games[:SHOWN_GAMES])
    return shown if len(games) <= SHOWN_GAMES else f"{shown} and {len(games) - SHOWN_GAMES} more"
