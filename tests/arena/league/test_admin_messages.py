"""The admin stream's records as protobuf messages: every round trip through the bytes is exact."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.league import admin_messages as am
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.protocol.messages import admin as apb
from arena.rankings import BotConfidence, Confidence
from arena.records import GameLine, LateDecision
from arena.tournament.config import TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.play.observer import Progress
from arena.tournament.report.decisions import BotTimes, SlowDecision
from arena.tournament.report.median import Median
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import RunReport

# Text as the arena holds it: anything but a lone surrogate, which a protobuf string cannot
# hold (`wire_text` shows it as its escape; tested below).
words = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
names = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=12)
figures = st.floats(allow_nan=False, allow_infinity=False, width=64)
ms = st.floats(min_value=0, max_value=1e6, allow_nan=False)
small = st.integers(min_value=0, max_value=50)
big = st.integers(min_value=0, max_value=2**32 - 1)

faults = st.builds(
    FaultRecord,
    game_id=names,
    bot=names,
    seat=small,
    round=small,
    fault=st.builds(Fault, st.sampled_from(FaultKind), words, words, st.integers(0, 2**64 - 1)),
)
lines = st.builds(
    GameLine,
    game=names,
    index=big,
    players=st.lists(names, max_size=6).map(tuple),
    ranking=st.lists(names, max_size=6).map(tuple),
    faults=st.lists(faults, max_size=3).map(tuple),
    think_ms=st.dictionaries(names, ms, max_size=4),
    deal_key=st.none() | words,
    decisions=st.none() | big,
    started=st.none() | figures,
    duration_s=st.none() | ms,
    referee_late=st.lists(st.builds(LateDecision, small, big, ms, ms), max_size=2).map(tuple),
)
standings = st.builds(
    Standing,
    name=names,
    mu=figures,
    sigma=figures,
    games=big,
    wins=big,
    place_sum=big,
    faults=big,
    # As a leaderboard keeps them: one median, or none before a first decision.
    think=st.lists(st.floats(min_value=1e-9, max_value=1e6), max_size=1).map(Median),
)
confidences = st.builds(
    Confidence,
    bots=st.lists(
        st.builds(
            BotConfidence,
            name=names,
            strength=figures,
            low=figures,
            high=figures,
            rank_probabilities=st.lists(st.floats(0, 1), max_size=6).map(tuple),
            rank_low=small,
            rank_high=small,
        ),
        max_size=4,
    ).map(tuple),
    level=st.floats(0, 1),
    resamples=big,
    games=big,
    groups=big,
    ahead=st.lists(st.lists(st.floats(0, 1), max_size=4).map(tuple), max_size=4).map(tuple),
)
fault_counts = st.dictionaries(
    names,
    st.dictionaries(st.sampled_from([k.value for k in FaultKind]), big, min_size=1),
    max_size=3,
)
reports = st.builds(
    RunReport,
    folder=names.map(Path),
    status=st.sampled_from([RunStatus.FINISHED, RunStatus.INTERRUPTED]),
    games=big,
    total=big,
    seed_hex=st.none() | st.text("0123456789abcdef", min_size=32, max_size=64),
    table=st.lists(standings, max_size=4).map(tuple),
    sure=st.none() | confidences,
    separation=words,
    outcome=st.none() | words,
    skipped=st.lists(st.tuples(names, words), max_size=3).map(tuple),
    faults=fault_counts,
    slowest=st.lists(
        st.builds(SlowDecision, ms, names, names, small, words, st.none() | ms), max_size=3
    ).map(tuple),
    times=st.lists(
        st.builds(BotTimes, names, big, ms, ms, ms, big, ms, ms, st.none() | ms), max_size=3
    ).map(tuple),
    notes=st.lists(words, max_size=3).map(tuple),
)


@given(lines)
def test_game_lines_survive_the_stream(line: GameLine) -> None:
    sent = am.game_line_to_proto(line).SerializeToString()
    assert am.game_line_from_proto(apb.GameLine.FromString(sent)) == line


@given(standings)
def test_standings_survive_the_stream(standing: Standing) -> None:
    sent = am.standing_to_proto(standing).SerializeToString()
    assert am.standing_from_proto(apb.Standing.FromString(sent)) == standing


def test_a_standing_travels_with_the_median_of_its_decision_times() -> None:
    standing = Standing(
        "a", 27.123456789, 3.3, games=4, wins=1, place_sum=9, think=Median([1, 2, 9.5])
    )
    back = am.standing_from_proto(am.standing_to_proto(standing))
    assert back.median_think_ms == 2
    assert (back.conservative, back.win_rate, back.average_place) == (
        standing.conservative,
        standing.win_rate,
        standing.average_place,
    )  # every figure as the server had it, not rounded as leaderboard.json rounds them


@given(confidences)
def test_confidence_survives_the_stream(sure: Confidence) -> None:
    sent = am.confidence_to_proto(sure).SerializeToString()
    assert am.confidence_from_proto(apb.Confidence.FromString(sent)) == sure


@given(reports)
def test_end_of_run_reports_survive_the_stream(report: RunReport) -> None:
    sent = am.report_to_proto(report).SerializeToString()
    assert am.report_from_proto(apb.TournamentFinished.FromString(sent)) == report


@given(
    st.builds(Progress, big, big, st.floats(-1e6, 1e6), big),
    st.floats(-1e6, 1e6),
    st.floats(-1e6, 1e6),
)
def test_progress_keeps_the_time_since_play_began_across_two_clocks(
    progress: Progress, here: float, there: float
) -> None:
    sent = am.progress_to_proto(progress, here).SerializeToString()
    back = am.progress_from_proto(apb.TournamentProgress.FromString(sent), there)
    assert (back.done, back.total, back.played_now) == (
        progress.done,
        progress.total,
        progress.played_now,
    )
    assert math.isclose(there - back.started, here - progress.started, abs_tol=1e-6)


@given(st.text())
def test_any_text_goes_on_the_wire_and_a_lone_surrogate_shows_as_its_escape(text: str) -> None:
    sent = am.wire_text(text)
    assert apb.TournamentEvent(note=sent).SerializeToString()  # a protobuf string is UTF-8
    surrogates = [c for c in text if 0xD800 <= ord(c) <= 0xDFFF]
    assert sent == text if not surrogates else sent == am.wire_text(sent) != text


def test_a_path_with_an_undecodable_byte_is_reported_not_lost() -> None:
    report = RunReport(
        folder=Path("/results/night-\udcff"),
        status=RunStatus.FINISHED,
        games=1,
        total=1,
        seed_hex=None,
        table=(),
        sure=None,
        separation="",
        outcome=None,
        skipped=(),
        faults={},
        slowest=(),
        times=(),
        notes=("wrote \udcfe",),
    )
    sent = am.report_to_proto(report).SerializeToString()
    back = am.report_from_proto(apb.TournamentFinished.FromString(sent))
    assert (str(back.folder), back.notes) == ("/results/night-\\udcff", ("wrote \\udcfe",))


def test_a_status_or_fault_kind_this_arena_lacks_is_said_not_guessed() -> None:
    with pytest.raises(TournamentError, match="a run status numbered 9, which this arena"):
        am.report_from_proto(apb.TournamentFinished(status=9))  # type: ignore[arg-type]
    unknown = apb.TournamentFinished(
        status=apb.RUN_STATUS_FINISHED,
        faults=[apb.BotFaults(bot="a", counts=[apb.FaultCount(kind=42, count=1)])],  # type: ignore[arg-type]
    )
    with pytest.raises(TournamentError, match="a fault kind numbered 42, which this arena"):
        am.report_from_proto(unknown)
