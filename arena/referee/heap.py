"""The referee's heap while games are played: what was built before play is left out of the
garbage collector's full sweeps.

By the first game the process holds some hundred thousand objects that live
as long as it does (modules, grpc, the generated code, the lineup and its
sessions). A full collection walks every one of them: about 50 ms on a
2-core machine, a held-up event loop each time, and a long night runs many.
Frozen, they are never walked (CPython's `gc.freeze`); a full collection
walks only what play made since, a fifth of the time. The heap is thawed
when play ends, so that whatever of it has died meanwhile (cycles the
freeze held, what dies with the tournament: a league server plays many) is
collected as before. Freezing and thawing each merge two lists: they cost
nothing, where a collection to start clean would cost the full sweep.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Play with the heap as it is now left out of full collections (see the module)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
