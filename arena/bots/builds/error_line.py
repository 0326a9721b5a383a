"""The one line of a failed build's output that says what broke.

A compiler says what broke first and then how it got there: javac's error,
then a stack trace; gcc's `error:`, then make's `Error 1`; a Python traceback
ends on its cause but is followed by whatever ran after it. So a failed
build is summed up (in `arena check-bot`, `arena submit`, the server's
screen, the author's page) by the first line that reads as an error, not its
last line; only a build whose output holds no such line is summed up by its
last (`arena.bots.run.logdrain`). A tab is shown as a space, and every other control character as
`arena.text.printable` shows it: the line goes to a person.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from arena.text import printable

_ERROR = re.compile(
    r"""
    \berror\b\s*(\[[^\]]*\])?\s*:      # gcc, clang, javac, rustc (error[E0425]:), tsc, Go tools
    | ^\s*\[ERROR\]                     # Maven
    | ^npm\s+(ERR!|error)\b             # npm
    | ^\s*(Error|Exception)\b           # JVM and Node: "Error: Cannot find module", "Exception in"
    | \bFAILED\b | \bFAILURE\b           # Gradle, CMake, test runners
    | ^\s*fatal(\s+error)?\s*:          # git, gcc's "fatal error:", ld
    | ^[^\s:]+\.go:\d+:\d+:\s           # go build: "./main.go:5:2: undefined: foo"
    | ^\S+Error:\s | ^\S+Exception:\s   # a Python traceback's last line, a Java exception
    """,
    re.VERBOSE,
)
_NOT_ERROR = re.compile(r"\bwarning\b|\b0 errors?\b|\bno errors?\b", re.IGNORECASE)
_TRACEBACK = "Traceback (most recent call last):"


def error_line(lines: Sequence[str], width: int = 200) -> str | None:
    """The line of `lines` (a build's output, in order) that says what broke: a Python
    traceback's cause, else the first line that reads as an error; shown as text, cut to
    `width`. None when no line reads as one: the caller says the last line instead."""
    for index, line in enumerate(lines):
        if line.startswith(_TRACEBACK):
            cause = _traceback_cause(lines, index + 1)
            if cause is not None:
                return _shown(cause, width)
        if _ERROR.search(line) and not _NOT_ERROR.search(line):
            return _shown(line, width)
    return None


def _traceback_cause(lines: Sequence[str], start: int) -> str | None:
    """The line a traceback that starts at `start` ends on: its first line not indented."""
    for line in lines[start:]:
        if line.strip() and not line[0].isspace():
            return line
    return None


def _shown(line: str, width: int) -> str:
    return printable(line.replace("\t", " ").strip(), width)
