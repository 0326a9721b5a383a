"""Old replays and logs let go with the results kept: verify says the pruned games, checks
every game still kept, and a tournament not finished is never pruned."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from truth_harness import arena, write_info

from arena.tournament.results.folder import TournamentFolder
from arena.tournament.results.pruning import PRUNED_FILE, prune, pruned_games
from arena.tournament.results.verify import verify


def _copy(night: Path, out: Path, name: str = "night") -> Path:
    folder = out / name
    shutil.copytree(night, folder)
    return folder


def _starts(folder: Path) -> list[float]:
    return sorted(line.started or 0.0 for line in TournamentFolder(folder).games())


def test_pruning_everything_keeps_the_results_and_verify_says_so(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(night, tmp_path / "out")
    games_before = (folder / "games.jsonl").read_bytes()
    replays = {p.stem: p.read_bytes() for p in (folder / "replays").glob("*.json")}
    assert len(replays) == 6 and any((folder / "logs").iterdir())
    done = prune([tmp_path / "out"], before=_starts(folder)[-1] + 1)
    assert (done.tournaments, done.games) == (1, 6) and done.bytes > 0
    assert not any((folder / "replays").glob("*.json")) and not any((folder / "logs").iterdir())
    assert (folder / "games.jsonl").read_bytes() == games_before
    assert set(pruned_games(folder)) == set(replays)
    verdict = verify(folder)
    assert verdict.ok and all(g.pruned for g in verdict.games)
    code, out, _ = arena(capsys, "verify", str(folder))
    assert code == 0 and "(6 more were pruned" in out
    assert prune([tmp_path / "out"], before=_starts(folder)[-1] + 1).games == 0  # once


def test_a_partial_prune_leaves_the_later_games_checked_as_before(
    night: Path, tmp_path: Path
) -> None:
    folder = _copy(night, tmp_path / "out")
    starts = _starts(folder)
    cut = starts[len(starts) // 2]
    done = prune([tmp_path / "out"], before=cut)
    kept = [p for p in (folder / "replays").glob("*.json")]
    assert done.games == sum(s < cut for s in starts) and kept
    assert any((folder / "logs").iterdir())  # its later games still speak of them
    assert verify(folder).ok
    damaged = json.loads(kept[0].read_text())
    damaged["events"] = damaged["events"][:1]
    kept[0].write_text(json.dumps(damaged))
    assert not verify(folder).ok  # what is kept is still checked


def test_a_tournament_not_finished_is_left_whole(night: Path, tmp_path: Path) -> None:
    folder = _copy(night, tmp_path / "out")
    write_info(folder, status="interrupted", seed=None)
    assert prune([tmp_path / "out"], before=_starts(folder)[-1] + 1).games == 0
    assert len(list((folder / "replays").glob("*.json"))) == 6
    assert not (folder / PRUNED_FILE).exists()
