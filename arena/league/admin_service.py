"""The league server's admin service: tournaments started, followed and stopped, the
submissions listed and withdrawn, the ladder started, stopped and shown, the season's final
played and shown, all for the holder of the admin token alone."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import AsyncIterator
from typing import Any, Protocol

import grpc

from arena.league.admin_stream import LAST, EventObserver
from arena.league.final_night import SeasonFinal
from arena.league.ladder.status import LadderStatus
from arena.matchmaking import LadderError
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.store import LeagueStore
from arena.submissions.organiser import request_records, submission_records
from arena.submissions.versions import VersionError, Versions
from arena.tournament.config import TournamentError
from arena.tournament.results.final_record import FinalError
from engine import PerudoError


class LadderSwitch(Protocol):
    """The ladder as the admin starts, stops and looks at it."""

    def start(self) -> None: ...
    async def stop(self) -> None: ...
    def status(self) -> LadderStatus: ...


class League(Protocol):
    """What the admin service asks of the league server (`LeagueServer` has it): its
    nights, its final, its ladder, and the submissions and requests it keeps."""

    @property
    def observer(self) -> EventObserver: ...
    @property
    def final(self) -> SeasonFinal: ...
    @property
    def ladder(self) -> LadderSwitch: ...
    @property
    def versions(self) -> Versions: ...
    @property
    def store(self) -> LeagueStore: ...
    def status(self) -> apb.GetStatusResponse: ...
    def start_tournament(
        self, request: apb.StartTournamentRequest
    ) -> asyncio.Queue[apb.TournamentEvent]: ...
    def stop_tournament(self) -> bool: ...


class AdminService(apb_grpc.AdminServiceServicer):
    """Each call checks the admin token (compared in constant time), then asks the server."""

    def __init__(self, league: League, token: str) -> None:
        self._league = league
        self._token = token

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:  # type: ignore[type-arg]
        sent = dict(context.invocation_metadata() or ()).get("authorization", "")
        if not hmac.compare_digest(str(sent).encode(), f"Bearer {self._token}".encode()):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "wrong or missing admin token")

    async def GetStatus(  # noqa: N802 (grpc's method name)
        self, request: apb.GetStatusRequest, context: Any
    ) -> apb.GetStatusResponse:
        await self._authorize(context)
        return self._league.status()

    async def StartTournament(  # noqa: N802 (grpc's method name)
        self, request: apb.StartTournamentRequest, context: Any
    ) -> AsyncIterator[apb.TournamentEvent]:
        await self._authorize(context)
        try:
            queue = self._league.start_tournament(request)
        except (TournamentError, PerudoError, ValueError) as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            return
        async for event in self._follow(queue):
            yield event

    async def StartFinal(  # noqa: N802 (grpc's method name)
        self, request: apb.StartFinalRequest, context: Any
    ) -> AsyncIterator[apb.TournamentEvent]:
        await self._authorize(context)
        try:
            queue = self._league.final.start(request)
        except (TournamentError, FinalError, PerudoError, ValueError) as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            return
        async for event in self._follow(queue):
            yield event

    async def GetFinal(  # noqa: N802 (grpc's method name)
        self, request: apb.GetFinalRequest, context: Any
    ) -> apb.FinalStatus:
        await self._authorize(context)
        try:
            return self._league.final.status()
        except FinalError as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
            raise  # abort raises; this is for the type checker

    async def _follow(
        self, queue: asyncio.Queue[apb.TournamentEvent]
    ) -> AsyncIterator[apb.TournamentEvent]:
        """The night's events until its last one; the queue is let go however the stream ends."""
        try:
            while True:
                event = await queue.get()
                yield event
                if event.WhichOneof("kind") in LAST:
                    return
        finally:
            self._league.observer.listeners.discard(queue)

    async def StopTournament(  # noqa: N802 (grpc's method name)
        self, request: apb.StopTournamentRequest, context: Any
    ) -> apb.StopTournamentResponse:
        await self._authorize(context)
        return apb.StopTournamentResponse(stopping=self._league.stop_tournament())

    async def ListSubmissions(  # noqa: N802 (grpc's method name)
        self, request: apb.ListSubmissionsRequest, context: Any
    ) -> apb.ListSubmissionsResponse:
        await self._authorize(context)
        return submission_records(self._league.versions, request.author or None)

    async def ListRequests(  # noqa: N802 (grpc's method name)
        self, request: apb.ListRequestsRequest, context: Any
    ) -> apb.ListRequestsResponse:
        await self._authorize(context)
        return request_records(self._league.store, request.author or None)

    async def WithdrawSubmission(  # noqa: N802 (grpc's method name)
        self, request: apb.WithdrawSubmissionRequest, context: Any
    ) -> apb.WithdrawSubmissionResponse:
        await self._authorize(context)
        try:
            playing = self._league.versions.withdraw(request.name, request.version)
        except VersionError as error:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(error))
        return apb.WithdrawSubmissionResponse(playing=playing)

    async def Ladder(  # noqa: N802 (grpc's method name)
        self, request: apb.LadderRequest, context: Any
    ) -> apb.LadderResponse:
        await self._authorize(context)
        ladder = self._league.ladder
        try:
            if request.action == apb.LadderRequest.ACTION_START:
                ladder.start()
            elif request.action == apb.LadderRequest.ACTION_STOP:
                await ladder.stop()
        except LadderError as error:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, str(error))
        return ladder.status().reply()
