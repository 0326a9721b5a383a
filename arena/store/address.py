"""Where a league store is: an SQLite file's path or a PostgreSQL URL, as given, shown and kept."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from arena.store.league_store import LeagueStore
from arena.store.sqlite import BUSY_TIMEOUT_S, SqliteStore


def is_url(where: str | Path) -> bool:
    """Whether `--league` names a PostgreSQL database rather than an SQLite file."""
    return isinstance(where, str) and where.startswith(("postgresql://", "postgres://"))


def _with_password(url: str, password: str | None) -> str:
    """`url` with a password it holds (before the host, or as ?password=) replaced, or
    dropped for None; a URL without one is left exactly as it is."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and all(key != "password" for key, _ in pairs):
        return url
    netloc = parts.netloc
    if parts.password is not None:
        login, host = parts.username or "", netloc.rpartition("@")[2]
        netloc = f"{login}:{password}@{host}" if password else f"{login}@{host}"
    query = urlencode(
        [(k, password if k == "password" else v) for k, v in pairs if k != "password" or password],
        safe="*/",
    )
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def shown(url: str) -> str:
    """The URL for messages: a password given shows as ***."""
    return _with_password(url, "***")


def recorded(where: str | Path) -> str:
    """The store as tournament.json keeps it: a file's full path, or a URL without its
    password (which a resume takes from PGPASSWORD or ~/.pgpass, or `--league` again)."""
    if is_url(where):
        return _with_password(str(where), None)
    return str(Path(where).resolve())


def open_store(
    where: str | Path, busy_timeout: float = BUSY_TIMEOUT_S, check_pages: bool = True
) -> LeagueStore:
    """The store `--league` names: a postgresql:// URL, else an SQLite file's path (whose
    writes wait up to `busy_timeout` seconds for a lock another process holds, and whose
    pages are read at open unless `check_pages` is False: `LeagueStore.check_pages`)."""
    if is_url(where):
        from arena.store.postgres import PostgresStore  # psycopg only for those who use it

        return PostgresStore(str(where))
    return SqliteStore(Path(where), busy_timeout, check_pages)
