"""What a version keeps on the server's disk, bounded: its built tree, and an author's
versions together.

An accepted version is kept for good, and its build writes what it likes in its own
folder: a 69-byte build script can leave 300 MiB, and an author could send one an hour
until the league's own writes fail. So once a version is built and checked, and before
its verdict, its folder is measured: a built tree past `max_built_bytes`, or an author's
kept versions past `max_author_bytes` together, is a rejection, and a rejected version's
files are not kept (`arena.submissions.versions`).

A build's tree is a stranger's, so it is measured as it lies: no link is followed, a file
with several names is counted once, and a file counts the blocks it holds on the disk (a
sparse file is not charged for its holes, nor can it hide the blocks it has).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from arena.submissions.limits import MIB, SubmissionLimits


def disk_bytes(root: Path) -> int:
    """The bytes the tree at `root` holds on its disk (0 for none)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    folders = [root]
    while folders:  # not recursive: a build may nest folders thousands deep
        folder = folders.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue  # gone, or not a folder: nothing of it is kept to count
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if (info.st_dev, info.st_ino) in seen:
                    continue
                seen.add((info.st_dev, info.st_ino))
                total += info.st_blocks * 512
                if stat.S_ISDIR(info.st_mode):
                    folders.append(Path(entry.path))
    return total


def over_limits(
    built: int, kept: int, others: Iterable[int], limits: SubmissionLimits
) -> str | None:
    """Why a version whose built tree holds `built` bytes and whose whole folder `kept`, beside
    the author's other versions (`others`, each folder's bytes), may not be kept; or None."""
    if built > limits.max_built_bytes:
        return (
            f"its build left {built / MIB:.0f} MiB in its folder, more than the "
            f"{limits.max_built_bytes / MIB:g} MiB a version may keep on this server: "
            "write build outputs you do not need to /tmp, which is emptied after the build"
        )
    together = kept + sum(others)
    if together > limits.max_author_bytes:
        return (
            f"with this version, your versions would keep {together / MIB:.0f} MiB on this "
            f"server, more than the {limits.max_author_bytes / MIB:g} MiB an author may: ask "
            "the organiser to remove versions you no longer play"
        )
    return None
