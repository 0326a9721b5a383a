"""Where the page is served: read apart from the server, so that the command line can check
`--web` without loading the web server (an optional extra)."""

from __future__ import annotations

from arena.errors import ArenaError

DEFAULT_ADDRESS = "127.0.0.1:0"
"""Loopback and a free port: a page for the organiser's own browser unless asked otherwise."""


class WebError(ArenaError):
    """The web page cannot be served as asked (a port in use, the extra not installed)."""


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT`, `HOST` or `:PORT` (port 0: a free one); the default host is loopback."""
    host, colon, port = text.rpartition(":")
    if not colon or "]" in port:
        host, port = text, "0"
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise WebError(f"--web {text!r}: the port must be a number from 0 to 65535")
    return host, int(port)
