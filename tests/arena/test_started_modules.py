"""Every module the arena starts by name (`python -m NAME`) is one that exists.

A bot starts through `python -m arena.bots.run.launcher`, the warden as `python -m
arena.bots.run.warden`, the check's bridge and `arena play`'s human seat likewise: each
name is a string, which neither an import nor mypy follows. A module moved without its
string would only show when a bot first failed to start (inside the sandbox, as an exit
status). So the names are found in the code, after `"-m"` in a command (a literal, or a
module-level constant of the same file), and each must be a module or a package of the
tree.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("arena", "engine", "bench", "tests")
OURS = ("arena", "engine", "bench")


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module-level string constants of a file (`BRIDGE = "arena.kit.bridge"`)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    found[target.id] = node.value.value
    return found


def started_by_name(path: Path) -> list[str]:
    """The module names `path` starts with `-m`: what follows a "-m" in a list, a tuple or a
    call's arguments."""
    text = path.read_text()
    if '"-m"' not in text:
        return []  # no command with `-m` in it: the rest need no parse
    tree = ast.parse(text)
    constants = _constants(tree)
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple):
            words = node.elts
        elif isinstance(node, ast.Call):
            words = node.args
        else:
            continue
        for flag, name in itertools.pairwise(words):
            if not (isinstance(flag, ast.Constant) and flag.value == "-m"):
                continue
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                names.append(name.value)
            elif isinstance(name, ast.Name) and name.id in constants:
                names.append(constants[name.id])
    return names


def missing_modules(root: Path) -> list[str]:
    """Each `-m NAME` of ours under `root` that names no module or package there."""
    missing = []
    for tree in TREES:
        for path in sorted((root / tree).rglob("*.py")):
            if "node_modules" in path.parts or "_proto" in path.parts:
                continue
            for name in started_by_name(path):
                if name.split(".")[0] not in OURS:
                    continue  # pip, venv: not ours to check
                where = root.joinpath(*name.split("."))
                if not (where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()):
                    missing.append(f"{path.relative_to(root)}: -m {name}")
    return missing


def test_every_module_started_by_name_exists() -> None:
    assert missing_modules(ROOT) == []


def test_a_module_started_by_a_name_it_no_longer_has_is_caught(tmp_path: Path) -> None:
    (tmp_path / "arena" / "bots" / "run").mkdir(parents=True)
    (tmp_path / "arena" / "bots" / "run" / "launcher.py").write_text("")
    (tmp_path / "arena" / "kit").mkdir()
    (tmp_path / "arena" / "kit" / "__init__.py").write_text("")
    (tmp_path / "arena" / "kit" / "bridge.py").write_text("")
    spawn = tmp_path / "arena" / "bots" / "run" / "spawn.py"
    spawn.write_text(
        "import sys\n"
        'BRIDGE = "arena.kit.bridge"\n'
        'MOVED = "arena.bots.warden"\n'
        'launcher = [sys.executable, "-m", "arena.bots.launcher", "--"]\n'
        'kept = [sys.executable, "-m", "arena.bots.run.launcher"]\n'
        'bridged = ("python", "-m", BRIDGE)\n'
        'run(sys.executable, "-m", MOVED)\n'
        'tools = ["python", "-m", "pip", "list"]\n'
    )
    assert missing_modules(tmp_path) == [
        "arena/bots/run/spawn.py: -m arena.bots.launcher",
        "arena/bots/run/spawn.py: -m arena.bots.warden",
    ]
