"""A submitted version's pin: the hash of its files as sent, read from a line-up, kept in
tournament.json, and checked again by `arena verify`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.bots.manifest import hash_folder
from arena.tournament.info import Entrant
from arena.tournament.versions import (
    PINS_FILE,
    Pin,
    bots_of,
    pin_problems,
    read_pins,
    seat,
    tree_sha256,
)

ALICE = 'name = "alice"\nrun = "python bot.py"\n'


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_tree_hash_covers_every_file_build_outputs_too(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"bot.toml": "x", "bot.py": "y", "node_modules/m.js": "z"})
    first = tree_sha256(tree)
    assert (
        tree_sha256(
            _tree(tmp_path / "b", {"bot.toml": "x", "bot.py": "y", "node_modules/m.js": "z"})
        )
        == first
    )
    (tree / "node_modules" / "m.js").write_text("changed")
    assert tree_sha256(tree) != first  # the files hash of the results leaves it out
    (tree / "node_modules" / "m.js").write_text("z")
    os.rename(tree / "bot.py", tree / "main.py")
    assert tree_sha256(tree) != first  # a name is part of it


def test_pins_are_read_from_a_line_up_and_nothing_else(tmp_path: Path) -> None:
    assert read_pins(tmp_path) == {}
    pin = Pin(3, "ab" * 32, "/somewhere/source")
    (tmp_path / PINS_FILE).write_text(json.dumps({"alice": pin.to_json()}))
    assert read_pins(tmp_path) == {"alice": pin}
    (tmp_path / PINS_FILE).write_text("{not json")
    assert read_pins(tmp_path) == {}


def test_an_entrant_keeps_its_version_in_tournament_json() -> None:
    entrant = Entrant("/lineup/alice", "f" * 64, version=Pin(2, "a" * 64, "/v/source"))
    assert Entrant.from_json(json.loads(json.dumps(entrant.to_json()))) == entrant
    assert "version" not in Entrant("/bots/bob", "e" * 64).to_json()  # as before for any other


def test_verify_finds_a_version_changed_after_it_played(tmp_path: Path) -> None:
    source = _tree(tmp_path / "source", {"bot.toml": ALICE, "bot.py": "print()"})
    played = _tree(tmp_path / "bot", {"bot.toml": ALICE, "bot.py": "print()"})
    pin = Pin(1, tree_sha256(source), str(source))
    files = hash_folder(played)
    assert pin_problems("alice", pin, str(played), files) == []
    (played / "bot.py").write_text("print('other')")
    (problem,) = pin_problems("alice", pin, str(played), files)
    assert "alice (version 1): the tree it played from" in problem and "changed since" in problem
    (source / "bot.py").write_text("print('other')")
    assert len(pin_problems("alice", pin, str(played), files)) == 2
    (source / "bot.py").unlink()
    assert "files as sent" in pin_problems("alice", pin, None, None)[0]
    problems = pin_problems("alice", Pin(1, pin.sha256, str(tmp_path / "gone")), None, None)
    assert problems and all("cannot be read" in p for p in problems)


def _version(root: Path, sha: str, manifest: str, built: str | None = None) -> Pin:
    """A version as the submissions folder keeps it: its files as sent, and the tree it was
    built in (whose `bot.toml` its build may have rewritten: `built`)."""
    source = _tree(root / sha / "source", {"bot.toml": manifest, "bot.py": "print()"})
    _tree(root / sha / "bot", {"bot.toml": built or manifest, "bot.py": "print()"})
    return Pin(1, tree_sha256(source), str(source))


def _lineup(root: Path, pins: dict[str, Pin]) -> Path:
    lineup = root / "lineup"
    lineup.mkdir()
    for name, pin in pins.items():
        os.symlink(pin.tree, lineup / name)
    (lineup / PINS_FILE).write_text(json.dumps({n: p.to_json() for n, p in pins.items()}))
    return lineup


def test_a_version_plays_by_the_manifest_it_was_sent_with_not_one_its_build_wrote(
    tmp_path: Path,
) -> None:
    """The attack: mallory's build rewrote its tree's bot.toml to name zoe. Read from the
    tree, mallory's code took zoe's seat; seated by its pin, each plays as itself."""
    zoe = _version(tmp_path, "z", ZOE)
    mallory = _version(tmp_path, "m", MALLORY, built=ZOE + "memory_mb = 4096\n")
    lineup = _lineup(tmp_path, {"mallory": mallory, "zoe": zoe})
    bots, problems = bots_of(lineup)
    assert problems == []
    seated = {b.name: b for b in bots}
    assert sorted(seated) == ["mallory", "zoe"]
    assert seated["mallory"].path.resolve() == mallory.tree
    assert seated["zoe"].path.resolve() == zoe.tree
    assert seated["mallory"].memory_mb is None  # the kept manifest's, not the build's


def test_an_entry_that_does_not_lead_to_its_own_version_or_name_is_refused(
    tmp_path: Path,
) -> None:
    zoe = _version(tmp_path, "z", ZOE)
    mallory = _version(tmp_path, "m", MALLORY)
    lineup = _lineup(tmp_path, {"mallory": mallory, "zoe": zoe})
    (lineup / "zoe").unlink()
    os.symlink(mallory.tree, lineup / "zoe")  # zoe's seat leads to mallory's code
    bots, problems = seat(lineup, read_pins(lineup))
    assert [b.name for b in bots] == ["mallory"]
    ((entry, why),) = problems
    assert entry == "zoe" and "does not lead to version 1's tree" in why
    named = _version(tmp_path, "n", ZOE)  # a version whose own manifest names another
    (tmp_path / "second").mkdir()
    second = _lineup(tmp_path / "second", {"mallory": named})
    bots, problems = seat(second, read_pins(second))
    assert bots == [] and "names 'zoe'" in problems[0][1]


def test_verify_finds_a_seat_taken_by_another_version(tmp_path: Path) -> None:
    zoe = _version(tmp_path, "z", ZOE)
    mallory = _version(tmp_path, "m", MALLORY)
    assert pin_problems("zoe", zoe, str(zoe.tree), hash_folder(zoe.tree)) == []
    (problem,) = pin_problems("zoe", zoe, str(mallory.tree), hash_folder(mallory.tree))
    assert "zoe (version 1): it played from" in problem and "another version" in problem
    problems = pin_problems("zoe", mallory, str(mallory.tree), hash_folder(mallory.tree))
    assert any("names 'mallory', not 'zoe'" in p for p in problems)


ZOE = 'name = "zoe"\nrun = "python bot.py"\n'
MALLORY = 'name = "mallory"\nrun = "python bot.py"\n'
