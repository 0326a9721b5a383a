"""arena.errors: one tree under ArenaError, drawn in its docstring; no built-in raised across.

The kit, the bot's side, keeps a tree of its own under KitError (arena.kit.errors).
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
from pathlib import Path

import pytest

import arena
from arena import errors as arena_errors
from arena.errors import ArenaError
from arena.kit import errors as kit_errors
from arena.kit.errors import KitError

ARENA_DIR = Path(arena.__file__).parent
BUILT_IN = {
    name
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type) and issubclass(getattr(builtins, name), Exception)
}
ALLOWED: dict[tuple[str, str], str] = {
    ("protocol/wire.py", "TypeError"): "a value that is no answer, handed in by code: a bug",
    ("protocol/protogen.py", "RuntimeError"): "the developer's code generator, not the arena",
    ("rankings/__init__.py", "AttributeError"): "a package's lazy names (PEP 562) must say a "
    "name it lacks as Python's import machinery expects",
    ("league/ladder/ratings.py", "IndexError"): "a rating path is a Sequence: an index past "
    "its end must say so as Python's sequences do",
    ("league/ladder/ratings.py", "KeyError"): "the rating paths are a Mapping: a name it lacks "
    "must say so as Python's mappings do",
    ("league/ladder/ratings.py", "ValueError"): "a copy of a copy asked for by code: a bug",
}
"""Built-in raises that stay, and why: neither is a failure the CLI or a caller handles."""


def _modules() -> list[str]:
    names = []
    benchmarks = ARENA_DIR.parent / "bench"  # the clone's, beside the package, drawn with it
    for path in sorted([*ARENA_DIR.rglob("*.py"), *benchmarks.rglob("*.py")]):
        relative = path.relative_to(ARENA_DIR.parent)
        if "_proto" in relative.parts:
            continue
        names.append(".".join(relative.with_suffix("").parts).removesuffix(".__init__"))
    return names


def _error_classes() -> set[type[BaseException]]:
    """Every exception class an arena module defines (its own, not ones it imports)."""
    found: set[type[BaseException]] = set()
    for name in _modules():
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == name:
                found.add(cls)
    return found


def _drawn(doc: str, cls: type[BaseException]) -> str:
    lines = [line for line in doc.splitlines() if f" {cls.__name__} " in f"{line} "]
    assert lines, f"{cls.__module__}.{cls.__name__} is not drawn in its tree"
    return lines[0]


def test_every_arena_error_is_under_its_root_and_drawn() -> None:
    classes = _error_classes()
    kit = {cls for cls in classes if cls.__module__.startswith("arena.kit")}
    assert len(classes - kit) > 10 and len(kit) >= 3  # the walk does find them
    for cls in classes - kit:
        assert issubclass(cls, ArenaError), f"{cls.__module__}.{cls.__name__}"
        line = _drawn(arena_errors.__doc__ or "", cls)
        for also in (ValueError, OSError):
            marked = f"({also.__name__})" in line
            assert issubclass(cls, also) == marked, f"{cls.__name__} and {also.__name__}"
    for cls in kit:
        assert issubclass(cls, KitError) and not issubclass(cls, ArenaError), cls
        line = _drawn(kit_errors.__doc__ or "", cls)
        assert issubclass(cls, ConnectionError) == ("(ConnectionError)" in line), cls


def _handled(handlers: list[ast.ExceptHandler]) -> set[str]:
    names: set[str] = set()
    for handler in handlers:
        if handler.type is None:
            continue
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names.update(ast.unparse(t) for t in types)
    return names


def _raises(path: Path) -> list[tuple[int, str]]:
    """Every `raise Class(...)` or `raise Class` of a built-in exception that leaves its try.

    A raise caught by the very `try` around it is the function's own control
    flow, never seen by a caller; `SystemExit` is a program ending, not an error.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    caught_here: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            names = _handled(node.handlers)
            for inner in (n for stmt in node.body for n in ast.walk(stmt)):
                if isinstance(inner, ast.Raise) and inner.exc is not None:
                    exc = inner.exc.func if isinstance(inner.exc, ast.Call) else inner.exc
                    if ast.unparse(exc) in names:
                        caught_here.add(id(inner))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None or id(node) in caught_here:
            continue
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = ast.unparse(exc)
        if name in BUILT_IN or name == "ArenaError":
            found.append((node.lineno, name))
    return found


def test_the_arena_raises_no_built_in_error_across_a_module() -> None:
    wrong, allowed = [], 0
    for path in sorted(ARENA_DIR.rglob("*.py")):
        relative = path.relative_to(ARENA_DIR).as_posix()
        if "_proto" in relative:
            continue
        for line, name in _raises(path):
            if (relative, name) in ALLOWED:
                allowed += 1
            else:
                wrong.append(f"arena/{relative}:{line} raises {name}")
    assert wrong == []
    assert allowed == len(ALLOWED)  # every allowance is still needed


def test_the_walk_sees_a_wrong_raise(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(error):\n"
        "    raise ArenaError('x')\n"
        "    raise ValueError\n"
        "    raise error\n"
        "    try:\n"
        "        raise ValueError('caught below')\n"
        "    except (KeyError, ValueError):\n"
        "        pass\n"
        "    try:\n"
        "        raise RuntimeError('not caught here')\n"
        "    except ValueError:\n"
        "        pass\n"
        "    raise SystemExit(1)\n"
    )
    assert _raises(bad) == [(2, "ArenaError"), (3, "ValueError"), (10, "RuntimeError")]


@pytest.mark.parametrize(
    ("module", "name", "also"),
    [
        ("arena.bots.run.capacity", "JobsError", ValueError),
        ("arena.tournament.schedule.round_robin", "ScheduleError", ValueError),
        ("arena.referee.service.referee_server", "ListenError", OSError),
        ("arena.cli.replay", "ReplayNotFoundError", FileNotFoundError),
        ("arena.kit.errors", "SessionLostError", ConnectionError),
    ],
)
def test_errors_keep_the_built_in_base_their_callers_catch(
    module: str, name: str, also: type[Exception]
) -> None:
    assert issubclass(getattr(importlib.import_module(module), name), also)


def test_a_schedule_that_cannot_be_is_a_schedule_error() -> None:
    from arena.tournament.schedule.round_robin import ScheduleError, build

    with pytest.raises(ScheduleError, match="unique") as caught:
        build(["a", "a", "b"], 2, 4, b"\0" * 32)
    assert isinstance(caught.value, ArenaError)


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no replay of game"), ("{not json", "is not a replay")],
)
def test_the_cli_says_one_line_for_a_replay_it_cannot_tell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    from arena.cli.main import main

    game = tmp_path / "t1" / "replays" / "g1.json"
    if content is not None:
        game.parent.mkdir(parents=True)
        game.write_text(content)
    code = main(["replay", str(game) if content is not None else "g1", "--results", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("arena replay: ") and message in err
    assert len(err.strip().splitlines()) == 1
