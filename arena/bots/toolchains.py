"""The toolchains a bot may require, as data: where each is found, and what of the host it needs.

A bot's `requires` names programs (`java`, `cargo`); the sandbox must show
each program and what it cannot run without (the JDK's home, Debian's
`/etc/java-17-openjdk`), and nothing else of the host. Which folders those
are is a fact about each toolchain, not about the arena, so it is a table
(`toolchains.toml`, shipped beside this module) that an organiser extends
or overrides from a file of the same form, named by `ARENA_TOOLCHAINS`,
without code: a table of that file replaces the shipped one of its name.

Programs are found two ways:

- **strict**, for submitted bots (a league server's worker and line-ups): on
  the fixed system PATH and the `bin` folders the table declares, never the
  server's own PATH (which often holds `~/bin`); an absolute path only when
  it is where that lookup finds the program. What is shown is the program's
  own folder and its toolchain's declared folders, never a home folder, a
  top folder such as `/opt`, or a folder holding either.
- **permissive**, for the organiser's own bots (`arena run`): on the
  server's PATH, the folder of each program shown as it always was (the
  folder above a `bin/`), with its toolchain's declared folders besides.
"""

from __future__ import annotations

import functools
import glob
import os
import pwd
import shutil
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

SYSTEM_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
"""Where a submitted bot's programs are looked up, with the toolchains' own `bin` folders."""
VARIABLE = "ARENA_TOOLCHAINS"
"""The organiser's toolchain file, which extends or overrides the shipped table."""
_KEYS = {"programs", "bin", "install", "readonly", "caches"}
_CACHE_KEYS = {"path", "variable", "name", "keep"}


class ToolchainError(ArenaError):
    """A toolchain file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class Cache:
    """What a toolchain keeps between builds; the arena's copy is what a build writes."""

    path: str
    """Where the toolchain keeps it, `~` the arena's user's home."""
    variable: str = ""
    """The variable that moves it, given to the build; "" when it has none (Maven's)."""
    name: str = ""
    """The name of the arena's copy; else the variable's, in lower case."""
    keep: tuple[str, ...] = ()
    """What of it is copied (not cargo's credentials); empty: all of it."""

    @property
    def copy_name(self) -> str:
        return self.name or self.variable.lower()

    def where(self) -> Path:
        """Where the organiser's own is: its variable's value, else its usual place."""
        given = os.environ.get(self.variable) if self.variable else None
        return Path(given) if given else expand(self.path)


@dataclass(frozen=True, slots=True)
class Toolchain:
    name: str
    programs: tuple[str, ...]
    bin: tuple[str, ...] = ()
    install: int = 1
    readonly: tuple[str, ...] = ()
    caches: tuple[Cache, ...] = ()


def expand(text: str) -> Path:
    """`~` as the arena's user's home (its `HOME`, as the toolchains themselves read it)."""
    if text == "~" or text.startswith("~/"):
        return Path(os.environ.get("HOME", "/root") + text[1:])
    return Path(text)


def parse(text: str, source: str) -> dict[str, Toolchain]:
    """The toolchains of one file; `ToolchainError` naming `source` and the entry when wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ToolchainError(f"{source} cannot be read as TOML: {error}") from None
    found = {}
    for name, entry in data.items():
        if not isinstance(entry, dict):
            raise ToolchainError(f"{source}: {name!r} must be a table ([{name}])")
        found[name] = _toolchain(name, entry, f"{source}: [{name}]")
    return found


def _toolchain(name: str, entry: dict[str, Any], where: str) -> Toolchain:
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        raise ToolchainError(f"{where}: unknown {unknown} (known: {', '.join(sorted(_KEYS))})")
    programs = _words(entry, "programs", where)
    if not programs or any("/" in p for p in programs):
        raise ToolchainError(f"{where}: 'programs' must list program names (no '/')")
    install = entry.get("install", 1)
    if not isinstance(install, int) or isinstance(install, bool) or not 1 <= install <= 4:
        raise ToolchainError(f"{where}: 'install' must be 1 (the program's folder) to 4")
    folders = (*_words(entry, "bin", where), *_words(entry, "readonly", where))
    if any(not expand(f).is_absolute() for f in folders):
        raise ToolchainError(f"{where}: 'bin' and 'readonly' must be absolute paths or ~/...")
    caches = entry.get("caches", [])
    if not isinstance(caches, list) or not all(isinstance(c, dict) for c in caches):
        raise ToolchainError(f"{where}: 'caches' must be a list of tables")
    return Toolchain(
        name,
        programs,
        _words(entry, "bin", where),
        install,
        _words(entry, "readonly", where),
        tuple(_cache(c, where) for c in caches),
    )


def _cache(entry: dict[str, Any], where: str) -> Cache:
    unknown = sorted(set(entry) - _CACHE_KEYS)
    path, variable, name = (entry.get(k, "") for k in ("path", "variable", "name"))
    if unknown or not all(isinstance(v, str) for v in (path, variable, name)):
        raise ToolchainError(
            f"{where}: a cache is {{ path = ..., variable = ..., name = ..., keep = [...] }}"
        )
    if not path or not expand(path).is_absolute():
        raise ToolchainError(f"{where}: a cache's 'path' must be an absolute path or ~/...")
    if not (name or variable) or "/" in name:
        raise ToolchainError(f"{where}: a cache without a 'variable' needs a 'name' (no '/')")
    return Cache(path, variable, name, _words(entry, "keep", where))


def _words(entry: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ToolchainError(f"{where}: {key!r} must be a list of strings")
    return tuple(value)


@functools.cache
def _table(organiser: str) -> tuple[Toolchain, ...]:
    shipped = resources.files("arena.bots").joinpath("toolchains.toml").read_text()
    table = parse(shipped, "the arena's toolchains.toml")
    if organiser:
        try:
            text = Path(organiser).read_text()
        except OSError as error:
            raise ToolchainError(
                f"{VARIABLE}={organiser}: cannot read it ({error.strerror}); "
                "name a toolchain file (see docs/submitting.md) or unset it"
            ) from None
        table.update(parse(text, organiser))
    return tuple(table.values())


def table() -> tuple[Toolchain, ...]:
    """The shipped toolchains, with the organiser's file's (`ARENA_TOOLCHAINS`) over them."""
    return _table(os.environ.get(VARIABLE, ""))


def use(file: Path | None) -> None:
    """Read the table now, with `file` over the shipped one (else `ARENA_TOOLCHAINS`'s), so a
    wrong file stops a command before any bot is built; kept in `ARENA_TOOLCHAINS` for the
    processes this one starts (a league server's submission worker)."""
    if file is not None:
        os.environ[VARIABLE] = str(file.resolve())
    table()


def toolchain_of(program: str) -> Toolchain | None:
    name = Path(program).name
    return next((t for t in table() if name in t.programs), None)


def strict_path() -> tuple[str, ...]:
    """The folders a submitted bot's programs are looked up in: the system's, then each
    toolchain's own, as its PATH in the sandbox."""
    extra = [str(expand(b)) for t in table() for b in t.bin]
    return tuple(dict.fromkeys((*SYSTEM_PATH, *extra)))


def find(program: str, strict: bool) -> Path | None:
    """Where `program` is, or None. Strict: on `strict_path()` alone, and an absolute path
    only when it is what that lookup finds (so no other host path is ever accepted)."""
    if not strict:
        where = shutil.which(program) or shutil.which(program, path=os.pathsep.join(strict_path()))
        return Path(where) if where is not None else None
    name = Path(program).name
    if "/" in program and not Path(program).is_absolute():
        return None
    where = shutil.which(name, path=os.pathsep.join(strict_path()))
    if where is None or (Path(program).is_absolute() and Path(program) != Path(where)):
        return None
    return Path(where)


def offered() -> list[str]:
    """The program names of the table a submitted bot may require on this machine."""
    return sorted({p for t in table() for p in t.programs if find(p, strict=True) is not None})


def refusal(missing: list[str]) -> str:
    """Why a submitted bot cannot be taken: what it named, and the toolchains' program names
    this machine offers; never a path, not even the bot's own once `~` was expanded (the
    server's home), so that a refusal tells nothing else of this machine."""
    offers = ", ".join(offered()) or "no toolchain's programs"
    named = [p if "/" not in p else f"{Path(p).name} by a path (name the program)" for p in missing]
    return f"it needs {', '.join(named)}, which this server does not offer; it offers: {offers}"


def folders(program: str, strict: bool) -> list[Path]:
    """The host folders to show read-only for `program`: nothing when it is not found."""
    where = find(program, strict)
    if where is None:
        return []
    real = where.resolve()
    shown = [where.parent, real.parent] if strict else _as_ever(where, real)
    toolchain = toolchain_of(program)
    if toolchain is not None:
        install = real.parents[min(toolchain.install, len(real.parents)) - 1]
        shown.append(install if _showable(install) else real.parent)
        for pattern in toolchain.readonly:
            shown.extend(Path(p) for p in sorted(glob.glob(str(expand(pattern)))))
    kept = [f for f in shown if not _under_usr(f) and (not strict or _shown_strictly(f))]
    return list(dict.fromkeys(kept))


def _shown_strictly(folder: Path) -> bool:
    """For a stranger's bot, besides `_showable`: nothing inside a home folder but what the
    table declares (`~/.cargo/bin`), not the folder a link on the PATH leads to (`~/tools`)."""
    if not _showable(folder):
        return False
    if not any(home in folder.parents for home in _homes()):
        return True
    declared = {expand(f) for t in table() for f in (*t.bin, *t.readonly)}
    return folder in declared


def _as_ever(where: Path, real: Path) -> list[Path]:
    """The organiser's own bots: the install folder of each program as it always was
    (`/opt/node` for `/opt/node/bin/node`), but only the `bin` of a toolchain home that
    also keeps credentials (`~/.cargo`)."""
    private = {c.where() for t in table() for c in t.caches}
    found = []
    for path in {where.parent, real.parent}:
        found.append(path.parent if path.name == "bin" and path.parent not in private else path)
    return found


def _showable(folder: Path) -> bool:
    """Neither the root nor a top folder (`/opt`, `/home`), nor a home folder or one that
    holds a home: those hold what is nobody's bot's business."""
    if len(folder.parts) <= 2:
        return False
    return not any(folder == home or folder in home.parents for home in _homes())


def _homes() -> frozenset[Path]:
    homes = {Path(entry.pw_dir) for entry in pwd.getpwall() if entry.pw_dir.startswith("/")}
    homes.add(Path(os.environ.get("HOME", "/root")))
    homes.add(Path("/root"))
    return frozenset(h for h in homes if len(h.parts) > 1)


def _under_usr(path: Path) -> bool:
    return path == Path("/usr") or Path("/usr") in path.parents
