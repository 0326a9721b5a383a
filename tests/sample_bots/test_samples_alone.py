"""Every sample folder works on its own: copied alone anywhere, it builds, passes
check-bot, and dials a TLS referee with PERUDO_TLS / PERUDO_CA_FILE.

The gRPC samples keep a copy of the arena's .proto in their folder; the copy
must not drift from the original.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "arena"))  # the shared helpers

from tls_certificates import self_signed

from arena.bots.manifest import load_entry, resolve_command
from arena.checkbot.check import Check, check_bot
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, Tls

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
PROTO = ROOT / "proto"
VENDORED = ("go_binomial", "java_grpc", "js_calza")
"""The samples that speak gRPC themselves, each with its own copy of the .proto."""


def sample_folders() -> list[str]:
    return sorted(p.name for p in SAMPLES.iterdir() if (p / "bot.toml").is_file())


@pytest.mark.parametrize("sample", VENDORED)
def test_a_sample_s_copy_of_the_proto_is_the_arena_s(sample: str) -> None:
    copies = sorted((SAMPLES / sample / "proto").rglob("*.proto"))
    assert copies, f"{sample} keeps no copy of the .proto"
    for copy in copies:
        original = PROTO / copy.relative_to(SAMPLES / sample / "proto")
        assert copy.read_bytes() == original.read_bytes(), (
            f"{copy} differs from {original}: copy it again"
        )


@pytest.mark.parametrize("sample", VENDORED)
def test_no_sample_reads_outside_its_folder(sample: str) -> None:
    for path in (SAMPLES / sample).rglob("*"):
        built = {"node_modules", "target"} & set(path.parts)  # what a build fetched or made
        if path.is_file() and not built and path.suffix != ".md":
            assert "../../" not in path.read_text(errors="replace"), path


def _play_tls(folder: Path, tmp: Path) -> None:
    """Start the built sample as the arena would, but dialling a TLS referee over TCP."""
    cert, key = self_signed(tmp)
    spec = load_entry(folder)
    assert spec is not None

    async def main() -> None:
        book = TokenBook()
        lobby = Lobby(book)
        referee = Referee(lobby)
        port = await referee.start(
            "127.0.0.1:0", Tls(cert.read_bytes(), key.read_bytes()), front_door=True
        )
        env = {
            "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"],
            "HOME": os.environ.get("HOME", "/tmp"),
            "PERUDO_ADDRESS": f"127.0.0.1:{port}",
            "PERUDO_BOT_NAME": spec.name,
            "PERUDO_TOKEN": book.issue(spec.name),
            "PERUDO_SESSIONS": "2",
            "PERUDO_CA_FILE": str(cert),
        }
        log = tmp / "tls.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                resolve_command(spec.run), cwd=folder, env=env, stdout=out, stderr=out
            )
        try:
            ready = await lobby.wait_for([spec.name], 2, 60)
            assert ready == {spec.name}, log.read_text(errors="replace")

            # Every sample's gRPC speaks HTTP/2 over TLS through the front door (ALPN "h2")
            # and answers its PINGs (the Rust one's through the bridge).
            def timed() -> list[float | None]:
                return [None if s.link is None else s.link.estimate for s in lobby.all_sessions()]

            for _ in range(600):
                if None not in timed():
                    break
                await asyncio.sleep(0.1)
            links = timed()
            assert len(links) == 2 and None not in links, log.read_text(errors="replace")
        finally:
            await referee.stop()
            proc.kill()
            proc.wait()

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("sample", sample_folders())
def test_a_sample_copied_alone_builds_plays_and_dials_tls(sample: str, tmp_path: Path) -> None:
    spec = load_entry(SAMPLES / sample)
    assert spec is not None
    if spec.missing_programs():
        pytest.skip(f"{sample} needs {spec.missing_programs()}")
    alone = tmp_path / "elsewhere" / sample
    shutil.copytree(
        SAMPLES / sample,
        alone,
        ignore=shutil.ignore_patterns("node_modules", "bin", "target", "perudov1"),
    )
    checks: list[Check] = []
    result = asyncio.run(check_bot(alone, checks.append))
    assert result.passed, [c for c in checks if not c.passed]
    _play_tls(alone, tmp_path)
