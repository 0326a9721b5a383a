"""The season's final closes submissions at every door: a closed desk refuses every author,
first, with the reason it was closed for; and the final waits for the ones under way."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league.final import FROZEN
from arena.store import LeagueStore, open_store
from arena.submissions.limits import SubmissionLimits
from arena.submissions.quotas import Quotas
from arena.submissions.versions import Versions
from arena.tournament.config import TournamentConfig


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LeagueStore]:
    opened = open_store(tmp_path / "league.sqlite")
    try:
        yield opened
    finally:
        opened.close()


def test_closed_submissions_are_refused_before_any_quota(store: LeagueStore) -> None:
    quotas = Quotas(store, SubmissionLimits(max_bytes=1000))
    assert quotas.refusal("alice", 10) is None
    quotas.closed = FROZEN
    assert quotas.refusal("alice", 10) == FROZEN
    assert quotas.refusal("bob", 10**9) == FROZEN  # said first, over the size cap's refusal
    quotas.closed = None
    assert quotas.refusal("alice", 10) is None


def test_settled_waits_for_every_submission_under_way(store: LeagueStore, tmp_path: Path) -> None:
    async def body() -> None:
        versions = Versions.beside(
            store,
            tmp_path / "league.sqlite",
            tmp_path,
            SubmissionLimits(),
            TournamentConfig(bots_dir=None),
        )
        await asyncio.wait_for(versions.settled(), 10)  # nothing under way: at once
        versions.quotas.begin("alice")
        versions.quotas.begin("bob")
        settled = asyncio.ensure_future(versions.settled())
        versions.quotas.end("alice")
        await asyncio.sleep(0.3)
        assert not settled.done()  # bob's is still being built
        versions.quotas.end("bob")
        await asyncio.wait_for(settled, 10)

    asyncio.run(body())
