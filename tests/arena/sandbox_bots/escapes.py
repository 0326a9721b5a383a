"""A hostile entrant that talks to the organiser's screen: everything it says is an attack.

Its log (stderr) is raw escape sequences: one that clears the screen and
writes a green "all good" at the top, one that moves the cursor up over the
lines above and erases them, a bidi override that turns a line around, and
the 8-bit CSI (a C1 control) that some terminals obey as ESC [. So is the
reason it gives with each reply, which is never a legal action.

`python bot.py quit` says it all and exits before connecting (a crash, its
last words on screen as the reason it was skipped); `python bot.py play`
says it, connects, and answers every request with a bid on face 9 and the
same words as its reason, so that each of its games has a fault quoting it.
"""

from __future__ import annotations

import sys

from arena.kit import run_handler
from arena.kit.client import PolicyHandler
from arena.protocol.messages import referee as pb
from engine import DUDO

CLEAR = "\x1b[2J\x1b[H\x1b[1;32mall good: 19 passed, 0 failed\x1b[0m"
UP = "\x1b[5A\x1b[2Kthe lines above are gone"
BIDI = "\u202edeppots eb ot deen\u202c"
C1 = "\x9b2J\x9b1;1H"
LAST = f"{CLEAR} {UP} {BIDI} {C1}"


class Hostile(PolicyHandler):
    async def request(self, request: pb.ActionRequest) -> pb.ActionReply:  # type: ignore[override]
        bad = pb.Action(kind=pb.ACTION_KIND_BID, count=1, face=9)
        return pb.ActionReply(action=bad, reason=LAST)


def main() -> None:
    for line in (CLEAR, UP, BIDI, C1, LAST):
        print(line, file=sys.stderr, flush=True)
    if sys.argv[1:] == ["quit"]:
        raise SystemExit(1)
    run_handler(lambda: Hostile(lambda _: DUDO), argv=[])


if __name__ == "__main__":
    main()
