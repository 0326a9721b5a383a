"""A manifest's `connect_timeout`: read as seconds, refused in words when it is no usable time."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.manifest import ManifestError, load_entry


def _bot(tmp_path: Path, value: str) -> Path:
    folder = tmp_path / "b"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "b"\nrun = "python bot.py"\nconnect_timeout = {value}\n'
    )
    return folder


def test_a_manifests_connect_time_replaces_the_default(tmp_path: Path) -> None:
    spec = load_entry(_bot(tmp_path, "45"))
    assert spec is not None and spec.connect_timeout == 45.0
    assert spec.connect_window(20.0) == (45.0, "connect_timeout in its bot.toml")


def test_without_one_the_default_applies(tmp_path: Path) -> None:
    spec = load_entry(Path(__file__))  # a script: no manifest at all
    assert spec is not None and spec.connect_timeout is None
    assert spec.connect_window(20.0) == (20.0, "--connect-timeout")


@pytest.mark.parametrize("value", ["0", "-3", "601", "nan", "inf"])
def test_a_connect_time_out_of_range_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(
        ManifestError, match=r"'connect_timeout' must be more than 0 and at most 600"
    ):
        load_entry(_bot(tmp_path, value))


@pytest.mark.parametrize("value", ['"60"', "true"])
def test_a_connect_time_that_is_no_number_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ManifestError, match=r"'connect_timeout' has the wrong type"):
        load_entry(_bot(tmp_path, value))
