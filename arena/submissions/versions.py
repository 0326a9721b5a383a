"""Each entrant's versions: taken in, kept once by the hash of their files, built, checked, judged.

The order of the steps is what keeps a killed server honest. An upload is
unpacked in `tmp/` and refused there if it must be (`arena.submissions.intake`);
only then are its files moved into `versions/` (synced, renamed whole) and a
row written that says its build began; the verdict is written last, in one
transaction that gives an accepted version its number. A server killed at
any step leaves only what its next start discards (`recover`): files in
`tmp/`, the version folder of a row never accepted, a row still `building`
(marked interrupted); a version folder no row names is moved aside, never
removed. An accepted version is never touched again but to be withdrawn.

Files already accepted for the same entrant are not built again: the verdict
names the version they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.store import LeagueStore, StoreError
from arena.store.submissions import SubmissionRow, SubmissionState
from arena.submissions.folder import SubmissionsFolder, submissions_folder
from arena.submissions.footprint import disk_bytes, over_limits
from arena.submissions.intake import Unpacked, unpack
from arena.submissions.limits import SubmissionLimits
from arena.submissions.pipeline import BuildSettings, Outcome, Pipeline, sweep_scratch
from arena.submissions.quotas import Quotas
from arena.submissions.report import Event, Line, report_json
from arena.text import printable
from arena.tournament.config import TournamentConfig

INTERRUPTED = (
    "the server stopped during its build or check; nothing of it was kept: submit it again"
)
SETTLE_POLL_S = 0.1
"""How often `settled` looks whether the submissions under way have their verdicts."""


class VersionError(ArenaError):
    """A version that cannot be chosen or withdrawn as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class Verdict:
    accepted: bool
    name: str
    version: int | None = None
    reason: str = ""
    sha256: str = ""
    built: bool = False
    """Whether it was built and checked here (not a copy of a version already judged, nor
    refused before its build)."""

    def line(self) -> str:
        """The verdict as `arena submit` ends on it, and the server's screen says it."""
        if self.accepted:
            return f"accepted as version {self.version} of {self.name}"
        return f"rejected: {self.reason}"


class Versions:
    def __init__(
        self,
        store: LeagueStore,
        files: SubmissionsFolder,
        limits: SubmissionLimits,
        settings: BuildSettings,
        say: Callable[[str], None] | None = None,
        on_verdict: Callable[[Verdict], None] | None = None,
    ) -> None:
        """`say` is told a line for each submission and each verdict; `on_verdict` is given
        every verdict (the server's count of them)."""
        self.store = store
        self.files = files
        self.limits = limits
        self.quotas = Quotas(store, limits)
        self.pipeline = Pipeline(settings, limits.builds_at_once)
        self._say = say
        self._on_verdict = on_verdict
        self._intake = asyncio.Semaphore(1)
        self._tasks: set[asyncio.Task[Verdict]] = set()

    @classmethod
    def beside(
        cls,
        store: LeagueStore,
        league: Path | str,
        out: Path,
        limits: SubmissionLimits,
        defaults: TournamentConfig,
        say: Callable[[str], None] | None = None,
        on_verdict: Callable[[Verdict], None] | None = None,
    ) -> Versions:
        """A league server's: its folder beside the league store, each build and check given
        the limits, build network, move time and connect time its tournaments have."""
        settings = BuildSettings(
            defaults.limits, defaults.build_network, defaults.move_time, defaults.connect_timeout
        )
        files = SubmissionsFolder(submissions_folder(league, out))
        return cls(store, files, limits, settings, say, on_verdict)

    def tell(self, text: str) -> None:
        if self._say is not None:
            self._say(printable(text))

    def judged(self, verdict: Verdict) -> Verdict:
        """Every verdict passes here, and only here: said on the server's screen, counted."""
        self.tell(f"{verdict.name}: {verdict.line()}")
        if self._on_verdict is not None:
            self._on_verdict(verdict)
        return verdict

    def recover(self) -> None:
        """At a start: what a killed server left half done, discarded, and said."""
        for row in self.store.interrupt_submissions(INTERRUPTED):
            self.tell(f"{row.name}: its submission of {_when(row.received)} was interrupted")
        for problem in self.files.recover(self.store.submissions()):
            self.tell(problem)
        sweep_scratch()

    async def take_in(self, name: str, archive: Path, staging: Path) -> Unpacked:
        """Unpack an upload, one at a time (it reads and hashes every byte); an IntakeError
        says why it is refused."""
        async with self._intake:
            return await asyncio.to_thread(unpack, archive, staging / "tree", self.limits, name)

    def begin(
        self, name: str, unpacked: Unpacked, size: int, staging: Path, tell: Callable[[Event], None]
    ) -> asyncio.Task[Verdict]:
        """Keep, build, check and judge a bot taken in, in a task of its own: it goes on if
        the author hangs up. The author's quota slot is freed when it ends."""
        task = asyncio.ensure_future(self._judge(name, unpacked, size, staging, tell))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _judge(
        self, name: str, unpacked: Unpacked, size: int, staging: Path, tell: Callable[[Event], None]
    ) -> Verdict:
        sha = unpacked.sha256
        try:
            same = self.store.accepted_with(name, sha)
            if same is not None:
                if same.withdrawn is not None:
                    return self.judged(
                        Verdict(
                            False,
                            name,
                            reason=f"these files are version {same.version} "
                            f"of {name}, which the organiser withdrew",
                            sha256=sha,
                        )
                    )
                tell(
                    Line("note", f"these files are version {same.version} already: not built again")
                )
                return self.judged(Verdict(True, name, same.version, sha256=sha))
            return await self._build(name, unpacked, size, staging, tell)
        except StoreError as error:
            return self.judged(
                Verdict(False, name, reason=f"the server could not record it: {error}")
            )
        finally:
            self.quotas.end(name)
            shutil.rmtree(staging, ignore_errors=True)

    async def _build(
        self, name: str, unpacked: Unpacked, size: int, staging: Path, tell: Callable[[Event], None]
    ) -> Verdict:
        sha = unpacked.sha256
        uid = secrets.token_hex(8)
        await asyncio.to_thread(self.files.keep, unpacked.tree, sha)
        self.store.begin_submission(uid, name, sha, size, unpacked.files, time.time())
        accepted = False
        try:
            try:
                bot = await asyncio.to_thread(self.files.prepare_build, sha)
                outcome = await self.pipeline.run(bot, self.files.version(sha), tell)
            except OSError as error:  # the server's own disk, say: judged, not left building
                outcome = Outcome(False, f"the server could not build it: {error}", ())
            if outcome.passed:
                too_large = await asyncio.to_thread(self._too_large, sha, self._kept(name, sha))
                if too_large is not None:
                    outcome = Outcome(False, too_large, outcome.checks)
            log = self.files.version(sha) / "build.log"
            build_log = log.read_text(errors="replace") if log.is_file() else ""
            row = self.store.finish_submission(
                uid, outcome.passed, outcome.failure, build_log, report_json(list(outcome.checks))
            )
            if row is None:
                return self.judged(Verdict(False, name, reason=INTERRUPTED, sha256=sha))
            accepted = row.state is SubmissionState.ACCEPTED
            if accepted:  # so that an older store restored cannot have it taken for a leftover
                await asyncio.to_thread(self.files.mark_accepted, sha)
            return self.judged(Verdict(accepted, name, row.version, row.reason, sha, built=True))
        finally:
            if not accepted and self.store.accepted_with(name, sha) is None:
                self.files.discard(sha)  # a refused version keeps its row, never its files

    def _kept(self, name: str, sha: str) -> set[str]:
        """The hashes of `name`'s other versions whose files the server keeps."""
        return {
            r.sha256
            for r in self.store.submissions(name)
            if r.state is SubmissionState.ACCEPTED and r.sha256 != sha
        }

    def _too_large(self, sha: str, others: set[str]) -> str | None:
        """Why the version `sha`, built, may not be kept beside the author's versions
        `others`: its tree or all of them together past the limits
        (`arena.submissions.footprint`); or None. Run in a thread: it walks them all."""
        return over_limits(
            disk_bytes(self.files.bot(sha)),
            disk_bytes(self.files.version(sha)),
            (disk_bytes(self.files.version(other)) for other in others),
            self.limits,
        )

    async def settled(self) -> None:
        """Return once no submission is under way: each one taken in before the
        submissions closed has its verdict (the final's field is chosen after them)."""
        while self.quotas.busy:
            await asyncio.sleep(SETTLE_POLL_S)

    def playing(self) -> dict[str, SubmissionRow]:
        return self.store.playing_versions()

    def choose(self, name: str, version: int) -> Verdict:
        """Play `version` of `name` from now on."""
        row = self._playable(name, version)
        self.store.choose_version(name, version)
        self.tell(f"{name}: plays version {version} from now on (its author's choice)")
        return Verdict(True, name, version, sha256=row.sha256)

    def withdraw(self, name: str, version: int) -> int:
        """Withdraw a version (the organiser); the version that plays now, 0 for none."""
        self._playable(name, version)
        self.store.withdraw_version(name, version)
        now = self.store.playing_versions([name]).get(name)
        playing = now.version if now is not None and now.version is not None else 0
        self.tell(
            f"{name}: version {version} withdrawn; "
            + (f"version {playing} plays" if playing else "no version of it plays")
        )
        return playing

    def _playable(self, name: str, version: int) -> SubmissionRow:
        row = self.store.version_of(name, version)
        if row is None:
            kept = [r.version for r in self.store.submissions(name) if r.version is not None]
            listed = ", ".join(map(str, sorted(kept))) or "none"
            raise VersionError(f"{name} has no version {version} (its versions: {listed})")
        if row.withdrawn is not None:
            raise VersionError(f"version {version} of {name} was withdrawn by the organiser")
        return row

    async def stop(self) -> None:
        """Stop the builds under way; what they were is marked interrupted, as at a start."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(StoreError, OSError):
            self.recover()


def _when(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))
