"""The organiser's limits on submissions, each named in the refusal that meets it."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class SubmissionLimits:
    per_hour: int = 10
    """Submissions that reach a build, per author per hour (`--submissions-per-hour`)."""
    max_bytes: int = 20 * MIB
    """The archive as sent (`--submission-max-mb`)."""
    builds_at_once: int = 1
    """Builds and checks at once, from all authors (`--builds-at-once`); each author has
    one at a time."""
    max_unpacked_bytes: int = 200 * MIB
    """Bytes of files the archive may unpack to."""
    max_files: int = 5000
    """Files and folders in the archive."""
    max_ratio: int = 100
    """How many times its size an archive may expand to, past `RATIO_FLOOR`: text expands
    five to ten times, a compression bomb a thousand."""
    upload_timeout: float = 300.0
    """Seconds from the header to the archive's last byte."""
    max_built_bytes: int = 200 * MIB
    """Bytes a version's tree may hold once built (`--version-max-mb`): by default what
    an archive may unpack to."""
    max_author_bytes: int = 1024 * MIB
    """Bytes an author's kept versions may hold together, built trees and logs included
    (`--author-max-mb`)."""

    def describe(self) -> str:
        return (
            f"submissions: at most {self.per_hour} an hour per author, archives up to "
            f"{self.max_bytes / MIB:g} MiB, built up to {self.max_built_bytes / MIB:g} MiB "
            f"each and {self.max_author_bytes / MIB:g} MiB an author, "
            f"{self.builds_at_once} build(s) at once"
        )


RATIO_FLOOR = 4 * MIB
"""Unpacked bytes any archive may reach, however small: a tiny archive of text is fine."""
