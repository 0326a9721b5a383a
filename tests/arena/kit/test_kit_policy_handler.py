"""A kit policy sees each game exactly as the referee's engine does, whatever else is played.

The handler keeps what a game's requests repeat (its ruleset, the rounds told
so far) rather than reading it again each time; two games with different
rulesets, their requests interleaved on the same handlers, show that nothing kept
for one leaks into the other, and that a game ended and begun again under
the same id starts afresh.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random

import pytest

import arena.kit.client as kit_client
import arena.kit.clock as kit_clock
import engine
from arena.kit.client import PolicyHandler
from arena.kit.clock import TimedObservation
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from engine import CalzaRule, Observation, Ruleset

PLAYERS = 3


class _Game:
    """One game driven as the referee drives it: each request carries only the news."""

    def __init__(self, game_id: str, ruleset: Ruleset, seed: int) -> None:
        self.game_id = game_id
        self.rng = random.Random(seed)
        self.dice = engine.HmacDice(seed.to_bytes(16, "big"), game_id)
        self.state = engine.new_game(ruleset, PLAYERS, 0)
        self.builder = wire.RequestBuilder(
            game_id, [f"p{i}" for i in range(PLAYERS)], wire.ruleset_to_proto(ruleset), 700
        )
        self.told = [0] * PLAYERS

    def request(self) -> tuple[pb.ActionRequest, Observation]:
        """The next turn's request, and the view it must come to."""
        while self.state.phase is engine.Phase.DEAL:
            self.state = engine.deal(self.state, engine.roll_hands(self.state, self.dice))
        seat = self.state.to_act
        view = engine.observe(self.state, seat)
        message = self.builder.build(
            view, request_id=1, offer=False, history=self.state.history, told=self.told[seat]
        )
        self.told[seat] = len(self.state.history)
        return pb.RefereeMessage.FromString(message).request, view

    def play(self, action: pb.Action) -> None:
        answer = wire.answer_from_proto(action)
        assert isinstance(answer, (engine.Bid, engine.Dudo, engine.Calza))
        self.state = engine.apply(self.state, self.state.to_act, answer)

    def game_over(self) -> pb.GameOver:
        return pb.GameOver(game_id=self.game_id)


def _plain(view: TimedObservation) -> Observation:
    return Observation(**{f.name: getattr(view, f.name) for f in dataclasses.fields(Observation)})


def test_interleaved_games_each_see_their_own_ruleset_and_rounds() -> None:
    seen: list[TimedObservation] = []
    chooser = random.Random(5)
    chosen: list[engine.Action] = []

    def policy(obs: TimedObservation) -> wire.Answer:
        seen.append(obs)
        return chosen[-1]

    async def run() -> None:
        # A handler plays one seat of a game: seat i of every game is handlers[i]'s.
        handlers = [PolicyHandler(policy) for _ in range(PLAYERS)]
        rulesets = [Ruleset(dice_per_player=3, calza=CalzaRule.OFF), Ruleset(palifico=False)]
        # The first game is played again under its id once over: it must start afresh.
        pending = [_Game("a", rulesets[0], 1), _Game("b", rulesets[1], 2)]
        replay: _Game | None = _Game("a", rulesets[1], 3)
        turn = 0
        while pending:
            game = pending[turn % len(pending)]
            turn += 1
            if game.state.is_over:
                for handler in handlers:
                    await handler.game_over(game.game_over())
                pending.remove(game)
                if game.game_id == "a" and replay is not None:
                    pending.append(replay)
                    replay = None
                continue
            request, view = game.request()
            chosen.append(chooser.choice(list(engine.legal_actions(game.state))))
            action = await handlers[request.seat].request(request)
            assert _plain(seen[-1]) == view
            assert seen[-1].clock.time_left_ms == 700
            game.play(action)

    asyncio.run(run())
    assert {obs.ruleset.palifico for obs in seen} == {True, False}
    assert any(obs.history for obs in seen)


def test_a_policys_clock_counts_from_when_its_request_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The time a policy spends is spent: `remaining()` counts down from the request's
    reading, on the clock the handler stamped it with."""
    now = [50.0]
    monkeypatch.setattr(kit_client.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(kit_clock.time, "monotonic", lambda: now[0])
    left: list[float] = []

    def policy(obs: TimedObservation) -> wire.Answer:
        left.append(obs.clock.remaining())
        now[0] += 0.3  # the policy thinks
        left.append(obs.clock.remaining())
        return engine.Bid(1, 2)

    request, _ = _Game("a", Ruleset(), 1).request()
    asyncio.run(PolicyHandler(policy).request(request))
    assert left == [pytest.approx(0.7), pytest.approx(0.4)]  # 700 ms, less what it thought
