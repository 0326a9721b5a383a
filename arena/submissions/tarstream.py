"""A gzipped tar read as a stream, with every byte it may cost the server bounded.

Python's `tarfile` reads an extended header (pax, a GNU long name) into memory
whole, however large it says it is, and a gzip stream expands without limit:
an archive of a few MB can ask for gigabytes. So the archive is read here
instead: decompressed a chunk at a time (`Inflated`, which stops at its cap,
saying which cap), and walked header by header (`entries`), an extended header
refused past `HEADER_BYTES`, a file's contents handed out in chunks. What each
entry may be is decided by the caller (`arena.submissions.intake`); this module
only says what the archive holds.

The formats read are those `tar` and Python write: ustar, GNU (long names) and
pax (extended headers: `path` and `size` are used, other keys are passed over).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from arena.errors import ArenaError

BLOCK = 512
CHUNK = 64 * 1024
HEADER_BYTES = 64 * 1024
"""The most an extended header (pax, GNU long name) may hold: names are a few hundred bytes."""


class IntakeError(ArenaError):
    """An archive the server will not unpack, or a bot it will not keep; the message says why."""


class Inflated:
    """The tar stream inside a gzip file, decompressed as it is read and never past `cap`
    bytes: `too_much` says which limit that is when it is reached."""

    def __init__(self, source: BinaryIO, cap: int, too_much: Callable[[int], str]) -> None:
        self._source = source
        self._cap = cap
        self._too_much = too_much
        self._inflate = zlib.decompressobj(wbits=31)
        self._buffer = bytearray()
        self.total = 0
        """Bytes decompressed so far."""

    def _more(self) -> bool:
        """Decompress the next chunk into the buffer; False at the end of the archive."""
        try:
            while True:
                inflate = self._inflate
                if inflate.unconsumed_tail:
                    data = inflate.decompress(inflate.unconsumed_tail, CHUNK)
                elif inflate.eof:
                    rest = inflate.unused_data or self._source.read(CHUNK)
                    if not rest:
                        return False
                    self._inflate = zlib.decompressobj(wbits=31)  # a next gzip member
                    data = self._inflate.decompress(rest, CHUNK)
                else:
                    raw = self._source.read(CHUNK)
                    if not raw:
                        raise IntakeError("the archive is cut short: its gzip stream does not end")
                    data = inflate.decompress(raw, CHUNK)
                if data:
                    break
        except zlib.error as error:
            raise IntakeError(f"the archive is not a gzipped tar ({error})") from None
        self.total += len(data)
        if self.total > self._cap:
            raise IntakeError(self._too_much(self.total))
        self._buffer += data
        return True

    def read(self, size: int) -> bytes:
        """Exactly `size` bytes, or fewer at the end of the archive."""
        while len(self._buffer) < size and self._more():
            pass
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def chunks(self, size: int) -> Iterator[bytes]:
        """`size` bytes in chunks; an IntakeError if the archive ends before them."""
        left = size
        while left > 0:
            if not self._buffer and not self._more():
                raise IntakeError("the archive is cut short: a file's contents end early")
            piece = bytes(self._buffer[:left])
            del self._buffer[: len(piece)]
            left -= len(piece)
            yield piece


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the archive, as its headers say."""

    name: bytes
    kind: bytes
    """The tar type flag: b"0" a file, b"5" a folder, b"2" a link, ..."""
    mode: int
    size: int


def entries(stream: Inflated) -> Iterator[Entry]:
    """Each entry of the tar stream, extended headers applied; the caller reads a file's
    `size` bytes (`contents`) before asking for the next entry."""
    extended: dict[bytes, bytes] = {}
    long_name: bytes | None = None
    while True:
        block = stream.read(BLOCK)
        if len(block) < BLOCK:
            raise IntakeError("the archive is cut short: it ends without tar's end marker")
        if block == bytes(BLOCK):
            return  # the end marker; what follows is padding, never read
        _check_sum(block)
        kind = block[156:157]
        size = _number(block[124:136])
        if kind in {b"x", b"g", b"L", b"K"}:
            if size > HEADER_BYTES:
                raise IntakeError(
                    f"the archive has an extended header of {size} bytes (at most "
                    f"{HEADER_BYTES} are read): not an archive `tar` or arena submit makes"
                )
            data = stream.read(_padded(size))[:size]
            if kind == b"x":
                extended = _pax(data)
            elif kind == b"L":
                long_name = data.rstrip(b"\0")
            continue  # a global header's settings and a link's long target are not used
        name = _field(block[0:100])
        if block[257:262] == b"ustar" and block[345:500].strip(b"\0"):
            name = _field(block[345:500]) + b"/" + name
        name = extended.get(b"path", long_name if long_name is not None else name)
        if b"size" in extended:
            size = _decimal(extended[b"size"])
        yield Entry(name, kind, _number(block[100:108]), size)
        extended, long_name = {}, None


def skip_padding(stream: Inflated, size: int) -> None:
    """Past the padding that follows a file's contents to its last block."""
    stream.read(_padded(size) - size)


def _padded(size: int) -> int:
    return -(-size // BLOCK) * BLOCK


def _field(raw: bytes) -> bytes:
    return raw.split(b"\0", 1)[0]


def _number(raw: bytes) -> int:
    if raw[:1] and raw[0] & 0x80:
        raise IntakeError("the archive holds a file of more than 8 GB (a size in base 256)")
    text = raw.split(b"\0", 1)[0].strip()
    try:
        return int(text, 8) if text else 0
    except ValueError:
        raise IntakeError(f"the archive has a damaged header (a number {text!r})") from None


def _decimal(raw: bytes) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise IntakeError(f"the archive has a damaged pax header (a size {raw!r})") from None
    if value < 0:
        raise IntakeError("the archive has a damaged pax header (a negative size)")
    return value


def _check_sum(block: bytes) -> None:
    try:
        said = _number(block[148:156])
    except IntakeError:
        said = -1
    blank = block[:148] + b" " * 8 + block[156:]
    unsigned = sum(blank)
    signed = sum(b - 256 if b > 127 else b for b in blank)
    if said not in {unsigned, signed}:
        raise IntakeError("the archive is not a tar archive (a header's checksum is wrong)")


def _pax(data: bytes) -> dict[bytes, bytes]:
    """A pax extended header's records: "<length> <key>=<value>\\n" each."""
    found: dict[bytes, bytes] = {}
    at = 0
    while at < len(data) and data[at : at + 1] != b"\0":
        space = data.find(b" ", at)
        if space < 0:
            raise IntakeError("the archive has a damaged pax header")
        length = _decimal(data[at:space])
        record = data[space + 1 : at + length]
        if length <= 0 or at + length > len(data) or not record.endswith(b"\n"):
            raise IntakeError("the archive has a damaged pax header")
        key, equals, value = record[:-1].partition(b"=")
        if not equals:
            raise IntakeError("the archive has a damaged pax header")
        found[key] = value
        at += length
    return found
