"""The toolchains' caches for builds: the arena's own copies in the sandbox, never the organiser's.

A build fetches and compiles dependencies (Go modules and build cache, npm's
cache, cargo's registry), and starting every night from empty caches would
take minutes per bot. But a cache a hostile build may write is a cache it may
poison: a Go build cache entry or an unpacked crate that the organiser's own
next build would trust. So a sandboxed build writes copies kept for the arena
alone (made once from the organiser's caches, under
`~/.cache/perudo-arena/builds`), which only other sandboxed builds read;
the organiser's toolchains (rustup's) are bound read-only, and the files
that hold credentials (`~/.cargo/credentials.toml`, `~/.npmrc`) are never
bound at all. Without the sandbox a build uses the organiser's caches as
any build of theirs would.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from arena.bots.toolchains import Cache, table

_PASS = (
    "GOFLAGS",
    "GOTOOLCHAIN",
    "GOPROXY",
    "GOSUMDB",
    "GOPRIVATE",
    "GONOSUMDB",
    "GONOPROXY",
    "RUSTUP_TOOLCHAIN",
    "RUSTUP_AUTO_INSTALL",
    "CARGO_NET_OFFLINE",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
)


@dataclass(frozen=True, slots=True)
class BuildTools:
    """What a build is given to find its toolchains and caches."""

    env: dict[str, str]
    writable: tuple[tuple[Path, Path], ...] = ()
    """(copy, where it is seen) bound writable in the sandbox: the arena's copies of the
    caches, each where the organiser's own is, since Go keys its build cache by the
    paths of the sources it compiled."""
    readonly: tuple[Path, ...] = ()
    """Bound read-only in the sandbox: rustup's toolchains, Go's settings file."""


def _home() -> Path:
    return Path(os.environ.get("HOME", "/root"))


def _caches() -> dict[str, Cache]:
    """Every toolchain's caches, by the name of the arena's copy of each."""
    return {c.copy_name: c for t in table() for c in t.caches}


def arena_cache() -> Path:
    """The arena's own cache folder, `~/.cache/perudo-arena` (or under `$XDG_CACHE_HOME`):
    its copies of the toolchains' caches, its build stamps. No bot folder is in it."""
    return Path(os.environ.get("XDG_CACHE_HOME") or _home() / ".cache") / "perudo-arena"


def build_tools(sandboxed: bool) -> BuildTools:
    """The variables and binds for a build; for a sandboxed one, copying caches the first time."""
    env = {k: os.environ[k] for k in _PASS if k in os.environ}
    readonly: list[Path] = []
    goenv = Path(os.environ.get("GOENV") or _home() / ".config" / "go" / "env")
    if goenv.is_file():
        env["GOENV"] = str(goenv)
        readonly.append(goenv)
    rustup = Path(os.environ.get("RUSTUP_HOME") or _home() / ".rustup")
    if rustup.is_dir():
        env["RUSTUP_HOME"] = str(rustup)
        readonly.append(rustup)
    caches = _caches()
    if not sandboxed:
        kept = [c for c in caches.values() if c.variable and c.where().is_dir()]
        env.update({c.variable: str(c.where()) for c in kept})
        return BuildTools(env)
    root = arena_cache() / "builds"
    writable = []
    for name, cache in caches.items():
        seen = cache.where()
        copy = root / name
        _copy_once(seen if seen.is_dir() else None, copy, cache.keep or None)
        if cache.variable:
            env[cache.variable] = str(seen)
        writable.append((copy, seen))
    return BuildTools(env, tuple(writable), tuple(readonly))


def _copy_once(source: Path | None, target: Path, only: tuple[str, ...] | None) -> None:
    """Make `target` a copy of `source` (or empty) unless it exists; safe against a race."""
    if target.is_dir():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for entry in source.iterdir() if source is not None else ():
            if only is not None and entry.name not in only:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, staging / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, staging / entry.name, follow_symlinks=False)
        with contextlib.suppress(OSError):  # another build made it first: use that one
            staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if staging.exists():
            _make_writable(staging)
            shutil.rmtree(staging, ignore_errors=True)


def _make_writable(folder: Path) -> None:
    """Go's module cache is read-only on purpose; a leftover copy must still be removable."""
    for path in (folder, *folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            with contextlib.suppress(OSError):
                path.chmod(0o755)
