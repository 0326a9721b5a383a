"""Finding bots in a folder: one bot per entry, with a manifest or as a script.

A sub-folder is a bot when it holds `bot.toml`:

    name = "my-bot"             # letters, digits, '-', '_', '.'
    run = "python bot.py"       # run in the bot's folder; no shell
    build = "npm ci"            # optional, run once before play
    build_timeout = 300         # optional, seconds (at most the organiser's --build-timeout)
    sessions = 4                # optional, most games it plays at once
    requires = ["node"]         # optional, programs it needs (see arena.bots.toolchains)
    memory_mb = 2048            # optional, address-space limit (at most --memory-mb)
    connect_timeout = 60        # optional, seconds to connect, in place of --connect-timeout

A manifest may ask for less than the organiser allows, never for more: the
limits are ceilings (`arena.bots.isolation.limits`), applied where the bot is started.

A single file is a bot run by its interpreter (.py, .js, .sh), named after
the file. A first word of `python` or `python3` in a command means the
arena's own interpreter, so Python bots can import the bot kit; any other
interpreter is named by its path (`~/venvs/bot/bin/python bot.py`), and the
sandbox shows its install folder as it shows a required program's; for a
submitted bot, only a path where the toolchain table finds that program.

No shell runs a command, but its words expand `~` and `$HOME`, `$USER`
(`${HOME}`) as a shell would, from the organiser's environment; any other
variable is refused, since the organiser's environment may hold secrets.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.botfiles import Kind, ManifestError, file_sha256, read_regular, walk
from arena.bots.toolchains import find

MANIFEST = "bot.toml"
MANIFEST_BYTES = 64 * 1024
"""The most of a `bot.toml` read: a manifest is a dozen lines."""
__all__ = [
    "MANIFEST",
    "MAX_CONNECT_TIMEOUT",
    "OUTPUT_DIRS",
    "BotSpec",
    "ManifestError",
    "discover",
    "hash_folder",
    "load_entry",
    "load_kept",
    "resolve_command",
    "valid_name",
]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
_KEYS = {
    "name",
    "run",
    "build",
    "build_timeout",
    "sessions",
    "requires",
    "memory_mb",
    "connect_timeout",
}
MAX_CONNECT_TIMEOUT = 600.0
"""The longest a manifest may ask to connect: a bot still loading after ten minutes is
stuck, and the night waits for it."""
_INTERPRETERS = {".py": ["python"], ".js": ["node"], ".sh": ["bash"]}
_ARENAS_OWN = frozenset({"python", "python3"})
"""What `resolve_command` makes the arena's own interpreter, which every bot is shown."""


def valid_name(name: str) -> bool:
    return bool(_NAME.match(name))


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    path: Path
    """The bot's folder, or its script."""
    workdir: Path
    run: tuple[str, ...]
    build: tuple[str, ...] | None = None
    build_timeout: float = 300.0
    sessions: int | None = None
    requires: tuple[str, ...] = ()
    memory_mb: int | None = None
    connect_timeout: float | None = None
    """Seconds it may take to connect (a model to load, say); None: the organiser's default."""
    files_hash: str = field(default="", compare=False)

    def connect_window(self, default: float) -> tuple[float, str]:
        """The seconds this bot has to connect, and what gave them, for the error that says
        it did not: its manifest's `connect_timeout`, else `default` (--connect-timeout)."""
        if self.connect_timeout is None:
            return default, "--connect-timeout"
        return self.connect_timeout, f"connect_timeout in its {MANIFEST}"

    @property
    def programs(self) -> tuple[str, ...]:
        """The programs it needs: those it `requires`, and an interpreter `run` names by path."""
        first = self.run[0]
        named = (first,) if Path(first).is_absolute() and first not in self.requires else ()
        return (*self.requires, *named)

    def missing_programs(self, strict: bool = False) -> list[str]:
        """The programs it needs that cannot be found: for a submitted bot (`strict`), on
        the system PATH and the toolchain table's folders alone (`arena.bots.toolchains`).
        Python is the arena's own interpreter, always there."""
        needed = [p for p in self.programs if p not in _ARENAS_OWN]
        return [p for p in needed if find(p, strict) is None]


def resolve_command(words: tuple[str, ...]) -> list[str]:
    """The command to start: `python` means this interpreter."""
    if words and words[0] in {"python", "python3"}:
        return [sys.executable, *words[1:]]
    return list(words)


def discover(folder: Path) -> tuple[list[BotSpec], list[tuple[str, str]]]:
    """The bots in `folder`, and (entry, reason) for each entry that is not usable."""
    if not folder.is_dir():
        raise ManifestError(f"{folder} is not a folder")
    bots: list[BotSpec] = []
    problems: list[tuple[str, str]] = []
    names: dict[str, Path] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")) or entry.name == "node_modules":
            continue
        try:
            spec = load_entry(entry)
        except ManifestError as error:
            problems.append((entry.name, str(error)))
            continue
        if spec is None:
            continue
        if spec.name in names:
            problems.append(
                (entry.name, f"the name {spec.name!r} is taken by {names[spec.name].name}")
            )
            continue
        names[spec.name] = entry
        bots.append(spec)
    return bots, problems


def load_entry(entry: Path) -> BotSpec | None:
    """The bot at `entry`, None when the entry is not a bot at all (a README, say)."""
    if entry.is_dir():
        return _from_manifest(entry)
    interpreter = _INTERPRETERS.get(entry.suffix)
    if interpreter is None:
        return None
    name = entry.stem.replace("_", "-")
    if not _NAME.match(name):
        raise ManifestError(f"{entry.name}: {name!r} is not a usable bot name")
    requires = () if interpreter[0] == "python" else (interpreter[0],)
    return BotSpec(
        name=name,
        path=entry,
        workdir=entry.parent,
        run=(*interpreter, entry.name),
        requires=requires,
        files_hash=_digest([(entry.name, file_sha256(entry))]),
    )


def load_kept(folder: Path, manifest: Path, *, hashed: bool = True) -> BotSpec:
    """The bot at `folder` as the manifest file `manifest` describes it, not the `bot.toml`
    in `folder`. A submitted version plays the manifest it was checked with, kept with its
    files as sent: its build ran in `folder` and could have rewritten the one there (a
    build that names its bot after another entrant would play as that entrant). Not
    `hashed`: its `files_hash` is left empty, for a caller that wants only what it says."""
    return _from_manifest(folder, manifest, hashed=hashed)


def _from_manifest(folder: Path, manifest: Path | None = None, *, hashed: bool = True) -> BotSpec:
    """The bot a folder's `bot.toml` (or `manifest`) describes; the build may have left
    that file in any shape, so it is read as `arena.bots.botfiles` reads what a bot wrote."""
    raw = read_regular(manifest or folder / MANIFEST, MANIFEST_BYTES)
    if raw is None:
        raise ManifestError(f"a bot folder needs a {MANIFEST}")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{MANIFEST} cannot be read: {error}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ManifestError(f"{MANIFEST}: {_unknown(unknown)} (known: {', '.join(sorted(_KEYS))})")
    name = _get(data, "name", str)
    if name is None or not _NAME.match(name):
        raise ManifestError(
            f"{MANIFEST}: 'name' must be 1-40 letters, digits, '-', '_' or '.', got {name!r}"
        )
    run = _command(data, "run")
    if run is None:
        raise ManifestError(f"{MANIFEST}: 'run' (the command that starts the bot) is missing")
    timeout = _get(data, "build_timeout", (int, float))
    sessions = _get(data, "sessions", int)
    memory = _get(data, "memory_mb", int)
    connect = _get(data, "connect_timeout", (int, float))
    requires = data.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires):
        raise ManifestError(f"{MANIFEST}: 'requires' must be a list of program names")
    if timeout is not None and timeout <= 0:
        raise ManifestError(f"{MANIFEST}: 'build_timeout' must be positive")
    if sessions is not None and not 1 <= sessions <= 64:
        raise ManifestError(f"{MANIFEST}: 'sessions' must be 1..64")
    if memory is not None and memory < 256:
        raise ManifestError(f"{MANIFEST}: 'memory_mb' must be at least 256 (address space)")
    if connect is not None and not 0 < connect <= MAX_CONNECT_TIMEOUT:
        raise ManifestError(
            f"{MANIFEST}: 'connect_timeout' must be more than 0 and at most "
            f"{MAX_CONNECT_TIMEOUT:.0f} seconds, got {connect!r}"
        )
    return BotSpec(
        name=name,
        path=folder,
        workdir=folder,
        run=run,
        build=_command(data, "build"),
        build_timeout=float(timeout) if timeout is not None else 300.0,
        sessions=sessions,
        requires=tuple(requires),
        memory_mb=memory,
        connect_timeout=float(connect) if connect is not None else None,
        files_hash=hash_folder(folder) if hashed else "",
    )


def _unknown(keys: list[str]) -> str:
    """The unknown keys, each with the known key it is nearest to, if any is near: most are
    a typo (`sesions`) or a word the author guessed (`timeout`)."""
    said = []
    for key in keys:
        near = difflib.get_close_matches(key, _KEYS, n=1, cutoff=0.6)
        said.append(f"{key!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
    return f"unknown key{'s' if len(keys) > 1 else ''} {', '.join(said)}"


def _get(data: dict[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ManifestError(f"{MANIFEST}: {key!r} has the wrong type: {value!r}")
    return value


def _command(data: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = _get(data, key, str)
    if value is None:
        return None
    try:
        words = tuple(shlex.split(value))
    except ValueError as error:
        raise ManifestError(f"{MANIFEST}: {key!r} cannot be split into words: {error}") from None
    if not words:
        raise ManifestError(f"{MANIFEST}: {key!r} is empty")
    return tuple(_expand(word, key) for word in words)


_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def _expand(word: str, key: str) -> str:
    """`~` and `$HOME`, `$USER` as a shell would expand them; any other variable is refused."""
    known = {"HOME": str(Path.home()), "USER": os.environ.get("USER", "")}

    def value(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if name not in known:
            raise ManifestError(
                f"{MANIFEST}: {key!r} names ${name}; only {', '.join('$' + n for n in known)}"
                " and ~ are expanded (the organiser's other variables are not a bot's)"
            )
        return known[name]

    if word == "~" or word.startswith("~/"):
        word = known["HOME"] + word[1:]
    return _VARIABLE.sub(value, word)


OUTPUT_DIRS = frozenset({"node_modules", "bin", "target"})
"""What builds make, left out of the files' hash: the results name the code, not its build."""
_SKIP_DIRS = frozenset({*OUTPUT_DIRS, "__pycache__", ".git"})


def hash_folder(folder: Path) -> str:
    """The files hash of a bot folder: what the results say played.

    A link is hashed by the path it holds, never followed; a pipe, socket or device is
    left out (see `arena.bots.botfiles`). A `.perudo-build` that an older arena left in
    the folder is one of the bot's files like any other: the arena keeps its stamps in
    its own cache now (`arena.bots.builds.buildstamp`), and a file the bot's build may write and
    its run may read is not one the hash may leave out.
    """
    found = []
    for entry in walk(folder, prune=_SKIP_DIRS, read=True):
        if entry.kind is Kind.LINK:
            content = hashlib.sha256(b"symlink\0" + os.fsencode(entry.target)).digest()
        else:
            content = entry.sha256
        found.append((entry.relative, content))
    return _digest(found)


def _digest(files: list[tuple[str, bytes]]) -> str:
    """A SHA-256 over the bot's files, each by its path and its contents' SHA-256 (sorted by
    the walk), so results say exactly which code played."""
    digest = hashlib.sha256()
    for relative, content in files:
        digest.update(os.fsencode(relative) + b"\0")
        digest.update(content)
    return digest.hexdigest()
