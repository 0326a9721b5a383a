"""A kit bot that says, before it plays, how the arena told it to dial: for the TLS tests.

It writes `TOLD {json}` to its log (stderr): PERUDO_ADDRESS, PERUDO_TLS,
PERUDO_CA_FILE and whether that file could be read where the bot runs.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from arena.kit import PASS, Answer, run
from engine import DUDO, Bid, Observation

ca = os.environ.get("PERUDO_CA_FILE", "")
told = {
    "address": os.environ.get("PERUDO_ADDRESS", ""),
    "tls": os.environ.get("PERUDO_TLS", ""),
    "ca_file": ca,
    "ca_readable": bool(ca) and Path(ca).is_file() and b"CERTIFICATE" in Path(ca).read_bytes(),
}
print("TOLD " + json.dumps(told), file=sys.stderr, flush=True)


def act(obs: Observation) -> Answer:
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo:
        return DUDO
    face = max(f for f in range(1, 7) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


if __name__ == "__main__":
    run(act)
