"""`arena run --cluster`'s flags and Ray's absence, told before anything is started."""

from __future__ import annotations

import sys

import pytest

from arena.cli.cluster import resume_flags
from arena.cli.main import _parser, main
from arena.cluster.connect import ClusterError, ray_address, ray_module


def test_without_ray_the_cluster_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as where it is not installed
    with pytest.raises(ClusterError, match=r'pip install -e "\.\[cluster\]" \(run in the clone\)'):
        ray_module()


@pytest.mark.parametrize("given", ["auto", "ray://head:10001", "10.1.2.3:6379"])
def test_cluster_addresses(given: str) -> None:
    assert ray_address(given) == given


@pytest.mark.parametrize("given", ["head", ":6379", "head:port"])
def test_a_wrong_cluster_address_is_refused(given: str) -> None:
    with pytest.raises(ClusterError, match="auto, ray://HOST:PORT or HOST:PORT"):
        ray_address(given)


@pytest.mark.parametrize("flag", [["--hosts", "2"], ["--max-bots-per-host", "3"], ["--ship-bots"]])
def test_cluster_flags_need_cluster(
    flag: list[str], tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--bots", str(tmp_path), "--out", str(tmp_path), *flag])
    assert code != 0
    assert "needs --cluster" in capsys.readouterr().err


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["--cluster", "auto"],
        ["--cluster", "10.1.2.3:6379", "--hosts", "3", "--max-bots-per-host", "4", "--ship-bots"],
    ],
)
def test_the_resume_hint_keeps_the_cluster_flags(flags: list[str], tmp_path: object) -> None:
    """A resume takes the same cluster flags: the hint gives them back, and they parse."""
    args = _parser().parse_args(["run", "--bots", str(tmp_path), *flags])
    again = _parser().parse_args(["run", "--resume", str(tmp_path), *resume_flags(args).split()])
    for flag in ("cluster", "hosts", "max_bots_per_host", "ship_bots"):
        assert getattr(again, flag) == getattr(args, flag)
