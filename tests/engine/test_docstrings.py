"""The engine's public face: every name it exports says what it is for.

A constant cannot carry a docstring of its own (`PACO.__doc__` is int's), so
constants are held to an attribute docstring: a string right after their
assignment in the module that defines them.
"""

from __future__ import annotations

import ast
import inspect
import itertools
from pathlib import Path

import pytest

import engine

ENGINE_DIR = Path(engine.__file__).parent


def _attribute_docstrings() -> dict[str, str]:
    """Module-level names of the engine followed by a string, and that string."""
    documented: dict[str, str] = {}
    for path in ENGINE_DIR.glob("*.py"):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for node, after in itertools.pairwise(body):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            else:
                continue
            if not (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)):
                continue
            text = after.value.value
            if isinstance(text, str):
                documented.update((t.id, text) for t in targets if isinstance(t, ast.Name))
    return documented


ATTRIBUTE_DOCS = _attribute_docstrings()


def _own_doc(obj: object) -> str | None:
    """The docstring written for `obj` itself, not one it inherits or a dataclass makes up."""
    if inspect.isclass(obj):
        doc = vars(obj).get("__doc__")
        # A dataclass without a docstring gets its signature as one: "Bid(count: int, ...)".
        if doc and doc.startswith(f"{obj.__name__}("):
            return None
        return doc
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return obj.__doc__
    return None


@pytest.mark.parametrize("name", engine.__all__)
def test_every_public_name_has_a_docstring(name: str) -> None:
    obj = getattr(engine, name)
    doc = _own_doc(obj) if inspect.isclass(obj) or inspect.isfunction(obj) else None
    if doc is None and not (inspect.isclass(obj) or inspect.isfunction(obj)):
        doc = ATTRIBUTE_DOCS.get(name)
    assert doc and doc.strip(), f"engine.{name} has no docstring"


def _public_members() -> list[tuple[str, str, object]]:
    members: list[tuple[str, str, object]] = []
    for name in engine.__all__:
        cls = getattr(engine, name)
        if not inspect.isclass(cls) or cls.__module__.split(".")[0] != "engine":
            continue
        for member, value in vars(cls).items():
            if member.startswith("_"):
                continue
            if isinstance(value, property | classmethod | staticmethod) or inspect.isfunction(
                value
            ):
                members.append((name, member, value))
    return members


@pytest.mark.parametrize(("cls", "member", "value"), _public_members())
def test_every_public_method_and_property_has_a_docstring(
    cls: str, member: str, value: object
) -> None:
    function = value.__func__ if isinstance(value, classmethod | staticmethod) else value
    assert inspect.getdoc(function), f"engine.{cls}.{member} has no docstring"


def test_the_check_sees_a_missing_docstring() -> None:
    class Bare:
        pass

    def bare() -> None:
        pass

    assert _own_doc(Bare) is None and _own_doc(bare) is None
    assert "PRESETS" in ATTRIBUTE_DOCS and "NO_SUCH_NAME" not in ATTRIBUTE_DOCS
