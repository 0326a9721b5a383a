"""The arena's layers import one way only: a wrong-way import fails here.

engine <- protocol <- referee <- {tournament, checkbot} <- {league, ab, web, cluster} <- cli;
`store` (the league store) imports only records and below, and the tournament, the league and
the CLI use it; `submissions` (the bots entrants send a league server) sits above the tournament
and check-bot, and the league and the CLI import it; `matchmaking` (the ladder's matchmaker)
imports no other arena package, and the league and the CLI use it; `bots` imports no other
arena package; `kit` only engine and protocol. Every
part may import `arena.errors`, the root of the arena's errors, and `arena.text` (a bot's text
made fit to show), which import nothing; `arena.metrics` (the metrics for Prometheus) imports
nothing of the arena either, and the parts that count may import it. The benchmarks (the clone's
`bench/`, left out of the wheel) may import any part; no part imports them but `arena bench`'s
finder. Within the web, the live page imports nothing of the league server's own pages
(`arena.web.portal`), which only the CLI mounts, and the league's and the ladder's views
import neither the other.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "errors": set(),
    "text": set(),
    "metrics": set(),
    "protocol": {"engine", "errors", "text"},
    "kit": {"engine", "protocol", "errors", "text"},
    "bots": {"errors", "text"},
    "conformance": {"engine", "errors", "text"},
    "records": {"engine", "protocol", "errors", "text"},
    "rankings": {"engine", "protocol", "records", "errors", "text"},
    "matchmaking": {"errors", "text"},
    "store": {"engine", "protocol", "records", "errors", "text"},
    "referee": {"engine", "protocol", "records", "errors", "text"},
    "tournament": {
        "metrics",
        "engine",
        "protocol",
        "records",
        "rankings",
        "store",
        "referee",
        "bots",
        "errors",
        "text",
    },
    "checkbot": {"engine", "protocol", "records", "referee", "bots", "kit", "errors", "text"},
    "submissions": {
        "engine",
        "protocol",
        "records",
        "store",
        "referee",
        "bots",
        "tournament",
        "checkbot",
        "kit",
        "errors",
        "text",
    },
    "web": {
        "metrics",
        "store",
        "submissions",
        "checkbot",
        "engine",
        "protocol",
        "records",
        "rankings",
        "referee",
        "bots",
        "tournament",
        "errors",
        "text",
    },
    "league": {
        "metrics",
        "submissions",
        "matchmaking",
        "engine",
        "protocol",
        "records",
        "rankings",
        "store",
        "referee",
        "bots",
        "tournament",
        "errors",
        "text",
    },
    "cluster": {
        "engine",
        "protocol",
        "records",
        "rankings",
        "referee",
        "bots",
        "tournament",
        "errors",
        "text",
    },
    "ab": {
        "engine",
        "protocol",
        "records",
        "rankings",
        "referee",
        "bots",
        "tournament",
        "kit",
        "errors",
        "text",
    },
    "cli": {
        "metrics",
        "submissions",
        "matchmaking",
        "ab",
        "engine",
        "protocol",
        "records",
        "rankings",
        "store",
        "referee",
        "bots",
        "tournament",
        "checkbot",
        "league",
        "web",
        "cluster",
        "errors",
        "text",
    },
}
"""Each part, and the parts it may import (itself always)."""

KNOWN: set[tuple[str, str]] = {
    ("engine", "arena.conformance.runner"),
}
"""The wrong-way import let through:
`python -m engine.conformance` (a command, which nothing in the engine imports) hands its
command line to the runner's new home."""


def part_of(module: str) -> str | None:
    """The layer a dotted module name belongs to, None for the bare `arena` package.

    `arena.errors` is a module, not a package, but a part of its own all the same.
    """
    words = module.split(".")
    if words[0] == "engine":
        return "engine"
    if words[0] != "arena" or len(words) < 2:
        return None
    return words[1]


def imported(path: Path, module: str) -> frozenset[str]:
    """The dotted names `path` (the module `module`) imports, relative ones resolved."""
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    return imports_in(path.read_text(), package, str(path))


@functools.cache
def imports_in(source: str, package: str, filename: str) -> frozenset[str]:
    """The dotted names `source` (a module of `package`) imports. Cached by its text: the
    tests below walk the same files, and parsing them all is most of their time."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(names)


def violations(root: Path) -> list[str]:
    """Every wrong-way import under `root` (a tree holding `engine/` and `arena/`)."""
    found = []
    for path in sorted([*root.glob("arena/**/*.py"), *root.glob("engine/**/*.py")]):
        relative = path.relative_to(root)
        if "_proto" in relative.parts:
            continue
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        part = part_of(module)
        if part is None:
            continue
        if part not in ALLOWED:
            found.append(f"{relative}: {part!r} is not a known part of the arena")
            continue
        wrong = {part_of(name): name for name in sorted(imported(path, module), reverse=True)}
        for target, name in sorted(wrong.items(), key=lambda item: str(item[0])):
            if (part, name) in KNOWN:
                continue
            if target is not None and target != part and target not in ALLOWED[part]:
                found.append(f"{relative} imports {name}: {part} may not import {target}")
    return found


def test_every_import_goes_the_right_way() -> None:
    assert violations(ROOT) == []


BENCH_FINDER = "arena.cli.bench"
"""The one module of the package that may import the benchmarks: it finds them in a clone."""


def bench_imports(root: Path) -> list[str]:
    """Every module of the package (`arena`, `engine`) that imports the benchmarks (`bench`),
    which a wheel leaves out, but the finder."""
    found = []
    for path in sorted([*root.glob("arena/**/*.py"), *root.glob("engine/**/*.py")]):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        if module != BENCH_FINDER and any(
            name == "bench" or name.startswith("bench.") for name in imported(path, module)
        ):
            found.append(module)
    return found


def test_the_package_imports_no_benchmark() -> None:
    assert bench_imports(ROOT) == []
    assert (ROOT / "bench" / "cli.py").is_file()  # the benchmarks are where the finder looks


def test_a_benchmark_imported_by_the_package_is_caught(tmp_path: Path) -> None:
    for where, line in (
        ("arena/web/rogue.py", "from bench.web_pages import measure"),
        ("arena/cli/bench.py", "import bench.cli"),
    ):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / where).write_text(line + "\n")
    assert bench_imports(tmp_path) == ["arena.web.rogue"]


PORTAL = "arena.web.portal"
"""The league server's own pages: the rest of the web (the live page) does not import them."""
VIEWS = ("arena.web.league_view", "arena.web.ladder_view")
"""What the pages read of the league and of its ladder: two ideas, neither importing the other."""


def web_imports(root: Path) -> list[str]:
    """Every import within the web that goes the wrong way: the live page's of the portal, and
    either view's of the other."""

    def within(name: str, package: str) -> bool:
        return name == package or name.startswith(f"{package}.")

    found = []
    for path in sorted(root.glob("arena/web/**/*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        names = sorted(imported(path, module))
        if not within(module, PORTAL):
            found += [f"{module} imports {n}" for n in names if within(n, PORTAL)]
        if module in VIEWS:
            other = VIEWS[1 - VIEWS.index(module)]
            found += [f"{module} imports {n}" for n in names if within(n, other)]
    return found


def test_the_live_page_imports_no_portal_page_and_the_views_neither_other() -> None:
    assert web_imports(ROOT) == []


def test_a_wrong_way_import_within_the_web_is_caught(tmp_path: Path) -> None:
    for where, line in (
        ("arena/web/spectator.py", "from arena.web.portal.sessions import Sessions"),
        ("arena/web/league_view.py", "from arena.web import ladder_view"),
        ("arena/web/ladder_view.py", "from arena.web.league_view import League"),
        ("arena/web/portal/authors.py", "from arena.web.ladder_view import LadderFeed"),
    ):
        (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / where).write_text(line + "\n")
    assert web_imports(tmp_path) == [
        "arena.web.ladder_view imports arena.web.league_view",
        "arena.web.ladder_view imports arena.web.league_view.League",
        "arena.web.league_view imports arena.web.ladder_view",
        "arena.web.spectator imports arena.web.portal.sessions",
        "arena.web.spectator imports arena.web.portal.sessions.Sessions",
    ]


GENERATED = "arena.protocol._proto"


def generated_imports(root: Path) -> list[str]:
    """Every import of the generated code outside `arena/protocol`, which alone may: the rest
    go through `arena.protocol.messages`."""
    found = []
    trees = ("arena", "engine", "bench", "tests", "sample_bots", "kit", "docs")
    for path in sorted(p for tree in trees for p in (root / tree).rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[:2] == ("arena", "protocol") or "node_modules" in relative.parts:
            continue
        if GENERATED.rsplit(".", 1)[1] not in path.read_text():
            continue  # an import of it names `_proto` in its text: the rest need no parse
        module = ".".join(relative.with_suffix("").parts)
        for name in sorted(imported(path, module)):
            if name == GENERATED or name.startswith(f"{GENERATED}."):
                found.append(f"{relative} imports {name}")
                break
    return found


def test_only_the_protocol_imports_the_generated_code() -> None:
    assert generated_imports(ROOT) == []


def test_an_import_of_the_generated_code_elsewhere_is_caught(tmp_path: Path) -> None:
    rogue = tmp_path / "arena" / "referee" / "rogue.py"
    rogue.parent.mkdir(parents=True)
    rogue.write_text("from arena.protocol._proto.perudo.v1 import referee_pb2 as pb\n")
    inside = tmp_path / "arena" / "protocol" / "wire.py"
    inside.parent.mkdir(parents=True)
    inside.write_text("from arena.protocol._proto.perudo.v1 import referee_pb2 as pb\n")
    deep = tmp_path / "tests" / "arena" / "test_rogue.py"
    deep.parent.mkdir(parents=True)
    deep.write_text("import arena.protocol._proto.perudo.v1.admin_pb2\n")
    assert generated_imports(tmp_path) == [
        "arena/referee/rogue.py imports arena.protocol._proto.perudo.v1",
        "tests/arena/test_rogue.py imports arena.protocol._proto.perudo.v1.admin_pb2",
    ]


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("engine/rogue.py", "import arena.protocol.wire"),
        ("arena/protocol/rogue.py", "from arena.referee import session"),
        ("arena/bots/rogue.py", "from arena.referee.session import Session"),
        ("arena/kit/rogue.py", "from ..referee import match"),
        ("arena/referee/rogue.py", "import arena.tournament.play.runner"),
        ("arena/league/rogue.py", "from arena.cli import main"),
        ("arena/cluster/rogue.py", "from arena.league import store"),
        ("arena/tournament/rogue.py", "from arena.cluster import hosts"),
        ("arena/errors.py", "from arena.bots.isolation import sandbox"),
        ("arena/text.py", "from arena.errors import ArenaError"),
    ],
)
def test_a_wrong_way_import_is_caught(tmp_path: Path, where: str, line: str) -> None:
    target = tmp_path / where
    target.parent.mkdir(parents=True)
    target.write_text(line + "\n")
    assert len(violations(tmp_path)) == 1


def test_the_league_store_loads_without_grpc() -> None:
    probe = "import sys, arena.store; print('grpc' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("where", ["arena/kit/rogue.py", "arena/bots/rogue.py"])
def test_every_part_may_import_the_errors_root(tmp_path: Path, where: str) -> None:
    target = tmp_path / where
    target.parent.mkdir(parents=True)
    target.write_text("from arena.errors import ArenaError\n")
    assert part_of("arena.errors") == "errors"
    assert violations(tmp_path) == []


@pytest.mark.parametrize("where", ["arena/records/rogue.py", "arena/bots/rogue.py"])
def test_every_part_may_import_the_text_module(tmp_path: Path, where: str) -> None:
    target = tmp_path / where
    target.parent.mkdir(parents=True)
    target.write_text("from arena.text import printable\n")
    assert part_of("arena.text") == "text"
    assert violations(tmp_path) == []
