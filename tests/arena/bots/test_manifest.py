"""Finding bots in a folder: good entries kept, each bad one reported with its reason."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots.manifest import BotSpec, ManifestError, discover, load_entry, resolve_command


def _bot_folder(root: Path, folder: str, manifest: str | None) -> Path:
    path = root / folder
    path.mkdir()
    (path / "bot.py").write_text("print('hello')\n")
    if manifest is not None:
        (path / "bot.toml").write_text(manifest)
    return path


@pytest.fixture
def mixed(tmp_path: Path) -> tuple[list[BotSpec], dict[str, str]]:
    _bot_folder(
        tmp_path,
        "good_folder",
        'name = "good-one"\nrun = "python bot.py --fast"\nbuild = "sh build.sh"\n'
        'build_timeout = 12.5\nsessions = 3\nrequires = ["sh"]\nmemory_mb = 2048\n',
    )
    _bot_folder(tmp_path, "no_run", 'name = "no-run"\n')
    _bot_folder(tmp_path, "unknown_key", 'name = "unknown"\nrun = "python bot.py"\ncolour = 1\n')
    _bot_folder(tmp_path, "bad_name", 'name = "has space!"\nrun = "python bot.py"\n')
    _bot_folder(tmp_path, "bad_toml", 'name = "broken\nrun = python bot.py\n')
    _bot_folder(tmp_path, "wrong_type", 'name = "typed"\nrun = "python bot.py"\nsessions = "4"\n')
    _bot_folder(tmp_path, "run_not_text", 'name = "run-list"\nrun = ["python", "bot.py"]\n')
    _bot_folder(tmp_path, "bool_timeout", 'name = "booly"\nrun = "x"\nbuild_timeout = true\n')
    _bot_folder(tmp_path, "requires_text", 'name = "req"\nrun = "x"\nrequires = "node"\n')
    _bot_folder(tmp_path, "zz_duplicate", 'name = "good-one"\nrun = "python bot.py"\n')
    _bot_folder(tmp_path, "no_manifest", None)
    (tmp_path / "script_bot.py").write_text("print('a script bot')\n")
    (tmp_path / "README.md").write_text("not a bot\n")
    (tmp_path / "notes.txt").write_text("not a bot either\n")
    (tmp_path / ".hidden.py").write_text("ignored\n")
    (tmp_path / "_helper.py").write_text("ignored\n")
    bots, problems = discover(tmp_path)
    return bots, dict(problems)


def test_good_entries_are_kept(mixed: tuple[list[BotSpec], dict[str, str]]) -> None:
    bots, _ = mixed
    assert [b.name for b in bots] == ["good-one", "script-bot"]


def test_manifest_fields_are_read(
    mixed: tuple[list[BotSpec], dict[str, str]], tmp_path: Path
) -> None:
    good = mixed[0][0]
    assert good.path == tmp_path / "good_folder"
    assert good.workdir == tmp_path / "good_folder"
    assert good.run == ("python", "bot.py", "--fast")
    assert good.build == ("sh", "build.sh")
    assert good.build_timeout == 12.5
    assert good.sessions == 3
    assert good.requires == ("sh",)
    assert good.memory_mb == 2048
    assert len(good.files_hash) == 64


def test_script_bot(mixed: tuple[list[BotSpec], dict[str, str]], tmp_path: Path) -> None:
    script = mixed[0][1]
    assert script.path == tmp_path / "script_bot.py"
    assert script.workdir == tmp_path
    assert script.run == ("python", "script_bot.py")
    assert script.build is None
    assert script.requires == ()  # the arena's own interpreter runs it
    assert resolve_command(script.run) == [sys.executable, "script_bot.py"]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("no_run", ["'run'", "missing"]),
        ("unknown_key", ["unknown key", "colour"]),
        ("bad_name", ["'name'", "has space!"]),
        ("bad_toml", ["cannot be read"]),
        ("wrong_type", ["'sessions'", "wrong type"]),
        ("run_not_text", ["'run'", "wrong type"]),
        ("bool_timeout", ["'build_timeout'", "wrong type"]),
        ("requires_text", ["'requires'", "list"]),
        ("zz_duplicate", ["good-one", "taken", "good_folder"]),
        ("no_manifest", ["bot.toml"]),
    ],
)
def test_bad_entries_are_reported_with_their_reason(
    mixed: tuple[list[BotSpec], dict[str, str]], entry: str, words: list[str]
) -> None:
    problems = mixed[1]
    assert entry in problems, f"{entry} was not reported: {problems}"
    for word in words:
        assert word in problems[entry], f"{entry}: {problems[entry]!r} does not mention {word!r}"


def test_only_bad_entries_are_reported(mixed: tuple[list[BotSpec], dict[str, str]]) -> None:
    assert set(mixed[1]) == {
        "no_run",
        "unknown_key",
        "bad_name",
        "bad_toml",
        "wrong_type",
        "run_not_text",
        "bool_timeout",
        "requires_text",
        "zz_duplicate",
        "no_manifest",
    }


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("sessions = 0", ["'sessions'", "1..64"]),
        ("sessions = 65", ["'sessions'", "1..64"]),
        ("memory_mb = 10", ["'memory_mb'", "at least"]),
        ("build_timeout = -1", ["'build_timeout'", "positive"]),
        ('build = ""', ["'build'", "empty"]),
        ('build = "sh \'unclosed"', ["'build'", "words"]),
    ],
)
def test_out_of_range_values(tmp_path: Path, line: str, words: list[str]) -> None:
    folder = _bot_folder(tmp_path, "bot", f'name = "b"\nrun = "python bot.py"\n{line}\n')
    with pytest.raises(ManifestError) as caught:
        load_entry(folder)
    for word in words:
        assert word in str(caught.value)


def test_script_and_folder_with_the_same_name(tmp_path: Path) -> None:
    _bot_folder(tmp_path, "a_folder", 'name = "twin"\nrun = "python bot.py"\n')
    (tmp_path / "twin.py").write_text("pass\n")
    bots, problems = discover(tmp_path)
    assert [b.name for b in bots] == ["twin"]
    assert bots[0].path == tmp_path / "a_folder"  # entries are taken in name order
    assert len(problems) == 1
    assert problems[0][0] == "twin.py"
    assert "'twin'" in problems[0][1]


def test_unusable_script_name(tmp_path: Path) -> None:
    (tmp_path / "bad name.py").write_text("pass\n")
    bots, problems = discover(tmp_path)
    assert bots == []
    assert problems[0][0] == "bad name.py"
    assert "not a usable bot name" in problems[0][1]


def test_interpreters_by_suffix(tmp_path: Path) -> None:
    (tmp_path / "j.js").write_text("")
    (tmp_path / "s.sh").write_text("")
    bots, problems = discover(tmp_path)
    assert problems == []
    by_name = {b.name: b for b in bots}
    assert by_name["j"].run == ("node", "j.js")
    assert by_name["j"].requires == ("node",)
    assert by_name["s"].run == ("bash", "s.sh")


def test_requires_names_missing_programs(tmp_path: Path) -> None:
    folder = _bot_folder(
        tmp_path,
        "needy",
        'name = "needy"\nrun = "python bot.py"\nrequires = ["sh", "no-such-program-perudo-xyz"]\n',
    )
    spec = load_entry(folder)
    assert spec is not None
    assert spec.missing_programs() == ["no-such-program-perudo-xyz"]


def test_files_hash_follows_the_code(tmp_path: Path) -> None:
    folder = _bot_folder(tmp_path, "bot", 'name = "b"\nrun = "python bot.py"\n')
    first = load_entry(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.pyc").write_bytes(b"compiled")
    same = load_entry(folder)
    (folder / "bot.py").write_text("print('changed')\n")
    changed = load_entry(folder)
    assert first is not None and same is not None and changed is not None
    assert first.files_hash == same.files_hash  # build output does not count
    assert first.files_hash != changed.files_hash


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="not a folder"):
        discover(tmp_path / "missing")
