"""Text a bot wrote, made fit to show a person: what it says is shown, never obeyed.

A bot's log lines, its build's output, its reasons and its manifest reach the
organiser's terminal, the live page and the HTML replays. Raw, an escape
sequence there clears the screen, moves the cursor over the lines above and
writes a fake "all good" in their place; a bidi override turns a line
around; a zero-width character hides itself. So every character Python does
not call printable (controls C0, DEL and C1, format characters such as the
bidi overrides and isolates and the zero-width ones, separators other than
the space, surrogates, private-use and unassigned code points) is shown as
the escape Python's `repr` would give it (`\\x1b`, `\\n`, `\\u202e`), and
everything else, letters of every script included, is left as it is.

A backslash is not escaped itself: ordinary text (a Windows path, a regular
expression in a log line) is then shown unchanged, and the function is
idempotent, so the records and the screen may both apply it without
doubling a backslash. The price: a bot can write the six characters `\\x1b`
and look as if it wrote an escape, which shows nothing it did not write.
Text without a backslash keeps every difference: no two such texts are shown
alike. Every part of the arena may import this module, and it imports nothing
of the arena.
"""

from __future__ import annotations

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(char: str) -> str:
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, limit: int | None = None) -> str:
    """`text` with every character that is not printable shown as its escape; with `limit`,
    cut to at most that many characters, never inside an escape."""
    if text.isprintable():  # the usual case, decided in C
        return text if limit is None else text[:limit]
    pieces = [char if char.isprintable() else _escape(char) for char in text]
    if limit is None:
        return "".join(pieces)
    kept: list[str] = []
    used = 0
    for piece in pieces:
        used += len(piece)
        if used > limit:
            break
        kept.append(piece)
    return "".join(kept)


NAME_CHARS = 64
"""Characters of a name a stranger sent (a Hello's, a submission's) that a log line shows."""


def short_name(name: str) -> str:
    """A name as the server's log shows it: quoted, made printable, and cut to NAME_CHARS
    characters with its length said. A refused client chooses its name freely, up to the
    port's message limit, and is refused again and again: whole, one name per refusal
    would fill the log."""
    if len(name) <= NAME_CHARS:
        return f"'{printable(name)}'"
    return f"'{printable(name, NAME_CHARS)}...' ({len(name)} characters)"
