"""The JSON-lines bridge: a program with no gRPC plays through it, and bad lines are faults."""

from __future__ import annotations

import json
from pathlib import Path

from referee_harness import Arena, run

from arena.kit.bridge import parse_answer, to_json
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from engine import CalzaRule, Ruleset


def test_a_json_lines_program_plays_whole_games_through_the_bridge(tmp_path: Path) -> None:
    async def main() -> None:
        async with Arena(tmp_path).serving(move_time=1.0) as arena:
            arena.spawn("bridged", "jsonl")
            await arena.launch("kit_bot", ["kit-a", "kit-b"])
            await arena.wait_connected(["jsonl"])
            for index, calza in enumerate((CalzaRule.TURN, CalzaRule.ANY)):
                record = await arena.play(
                    ["jsonl", "kit-a", "kit-b"], Ruleset(calza=calza), game_id=f"g{index}"
                )
                assert record.faults == []
                assert sorted(record.order) == [0, 1, 2]
                assert record.think_ms[0], "the bridged bot made decisions"

    run(main())


def test_a_line_that_is_not_json_is_a_malformed_message(tmp_path: Path) -> None:
    async def main() -> None:
        async with Arena(tmp_path).serving(move_time=1.0) as arena:
            arena.spawn("bridged", "garbage", JSONL_MODE="garbage")
            await arena.launch("kit_bot", ["kit-a", "kit-b"])
            await arena.wait_connected(["garbage"])
            record = await arena.play(["garbage", "kit-a", "kit-b"])
            faults = [f for f in record.faults if f.bot == "garbage"]
            assert [f.fault.kind for f in faults] == [FaultKind.MALFORMED_MESSAGE]
            assert record.order[-1] == 0  # eliminated: ranked last
            assert "stdout is not JSON (debug output goes to stderr): this is not json" in (
                arena.log("garbage")
            )

    run(main())


def test_answers_are_read_strictly() -> None:
    good, complaint = parse_answer(b'{"request_id": 7, "action": "bid", "count": 3, "face": 5}', 7)
    assert complaint is None
    assert (good.kind, good.count, good.face) == (pb.ACTION_KIND_BID, 3, 5)
    for line, why in (
        (b'{"request_id": 8, "action": "dudo"}', "request_id must be 7"),
        (b"not json", "is not JSON (debug output goes to stderr): not json"),
        (b'{"request_id": 7}', "action"),
        (b'{"request_id": 7, "action": "raise"}', "raise"),
        (b'{"request_id": 7, "action": "bid", "count": -1, "face": 2}', "whole numbers"),
        (b"[1, 2]", "JSON object"),
    ):
        action, complaint = parse_answer(line, 7)
        assert action.kind == pb.ACTION_KIND_UNSPECIFIED, line
        assert complaint is not None and why in complaint, (line, complaint)


def test_requests_become_friendly_json() -> None:
    request = pb.ActionRequest(
        request_id=2**63 + 5,
        kind=pb.REQUEST_KIND_CALZA_OFFER,
        ruleset=pb.Ruleset(calza=pb.CALZA_RULE_ANY, opener=pb.OPENER_SEAT0),
        min_count=[0, 0, 0, 0, 0, 0],
    )
    data = json.loads(to_json("request", request))
    assert data["type"] == "request"
    assert data["request_id"] == 2**63 + 5  # a number, not proto3 JSON's string
    assert data["kind"] == "calza_offer"
    assert data["ruleset"]["calza"] == "any" and data["ruleset"]["opener"] == "seat0"
    assert data["min_count"] == [0, 0, 0, 0, 0, 0]
    assert data["bids"] == []  # fields are present even when empty


def test_every_enum_is_a_short_word_and_nothing_else_is_touched() -> None:
    rules = Ruleset.from_mapping(
        {"palifico_face_change": "others", "opener_after_elimination": "right", "calza": "any"}
    )
    request = pb.ActionRequest(
        kind=pb.REQUEST_KIND_CALZA_OFFER,
        request_id=2**63 + 5,
        game_id="OPENER_SEAT0",
        players=["SIDE_LEFT", "CALZA_RULE_ANY"],  # names a bot may have: never shortened
        ruleset=wire.ruleset_to_proto(rules),
    )
    data = json.loads(to_json("request", request))
    assert data["kind"] == "calza_offer"
    assert data["request_id"] == 2**63 + 5
    assert data["game_id"] == "OPENER_SEAT0"
    assert data["players"] == ["SIDE_LEFT", "CALZA_RULE_ANY"]
    ruleset = data["ruleset"]
    assert (ruleset["palifico_face_change"], ruleset["opener_after_elimination"]) == (
        "others",
        "right",
    )
    assert (ruleset["calza"], ruleset["opener"], ruleset["fault_penalty"]) == (
        "any",
        "rolloff",
        "eliminate",
    )
