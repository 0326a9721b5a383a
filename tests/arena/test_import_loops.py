"""No import loop in the league, the tournament or the web is closed by a type-only import.

A module that names another under `if TYPE_CHECKING:` while that one imports it back (at
once, in a function, or through others) hides a loop: the two are one part cut in two, or
one is handed the other whole where it needs a little of it. The league server's parts get
the narrow interface they use (`arena.league.grounds`) instead of the server, and the web's
pages read the ladder through protocols of their own (`arena.web.ladder_source`). A
loop left would be listed below, with why; none is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "arena"
CHECKED = ("arena.league", "arena.tournament", "arena.web")

KNOWN: set[tuple[str, str]] = set()
"""(importer, imported) pairs whose type-only import still closes a loop."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, typing_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement under `tree`, and whether it is only for the type checker."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, typing_only
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), typing_only)
        else:
            yield from _imports(node, typing_only)


def _targets(node: ast.stmt, module: str, modules: dict[str, Path]) -> set[str]:
    """The arena modules an import statement loads: each named module and its packages."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".")
            is_package = modules[module].name == "__init__.py"
            anchor = package[: len(package) - node.level + (1 if is_package else 0)]
            base = ".".join([*anchor, *([base] if base else [])])
        names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
    loaded = set()
    for name in names:
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if prefix in modules and prefix != module:
                loaded.add(prefix)
    return loaded


def _graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """The arena's runtime imports (module to modules), and its type-only ones as pairs."""
    modules = _modules()
    runtime: dict[str, set[str]] = {name: set() for name in modules}
    typing_only: set[tuple[str, str]] = set()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node, only in _imports(tree):
            for target in _targets(node, name, modules):
                if only:
                    typing_only.add((name, target))
                else:
                    runtime[name].add(target)
    return runtime, typing_only


def _reaches(runtime: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for following in runtime[todo.pop()]:
            if following == goal:
                return True
            if following not in seen:
                seen.add(following)
                todo.append(following)
    return False


def loops_closed_by_type_only_imports() -> set[tuple[str, str]]:
    runtime, typing_only = _graph()
    return {
        (importer, imported)
        for importer, imported in typing_only
        if importer.startswith(CHECKED) and _reaches(runtime, imported, importer)
    }


def test_no_loop_is_closed_by_a_type_only_import_but_the_known_ones() -> None:
    found = loops_closed_by_type_only_imports()
    assert found == KNOWN, (
        f"new: {sorted(found - KNOWN)}; gone (take them off KNOWN): {sorted(KNOWN - found)}. "
        "Give the importer a narrow protocol of what it uses instead of the module that "
        "imports it back."
    )


def test_an_import_in_a_function_is_a_runtime_one() -> None:
    """A loop closed by an import inside a function (`import` when called) is not hidden."""
    tree = ast.parse(
        "if TYPE_CHECKING:\n    import arena.a\nelse:\n    import arena.b\n"
        "def late():\n    import arena.c\n"
    )
    said = [(ast.unparse(node), only) for node, only in _imports(tree)]
    assert said == [("import arena.a", True), ("import arena.b", False), ("import arena.c", False)]
