"""`arena league archive --check` and `restore --to` (`season.restore`): a season played for
real, checked apart from the league and restored into a fresh folder that agrees with the
original, of local bots or of submitted versions; a member changed is found, and the restore
refuses it."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest
from author_harness import TOURNAMENT, Played, play_league, run
from postgres_harness import PostgresServer
from season_harness import season
from truth_harness import content, enter, info_of, write_info

from arena.league.ladder.rounds import SECRET_FILE
from arena.league.season.archive import archive
from arena.league.season.manifest import ArchiveError
from arena.league.season.restore import check_archive, restore
from arena.rankings import confidence, finishes
from arena.store import open_store, recorded
from arena.tournament.results.pruning import prune
from arena.tournament.results.upkeep.check import check
from arena.tournament.results.verify import verify


def rated(league: Path) -> str:
    store = open_store(league)
    try:
        lines = store.lines()
    finally:
        store.close()
    names = sorted({name for _, line in lines for name in line.ranking})
    return repr(confidence(finishes(lines), names, resamples=50, seed=1))


def test_archive_then_restore_agrees_with_the_original(night: Path, tmp_path: Path) -> None:
    league = season(night, tmp_path)
    made = archive(league, league.parent, tmp_path / "season.tar.gz")
    assert made.path.stat().st_mode & 0o777 == 0o600 and made.games == 18 and not made.skipped
    assert not list(tmp_path.glob(".*"))  # neither its .part nor the store's copy left
    checked = check_archive(made.path)
    assert checked.ok, checked
    assert sorted(v.tournament for v in checked.verdicts) == ["ladder-000001", "night", "night2"]
    restored = restore(made.path, tmp_path / "again")
    copy = restored.store
    assert copy == tmp_path / "again" / "league.sqlite"
    assert content(copy) == content(league)  # the store's rows, byte for byte the original's
    assert rated(copy) == rated(league)
    assert not check(copy, [copy.parent]).differences
    for name in ("night", "night2", "ladder-000001"):
        assert verify(copy.parent / name) == verify(league.parent / name)
        assert verify(copy.parent / name).ok
        assert info_of(copy.parent / name)["league"] == recorded(copy)  # its new place
        original = (league.parent / name / "games.jsonl").read_bytes()
        assert (copy.parent / name / "games.jsonl").read_bytes() == original
    assert (copy.parent / SECRET_FILE).read_text() == (league.parent / SECRET_FILE).read_text()
    assert (copy.parent / SECRET_FILE).stat().st_mode & 0o777 == 0o600
    with pytest.raises(ArchiveError, match="not empty"):
        restore(made.path, tmp_path / "again")
    with pytest.raises(ArchiveError, match="already exists"):
        archive(league, league.parent, made.path)


def _tampered(source: Path, target: Path, member: str) -> None:
    """The archive again with one member's bytes changed, its manifest left as it was."""
    with tarfile.open(source, "r:gz") as tar, tarfile.open(target, "w:gz") as out:
        for info in tar.getmembers():
            data = tar.extractfile(info).read() if info.isfile() else None  # type: ignore[union-attr]
            if info.name == member and data is not None:
                data = data.replace(b'"ranking"', b'"ranking" ', 1)
                info.size = len(data)
            out.addfile(info, io.BytesIO(data) if data is not None else None)


def test_a_member_changed_is_found_and_not_restored(night: Path, tmp_path: Path) -> None:
    league = season(night, tmp_path)
    made = archive(league, league.parent, tmp_path / "season.tar.gz")
    bad = tmp_path / "bad.tar.gz"
    _tampered(made.path, bad, "season/night2/games.jsonl")
    checked = check_archive(bad)
    assert not checked.ok
    assert checked.unpacked.problems == (
        "night2/games.jsonl: its contents are not the ones the manifest hashed (changed)",
    )
    with pytest.raises(ArchiveError, match=r"night2/games\.jsonl") as refused:
        restore(bad, tmp_path / "restored")
    assert "nothing was restored" in str(refused.value)
    assert not (tmp_path / "restored").exists() and not list(tmp_path.glob(".restored*"))


def test_a_manifest_that_is_not_json_is_said(tmp_path: Path) -> None:
    data = b"not json"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo("season/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (tmp_path / "a.tar.gz").write_bytes(gzip.compress(raw.getvalue()))
    with pytest.raises(ArchiveError, match="not JSON"):
        check_archive(tmp_path / "a.tar.gz")
    assert json  # the manifest is JSON; this one is refused before its fields are read


@pytest.fixture(scope="module")
def submitted(tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A league server's season: versions submitted, a night played from their line-up."""
    tmp = tmp_path_factory.mktemp("submitted")
    result: list[Played] = []

    async def body() -> None:
        result.append(await play_league(tmp))

    run(body())
    return result[0]


def test_a_season_of_submitted_versions_is_restored_where_verify_finds_them(
    submitted: Played, tmp_path: Path
) -> None:
    """The night's records name its versions' trees and line-up by their paths: restored
    elsewhere, they name the restored copies, so verify checks those, and agrees."""
    original = verify(submitted.out / TOURNAMENT)
    assert original.ok, original
    made = archive(submitted.league, submitted.out, tmp_path / "season.tar.gz")
    assert not made.skipped, made.skipped
    assert check_archive(made.path).ok
    restored = restore(made.path, tmp_path / "moved")
    night = restored.folder / TOURNAMENT
    again = verify(night)
    assert again == original
    # Nothing of the record changed but its places: said back, it is the original.
    moved = (night / "tournament.json").read_text()
    new_home = restored.folder.resolve()
    for now, was in (
        (recorded(restored.store), recorded(submitted.league)),
        (str(new_home / "submissions"), str((submitted.league.parent / "submissions").resolve())),
        (str(new_home), str(submitted.out.resolve())),
    ):
        moved = moved.replace(f'"{now}', f'"{was}')
    assert moved == (submitted.out / TOURNAMENT / "tournament.json").read_text()
    entrants = info_of(night)["bots"]
    for name in ("alice", "bob", "carol"):
        played_from = Path(entrants[name]["path"])
        assert played_from.is_relative_to(restored.folder.resolve())
        assert played_from.resolve().is_relative_to(restored.folder.resolve() / "submissions")
    assert not check(restored.store, [restored.folder]).differences
    assert content(restored.store) == content(submitted.league)
    versions = restored.folder / "submissions" / "versions"
    assert versions.stat().st_mode & 0o777 == 0o700  # the server's alone, as it was
    # The copy verify reads is the restored one: a version changed there is found there.
    source = Path(entrants["alice"]["version"]["source"])
    (source / "bot.toml").write_text((source / "bot.toml").read_text() + "\n# changed\n")
    assert not verify(night).ok
    assert verify(submitted.out / TOURNAMENT).ok


@pytest.mark.slow
def test_a_postgresql_season_is_archived_with_its_dump_and_restored_into_a_new_database(
    night: Path, tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.new_database()
    out = tmp_path / "out"
    shutil.copytree(night, out / "night")
    write_info(out / "night", id="night", league=recorded(url))
    enter(url, out / "night")
    made = archive(url, out, tmp_path / "season.tar.gz")
    checked = check_archive(made.path)
    assert checked.ok and [v.tournament for v in checked.verdicts] == ["night"]
    fresh = postgres_server.new_database()
    restored = restore(made.path, tmp_path / "again", database=fresh)
    assert restored.store.name == "league.pgdump"
    subprocess.run(["pg_restore", "--no-owner", "--dbname", fresh, str(restored.store)], check=True)
    assert content(fresh) == content(url)
    assert info_of(restored.folder / "night")["league"] == recorded(fresh)  # its new database
    assert not check(fresh, [restored.folder]).differences


def test_a_pruned_season_is_archived_as_it_lies_and_verifies_what_it_kept(
    night: Path, tmp_path: Path
) -> None:
    league = season(night, tmp_path)
    done = prune([league.parent], time.time() + 3600)
    assert done.games == 18
    made = archive(league, league.parent, tmp_path / "season.tar.gz")
    checked = check_archive(made.path)
    assert checked.ok, checked
    assert all(g.pruned for v in checked.verdicts for g in v.games)
    restored = restore(made.path, tmp_path / "again")
    assert verify(restored.folder / "night") == verify(league.parent / "night")
    assert rated(restored.store) == rated(league)
