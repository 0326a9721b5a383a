"""`arena run --until-confident`: whole rotation groups until the order is known.

The schedule is played group by group (the games of a group one after
another, groups in the order the schedule first names them), so that a stop
leaves at most the groups in flight unfinished, and those are finished. After
each game the whole groups on record are looked at: once every adjacent pair
of their leaderboard is separated at the level asked, no further group is
begun. Looks are spaced out (each once the whole groups hold CHECK_GROWTH
times the games of the last), since every look is a chance to stop on luck.

Everything is derived from the games on record, so a resumed run takes up
the same plan: it looks at once at what it finds, then goes on as before.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence

from arena.rankings import group_keys
from arena.records import GameLine
from arena.tournament.info import ConfidenceOutcome, TournamentInfo
from arena.tournament.report.standings import Board
from arena.tournament.schedule.round_robin import ScheduledGame

MIN_GROUPS = 8
"""Whole groups wanted before the bootstrap is trusted: one that resamples a handful of
groups draws the same few again and again, and looks surer than it is."""
CHECK_GROWTH = 1.1
"""A look waits until the whole groups hold this many times the games of the last."""


class UntilConfident:
    def __init__(
        self,
        level: float,
        info: TournamentInfo,
        schedule: Sequence[ScheduledGame],
        lines: Iterable[GameLine],
    ) -> None:
        self.level = level
        self.info = info
        self.schedule = schedule
        self.lines = list(lines)
        keys = group_keys((info.id, g.game_id, g.deal_key) for g in schedule)
        self.group = dict(zip((g.game_id for g in schedule), keys, strict=True))
        done = {x.game for x in self.lines}
        self.left = Counter(self.group[g.game_id] for g in schedule if g.game_id not in done)
        """Games of each group not yet on record."""
        self.started = {self.group[x.game] for x in self.lines}
        """Groups with a game on record or in play: a stop finishes them."""
        self.confident = False
        self._looked_at = 0

    def in_groups(self, pending: Iterable[ScheduledGame]) -> deque[ScheduledGame]:
        """The games still to play, group after group."""
        first: dict[str, int] = {}
        for g in self.schedule:
            first.setdefault(self.group[g.game_id], g.index)
        return deque(sorted(pending, key=lambda g: (first[self.group[g.game_id]], g.index)))

    def taken(self, game: ScheduledGame) -> None:
        self.started.add(self.group[game.game_id])

    def recorded(self, line: GameLine) -> None:
        self.lines.append(line)
        self.left[self.group[line.game]] -= 1

    def due(self) -> list[GameLine] | None:
        """The games of the whole groups, if a look at them is due (and is then taken)."""
        whole = sorted(
            (x for x in self.lines if self.left[self.group[x.game]] == 0), key=lambda x: x.index
        )
        groups = len({self.group[x.game] for x in whole})
        if self.confident or groups < MIN_GROUPS or len(whole) < self._looked_at * CHECK_GROWTH:
            return None
        self._looked_at = len(whole)
        return whole

    def seen(self, whole: Sequence[GameLine], board: Board) -> int | None:
        """The games looked at, if `board` (theirs) separates every adjacent pair."""
        if self.confident or board.sure is None or board.unseparated(self.level):
            return None
        self.confident = True
        return len(whole)

    def begun(self, pending: Iterable[ScheduledGame]) -> deque[ScheduledGame]:
        """Of the games still to play, those of the groups begun."""
        return deque(g for g in pending if self.group[g.game_id] in self.started)

    def stopped_whole(self, done: set[str]) -> bool:
        """Whether it stopped on knowing the order, with every group it began on record."""
        return self.confident and all(
            g.game_id in done for g in self.schedule if self.group[g.game_id] in self.started
        )

    def outcome(
        self, final: Board, games: int, complete: bool, every: bool
    ) -> tuple[ConfidenceOutcome, str | None]:
        """Which of its two ends came: as tournament.json keeps it, and in a sentence (None if
        neither yet)."""
        level, budget = self.level, len(self.schedule)
        pairs = final.unseparated(level)
        text: str | None
        if not complete:
            what, text = "interrupted", None
        elif self.confident and not every:
            what = "separated"
            text = (
                f"Stopped early: every adjacent pair separated at {level:.0%} after "
                f"{games:,} of the {budget:,} games the budget allowed"
            )
        else:
            what = "budget" if pairs else "separated"
            told = ", ".join(f"{a} / {b}" for a, b in pairs)
            verdict = (
                f"not yet separated at {level:.0%}: {told}"
                if pairs
                else f"every adjacent pair separated at {level:.0%}"
            )
            text = (
                f"Budget spent: all {budget:,} games played "
                f"(--games {self.info.plan.games:,}); {verdict}"
            )
        return ConfidenceOutcome(level, what, games, budget, pairs), text
