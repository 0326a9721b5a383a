"""A page's stream gzipped, with one compression a tick for every page.

A hundred pages are sent the same bytes each tick; compressed, they are an
eighth of the size (the messages are JSON with the same keys over and
over), and the bytes are most of what a page costs: the kernel's copy on
the referee's side, and the reader's. But a gzip stream is one deflate
stream: were the tick's bytes compressed once in one page's stream, they
would refer back to what that page was sent before, which a page that came
later never had.

So every piece is compressed on its own (`deflated`): a fresh compressor,
flushed to a byte boundary (a sync flush), refers to nothing before the
piece. Pieces like that, one after another behind a gzip header, are one
valid deflate stream whatever each page was sent before, so the tick's
piece is compressed once and written to every page. The stream is never
finished with gzip's trailer (its checksum would be each page's own):
a stream ends when the server stops, and the page has been told so first.
"""

from __future__ import annotations

import zlib

HEADER = bytes((0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF))
"""A gzip member's header: deflate, no name, no time, unknown system."""

LEVEL = 3
"""About eight to one on a tick's messages at a fifth of a millisecond for a tick of a fast
tournament: level 6 gains a tenth more for three times the time."""


def deflated(data: bytes) -> bytes:
    """`data` as raw deflate blocks that refer to nothing before them and end on a byte."""
    compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether a request's Accept-Encoding takes gzip (every browser's does; `q=0` refuses)."""
    for part in accept_encoding.split(","):
        coding, _, params = part.partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False
