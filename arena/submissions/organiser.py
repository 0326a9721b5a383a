"""The organiser's view of the submissions and the requests for test games, as the admin
service sends it."""

from __future__ import annotations

from arena.protocol.messages import admin as apb
from arena.store import LeagueStore
from arena.submissions.requests import seats_of
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


def request_records(store: LeagueStore, author: str | None) -> apb.ListRequestsResponse:
    """The requests for test games kept (all, or `author`'s), newest first."""
    return apb.ListRequestsResponse(
        requests=[
            apb.RequestRecord(
                id=r.uid,
                name=r.name,
                seats=seats_of(r),
                games=r.games,
                requested=r.requested,
                state=r.state.value,
                reason=r.reason,
                played=len(r.played),
            )
            for r in store.requests(author)
        ]
    )
