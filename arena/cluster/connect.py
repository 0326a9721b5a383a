"""Ray, loaded only when a run asks for a cluster, and the one error of this part.

Ray is an optional extra (`pip install -e ".[cluster]"`, run in the clone): a one-machine
night never imports it, and a machine without it is told how to get it.
"""

from __future__ import annotations

import importlib
import os
import signal
import threading
from types import ModuleType

from arena.errors import ArenaError

INSTALL = 'install the cluster extra: pip install -e ".[cluster]" (run in the clone)'


class ClusterError(ArenaError):
    """The cluster cannot be used or has failed the run; the message says why and what to do."""


def ray_module() -> ModuleType:
    """The `ray` package; `ClusterError` saying how to install it where it is missing."""
    try:
        return importlib.import_module("ray")
    except ImportError as error:
        raise ClusterError(
            f"--cluster needs Ray, which is not installed ({error}); {INSTALL}"
        ) from None


def ray_address(given: str) -> str:
    """The address `ray.init` is given for `--cluster`.

    `auto` joins the cluster already running on this machine (started with `ray
    start`), as `ray.init(address="auto")` does; `ray://HOST:PORT` is a Ray Client
    connection to a remote head; anything else is a head's GCS address, HOST:PORT.
    The arena never starts a cluster of its own for `arena run`: the organiser's
    cluster outlives one night, and a new local one would be a single machine anyway.
    """
    if given == "auto" or given.startswith("ray://"):
        return given
    host, colon, port = given.rpartition(":")
    if not colon or not host or not port.isdigit():
        raise ClusterError(
            f"--cluster {given!r} is not auto, ray://HOST:PORT or HOST:PORT (a head's address)"
        )
    return given


def connect(address: str, ship: str | None = None) -> ModuleType:
    """Join the cluster at `address` (see `ray_address`) as this run's driver; with `ship`,
    a folder Ray sends to every node, the working directory of the run's actors there (a
    local folder can be shipped only for the whole job, not for one actor)."""
    ray = ray_module()
    if ray.is_initialized():
        return ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine
    runtime = None if ship is None else {"working_dir": ship}
    # Joining, Ray takes SIGTERM for itself (it exits at once, games in flight abandoned):
    # it is given back to the run, which stops as on a first Ctrl-C.
    own = signal.getsignal(signal.SIGTERM)
    try:
        ray.init(address=address, runtime_env=runtime, logging_level="WARNING", log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise ClusterError(
            f"cannot join the Ray cluster at {address}: {error}; start one with `ray start "
            "--head` (and `ray start --address=HEAD:PORT` on each other machine)"
        ) from None
    finally:
        if own is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, own)
    return ray
