"""The documentation describes the project from inside it: a clone has everything it links."""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from engine import Ruleset

ROOT = Path(__file__).parents[1]
RULES = ROOT / "docs" / "rules.md"
_LINK = re.compile(r"\]\(([^)#\s]+)")


def _docs() -> list[Path]:
    skip = {".venv", "node_modules", ".git", "build", "target"}
    return [p for p in ROOT.rglob("*.md") if not skip & set(p.relative_to(ROOT).parts)]


def test_every_ruleset_field_is_in_the_rule_book_with_its_default() -> None:
    text = RULES.read_text()
    rows = {
        cells[0].strip("` "): cells[1].strip("` ")
        for line in text.splitlines()
        if line.startswith("| `")
        for cells in [line.strip("|").split("|")]
    }
    for field in dataclasses.fields(Ruleset):
        default = getattr(Ruleset(), field.name)
        shown = default.value if isinstance(default, enum.Enum) else default
        # JSON's spelling, as tournament.json and the case files write it.
        expected = "null" if shown is None else json.dumps(shown).strip('"')
        assert rows.get(field.name) == expected, field.name  # the table of every field
        said = rf"`{field.name}`[^.]{{0,40}}\(default \*\*`?{expected}`?\*\*\)"
        assert re.search(said, text), field.name  # and where the rule itself is told


def test_no_document_links_outside_the_repository() -> None:
    for doc in _docs():
        text = doc.read_text(encoding="utf-8")
        assert "../shared" not in text, doc
        for target in _LINK.findall(text):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (doc.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), (doc, target)
            assert resolved.exists(), (doc, target)


README = ROOT / "README.md"
LEAGUE_NIGHT = ROOT / "docs" / "league-night.md"
_OPTION = re.compile(r"--[a-z][a-z0-9-]*")
RUN_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e . "
    "&& .venv/bin/arena run --bots sample_bots/"
)
TEST_COMMAND = (
    'python3 -m venv .venv && .venv/bin/pip install -q -e ".[dev]" && .venv/bin/python -m pytest'
)


def test_the_readme_is_read_in_ten_minutes() -> None:
    assert len(README.read_bytes()) <= 8 * 1024


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    assert f"\n{TEST_COMMAND}\n" in (ROOT / ".ci" / "run").read_text()


def test_the_site_home_gives_the_readme_two_commands() -> None:
    for page in (README, ROOT / "docs" / "index.md"):
        text = page.read_text()
        assert f"    {RUN_COMMAND}\n" in text, page
        assert f"    {TEST_COMMAND}\n" in text, page


def test_the_league_night_page_names_every_option_of_arena_run_and_no_other() -> None:
    shown = subprocess.run(
        [sys.executable, "-c", "from arena.cli.main import main; main(['run', '--help'])"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        check=False,
    )
    assert shown.returncode == 0, shown.stderr
    helped = set(_OPTION.findall(shown.stdout)) - {"--help"}
    table = "\n".join(
        line.split("|")[1]
        for line in LEAGUE_NIGHT.read_text().splitlines()
        if line.startswith("| `--")
    )
    documented = set(_OPTION.findall(table))
    assert sorted(helped - documented) == [], "in arena run --help, not in docs/league-night.md"
    assert sorted(documented - helped) == [], "in docs/league-night.md, not in arena run --help"


_INDEX_HINT = re.compile(r"""pip install (-\S+ )*['"]?perudo-arena|perudo-arena(-kit)?\[""")


def test_every_install_hint_works_from_a_clone() -> None:
    """The package is on no index: an extra comes from the clone, `pip install -e ".[web]"`."""
    code = [p for part in ("arena", "engine", "kit") for p in (ROOT / part).rglob("*.py")]
    for path in [*code, *_docs()]:
        text = path.read_text(encoding="utf-8")
        assert not _INDEX_HINT.search(text), (path, _INDEX_HINT.search(text))


def test_no_table_escapes_a_pipe_inside_code() -> None:
    """A Git host shows `a\\|b` in a table's code as a|b, MkDocs as a\\|b: write {a,b} instead."""
    for doc in _docs():
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("|"):
                assert not re.search(r"`[^`]*\\\|[^`]*`", line), (doc, number)
