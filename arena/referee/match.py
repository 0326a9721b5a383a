"""Play one game: the engine decides, sessions answer, failures become faults.

The runner owns no sockets and no processes. It asks a `Seat` for each
decision and gets back an answer or a typed fault; a fault is applied to the
game by the ruleset's penalty and recorded, and the game goes on with the
others. Everything that happened is kept as a replay: every deal, every
answer with its thinking time, every fault.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import engine
from arena.errors import ArenaError
from arena.protocol import wire
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.protocol.messages import referee as pb
from arena.records import Deal, Decision, FaultEvent, LateDecision, ReplayEvent, RoundEnd
from arena.referee.clock.deadline import GameClock, TimeControl, bot_time, referee_late
from arena.referee.session.reply import Reply, next_request_id
from engine import CALZA, GameState, Phase, Ruleset


class SeatingError(ArenaError, ValueError):
    """A match handed seats that are not one per player: the caller's table is wrong."""


class Seat(Protocol):
    """Whoever answers for one seat: a live session, or an absent bot."""

    name: str

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        """Answer an encoded request (`wire.RequestBuilder`) within `timeout`, and up to
        `allowance` more for a link whose round trip was measured (`Reply.credit`)."""
        ...

    async def send(self, message: pb.RefereeMessage) -> bool: ...

    async def crashed(self) -> str | None:
        """How the bot's process died, once its stream has ended; None if it did not crash."""
        ...


class AbsentSeat:
    """A bot with no session to play on: every request is a disconnect fault."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        return Reply(None, Fault(FaultKind.DISCONNECT, self.reason, "", request_id), 0.0)

    async def send(self, message: pb.RefereeMessage) -> bool:
        return False

    async def crashed(self) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game of a schedule. Games sharing `deal_key` get the same dice."""

    game_id: str
    players: tuple[str, ...]
    deal_key: str
    ruleset: Ruleset


@dataclass
class GameRecord:
    """Everything about a finished game that the results keep."""

    spec: GameSpec
    order: tuple[int, ...] = ()
    faults: list[FaultRecord] = field(default_factory=list)
    events: list[ReplayEvent] = field(default_factory=list)
    think_ms: list[list[float]] = field(default_factory=list)
    decisions: int = 0
    started: float = 0.0
    duration: float = 0.0
    referee_late: list[LateDecision] = field(default_factory=list)
    """Decisions the referee itself was late for (its loop held up): over the limit by its
    clock, not charged to the bot. The game is the arena's to answer for, not the players'."""
    round_trips: list[float | None] = field(default_factory=list)
    """Each seat's link, by seat: its measured round trip in seconds when it was last asked
    (None: never measured, a bot that does not answer pings)."""

    @property
    def ranking(self) -> tuple[str, ...]:
        """Bot names in finishing order, winner first."""
        return tuple(self.spec.players[s] for s in self.order)


def answer_misfit(answer: wire.Answer | None, offer: bool) -> str | None:
    """Why `answer` does not fit the kind of request it answers, or None when it does.

    The protocol's rule, apart from the game's: a pass answers only a calza
    offer, and an offer is answered with calza or pass. Whether a fitting
    action is legal is the engine's to say.
    """
    if answer is None or isinstance(answer, wire.Pass):
        return None if offer else "pass answers only a calza offer"
    if offer and answer != CALZA:
        return f"{answer}: a calza offer is answered with calza or pass only"
    return None


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _ms_to_us(seconds: float) -> float:
    """Seconds as milliseconds to the microsecond, for records. Rounded as a whole number
    of microseconds: `round(x, 3)` is correctly rounded in decimal, and costs ten times as
    much, on every decision."""
    return round(seconds * 1_000_000) / 1000


class Match:
    """One game in progress."""

    def __init__(
        self,
        spec: GameSpec,
        seats: Sequence[Seat],
        seed: bytes,
        time_control: TimeControl,
        watch: Callable[[ReplayEvent], None] | None = None,
    ) -> None:
        """`watch` is told each event as it happens (a spectator's view, say); the
        replay keeps them all in any case. Up to the time control's lag allowance of each
        decision is credited to a bot's link (`deadline.network_credit`)."""
        if len(seats) != len(spec.players):
            raise SeatingError(
                f"one seat per player: {len(seats)} seats for {len(spec.players)} players"
            )
        self.spec = spec
        self.seats = list(seats)
        self.clock = GameClock(time_control, len(seats))
        """Each seat's bank, and what its next decision may take before it is a timeout."""
        self.dice = engine.HmacDice(seed, spec.deal_key)
        self.record = GameRecord(
            spec, think_ms=[[] for _ in seats], round_trips=[None] * len(seats)
        )
        self._allowance = time_control.lag_allowance
        self._requests = wire.RequestBuilder(
            spec.game_id,
            spec.players,
            wire.ruleset_to_proto(spec.ruleset),
            _ms(time_control.move_time),
            _ms(time_control.bank),
            _ms(time_control.increment),
        )
        self._watch = watch
        self._told = [0] * len(seats)
        self._banked = bool(time_control.bank or time_control.increment)
        """Whether a bank makes the limits vary; without one every decision's is the same, and
        there is nothing to charge."""
        self._fixed_limit = self.clock.limit(0)
        self._limit_ms: list[float | None] = [None] * len(seats)
        """What each seat was told it had for its last decision, where a bank makes it vary."""
        self._first_fault: dict[int, Fault] = {}
        self._timeouts: list[tuple[int, int, asyncio.Future[str]]] = []
        """Timeouts whose reply may still come: where their fault and event are recorded."""

    async def play(self) -> GameRecord:
        self.record.started = time.time()
        clock = time.monotonic()
        ruleset = self.spec.ruleset
        n = len(self.seats)
        opener = engine.rolloff(self.dice, n) if ruleset.opener is engine.Opener.ROLLOFF else 0
        state = engine.new_game(ruleset, n, opener)
        # Only calza `any` offers calza out of turn, after each bid.
        offers = ruleset.calza is engine.CalzaRule.ANY
        offered_for: tuple[int, int] | None = None
        while not state.is_over:
            if state.phase is Phase.DEAL:
                state = engine.deal(state, engine.roll_hands(state, self.dice))
                self._happened(Deal(state.round, state.opener, state.palifico, state.hands))
                continue
            if offers and state.bids and offered_for != (state.round, len(state.bids)):
                offered_for = (state.round, len(state.bids))
                state = await self._offer_calza(state)
                continue
            state = await self._turn(state)
        self.record.order = state.order
        self.record.duration = time.monotonic() - clock
        self._tell_lateness()
        await self._game_over(state)
        return self.record

    async def _ask(self, state: GameState, seat: int, offer: bool) -> Reply:
        told = self._told[seat]
        self._told[seat] = len(state.history)
        request_id = next_request_id()
        banked = self._banked
        bank_ms = _ms(self.clock.bank_left(seat)) if banked else 0
        request = self._requests.build(
            engine.observe(state, seat),
            request_id=request_id,
            offer=offer,
            history=state.history,
            told=told,
            bank_left_ms=bank_ms,
        )
        if banked:  # the limit as the request told it
            limit = self.clock.limit(seat)
            self._limit_ms[seat] = _ms(self.clock.control.move_time) + bank_ms
        else:
            limit = self._fixed_limit
        reply = await self.seats[seat].ask(request, request_id, limit, self._allowance)
        self.record.decisions += 1
        fault = reply.fault
        credit = reply.credit
        own = bot_time(reply.elapsed, reply.referee_lag, credit, reply.cpu)
        if reply.round_trip is not None:
            self.record.round_trips[seat] = reply.round_trip
        if fault is None:  # the bot's own time: the referee's hold-ups are its own
            self.record.think_ms[seat].append(own * 1000)
        timed_out = fault is not None and fault.kind is FaultKind.TIMEOUT
        if banked:
            self.clock.charge(seat, own, timed_out)
        if referee_late(reply.wall, limit, timed_out, credit):
            self.record.referee_late.append(
                LateDecision(
                    seat,
                    request_id,
                    wall_ms=_ms_to_us(reply.wall),
                    bot_ms=_ms_to_us(own),
                )
            )
        return reply

    async def _offer_calza(self, state: GameState) -> GameState:
        for seat in engine.calza_offers(state):
            reply = await self._ask(state, seat, offer=True)
            if reply.fault is not None:
                return await self._fault(state, seat, reply.fault, reply)
            misfit = answer_misfit(reply.answer, offer=True)
            if misfit is not None:
                fault = Fault(
                    FaultKind.ILLEGAL_ACTION, reply.explained(misfit), reply.sent, reply.request_id
                )
                return await self._fault(state, seat, fault)
            if isinstance(reply.answer, wire.Pass):
                self._log(seat, "pass", reply)
                continue
            self._log(seat, "calza", reply)
            return engine.apply(state, seat, CALZA)
        return state

    async def _turn(self, state: GameState) -> GameState:
        seat = state.to_act
        reply = await self._ask(state, seat, offer=False)
        if reply.fault is not None:
            return await self._fault(state, seat, reply.fault, reply)
        answer = reply.answer
        misfit = answer_misfit(answer, offer=False)
        if misfit is not None:
            fault = Fault(
                FaultKind.ILLEGAL_ACTION, reply.explained(misfit), reply.sent, reply.request_id
            )
            return await self._fault(state, seat, fault)
        assert isinstance(answer, (engine.Bid, engine.Dudo, engine.Calza))  # all that fits a turn
        try:
            after = engine.apply(state, seat, answer)
        except engine.IllegalActionError as refusal:
            fault = Fault(
                FaultKind.ILLEGAL_ACTION,
                reply.explained(str(refusal)),
                reply.sent,
                reply.request_id,
            )
            return await self._fault(state, seat, fault)
        self._log(seat, str(answer), reply)
        if after.phase is not Phase.BIDDING and after.history:
            outcome = after.history[-1]
            self._happened(
                RoundEnd(outcome.end, outcome.counted, outcome.changed_seat, outcome.dice_change)
            )
        return after

    async def _fault(
        self, state: GameState, seat: int, fault: Fault, reply: Reply | None = None
    ) -> GameState:
        if fault.kind is FaultKind.DISCONNECT:
            fault = await self._crash_or_disconnect(seat, fault)
        self._first_fault.setdefault(seat, fault)
        self.record.faults.append(
            FaultRecord(self.spec.game_id, self.spec.players[seat], seat, state.round, fault)
        )
        wall_ms = cpu_ms = cpu_wait_ms = rtt_ms = credit_ms = None
        if reply is not None and fault.kind is FaultKind.TIMEOUT:
            if reply.round_trip is not None:
                rtt_ms = _ms_to_us(reply.round_trip)
            if reply.credit:
                credit_ms = _ms_to_us(reply.credit)
            if reply.late is not None:
                self._timeouts.append(
                    (len(self.record.faults) - 1, len(self.record.events), reply.late)
                )
            wall_ms = _ms_to_us(reply.wall)
            if reply.cpu is not None and reply.cpu_wait is not None:
                cpu_ms, cpu_wait_ms = _ms_to_us(reply.cpu), _ms_to_us(reply.cpu_wait)
        self._happened(
            FaultEvent(
                seat,
                fault.kind,
                fault.detail,
                fault.sent,
                wall_ms,
                cpu_ms,
                cpu_wait_ms,
                rtt_ms,
                credit_ms,
            )
        )
        return engine.fault(state, seat)

    async def _crash_or_disconnect(self, seat: int, fault: Fault) -> Fault:
        """Tell a crash by the exit status: a clean exit after hanging up is no crash."""
        how = await self.seats[seat].crashed()
        if how is None:
            return fault
        return Fault(
            FaultKind.CRASH,
            f"the bot's process died, {how} ({fault.detail})",
            fault.sent,
            fault.request_id,
        )

    def _tell_lateness(self) -> None:
        """Say in each timeout's record how late its reply came, if it came during the game.

        The game went on without it at the deadline; a reply seconds late and
        none at all are different bugs, and only the record can tell them apart.
        """
        for at, event_at, late in self._timeouts:
            if not late.done():
                continue
            record = self.record.faults[at]
            fault = dataclasses.replace(
                record.fault, detail=f"{record.fault.detail}; {late.result()}"
            )
            self.record.faults[at] = dataclasses.replace(record, fault=fault)
            event = self.record.events[event_at]
            assert isinstance(event, FaultEvent)
            self.record.events[event_at] = dataclasses.replace(event, detail=fault.detail)
            if self._first_fault.get(record.seat) is record.fault:
                self._first_fault[record.seat] = fault

    def _happened(self, event: ReplayEvent) -> None:
        self.record.events.append(event)
        if self._watch is not None:
            self._watch(event)

    def _log(self, seat: int, action: str, reply: Reply) -> None:
        cpu_ms = None if reply.cpu is None else _ms_to_us(reply.cpu)
        credit = reply.credit
        own = bot_time(reply.elapsed, reply.referee_lag, credit, reply.cpu)
        # Held up while the bot thought: the record says whose time was whose.
        held = _ms_to_us(reply.wall - credit - own) if reply.referee_lag else None
        event = Decision(
            seat,
            action,
            _ms_to_us(own),
            cpu_ms,
            self._limit_ms[seat],
            held,
            _ms_to_us(credit) if credit else None,
        )
        self.record.events.append(event)  # `_happened`, inline: every decision comes here
        if self._watch is not None:
            self._watch(event)

    async def _game_over(self, state: GameState) -> None:
        """Tell every seat at once: the table's sessions are free only when all are told."""
        messages = [
            wire.game_over_to_proto(
                game_id=self.spec.game_id,
                seat=seat,
                order=state.order,
                players=self.spec.players,
                news=state.history[self._told[seat] :],
                fault=self._first_fault.get(seat),
            )
            for seat in range(len(self.seats))
        ]
        await asyncio.gather(*(bot.send(m) for bot, m in zip(self.seats, messages, strict=True)))
