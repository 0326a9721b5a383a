"""Run rule cases written in the format of docs/conformance.md.

    python -m arena.conformance FILE [FILE ...]

Prints `PASS <id>` or `FAIL <id>: <reason>` per case, then `N passed, M
failed`, and exits 0 only when nothing failed. Cases come from anywhere, so
a case that is malformed or inconsistent is a FAIL with its reason: never a
crash, never a pass, and no case is known by name.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.errors import ArenaError
from engine.actions import Action, parse_action
from engine.errors import IllegalActionError, PerudoError
from engine.game import apply, deal, fault, new_game
from engine.ruleset import Ruleset
from engine.state import GameState, RoundEnd

_CASE_KEYS = {"id", "about", "rules", "start", "steps"}
_START_KEYS = {"dice", "opener", "palifico_round", "palifico_used"}
_STEP_KINDS = {"roll", "do", "refuse", "expect", "fault"}


class CaseError(ArenaError):
    """The case itself is malformed or its expectation is not met."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One case's result, kept apart from printing so the tests can read it."""

    case_id: str
    reason: str | None  # None means the case passed

    def line(self) -> str:
        """The line the format promises: `PASS <id>` or `FAIL <id>: <reason>`."""
        return (
            f"PASS {self.case_id}" if self.reason is None else f"FAIL {self.case_id}: {self.reason}"
        )


def run_case(case: Any) -> str | None:
    """The reason `case` fails, or None when it passes."""
    try:
        _run(case)
    except (CaseError, PerudoError) as error:
        return str(error)
    except Exception as error:  # a case from elsewhere must never crash the runner
        return f"malformed case ({type(error).__name__}: {error})"
    return None


def _run(case: Any) -> None:
    if not isinstance(case, dict):
        raise CaseError(f"a case is a JSON object, got {type(case).__name__}")
    _no_unknown_keys(case, _CASE_KEYS, "case")
    rules = case.get("rules", {})
    if not isinstance(rules, dict):
        raise CaseError("'rules' must be an object of ruleset fields")
    ruleset = Ruleset.from_mapping(rules)
    state = _start(ruleset, case.get("start"))
    absent = frozenset(seat for seat, count in enumerate(state.dice) if count == 0)
    steps = case.get("steps")
    if not isinstance(steps, list):
        raise CaseError("'steps' must be a list")
    for number, step in enumerate(steps, start=1):
        try:
            state = _step(state, step, absent)
        except (CaseError, PerudoError) as error:
            raise CaseError(f"step {number}: {error}") from None


def _start(ruleset: Ruleset, start: Any) -> GameState:
    if not isinstance(start, dict):
        raise CaseError("'start' must be an object with 'dice' and 'opener'")
    _no_unknown_keys(start, _START_KEYS, "start")
    dice = _int_list(start.get("dice"), "start.dice")
    opener = _int(start.get("opener"), "start.opener")
    palifico = start.get("palifico_round", False)
    if not isinstance(palifico, bool):
        raise CaseError("start.palifico_round must be true or false")
    used = _int_list(start.get("palifico_used", []), "start.palifico_used")
    return new_game(ruleset, len(dice), opener, dice=dice, palifico=palifico, palifico_used=used)


def _step(state: GameState, step: Any, absent: frozenset[int]) -> GameState:
    if not isinstance(step, dict):
        raise CaseError(f"a step is an object, got {step!r}")
    kinds = [k for k in step if k in _STEP_KINDS]
    extra = set(step) - _STEP_KINDS - {"seat"}
    if len(kinds) != 1 or extra:
        raise CaseError(
            f"a step has exactly one of {sorted(_STEP_KINDS)} (and maybe 'seat'): {step}"
        )
    kind = kinds[0]
    if "seat" in step and kind not in {"do", "refuse"}:
        raise CaseError(f"'seat' goes only with 'do' or 'refuse': {step}")
    if kind == "expect":
        _expect(state, step["expect"], absent)
        return state
    return _STEPS[kind](state, step)


def _roll(state: GameState, step: dict[str, Any]) -> GameState:
    hands = step["roll"]
    if not isinstance(hands, list):
        raise CaseError("'roll' must be a list of hands")
    return deal(state, [_int_list(hand, "a rolled hand") for hand in hands])


def _action_and_seat(state: GameState, step: dict[str, Any], kind: str) -> tuple[int, Action]:
    seat = _int(step["seat"], "seat") if "seat" in step else state.to_act
    return seat, parse_action(step[kind])


def _do(state: GameState, step: dict[str, Any]) -> GameState:
    seat, action = _action_and_seat(state, step, "do")
    try:
        return apply(state, seat, action)
    except IllegalActionError as error:
        raise CaseError(f"'{action}' by seat {seat} was refused: {error}") from None


def _refuse(state: GameState, step: dict[str, Any]) -> GameState:
    seat, action = _action_and_seat(state, step, "refuse")
    try:
        after = apply(state, seat, action)
    except IllegalActionError:
        return state
    raise CaseError(f"'{action}' by seat {seat} was accepted (to_act became {after.to_act})")


def _fault(state: GameState, step: dict[str, Any]) -> GameState:
    return fault(state, _int(step["fault"], "fault"))


def _expect(state: GameState, wanted: Any, absent: frozenset[int]) -> None:
    """Check the keys a case names; `absent` are the seats already out at the case's start."""
    if not isinstance(wanted, dict):
        raise CaseError("'expect' must be an object")
    for key, value in wanted.items():
        reader = _EXPECT.get(key)
        if reader is None:
            raise CaseError(f"unknown expect key {key!r} (known: {', '.join(sorted(_EXPECT))})")
        actual = reader(state, absent)
        # Compared as JSON text: Python's 1 == True == 1.0 would let `"palifico": 1` pass.
        if json.dumps(_plain(actual)) != json.dumps(value):
            raise CaseError(
                f"expected {key} = {json.dumps(value)}, got {json.dumps(_plain(actual))}"
            )


def _last_count(state: GameState) -> int | None:
    """The count of the last dudo or calza; a round ended by a fault counted nothing."""
    for outcome in reversed(state.history):
        if outcome.end is not RoundEnd.FAULT:
            return outcome.counted
    return None


def _order(state: GameState, absent: frozenset[int]) -> tuple[int, ...] | None:
    """The finishing order of the seats the case started with; null while the game goes on.

    A case does not say in which order its absent seats went out, so they are not ranked.
    """
    if not state.is_over:
        return None
    return tuple(seat for seat in state.order if seat not in absent)


_STEPS: dict[str, Callable[[GameState, dict[str, Any]], GameState]] = {
    "roll": _roll,
    "do": _do,
    "refuse": _refuse,
    "fault": _fault,
}

_EXPECT: dict[str, Callable[[GameState, frozenset[int]], Any]] = {
    "dice": lambda s, _: s.dice,
    "to_act": lambda s, _: s.to_act,
    "bid": lambda s, _: None if s.standing is None else (s.standing.bid.count, s.standing.bid.face),
    "palifico": lambda s, _: s.palifico,
    "count": lambda s, _: _last_count(s),
    "winner": lambda s, _: s.winner,
    "order": _order,
}


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, tuple | list) else value


def _int(value: Any, what: str) -> int:
    if type(value) is not int:
        raise CaseError(f"{what} must be a whole number, got {value!r}")
    return value


def _int_list(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise CaseError(f"{what} must be a list of whole numbers, got {value!r}")
    return [_int(v, what) for v in value]


def _no_unknown_keys(obj: dict[str, Any], known: set[str], what: str) -> None:
    unknown = sorted(set(obj) - known)
    if unknown:
        raise CaseError(f"unknown {what} key(s) {unknown} (known: {sorted(known)})")


def load_cases(path: Path) -> Iterator[tuple[str, Any]]:
    """(id, case) pairs from one file; a file that cannot be read yields one failing pseudo-case."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        yield str(path), CaseError(f"cannot read cases: {error}")
        return
    cases = data.get("cases") if isinstance(data, dict) else data
    if isinstance(data, dict) and set(data) != {"cases"}:
        yield (
            str(path),
            CaseError(f'a file is {{"cases": [...]}} or a list, got keys {sorted(data)}'),
        )
        return
    if not isinstance(cases, list):
        yield str(path), CaseError("'cases' must be a list")
        return
    for index, case in enumerate(cases):
        case_id = case.get("id") if isinstance(case, dict) else None
        if not isinstance(case_id, str) or not case_id:
            yield f"{path}#{index}", CaseError("a case needs a non-empty string 'id'")
        else:
            yield case_id, case


def run_files(paths: Sequence[Path], out: TextIO) -> tuple[int, int]:
    """Run every case of `paths` in order, one line each to `out`; (passed, failed).

    Case ids are unique across all the files, so a case copied into two of
    them is caught rather than counted twice.
    """
    passed = failed = 0
    seen: set[str] = set()
    for path in paths:
        for case_id, case in load_cases(path):
            if isinstance(case, CaseError):
                verdict = Verdict(case_id, str(case))
            elif case_id in seen:
                verdict = Verdict(case_id, "duplicate case id")
            else:
                verdict = Verdict(case_id, run_case(case))
            seen.add(case_id)
            print(verdict.line(), file=out)
            if verdict.reason is None:
                passed += 1
            else:
                failed += 1
    print(f"{passed} passed, {failed} failed", file=out)
    return passed, failed


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: the exit status is 0 only when every case passed."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or any(a in {"-h", "--help"} for a in args):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    _, failed = run_files([Path(a) for a in args], sys.stdout)
    return 1 if failed else 0
