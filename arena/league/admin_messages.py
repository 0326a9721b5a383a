"""The records the admin stream carries, as its protobuf messages and back.

A game line, the standings, the batch fit's confidence and the end-of-run
report each have one message in `admin.proto` with a field for each of the
record's, so the organiser's terminal gets from the league server what
`arena run` has in hand, every figure as it was (not rounded for a file), and
each conversion here is the exact inverse of the other. A value this arena
does not know (from a server of another version) is a `TournamentError`.

Every text goes through `wire_text` on its way out: a protobuf string must be
UTF-8, and a lone surrogate (a path's undecodable byte, as Python decodes
it) would otherwise fail the whole event, and with it the tournament.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.protocol.messages import admin as apb
from arena.protocol.wire import fault_kind_from_proto, fault_kind_to_proto
from arena.rankings import BotConfidence, Confidence
from arena.records import GameLine, LateDecision
from arena.tournament.config import TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.play.observer import Progress
from arena.tournament.report.decisions import BotTimes, SlowDecision
from arena.tournament.report.median import Median
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import RunReport

_STATUS = {
    RunStatus.FINISHED: apb.RUN_STATUS_FINISHED,
    RunStatus.INTERRUPTED: apb.RUN_STATUS_INTERRUPTED,
}
_STATUS_IN = {v: k for k, v in _STATUS.items()}


def wire_text(value: str) -> str:
    """`value` as a protobuf string can hold it: unchanged, but for a lone surrogate, which
    is shown as its escape (as `arena.text.printable` shows it)."""
    if value.isascii():
        return value
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def wire_texts(values: Iterable[str]) -> list[str]:
    return [wire_text(v) for v in values]


def progress_to_proto(progress: Progress, now: float) -> apb.TournamentProgress:
    """`now` on the monotonic clock: the start of play travels as the time since, as the
    two machines' monotonic clocks have nothing in common."""
    return apb.TournamentProgress(
        done=progress.done,
        total=progress.total,
        played_now=progress.played_now,
        elapsed=now - progress.started,
    )


def progress_from_proto(msg: apb.TournamentProgress, now: float) -> Progress:
    return Progress(msg.done, msg.total, now - msg.elapsed, msg.played_now)


def game_line_to_proto(line: GameLine) -> apb.GameLine:
    msg = apb.GameLine(
        game=wire_text(line.game),
        index=line.index,
        players=wire_texts(line.players),
        ranking=wire_texts(line.ranking),
        faults=[_fault_to_proto(f) for f in line.faults],
        think_ms={wire_text(bot): ms for bot, ms in line.think_ms.items()},
        referee_late=[
            apb.LateDecision(
                seat=late.seat, request_id=late.request_id, wall_ms=late.wall_ms, bot_ms=late.bot_ms
            )
            for late in line.referee_late
        ],
    )
    if line.deal_key is not None:
        msg.deal_key = wire_text(line.deal_key)
    if line.decisions is not None:
        msg.decisions = line.decisions
    if line.started is not None:
        msg.started = line.started
    if line.duration_s is not None:
        msg.duration_s = line.duration_s
    return msg


def game_line_from_proto(msg: apb.GameLine) -> GameLine:
    return GameLine(
        game=msg.game,
        index=msg.index,
        players=tuple(msg.players),
        ranking=tuple(msg.ranking),
        faults=tuple(_fault_from_proto(f) for f in msg.faults),
        think_ms=dict(msg.think_ms),
        deal_key=msg.deal_key if msg.HasField("deal_key") else None,
        decisions=msg.decisions if msg.HasField("decisions") else None,
        started=msg.started if msg.HasField("started") else None,
        duration_s=msg.duration_s if msg.HasField("duration_s") else None,
        referee_late=tuple(
            LateDecision(late.seat, late.request_id, late.wall_ms, late.bot_ms)
            for late in msg.referee_late
        ),
    )


def _fault_to_proto(record: FaultRecord) -> apb.FaultRecord:
    fault = record.fault
    return apb.FaultRecord(
        game=wire_text(record.game_id),
        bot=wire_text(record.bot),
        seat=record.seat,
        round=record.round,
        kind=fault_kind_to_proto(fault.kind),
        detail=wire_text(fault.detail),
        sent=wire_text(fault.sent),
        request_id=fault.request_id,
    )


def _fault_from_proto(msg: apb.FaultRecord) -> FaultRecord:
    fault = Fault(_fault_kind(msg.kind), msg.detail, msg.sent, msg.request_id)
    return FaultRecord(msg.game, msg.bot, msg.seat, msg.round, fault)


def standing_to_proto(standing: Standing) -> apb.Standing:
    return apb.Standing(
        bot=wire_text(standing.name),
        mu=standing.mu,
        sigma=standing.sigma,
        games=standing.games,
        wins=standing.wins,
        place_sum=standing.place_sum,
        faults=standing.faults,
        median_decision_ms=standing.median_think_ms,
    )


def standing_from_proto(msg: apb.Standing) -> Standing:
    """The standing as a leaderboard shows it: its decision times reduced to their median."""
    return Standing(
        name=msg.bot,
        mu=msg.mu,
        sigma=msg.sigma,
        games=msg.games,
        wins=msg.wins,
        place_sum=msg.place_sum,
        faults=msg.faults,
        think=Median([msg.median_decision_ms] if msg.median_decision_ms else []),
    )


def confidence_to_proto(sure: Confidence) -> apb.Confidence:
    return apb.Confidence(
        bots=[
            apb.BotConfidence(
                bot=wire_text(b.name),
                strength=b.strength,
                low=b.low,
                high=b.high,
                rank_probabilities=b.rank_probabilities,
                rank_low=b.rank_low,
                rank_high=b.rank_high,
            )
            for b in sure.bots
        ],
        level=sure.level,
        resamples=sure.resamples,
        games=sure.games,
        groups=sure.groups,
        ahead=[apb.ShareRow(shares=row) for row in sure.ahead],
    )


def confidence_from_proto(msg: apb.Confidence) -> Confidence:
    return Confidence(
        bots=tuple(
            BotConfidence(
                name=b.bot,
                strength=b.strength,
                low=b.low,
                high=b.high,
                rank_probabilities=tuple(b.rank_probabilities),
                rank_low=b.rank_low,
                rank_high=b.rank_high,
            )
            for b in msg.bots
        ),
        level=msg.level,
        resamples=msg.resamples,
        games=msg.games,
        groups=msg.groups,
        ahead=tuple(tuple(row.shares) for row in msg.ahead),
    )


def report_to_proto(report: RunReport) -> apb.TournamentFinished:
    msg = apb.TournamentFinished(
        folder=wire_text(str(report.folder)),
        status=_STATUS[report.status],
        games=report.games,
        total=report.total,
        table=[standing_to_proto(s) for s in report.table],
        separation=wire_text(report.separation),
        skipped=[
            apb.SkippedBot(bot=wire_text(bot), reason=wire_text(why)) for bot, why in report.skipped
        ],
        faults=[
            apb.BotFaults(
                bot=wire_text(bot),
                counts=[
                    apb.FaultCount(kind=fault_kind_to_proto(FaultKind(kind)), count=count)
                    for kind, count in kinds.items()
                ],
            )
            for bot, kinds in report.faults.items()
        ],
        slowest=[_slow_to_proto(d) for d in report.slowest],
        times=[_times_to_proto(t) for t in report.times],
        notes=wire_texts(report.notes),
    )
    if report.seed_hex is not None:
        msg.seed_hex = wire_text(report.seed_hex)
    if report.sure is not None:
        msg.confidence.CopyFrom(confidence_to_proto(report.sure))
    if report.outcome is not None:
        msg.outcome = wire_text(report.outcome)
    return msg


def report_from_proto(msg: apb.TournamentFinished) -> RunReport:
    if msg.status not in _STATUS_IN:
        raise _unknown(f"a run status numbered {msg.status}")
    return RunReport(
        folder=Path(msg.folder),
        status=_STATUS_IN[msg.status],
        games=msg.games,
        total=msg.total,
        seed_hex=msg.seed_hex if msg.HasField("seed_hex") else None,
        table=tuple(standing_from_proto(s) for s in msg.table),
        sure=confidence_from_proto(msg.confidence) if msg.HasField("confidence") else None,
        separation=msg.separation,
        outcome=msg.outcome if msg.HasField("outcome") else None,
        skipped=tuple((s.bot, s.reason) for s in msg.skipped),
        faults={f.bot: {_fault_kind(c.kind).value: c.count for c in f.counts} for f in msg.faults},
        slowest=tuple(_slow_from_proto(d) for d in msg.slowest),
        times=tuple(_times_from_proto(t) for t in msg.times),
        notes=tuple(msg.notes),
    )


def _fault_kind(number: int) -> FaultKind:
    kind = fault_kind_from_proto(number)
    if kind is None:
        raise _unknown(f"a fault kind numbered {number}")
    return kind


def _unknown(what: str) -> TournamentError:
    """What a message from a server of another version, with values this arena lacks, is."""
    return TournamentError(f"the league server sent {what}, which this arena does not know")


def _slow_to_proto(d: SlowDecision) -> apb.SlowDecision:
    msg = apb.SlowDecision(
        ms=d.ms,
        bot=wire_text(d.bot),
        game=wire_text(d.game),
        round=d.round,
        action=wire_text(d.action),
    )
    if d.limit_ms is not None:
        msg.limit_ms = d.limit_ms
    return msg


def _slow_from_proto(msg: apb.SlowDecision) -> SlowDecision:
    limit = msg.limit_ms if msg.HasField("limit_ms") else None
    return SlowDecision(msg.ms, msg.bot, msg.game, msg.round, msg.action, limit)


def _times_to_proto(t: BotTimes) -> apb.BotTimes:
    msg = apb.BotTimes(
        bot=wire_text(t.bot),
        decisions=t.decisions,
        median_ms=t.median_ms,
        p99_ms=t.p99_ms,
        slowest_ms=t.slowest_ms,
        near_limit=t.near_limit,
        closest_ms=t.closest_ms,
        closest_limit_ms=t.closest_limit_ms,
    )
    if t.round_trip_ms is not None:
        msg.round_trip_ms = t.round_trip_ms
    return msg


def _times_from_proto(msg: apb.BotTimes) -> BotTimes:
    return BotTimes(
        msg.bot,
        msg.decisions,
        msg.median_ms,
        msg.p99_ms,
        msg.slowest_ms,
        msg.near_limit,
        msg.closest_ms,
        msg.closest_limit_ms,
        msg.round_trip_ms if msg.HasField("round_trip_ms") else None,
    )
