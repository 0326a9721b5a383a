"""`arena run` needs none of the extras: with each extra's packages missing, the CLI loads."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"

# A process in which importing any extra's package fails as it would were it not installed.
PROBE = """
import importlib.abc, sys
BLOCKED = set(sys.argv[1].split(","))
class Missing(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Missing())
import arena.cli.main, arena.web.replay_page, arena.tournament.tournament
print("loaded")
"""


def _name(requirement: str) -> str:
    return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("-", "_")


def extras_only() -> set[str]:
    """The import names of what the extras add to the arena's own dependencies."""
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    core = {_name(r) for r in project["dependencies"]}
    extras = {
        _name(r)
        for extra in project["optional-dependencies"].values()
        for r in extra
        if _name(r) != "perudo_arena"
    }
    return extras - core


def test_the_cli_and_what_every_run_uses_load_without_any_extra() -> None:
    blocked = extras_only()
    assert {"aiohttp", "ray", "psycopg", "playwright"} <= blocked  # the probe blocks real ones
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(sorted(blocked))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,  # the assert below tells why it failed
    )
    assert done.returncode == 0 and done.stdout.strip() == "loaded", done.stderr[-2000:]
