"""Manifest commands expand `~`, `$HOME` and `$USER`, and may name another interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.bots.isolation.sandbox import Jail
from arena.bots.manifest import ManifestError, load_entry, resolve_command


def _bot(root: Path, manifest: str) -> Path:
    folder = root / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "expanding"\n' + manifest)
    return folder


def test_run_and_build_expand_home_and_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USER", "author")
    spec = load_entry(
        _bot(tmp_path, 'run = "~/py/bin/python bot.py --who ${USER} ~"\nbuild = "sh $HOME/b.sh"\n')
    )
    assert spec is not None
    home = str(tmp_path / "home")
    assert spec.run == (f"{home}/py/bin/python", "bot.py", "--who", "author", home)
    assert spec.build == ("sh", f"{home}/b.sh")


def test_other_variables_are_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORGANISER_SECRET", "hunter2")
    with pytest.raises(ManifestError, match=r"\$ORGANISER_SECRET; only \$HOME, \$USER"):
        load_entry(_bot(tmp_path, 'run = "./bot --key $ORGANISER_SECRET"\n'))


def test_a_tilde_inside_a_word_is_left_alone(tmp_path: Path) -> None:
    spec = load_entry(_bot(tmp_path, 'run = "./bot --suffix=a~b"\n'))
    assert spec is not None and spec.run == ("./bot", "--suffix=a~b")


def test_python_is_the_arena_s_interpreter_and_a_path_names_another(tmp_path: Path) -> None:
    assert resolve_command(("python", "bot.py")) == [sys.executable, "bot.py"]
    other = tmp_path / "venv" / "bin" / "python"
    assert resolve_command((str(other), "bot.py")) == [str(other), "bot.py"]


def test_an_interpreter_named_by_path_is_required_and_shown_in_the_sandbox(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    spec = load_entry(_bot(tmp_path, f'run = "{python} bot.py"\n'))
    assert spec is not None
    assert spec.missing_programs() == [str(python)]  # not there yet: the bot is skipped
    python.symlink_to(sys.executable)
    assert spec.missing_programs() == []
    jail = Jail(
        home=tmp_path / "bot", workdir=tmp_path / "bot", scratch_mb=1, programs=spec.programs
    )
    command = jail.command("bwrap", [str(python), "bot.py"])
    binds = {tuple(command[i : i + 3]) for i, word in enumerate(command) if word == "--ro-bind"}
    assert ("--ro-bind", str(venv), str(venv)) in binds


def test_a_relative_first_word_is_not_taken_for_an_interpreter(tmp_path: Path) -> None:
    spec = load_entry(_bot(tmp_path, 'run = "./bin/bot"\n'))
    assert spec is not None and spec.programs == ()
