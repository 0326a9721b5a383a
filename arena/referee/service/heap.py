"""The referee's heap while games are played: what was built before play is left out of the
garbage collector's full sweeps.

By the first game the process holds some hundred thousand objects that live
as long as it does (modules, grpc, the generated code, the lineup and its
sessions). A full collection walks every one of them: about 50 ms on a
2-core machine, a held-up event loop each time, and a long night runs many.
Frozen, they are never walked (CPython's `gc.freeze`); a full collection
walks only what play made since, a fifth of the time.

A frozen object is never collected, dead or alive. So the heap is thawed when
the last play in the process ends, and is frozen again only once a full
collection has swept it since: a league server plays round after round, and
a freeze at the next round's start, a moment after the thaw, would freeze the
cycles the last round left dead (its tournament, sessions and processes) for
good. Its ladder grew by some 13 KB a game that way, 100 MiB in an hour. A
play that begins before that sweep plays unfrozen, as any process does; plays
that overlap (a ladder's tables, a night's rounds) share one freeze.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def _full_collections() -> int:
    """How many full collections this process has made."""
    return int(gc.get_stats()[-1]["collections"])


class _Heap:
    """The process's one freeze, shared by the plays in it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plays = 0
        self._frozen = False
        self._thawed_at: int | None = None
        """`_full_collections()` at the last thaw: None before the first freeze."""

    def enter(self) -> None:
        with self._lock:
            self._plays += 1
            swept = self._thawed_at is None or _full_collections() > self._thawed_at
            if self._plays == 1 and swept:
                gc.freeze()
                self._frozen = True

    def leave(self) -> None:
        with self._lock:
            self._plays -= 1
            if self._plays == 0 and self._frozen:
                gc.unfreeze()
                self._frozen = False
                self._thawed_at = _full_collections()


_HEAP = _Heap()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Play with the heap as it is now left out of full collections, when it was swept since
    its last thaw (see the module)."""
    _HEAP.enter()
    try:
        yield
    finally:
        _HEAP.leave()
