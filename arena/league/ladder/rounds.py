"""The ladder's rounds on disk and in the store: their names, their seeds, and the secret
both are drawn from. Light, so that `arena leaderboard` can tell the ladder's rounds from the
nights' without loading the server.

A round's seed is HMAC(secret, its number): the same round resumed after a kill deals the
same dice (its games in flight replay identically), and without the secret, kept beside the
league and never sent to a bot, no round's dice or table can be foretold.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from pathlib import Path

from arena.matchmaking import LadderError
from arena.store import LeagueStore, is_url

PREFIX = "ladder-"
ROUND = re.compile(r"ladder-(\d{6,})")
SECRET_FILE = "ladder.secret"


def is_ladder(tournament_id: str) -> bool:
    """Whether a tournament of the league store is one of the ladder's rounds."""
    return ROUND.fullmatch(tournament_id) is not None


def on_record(store: LeagueStore) -> list[tuple[str, int]]:
    """The ladder's rounds in the league store, in its order, each with its games."""
    return [(tid, games) for tid, games in store.tournaments() if is_ladder(tid)]


def secret_path(league: Path | str, out: Path) -> Path:
    """Beside an SQLite league (as the admin token); in the results folder for a server's."""
    return out / SECRET_FILE if is_url(league) else Path(league).with_name(SECRET_FILE)


def load_secret(path: Path) -> bytes:
    """The ladder's secret, made (private) on first use and kept, so that a restarted server
    deals its rounds as before. Written aside and linked into place: a kill while it is made
    leaves none, never an empty one."""
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, aside = tempfile.mkstemp(prefix=".ladder-secret-", dir=path.parent)  # 0600
        try:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32) + "\n")
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):  # made meanwhile: that one is kept
                os.link(aside, path)
        finally:
            os.unlink(aside)
    try:
        secret = bytes.fromhex(path.read_text().strip())
    except (ValueError, UnicodeDecodeError):
        secret = b""
    if len(secret) < 16:
        raise LadderError(f"{path} is not a ladder secret (64 hex digits); remove it to make one")
    return secret


def round_seed(secret: bytes, number: int) -> bytes:
    """The seed of the round numbered `number`."""
    message = b"perudo-arena/ladder-round/" + str(number).encode()
    return hmac.digest(secret, message, hashlib.sha256)
