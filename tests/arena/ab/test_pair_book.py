"""From games on record to the test: pairs completed in the order of games.jsonl, and a test
whose verdict is already on record concluded as soon as it resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tournament_harness import Quiet, minimal_info

from arena.ab.book import BookError, PairBook
from arena.ab.run import Watcher
from arena.ab.sprt import Hypotheses, Outcome, Sprt, Verdict
from arena.records import GameLine
from arena.tournament.plan import AbPlan
from arena.tournament.play.observer import Progress
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.schedule.pairs import build_pairs
from arena.tournament.schedule.round_robin import ScheduledGame

SEED = bytes(range(32))
NEW, OLD, FIELD = "new", "old", ("f1", "f2")


def _line(game: ScheduledGame, tested_place: int) -> GameLine:
    """The game's line with NEW or OLD (whichever sat in it) finishing at `tested_place`."""
    tested = NEW if NEW in game.players else OLD
    others = [p for p in game.players if p != tested]
    ranking = (*others[: tested_place - 1], tested, *others[tested_place - 1 :])
    return GameLine(game.game_id, game.index, game.players, ranking, (), {}, game.deal_key)


def _schedule(pairs: int) -> list[ScheduledGame]:
    return build_pairs(NEW, OLD, list(FIELD), 3, pairs, SEED)


def test_a_pair_counts_once_both_its_games_are_in_in_either_order() -> None:
    games = _schedule(3)
    book = PairBook(games, NEW, OLD)
    by_deal = {g.deal_key: [x for x in games if x.deal_key == g.deal_key] for g in games}
    (a1, a2), (b1, b2), (c1, c2) = by_deal.values()
    place = {NEW: 1, OLD: 3}  # NEW first, OLD last: NEW better
    lines = [_line(g, place[NEW if NEW in g.players else OLD]) for g in (a1, b2, a2, c1, b1)]
    assert book.outcomes(lines) == [Outcome.BETTER, Outcome.BETTER]
    assert book.half_done == 1  # c's second game is not in yet
    assert book.add(_line(c2, 1)) in (Outcome.BETTER, Outcome.EQUAL, Outcome.WORSE)
    assert book.half_done == 0


def test_places_of_the_pair_decide_its_outcome() -> None:
    games = _schedule(1)
    for new_place, old_place, outcome in [
        (1, 2, Outcome.BETTER),
        (2, 2, Outcome.EQUAL),
        (3, 1, Outcome.WORSE),
    ]:
        book = PairBook(games, NEW, OLD)
        places = [new_place if NEW in g.players else old_place for g in games]
        assert book.outcomes(_line(g, p) for g, p in zip(games, places, strict=True)) == [outcome]


def test_a_game_of_no_pair_is_refused() -> None:
    book = PairBook(_schedule(1), NEW, OLD)
    with pytest.raises(BookError, match="no game of this A/B test"):
        book.add(GameLine("x", 0, (NEW, "f1"), (NEW, "f1"), (), {}))


def test_a_verdict_already_on_record_concludes_the_resumed_test(tmp_path: Path) -> None:
    pairs = 20
    entrants = sorted([NEW, OLD, *FIELD])
    info = minimal_info(
        "t",
        tuple(entrants),
        ab=AbPlan(NEW, OLD, 0.0, 200.0, 0.05, 0.05),
        table_size=3,
        games=2 * pairs,
    )
    (tmp_path / "t").mkdir()
    folder = TournamentFolder.lay_out(tmp_path / "t", info, SEED)
    games = _schedule(pairs)
    with folder.games_path.open("a") as out:
        for game in games:  # NEW always first, OLD always last: every pair NEW's
            place = 1 if NEW in game.players else 3
            out.write(json.dumps(_line(game, place).to_json()) + "\n")
    told: list[Sprt] = []
    concluded: list[str] = []
    watcher = Watcher(Quiet(), Hypotheses(elo1=200), told.append)
    watcher.conclude = concluded.append
    watcher.started(folder.root, entrants, Progress(2 * pairs, 2 * pairs, 0.0, 0))
    assert watcher.test.verdict is Verdict.NEW_STRONGER
    assert watcher.test.decided_at is not None and watcher.test.decided_at < pairs
    assert concluded == [
        f"NEW is stronger (LLR {watcher.test.llr_new:.2f} >= 3.64 after "
        f"{watcher.test.decided_at} pairs)"
    ]
    assert told == [watcher.test]
