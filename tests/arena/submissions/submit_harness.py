"""A real league server in process with submissions, and `arena submit`'s own client."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.screen import Kind, ScreenEvent
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.protocol.messages import submission as spb
from arena.referee.service.auth import new_token, token_hash
from arena.referee.service.referee_server import Tls
from arena.submissions.archive import Packed, pack
from arena.submissions.client import Server, submit
from arena.submissions.folder import SubmissionsFolder
from arena.submissions.limits import SubmissionLimits
from arena.submissions.versions import Verdict
from arena.tournament.config import TournamentConfig

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@dataclasses.dataclass
class Desk:
    server: LeagueServer
    tmp: Path
    said: list[str]
    admin: apb_grpc.AdminServiceStub
    metadata: list[tuple[str, str]]

    @property
    def address(self) -> Server:
        return Server(f"127.0.0.1:{self.server.port}")

    @property
    def files(self) -> SubmissionsFolder:
        return self.server.versions.files

    def register(self, name: str) -> str:
        token = new_token()
        self.server.store.set_entrant(name, token_hash(token))
        return token

    async def send(
        self, packed: Packed, token: str, replies: list[spb.SubmitReply] | None = None
    ) -> Verdict:
        seen = replies if replies is not None else []
        return await submit(self.address, token, packed, seen.append)

    async def send_bot(self, path: Path, token: str | None = None) -> Verdict:
        packed = pack(path)
        return await self.send(packed, token or self.register(packed.name))

    def stored(self) -> tuple[int, list[str], list[str]]:
        """Rows, version folders and leftovers in tmp/: what a refusal must leave empty."""
        versions = sorted(p.name for p in self.files.versions.iterdir())
        leftovers = sorted(p.name for p in self.files.tmp.iterdir())
        return len(self.server.store.submissions()), versions, leftovers


@contextlib.asynccontextmanager
async def desk(
    tmp: Path, limits: SubmissionLimits | None = None, tls: Tls | None = None, **defaults: object
) -> AsyncIterator[Desk]:
    said: list[str] = []
    config = LeagueConfig(
        tls=tls,
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp / "league" / "league.sqlite",
        out=tmp / "results",
        defaults=TournamentConfig(bots_dir=None, move_time=1.0, **defaults),  # type: ignore[arg-type]
        submissions=limits or SubmissionLimits(builds_at_once=2),
    )

    def tell(event: ScreenEvent) -> None:
        if event.kind is Kind.SUBMISSION:
            said.append(event.text)

    server = LeagueServer(config, tell)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
    stub = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
    token = admin_token_path(config.league, config.out).read_text().strip()
    try:
        yield Desk(server, tmp, said, stub, [("authorization", f"Bearer {token}")])
    finally:
        await channel.close(None)
        await server.stop()
