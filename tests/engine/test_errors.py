"""engine.errors: one tree, drawn in its docstring, and nothing raised outside it."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import engine
from engine import (
    DUDO,
    DealError,
    MalformedActionError,
    NotInGameError,
    PerudoError,
    RulesetError,
    SeedError,
    SetupError,
    apply,
    deal,
    fault,
    left_of,
    new_game,
    preset,
)
from engine import errors as errors_module

ENGINE_DIR = Path(engine.__file__).parent
TREE = {
    cls
    for _, cls in inspect.getmembers(errors_module, inspect.isclass)
    if issubclass(cls, Exception) and cls.__module__ == errors_module.__name__
}
# LegalActions indexing signals a bad index the way every sequence does.
PROTOCOL = {"IndexError"}


def test_every_error_is_under_the_root_and_drawn_in_the_docstring() -> None:
    doc = errors_module.__doc__ or ""
    for cls in TREE:
        assert issubclass(cls, PerudoError), cls
        assert cls.__name__ in engine.__all__, cls
        drawn = [line for line in doc.splitlines() if f" {cls.__name__} " in f"{line} "]
        assert drawn, f"{cls.__name__} is not drawn in engine.errors"
        also_value_error = "(ValueError)" in drawn[0]
        assert issubclass(cls, ValueError) == also_value_error, cls


def _raises(path: Path) -> list[tuple[int, str]]:
    """Every `raise Class(...)` or `raise Class` in a module: the line and the class.

    `raise error` (a lower-case name: an error built elsewhere, as `apply` raises
    the refusal it was given) is the builder's business and is left out.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = ast.unparse(exc)
        if isinstance(node.exc, ast.Call) or name[:1].isupper():
            found.append((node.lineno, name))
    return found


def test_the_engine_raises_only_leaves_of_its_tree() -> None:
    leaves = {cls.__name__ for cls in TREE} - {"PerudoError"}
    checked = 0
    for path in sorted(ENGINE_DIR.glob("*.py")):
        for line, name in _raises(path):
            checked += 1
            assert name in leaves | PROTOCOL, f"{path.name}:{line} raises {name}"
    assert checked > 10  # the walk does find the raises


def test_the_walk_sees_a_wrong_raise(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(error):\n    raise PerudoError('x')\n    raise ValueError\n    raise error\n"
    )
    assert _raises(bad) == [(2, "PerudoError"), (3, "ValueError")]


@pytest.mark.parametrize(
    ("players", "opener", "dice"),
    [(1, 0, None), (3, 0, [0, 0, 5]), (3, 1, [5, 0, 5]), (2, 2, None), (2, 0, [6, 5])],
)
def test_impossible_tables_are_setup_errors(
    players: int, opener: int, dice: list[int] | None
) -> None:
    with pytest.raises(SetupError) as caught:
        new_game(engine.Ruleset(), players, opener, dice=dice)
    assert isinstance(caught.value, ValueError)


def test_nobody_is_left_of_anyone_at_an_empty_table() -> None:
    assert left_of((0, 3, 0, 2), 1) == 3 and left_of((0, 3, 0, 2), 3) == 1
    with pytest.raises(SetupError, match="no seat has dice"):
        left_of((0, 0, 0), 1)


def test_a_non_action_is_malformed_not_a_type_error() -> None:
    state = deal(new_game(engine.Ruleset(), 2, 0), [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]])
    with pytest.raises(MalformedActionError, match="not an action"):
        apply(state, 0, "bid 1 2")  # type: ignore[arg-type]  # text, not parsed
    assert engine.is_legal(apply(state, 0, engine.Bid(1, 2)), 1, DUDO)


def test_faults_by_a_seat_not_playing_are_not_in_game_errors() -> None:
    state = new_game(engine.Ruleset(), 3, 0, dice=[2, 0, 3])
    with pytest.raises(NotInGameError):
        fault(state, 1)
    over = fault(state, 0)
    assert over.is_over
    with pytest.raises(NotInGameError, match="game is over"):
        fault(over, 2)


def test_value_errors_stay_value_errors_for_callers_that_catch_them() -> None:
    for make, error in [
        (lambda: preset("nope"), RulesetError),
        (lambda: engine.seed_from_hex("xyz"), SeedError),
        (lambda: deal(new_game(engine.Ruleset(), 2, 0), [[1], [2]]), DealError),
        (lambda: engine.parse_action("bid two 3"), MalformedActionError),
    ]:
        with pytest.raises(error) as caught:
            make()
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, PerudoError)
