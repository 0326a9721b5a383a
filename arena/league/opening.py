"""What a league server checks before it changes anything: that its store is the league
beside it.

A store that is empty while the folders beside it hold a league (accepted
versions, tournaments recorded into this store, a ladder secret) is a
league.sqlite deleted, or a --league mistyped: starting on it would make a new,
empty league over the old one (no tokens, no versions, the ladder's rounds
under another secret). And a ladder secret gone while the store holds the
ladder's rounds would deal every round anew from another one, silently. Both
are refused, naming what was found and the way out; an organiser who does mean
a new league (or a new secret) says so with a flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.league.ladder.rounds import on_record, secret_path
from arena.store import LeagueStore, recorded, shown
from arena.store.address import is_url
from arena.submissions.folder import SubmissionsFolder
from arena.tournament.results.folder import TournamentFolder


class LeagueOpeningError(ArenaError):
    """A league store that does not match the league beside it; the message says what was
    found and what to do."""


@dataclass(frozen=True, slots=True)
class Opening:
    """Where a league server's store and files are, and what its organiser allowed."""

    league: Path | str
    out: Path
    files: SubmissionsFolder
    new_league: bool = False
    """`arena serve --new-league`: an empty store beside a league's files is meant."""
    new_ladder_secret: bool = False
    """`arena serve --new-ladder-secret`: a secret made anew for rounds already on record."""

    def check(self, store: LeagueStore) -> None:
        """Refuse a store that does not match the folders beside it (LeagueOpeningError)."""
        where = shown(str(self.league)) if is_url(self.league) else str(self.league)
        if not self.new_league and _empty(store):
            found = self._league_beside()
            if found:
                raise LeagueOpeningError(
                    f"the league store {where} is empty, but beside it are "
                    f"{', '.join(found)}: its store was deleted or replaced, or --league names "
                    f"another one. Restore it (`arena league restore BACKUP --league {where}`), "
                    f"or rebuild its games from the results (`arena league rebuild --league "
                    f"{where} --results {self.out}`); or, to start a new league here, serve "
                    f"with --new-league (the versions found are then kept aside, never deleted)"
                )
        secret = secret_path(self.league, self.out)
        if self.new_ladder_secret or secret.is_file():
            return
        rounds = on_record(store)
        if rounds:
            raise LeagueOpeningError(
                f"the league store {where} holds {len(rounds)} ladder rounds, but their secret "
                f"{secret} is gone: put it back from a backup (each round's dice come from it), "
                f"or serve with --new-ladder-secret to make a new one (a round left unfinished "
                f"is then dealt again with other dice)"
            )

    def _league_beside(self) -> list[str]:
        """What of a league the folders hold, in words."""
        found = []
        versions = _count(self.files.versions)
        if versions:
            found.append(f"{versions} accepted versions' folders in {self.files.versions}")
        results = self._results()
        if results:
            found.append(f"{results} tournaments recorded into it in {self.out}")
        secret = secret_path(self.league, self.out)
        if secret.is_file():
            found.append(f"the ladder's secret {secret}")
        return found

    def _results(self) -> int:
        """The tournament folders under `out` that played into this very store."""
        target = recorded(self.league)
        played = 0
        for info_path in self.out.glob("*/tournament.json"):
            try:
                info = TournamentFolder(info_path.parent).info()
            except (OSError, ValueError):
                continue
            played += info.played and recorded(info.plan.league) == target
        return played


def _empty(store: LeagueStore) -> bool:
    return not store.tournaments() and not store.entrants() and not store.submissions()


def _count(folder: Path) -> int:
    try:
        return sum(1 for entry in folder.iterdir() if entry.is_dir())
    except FileNotFoundError:
        return 0
