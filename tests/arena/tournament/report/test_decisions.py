"""The end of a run reads every decision's time from the replays: each bot's median,
99th percentile and slowest, and the decisions that came within 10% of their limit."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console
from tournament_harness import minimal_info

from arena.cli import live
from arena.records import Deal, Decision, LeaderboardRow, Replay
from arena.tournament.report.decisions import decision_timing, percentile
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import Summary
from arena.tournament.results.folder import TournamentFolder
from engine import Ruleset

PLAYERS = ("even", "edgy")


def _write(replays: Path, game: str, answers: list[Decision]) -> None:
    events = [Deal(1, 0, False, ((2, 3), (4, 5))), *answers]
    replay = Replay(game, PLAYERS, Ruleset(), PLAYERS, tuple(events))
    (replays / f"{game}.json").write_text(json.dumps(replay.to_json()))


def test_each_bot_gets_its_median_p99_slowest_and_its_decisions_near_the_limit(
    tmp_path: Path,
) -> None:
    # "even" answers in 1..100 ms; "edgy" mostly in 10 ms, twice near its 1000 ms limit,
    # once (under a bank) in 1500 ms of the 3000 ms it had: not near that limit.
    _write(tmp_path, "g1", [Decision(0, "dudo", float(ms)) for ms in range(1, 101)])
    edgy = [Decision(1, "dudo", 10.0) for _ in range(50)]
    edgy += [Decision(1, "dudo", 950.0), Decision(1, "dudo", 990.0)]
    edgy.append(Decision(1, "dudo", 1500.0, limit_ms=3000.0))
    _write(tmp_path, "g2", edgy)
    timing = decision_timing(tmp_path, ["g1", "g2", "missing"], move_time=1.0)
    by_bot = {t.bot: t for t in timing.bots}
    even, edgy_times = by_bot["even"], by_bot["edgy"]
    assert (even.decisions, even.median_ms, even.p99_ms, even.slowest_ms) == (100, 50.5, 99, 100)
    assert even.near_limit == 0
    assert edgy_times.decisions == 53
    assert edgy_times.slowest_ms == 1500.0
    assert (edgy_times.closest_ms, edgy_times.closest_limit_ms) == (990.0, 1000.0)
    assert edgy_times.near_limit == 2
    assert [d.ms for d in timing.slowest][:2] == [1500.0, 990.0]

    lines = live.report_lines([], {}, timing.slowest, timing.bots)
    warning = lines[lines.index(next(x for x in lines if x.startswith("Close to the limit"))) + 1]
    assert warning == "  edgy: 2 of 53 decisions; the closest took 990 ms of the 1000 ms it had"
    near = lines[lines.index(next(x for x in lines if x.startswith("Close to the limit"))) :]
    assert not any("even:" in line for line in near)
    # Every bot's outliers, under the table (which keeps to 80 columns without them).
    told = lines.index("Decision times (ms: median, 99th percentile, slowest):")
    assert set(lines[told + 1 : told + 3]) == {
        "  even: 50.5, 99.0, 100.0 (100 decisions)",
        f"  edgy: 10.0, {edgy_times.p99_ms:.1f}, 1500.0 (53 decisions)",
    }


def test_the_percentile_is_a_time_some_decision_took() -> None:
    assert percentile([5.0, 1.0, 3.0], 99) == 5.0
    assert percentile([5.0, 1.0, 3.0], 50) == 3.0
    assert percentile([7.0], 99) == 7.0


def test_the_leaderboard_files_carry_each_bots_p99_and_slowest(tmp_path: Path) -> None:
    (tmp_path / "t1").mkdir()
    folder = TournamentFolder.lay_out(tmp_path / "t1", minimal_info("t1"), b"s" * 32)
    table = [Standing("quick", games=1, wins=1, place_sum=1), Standing("mute", games=1)]
    folder.write_leaderboard(table, outliers={"quick": (9.5, 12.0)})
    rows = json.loads((folder.root / "leaderboard.json").read_text())
    assert (rows[0]["p99_decision_ms"], rows[0]["slowest_decision_ms"]) == (9.5, 12.0)
    assert "p99_decision_ms" not in rows[1]  # it never answered: no times to give
    assert LeaderboardRow.from_json(rows[0]).slowest_decision_ms == 12.0
    [header, quick, mute] = (folder.root / "leaderboard.csv").read_text().splitlines()
    assert header.endswith("median_decision_ms,p99_decision_ms,slowest_decision_ms")
    assert quick.endswith(",9.5,12.0") and mute.endswith(",,")


def test_an_answer_over_its_limit_that_was_not_charged_is_told_once_with_its_reason(
    tmp_path: Path,
) -> None:
    # "even" answered once in 4335 ms of its 1000 ms while the referee was held up; "edgy"
    # once in 1050 ms, let in by the time margin. Neither was charged: no fault anywhere.
    even = [Decision(0, "dudo", 10.0) for _ in range(20)]
    even.append(Decision(0, "dudo", 4335.0, referee_ms=3900.0))
    edgy = [Decision(1, "dudo", 12.0) for _ in range(20)] + [Decision(1, "dudo", 1050.0)]
    _write(tmp_path, "g1", [*even, *edgy])
    timing = decision_timing(tmp_path, ["g1"], move_time=1.0)
    by_bot = {t.bot: t for t in timing.bots}
    assert by_bot["even"].slowest_ms == 4335.0  # the outliers keep it
    assert by_bot["even"].near_limit == 0 and by_bot["edgy"].near_limit == 0
    report = Summary(
        tmp_path, "finished", [], 1, 1, None, slowest=timing.slowest, times=timing.bots,
        notes=tuple(timing.notes()),
    ).report()  # fmt: skip
    out = io.StringIO()
    live.print_report(Console(file=out, width=200, force_terminal=False), report)
    text = out.getvalue()
    assert "No faults." in text
    assert "ms it had" not in text  # never "took 4335 ms of the 1000 ms it had", uncharged
    lines = text.splitlines()
    [said] = [line for line in lines if line.startswith("even:")]  # once, all in one sentence
    assert "4335 ms of 1000 ms" in said and "referee itself was late" in said
    assert "not charged" in said
    [margin] = [line for line in lines if line.startswith("edgy:")]
    assert "1050 ms of 1000 ms" in margin and "time margin" in margin
    assert "not charged" in margin and "referee" not in margin


def test_each_bots_round_trip_is_its_median_over_its_games_and_in_the_leaderboard(
    tmp_path: Path,
) -> None:
    # "even" is 200 ms away (once 300: the median of its games is 200); "edgy" says nothing
    # of pings: it has no round trip at all, rather than a round trip of 0.
    for game, far in (("g1", 200.0), ("g2", 300.0), ("g3", 200.0)):
        events = [Deal(1, 0, False, ((2, 3), (4, 5))), Decision(0, "dudo", 1.0)]
        replay = Replay(game, PLAYERS, Ruleset(), PLAYERS, tuple(events), round_trip_ms=(far, None))
        (tmp_path / f"{game}.json").write_text(json.dumps(replay.to_json()))
    timing = decision_timing(tmp_path, ["g1", "g2", "g3"], move_time=0.15)
    [even] = timing.bots
    assert even.round_trip_ms == 200.0
    [line] = [x for x in live.report_lines([], {}, (), timing.bots) if x.startswith("  even")]
    assert line.endswith("(3 decisions; network round trip 200.0 ms)")

    (tmp_path / "t1").mkdir()
    folder = TournamentFolder.lay_out(tmp_path / "t1", minimal_info("t1"), b"s" * 32)
    table = [Standing("even", games=3), Standing("edgy", games=3)]
    folder.write_leaderboard(table, round_trips={"even": 200.0})
    rows = json.loads((folder.root / "leaderboard.json").read_text())
    assert rows[0]["round_trip_ms"] == 200.0 and "round_trip_ms" not in rows[1]
    assert LeaderboardRow.from_json(rows[0]).round_trip_ms == 200.0
