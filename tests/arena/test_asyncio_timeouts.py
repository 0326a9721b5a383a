"""The arena times its waits with `asyncio.timeout`, never `asyncio.wait_for`.

On Python 3.11, `wait_for` drops a cancel that comes in the same turn of the loop as the
result it waits for: the caller goes on as if never cancelled. A task that waits in a loop
then outlives its stop (a league server ignored its SIGTERM for good this way).
`asyncio.timeout` counts cancels (`Task.uncancel`) and loses none. The kit, which bots run,
is held to it too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import arena

ARENA_DIR = Path(arena.__file__).parent


def test_no_module_of_the_arena_calls_asyncio_wait_for() -> None:
    found = []
    for path in sorted(ARENA_DIR.rglob("*.py")):
        if "_proto" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "wait_for"
                and isinstance(node.value, ast.Name)
                and node.value.id == "asyncio"
            ):
                found.append(f"{path.relative_to(ARENA_DIR.parent)}:{node.lineno}")
    assert found == []
