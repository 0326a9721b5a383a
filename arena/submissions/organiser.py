"""The organiser's view of the submissions, as the admin service sends it."""

from __future__ import annotations

from arena.protocol.messages import admin as apb
from arena.submissions.versions import Versions


def submission_records(versions: Versions, author: str | None) -> apb.ListSubmissionsResponse:
    """The submissions kept (all, or `author`'s), newest first, each saying whether it is
    the version that plays next."""
    playing = {(r.name, r.version) for r in versions.playing().values()}
    return apb.ListSubmissionsResponse(
        submissions=[
            apb.SubmissionRecord(
                name=r.name,
                version=r.version or 0,
                state=r.state.value,
                received=r.received,
                size=r.size,
                sha256=r.sha256,
                reason=r.reason,
                withdrawn=r.withdrawn or 0.0,
                playing=(r.name, r.version) in playing,
            )
            for r in versions.store.submissions(author)
        ]
    )
