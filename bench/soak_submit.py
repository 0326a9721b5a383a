"""The soak's entrants: every bot of a folder, sent to the server as its author would send it.

Each bot goes through `arena submit` with its own token, all at once (the server queues
their builds, as it would an evening's rush), and its one verdict line is what counts:
`accepted as version N of NAME`, or `rejected: WHY`.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.bots.manifest import ManifestError, load_entry
from bench.benchmark import BenchError
from bench.soak_server import arena, environment

SUBMIT_S = 3600.0
"""The most all the verdicts may take together: the sample bots' builds (Go, Node, Rust)
may each take minutes, one at a time, on a busy machine."""


@dataclass(frozen=True, slots=True)
class Entrant:
    name: str
    path: Path
    """Its folder (with bot.toml) or its script."""


def token_file(root: Path, name: str) -> Path:
    """Where the soak keeps an entrant's token (private)."""
    return root / "tokens" / f"{name}.token"


def entrants(folder: Path) -> list[Entrant]:
    """Every bot of `folder`, by name; what is not a bot (a README) is passed over."""
    found: dict[str, Entrant] = {}
    for entry in sorted(folder.iterdir()):
        try:
            spec = load_entry(entry)
        except ManifestError as error:
            raise BenchError(f"{entry}: {error}") from None
        if spec is None:
            continue
        if spec.name in found:
            raise BenchError(f"{entry} and {found[spec.name].path} are both named {spec.name}")
        found[spec.name] = Entrant(spec.name, entry)
    return list(found.values())


def submit_all(
    field: list[Entrant], address: str, root: Path, say: Callable[[str], None]
) -> tuple[list[str], dict[str, str]]:
    """Each entrant submitted through `arena submit`, every verdict waited for: the names
    accepted, and why each other was not."""
    begun = time.monotonic()
    running: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}
    try:
        for entrant in field:
            log = root / f"submit-{entrant.name}.log"
            command = arena("submit", str(entrant.path), "--server", address)
            command += ["--token-file", str(token_file(root, entrant.name))]
            with log.open("wb") as out:
                process = subprocess.Popen(
                    command,
                    env=environment(),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            running[entrant.name] = (process, log)
        accepted: list[str] = []
        rejected: dict[str, str] = {}
        while running:
            for name, (process, log) in list(running.items()):
                if process.poll() is None:
                    continue
                del running[name]
                verdict = _verdict(log)
                say(f"soak: {name}: {verdict} ({time.monotonic() - begun:.0f} s)")
                if process.returncode == 0:
                    accepted.append(name)
                else:
                    rejected[name] = verdict.removeprefix("rejected: ")
            if running and time.monotonic() - begun > SUBMIT_S:
                waiting = ", ".join(sorted(running))
                raise BenchError(f"no verdict within {SUBMIT_S:.0f} s for {waiting}")
            time.sleep(0.2)
        return sorted(accepted), rejected
    finally:
        for process, _ in running.values():
            process.kill()
            process.wait(timeout=60)


def _verdict(log: Path) -> str:
    lines = log.read_text(errors="replace").strip().splitlines()
    return lines[-1] if lines else "rejected: arena submit said nothing"
