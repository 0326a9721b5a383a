"""What the ladder's rounds put on record, read from their journals and tallied for the soak.

The journals (each round's games.jsonl, or its line in its day's record once folded)
are the commit point of every game the server plays, so they are what a kill may not
lose or double, and what the league store must agree with; the faults charged are read
from the same lines the leaderboard rates.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.records.fields import RecordError
from arena.records.game import GameLine
from arena.tournament.results.days import all_rounds
from arena.tournament.results.folding import GONE


def journaled(results: Path) -> dict[str, list[GameLine]]:
    """Every ladder round's journal, line by line; a line cut short by a kill is passed
    over, as the server's resume passes over it. A round folded into its day's record
    (`arena.tournament.results.days`) is read from there: its folder, if a kill left it
    on its way out, holds the same lines."""
    found: dict[str, list[GameLine]] = {}
    for journal in sorted(results.glob("ladder-*/games.jsonl")):
        lines = []
        for text in journal.read_text(errors="replace").splitlines():
            try:
                lines.append(GameLine.from_json(json.loads(text)))
            except (ValueError, RecordError):
                continue
        # A kill between a fold's rename and its removal leaves `NAME.folded`: the round
        # `NAME`, whose lines its day's record holds too.
        found[journal.parent.name.removesuffix(GONE)] = lines
    for folded in all_rounds(results):
        found[folded.id] = list(folded.lines)
    return found


@dataclass(frozen=True, slots=True)
class Tally:
    ids: tuple[str, ...]
    """`round/game` of every line journaled (a game journaled twice is here twice)."""
    finished: tuple[float, ...]
    """When each game ended, by the wall clock."""
    faults: Mapping[str, Mapping[str, int]]
    """Faults charged: by kind, then by bot."""

    @property
    def doubled(self) -> tuple[str, ...]:
        return tuple(sorted(name for name, n in Counter(self.ids).items() if n > 1))


def tally(journals: Mapping[str, Sequence[GameLine]]) -> Tally:
    ids: list[str] = []
    finished: list[float] = []
    faults: dict[str, Counter[str]] = {}
    for name, lines in sorted(journals.items()):
        for line in lines:
            ids.append(f"{name}/{line.game}")
            if line.started is not None:
                finished.append(line.started + (line.duration_s or 0.0))
            for fault in line.faults:
                faults.setdefault(fault.fault.kind.value, Counter())[fault.bot] += 1
    counted = {kind: dict(bots) for kind, bots in sorted(faults.items())}
    return Tally(tuple(ids), tuple(finished), counted)


def league_checked(status: int, output: str) -> tuple[int | None, str]:
    """The games the league store holds, as `arena league check` counted them (None when
    it found a difference, or failed), and its last line, which says so."""
    said = (output.strip() or "(nothing)").splitlines()[-1]
    counted = said.rpartition(", ")[2].removesuffix(" games.")
    return (int(counted) if status == 0 and counted.isdigit() else None), said


def on_disk(paths: Sequence[Path]) -> tuple[int, int]:
    """The bytes and the files under `paths` (folders walked, files counted as they are):
    what a season's disk must hold."""
    size = files = 0
    for path in paths:
        found = path.rglob("*") if path.is_dir() else [path]
        for item in found:
            try:
                if item.is_file() and not item.is_symlink():
                    size += item.stat().st_size
                    files += 1
            except OSError:
                continue  # gone meanwhile
    return size, files
