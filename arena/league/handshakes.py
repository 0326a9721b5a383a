"""gRPC's handshake failures on a TLS port, told once in words instead of line after line.

A client that dials a TLS league server in plaintext retries with backoff,
and for every attempt gRPC's core writes a line such as
"Handshake failed with error SSL_ERROR_SSL: ... WRONG_VERSION_NUMBER" to
standard error, saying neither who nor what to do. The core writes to file
descriptor 2 directly, so the only place to catch those lines is there:
while a `HandshakeWatch` runs, descriptor 2 is a pipe read by a thread
that passes every other line through untouched and turns these into advice,
said once per kind and then at most once a minute with a count.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from types import TracebackType

_PLAINTEXT = ("WRONG_VERSION_NUMBER", "HTTP_REQUEST", "HTTPS_PROXY_REQUEST")
_ADVICE = (
    "a client dialled this TLS port in plaintext; it must dial with TLS "
    "(PERUDO_TLS=1, and PERUDO_CA_FILE=<this server's certificate> if it is self-signed)"
)


def advice(line: str) -> tuple[str, str] | None:
    """(kind, what to say) for one of gRPC's handshake-failure lines, None for any other line."""
    if "Handshake failed" not in line:
        return None
    if any(word in line for word in _PLAINTEXT):
        return "plaintext", _ADVICE
    reason = line.rpartition(":")[2].strip() or "no reason given"
    return "handshake", f"a client's TLS handshake failed ({reason})"


class HandshakeWatch:
    """Descriptor 2 through a filter, for as long as the `with` block runs."""

    def __init__(self, say: Callable[[str], None], every_s: float = 60.0) -> None:
        self._say = say
        self._every_s = every_s
        self._last: dict[str, float] = {}
        self._unsaid: dict[str, int] = {}
        self.seen: Counter[str] = Counter()
        """gRPC's lines caught, by kind ("plaintext", "handshake")."""
        self._saved = -1
        self._thread: threading.Thread | None = None

    def __enter__(self) -> HandshakeWatch:
        self._saved = os.dup(2)
        read, write = os.pipe()
        os.dup2(write, 2)
        os.close(write)
        self._thread = threading.Thread(target=self._pump, args=(read,), daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        os.dup2(self._saved, 2)  # the pipe's last writer gone: the thread reads to its end
        if self._thread is not None:
            self._thread.join(5)
        os.close(self._saved)

    def _pump(self, read: int) -> None:
        pending = b""
        with os.fdopen(read, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65536):
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._line(line + b"\n")
        if pending:
            self._line(pending)

    def _line(self, raw: bytes) -> None:
        told = advice(raw.decode(errors="replace"))
        if told is None:
            view = memoryview(raw)
            while view:
                view = view[os.write(self._saved, view) :]
            return
        kind, text = told
        self.seen[kind] += 1
        now = time.monotonic()
        if now - self._last.get(kind, -self._every_s) < self._every_s:
            self._unsaid[kind] = self._unsaid.get(kind, 0) + 1
            return
        more = self._unsaid.pop(kind, 0)
        self._last[kind] = now
        self._say(text + (f" ({more} more like it since it was last said)" if more else ""))
