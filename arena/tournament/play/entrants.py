"""The entrants of a run, once known: who they are, the table size, and each one's files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.bots.manifest import BotSpec
from arena.tournament.config import TournamentError
from arena.tournament.info import Entrant, Skipped, TournamentInfo
from arena.tournament.schedule.round_robin import Deals, ScheduleError, check_deals
from arena.tournament.versions import read_pins


def enter(
    info: TournamentInfo, entrants: list[str], bots: list[BotSpec], skipped: Sequence[Skipped]
) -> TournamentInfo:
    """`info` with what is known once the entrants are: who they are, the table, each one's
    files, and the bots `skipped`; a `TournamentError` where the entrants cannot play it."""
    by_name = {b.name: b for b in bots}
    ab = info.plan.ab
    seated = len(entrants)  # bots a table can seat: in an A/B test, NEW or OLD and the field
    if ab is not None:
        for role, name in (("new", ab.new), ("old", ab.old)):
            if name not in entrants:
                raise TournamentError(f"{role.upper()} ({name}) cannot play; see above why")
        seated = len(entrants) - 1
        if seated < 2:
            raise TournamentError("an A/B test needs at least one bot in the field")
    gauntlet = info.plan.gauntlet
    if gauntlet is not None and gauntlet not in entrants:
        raise TournamentError(f"the gauntlet's bot {gauntlet} cannot play; see above why")
    size = info.plan.table_size or min(seated, 6)
    if not 2 <= size <= seated:
        fits = f"{len(entrants)} entrants" if ab is None else f"NEW or OLD and {seated - 1} more"
        raise TournamentError(f"--table-size {size} does not fit {fits}")
    try:
        check_deals(info.plan.deals or Deals.OWN, len(entrants), size, gauntlet)
    except ScheduleError as error:
        raise TournamentError(str(error)) from None
    pins = read_pins(Path(info.plan.bots_dir)) if info.plan.bots_dir is not None else {}
    files = {
        n: (
            Entrant(str(by_name[n].path), by_name[n].files_hash, version=pins.get(n))
            if n in by_name
            else Entrant(remote=True)
        )
        for n in entrants
    }
    return info.with_entrants(entrants, size, files, skipped)
