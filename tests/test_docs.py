"""The documentation describes the project from inside it: a clone has everything it links."""

from __future__ import annotations

import dataclasses
import enum
import json
import re
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
