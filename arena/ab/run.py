"""`arena ab` from start to finish: a tournament of pairs that stops at its verdict.

The games are a tournament's, played by its runner on its referee with the
bots' real processes, and written to a results folder the same way, so an
A/B test is as durable as `arena run` and resumes the same way. What it adds
is the pair schedule (`arena.tournament.schedule.pairs`) and a watcher of the games:
each pair completed goes into the sequential test, and once the test has its
verdict the tournament is concluded, the games in flight ending and counting
in the books but not in the test.

Its games are kept out of the league: the field played every deal twice, so
they would rate the field on half the luck of a night. They go into a store
of their own beside the tests (`OUT/ab.sqlite`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.ab.book import PairBook
from arena.ab.sprt import Hypotheses, Sprt, Verdict
from arena.ab.sprt import run as run_test
from arena.bots.manifest import ManifestError, discover, load_entry
from arena.errors import ArenaError
from arena.records import GameLine
from arena.tournament.config import TournamentConfig
from arena.tournament.plan import AbPlan
from arena.tournament.play.observer import Observer, Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.results.folder import TournamentFolder, write_atomic
from arena.tournament.tournament import Tournament

RESULT_FILE = "ab.json"


class ABError(ArenaError):
    """An A/B test that cannot be set up; the message says what to give instead."""


@dataclass(frozen=True, slots=True)
class Contenders:
    """NEW and OLD by name, and the entries outside the field folder that hold them."""

    new: str
    old: str
    entries: tuple[Path, ...]


def contenders(new: str, old: str, field: Path) -> Contenders:
    """NEW and OLD as given: each a bot folder or script, or the name of a bot in `field`."""
    found, _ = discover(field)
    in_field = {bot.name for bot in found}
    names: list[str] = []
    entries: list[Path] = []
    for role, given in (("NEW", new), ("OLD", old)):
        path = Path(given)
        if path.exists():
            try:
                spec = load_entry(path)
            except ManifestError as error:
                raise ABError(f"{role} {given}: {error}") from None
            if spec is None:
                raise ABError(
                    f"{role} {given} is not a bot: give a folder with a bot.toml, or a script"
                )
            names.append(spec.name)
            entries.append(path)
        elif given in in_field:
            names.append(given)
        else:
            raise ABError(
                f"{role} {given} is neither a bot folder or script nor a bot of {field} "
                f"({', '.join(sorted(in_field)) or 'none'})"
            )
    if names[0] == names[1]:
        raise ABError(
            f"NEW and OLD are both named {names[0]}: give one of them another name "
            "(the name in its bot.toml, or its file's name)"
        )
    return Contenders(names[0], names[1], tuple(entries))


def plan(hypotheses: Hypotheses, who: Contenders) -> AbPlan:
    """What tournament.json keeps of the test, so that a resume runs the same one."""
    h = hypotheses
    return AbPlan(who.new, who.old, h.elo0, h.elo1, h.alpha, h.beta)


def hypotheses_of(ab: AbPlan) -> Hypotheses:
    return Hypotheses(ab.elo0, ab.elo1, ab.alpha, ab.beta)


def configure(
    config: TournamentConfig, hypotheses: Hypotheses, who: Contenders
) -> TournamentConfig:
    """A tournament's config made an A/B test's: the pair schedule, NEW and OLD, its own store."""
    return replace(
        config,
        ab=plan(hypotheses, who),
        extra_bots=who.entries,
        league=config.league or config.out / "ab.sqlite",
    )


@dataclass(frozen=True, slots=True)
class ABSummary:
    folder: Path
    new: str
    old: str
    test: Sprt
    budget: int
    """Pairs the schedule holds."""
    finished: bool
    """The run ended by itself: a verdict, or the budget spent."""

    @property
    def verdict_line(self) -> str:
        return verdict_line(self.test, self.budget, self.finished)

    def to_json(self) -> dict[str, Any]:
        t = self.test
        return {
            "new": self.new,
            "old": self.old,
            "verdict": t.verdict.value,
            "line": self.verdict_line,
            "pairs": t.counts.pairs,
            "better": t.counts.better,
            "equal": t.counts.equal,
            "worse": t.counts.worse,
            "llr_new": t.llr_new,
            "llr_old": t.llr_old,
            "lower": t.hypotheses.lower,
            "upper": t.hypotheses.upper,
            "budget_pairs": self.budget,
            "elo0": t.hypotheses.elo0,
            "elo1": t.hypotheses.elo1,
            "alpha": t.hypotheses.alpha,
            "beta": t.hypotheses.beta,
        }


def verdict_line(test: Sprt, budget: int, finished: bool) -> str:
    """The test's answer in one line, with the figures it rests on."""
    h, n = test.hypotheses, test.counts.pairs
    after = f"after {n:,} pair{'s' if n != 1 else ''}"
    match test.verdict:
        case Verdict.NEW_STRONGER:
            return f"NEW is stronger (LLR {test.llr_new:.2f} >= {h.upper:.2f} {after})"
        case Verdict.OLD_STRONGER:
            return f"OLD is stronger (LLR {test.llr_old:.2f} >= {h.upper:.2f} {after})"
        case Verdict.NO_EVIDENCE:
            return (
                f"no evidence that either is stronger by {h.elo1:g} Elo (LLR {test.llr_new:.2f} "
                f"for NEW and {test.llr_old:.2f} for OLD, both <= {h.lower:.2f}, {after})"
            )
    figures = (
        f"LLR {test.llr_new:.2f} for NEW, {test.llr_old:.2f} for OLD, "
        f"bounds {h.lower:.2f} {h.upper:.2f}"
    )
    if finished:
        return f"budget reached: {n:,} of {budget:,} pairs and no verdict ({figures})"
    return f"undecided {after} of {budget:,} ({figures})"


class Watcher:
    """Passes everything on to the terminal's observer, and each completed pair to the test."""

    def __init__(
        self, inner: Observer, hypotheses: Hypotheses, told: Callable[[Sprt], None]
    ) -> None:
        self.inner = inner
        self.hypotheses = hypotheses
        self.told = told
        self.test = Sprt(hypotheses)
        self.book: PairBook | None = None
        self.conclude: Callable[[str], None] = lambda why: None

    def note(self, text: str) -> None:
        self.inner.note(text)

    def building(self, name: str, running: bool) -> None:
        self.inner.building(name, running)

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """Read the pairs already played (a resume), in the order their games were written."""
        self.inner.started(folder, entrants, progress)
        books = TournamentFolder(folder)
        info = books.info()
        schedule = books.schedule(info)
        assert info.plan.ab is not None  # the folder of an A/B test
        self.book = PairBook(schedule, info.plan.ab.new, info.plan.ab.old)
        lines = books.finished(schedule).lines
        self.test = run_test(self.hypotheses, self.book.outcomes(lines))
        if progress.done:
            self.told(self.test)
        self._check()

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.inner.game_finished(line, table, progress)
        assert self.book is not None  # started() comes first
        outcome = self.book.add(line)
        if outcome is None or self.test.verdict is not Verdict.UNDECIDED:
            return
        self.test = self.test.add(outcome)
        self.told(self.test)
        self._check()

    def _check(self) -> None:
        if self.test.verdict is not Verdict.UNDECIDED:
            self.conclude(verdict_line(self.test, 0, True))


class ABTest:
    """One A/B test: a tournament of pairs, watched by the sequential test."""

    def __init__(
        self,
        config: TournamentConfig,
        hypotheses: Hypotheses,
        observer: Observer,
        told: Callable[[Sprt], None],
    ) -> None:
        self._watcher = Watcher(observer, hypotheses, told)
        self.tournament = Tournament(config, self._watcher)
        self._watcher.conclude = self.tournament.conclude

    def request_stop(self) -> None:
        self.tournament.request_stop()

    def abort(self) -> None:
        self.tournament.abort()

    async def run(self, resume: Path | None = None) -> ABSummary:
        summary = await self.tournament.run(resume)
        info = TournamentFolder(summary.folder).info()
        ab = info.plan.ab
        assert ab is not None  # the folder of an A/B test
        result = ABSummary(
            summary.folder,
            ab.new,
            ab.old,
            self._watcher.test,
            info.plan.games // 2,
            summary.status == "finished",
        )
        write_atomic(
            summary.folder / RESULT_FILE,
            json.dumps({**result.to_json(), "written": time.time()}, indent=2) + "\n",
        )
        return result
