"""The season's final on the league server: submissions closed, the field chosen, the night
played by `arena admin start`'s path, and its record written at each step.

The order is what makes the final fair: submissions close first (an author who submits
from then on is told the season is in its final), the ladder finishes its rounds in play
and waits, every submission already under way gets its verdict, and only then is the field
chosen, so that a version sent a moment before the close is in it and none after. At the
end, finished or not, submissions open again and the ladder goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.league.final import FROZEN, field_of, final_config, is_final, standings_of
from arena.league.grounds import Grounds, Night
from arena.league.ladder.status import LadderStatus
from arena.league.start import given_of
from arena.protocol.messages import admin as apb
from arena.store.submissions import SubmissionRow
from arena.submissions.lineups import Lineup, lineup_for, lineup_of
from arena.tournament.config import TournamentConfig
from arena.tournament.info import RunStatus
from arena.tournament.results.final_record import (
    FinalEntrant,
    FinalError,
    FinalRecord,
    FinalState,
    read_record,
    write_record,
)

if TYPE_CHECKING:
    from arena.tournament.report.summary import Summary

KILLED = "the server stopped during the final; `arena admin final start --resume {name}` plays on"


class LadderStandings(Protocol):
    """The ladder's board, whose best entrants a `--top` final plays."""

    def status(self) -> LadderStatus: ...


class FinalGrounds(Grounds, Protocol):
    """What the final needs of the league server (`LeagueServer` has it): the grounds, the
    ladder's board, and the server's way of playing a night, one at a time."""

    @property
    def ladder(self) -> LadderStandings: ...
    def refuse_busy(self) -> None: ...
    def resume_folder(self, given: str) -> Path: ...
    def night_config(self, request: apb.StartTournamentRequest) -> TournamentConfig: ...
    def launch(
        self,
        plan: Callable[[], Awaitable[Night]],
        ended: Callable[[Summary | None, str], None] | None = None,
    ) -> asyncio.Queue[apb.TournamentEvent]: ...


class SeasonFinal:
    """The league server's final: at most one at a time, as a night."""

    def __init__(self, server: FinalGrounds) -> None:
        self._server = server
        self._record: FinalRecord | None = None
        """The final under way's record, once its field is chosen."""

    @property
    def closed(self) -> bool:
        return self._server.versions.quotas.closed is not None

    def recover(self) -> None:
        """At the server's start: a final a kill cut off is said stopped, with the way on
        (its submissions open again with the server)."""
        out = self._server.config.out
        record = read_record(out)
        if record is not None and record.state is FinalState.PLAYING:
            said = KILLED.format(name=record.tournament)
            write_record(out, dataclasses.replace(record, state=FinalState.STOPPED, outcome=said))

    def status(self) -> apb.FinalStatus:
        reply = apb.FinalStatus(submissions_closed=self.closed)
        record = read_record(self._server.config.out)
        if record is None:
            return reply
        reply.state = record.state.value
        reply.frozen_at = record.frozen_at
        reply.tournament = record.tournament
        reply.outcome = record.outcome
        if record.ended_at is not None:
            reply.ended_at = record.ended_at
        if record.level is not None:
            reply.level = record.level
        for e in record.entrants:
            reply.entrants.add(
                name=e.name,
                version=e.version,
                strength=e.strength,
                low=e.low,
                high=e.high,
                rank_low=e.rank_low,
                rank_high=e.rank_high,
                games=e.games,
                wins=e.wins,
            )
        return reply

    def field(self, top: int | None) -> dict[str, SubmissionRow]:
        """Every entrant's latest accepted version, or the ladder's best `top` entrants'."""
        server = self._server
        board = [row.bot for row in server.ladder.status().standings] if top is not None else []
        return field_of(server.store, board, top)

    def start(self, request: apb.StartFinalRequest) -> asyncio.Queue[apb.TournamentEvent]:
        """Close submissions and play the final; refused at once (`FinalError`, a
        `TournamentError`) while a night plays or with fewer than two entrants to play."""
        server = self._server
        server.refuse_busy()
        night = request.night
        top = request.top if request.HasField("top") else None
        if top is not None and top < 2:
            raise FinalError(f"--top {top}: a final needs at least two entrants")
        resume = server.resume_folder(night.resume) if night.resume else None
        if resume is not None and not is_final(resume.name):
            raise FinalError(
                f"{resume.name} is no final (a final's name begins 'final-'): resume a night "
                "with `arena admin start --resume`"
            )
        ready = len(self.field(top)) if resume is None else 2
        if ready < 2:
            raise FinalError(
                "a final needs at least two entrants with an accepted version; this league "
                f"has {ready} (`arena admin submissions` lists the verdicts)"
            )
        server.versions.quotas.closed = FROZEN
        frozen_at = time.time()
        server.versions.tell("submissions closed: the season's final begins")
        self._record = None

        async def plan() -> Night:
            await server.versions.settled()  # those sent before the close are in the field
            config = server.night_config(night)
            if resume is not None:
                lineup = lineup_for(server.store, server.versions.files, resume, "", ())
                if lineup is None:
                    raise FinalError(f"{resume.name} has no line-up of submitted versions")
                name = resume.name
            else:
                lineup = self._lineup(top)
                config = final_config(config, len(lineup.pins), given_of(night))
                config = dataclasses.replace(config, bots_dir=lineup.folder)
                assert config.name is not None  # final_config names it
                name = config.name
            entrants = tuple(
                FinalEntrant(n, pin.number, pin.sha256) for n, pin in sorted(lineup.pins.items())
            )
            self._record = FinalRecord(FinalState.PLAYING, frozen_at, name, entrants)
            write_record(server.config.out, self._record)
            return Night(config, lineup, (), resume)

        return server.launch(plan, self._ended)

    def _lineup(self, top: int | None) -> Lineup:
        """The field's line-up, chosen now; FinalError when fewer than two can play."""
        server = self._server
        lineup = lineup_of(server.versions.files, self.field(top))
        if lineup is None or len(lineup.pins) < 2:
            notes = "; ".join(lineup.notes) if lineup is not None else ""
            raise FinalError(
                "fewer than two entrants have a version that can play"
                + (f": {notes}" if notes else "")
            )
        return lineup

    def _ended(self, summary: Summary | None, why: str) -> None:
        """Submissions open again; the record says how the final ended (the season's final
        standings, with their intervals, when it finished)."""
        server = self._server
        server.versions.quotas.closed = None
        server.versions.tell("submissions open again: the season's final is over")
        record, self._record = self._record, None
        if record is None:  # it ended before its field was chosen: there is nothing to say
            return
        now = time.time()
        if summary is None:
            ended = dataclasses.replace(record, state=FinalState.STOPPED, ended_at=now, outcome=why)
        else:
            report = summary.report()
            finished = report.status is RunStatus.FINISHED
            field = {e.name: e for e in record.entrants}
            ended = dataclasses.replace(
                record,
                state=FinalState.FINISHED if finished else FinalState.STOPPED,
                entrants=standings_of(report, field),
                ended_at=now,
                level=report.sure.level if report.sure is not None else None,
                outcome=report.outcome or report.separation or ("" if finished else "stopped"),
            )
        write_record(server.config.out, ended)
