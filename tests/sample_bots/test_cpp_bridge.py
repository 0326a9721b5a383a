"""The C++ sample (sample_bots/cpp_bridge) as the bridge runs it: its own JSON reader, and its
answers over whole games.

Its program is built once with its own build.sh (skipped without g++) and spoken to in JSON
lines, each request made by the referee's own encoder and turned into a line by the bridge's
own `to_json`, each answer read by the bridge's `parse_answer`. Games are played in-process
by samples_harness.py against the Python samples, every answer checked before it is applied.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import samples_harness as harness

from arena.kit import Answer
from arena.kit.bridge import parse_answer, to_json
from arena.protocol.messages import referee as pb
from arena.protocol.wire import answer_from_proto, encode_request, ruleset_to_proto
from engine import CalzaRule, Observation, Ruleset

SAMPLE = harness.BOT_DIR / "cpp_bridge"

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cpp") / "cpp_bridge"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns("bin"))
    subprocess.run(["sh", "build.sh"], cwd=folder, check=True, timeout=300)
    return folder / "bin" / "bot"


class Session:
    """One session's program, as the bridge starts it: a line in, a line out."""

    def __init__(self, program: Path) -> None:
        self.process = subprocess.Popen(
            [str(program)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.ids = itertools.count(1)

    def ask(self, line: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline()

    def close(self) -> tuple[str, str]:
        """Ends the session (EOF on stdin): what is left of stdout and stderr."""
        out, err = self.process.communicate(timeout=60)
        assert self.process.returncode == 0, err
        return out, err

    def act(self, obs: Observation) -> Answer:
        """A harness policy: the request the referee would send, through the bridge's JSON."""
        offer = not obs.my_turn
        wire = encode_request(
            obs,
            request_id=next(self.ids),
            offer=offer,
            game_id="g",
            players=[f"seat-{i}" for i in range(len(obs.dice))],
            ruleset=ruleset_to_proto(obs.ruleset),
            news=obs.history,
            time_left_ms=1000,
        )
        request = pb.RefereeMessage.FromString(wire).request  # the encoding is a whole message
        line = self.ask(to_json("request", request))
        action, complaint = parse_answer(line.encode(), request.request_id)
        assert complaint is None, complaint
        return answer_from_proto(action)


@pytest.fixture
def session(program: Path) -> Iterator[Session]:
    opened = Session(program)
    yield opened
    if opened.process.poll() is None:
        opened.process.kill()
        opened.process.wait()


REQUEST = {
    "type": "request",
    "request_id": 7,
    "kind": "turn",
    "seat": 1,
    "my_dice": [2, 3, 3, 5, 6],
    "bids": [{"seat": 0, "count": 4, "face": 3}],
    "min_count": [2, 5, 5, 4, 4, 4],
    "dudo_allowed": True,
    "calza_allowed": False,
    "dice_in_play": 15,
    "palifico": False,
}


def test_a_request_id_is_echoed_exactly_at_64_bits(session: Session) -> None:
    answer = json.loads(session.ask(json.dumps({**REQUEST, "request_id": 2**64 - 1})))
    assert answer["request_id"] == 2**64 - 1


def test_fields_in_any_order_with_escapes_and_nested_namesakes_are_read(session: Session) -> None:
    plain = json.loads(session.ask(json.dumps(REQUEST)))
    # The same request, its fields reversed, with strings a naive scanner would stop at, and
    # `palifico`, `bids` and `seat` repeated deeper (a ruleset's, a round result's).
    noisy = {
        "results": [{"palifico": True, "bids": [{"seat": 1, "count": 9, "face": 1}], "hands": []}],
        "ruleset": {"palifico": True, "dice_per_player": 5},
        "players": ['a"},{"palifico":true', "\u00e9\U0001f600", "tab\there"],
        **dict(reversed(list(REQUEST.items()))),
    }
    assert json.loads(session.ask(json.dumps(noisy))) == plain
    assert json.loads(session.ask(json.dumps(noisy, ensure_ascii=False))) == plain


def test_a_line_that_is_not_json_is_logged_and_the_next_request_answered(
    session: Session,
) -> None:
    assert session.process.stdin is not None
    session.process.stdin.write('debug {"request_id": \n')
    assert json.loads(session.ask(json.dumps(REQUEST)))["request_id"] == 7
    out, err = session.close()
    assert out == ""
    assert "not JSON" in err and "byte" in err


def test_game_over_is_not_answered_and_its_fault_is_logged(session: Session) -> None:
    game_over = {
        "type": "game_over",
        "game_id": "g7",
        "seat": 1,
        "order": [0, 1],
        "players": ["a", "b"],
        "results": [],
        "fault": {"kind": "timeout", "detail": "no reply in 1000 ms", "request_id": 3},
    }
    assert session.process.stdin is not None
    session.process.stdin.write(json.dumps(game_over) + "\n")
    out, err = session.close()
    assert out == ""
    assert "game g7: fault timeout: no reply in 1000 ms" in err
    assert "after 1 game(s)" in err


def test_a_calza_offer_is_answered_with_pass_or_calza(session: Session) -> None:
    offer = {**REQUEST, "kind": "calza_offer", "calza_allowed": True, "dudo_allowed": False}
    answer = json.loads(session.ask(json.dumps(offer)))
    assert answer["action"] in ("pass", "calza")


def test_every_answer_is_legal_under_random_rulesets(session: Session) -> None:
    policies = {**harness.load_policies(), "cpp": session.act}
    assert harness.legality_soak(policies, games=15, seed=38) == 15


@pytest.mark.slow
def test_every_answer_is_legal_over_many_random_rulesets(session: Session) -> None:
    policies = {**harness.load_policies(), "cpp": session.act}
    assert harness.legality_soak(policies, games=400, seed=2024) == 400


def test_it_beats_the_random_bot(session: Session) -> None:
    policies = {"cpp": session.act, "random": harness.load_bot("random").act}
    standings = harness.tournament(policies, games=40, seed=38, ruleset=Ruleset())
    assert standings.win_rate("cpp") > 0.75, standings.table()
    calza_any = Ruleset(calza=CalzaRule.ANY)
    standings = harness.tournament(policies, games=40, seed=39, ruleset=calza_any)
    assert standings.win_rate("cpp") > 0.75, standings.table()
