"""A league server's ladder played for minutes or hours, watched: `arena bench soak`.

    arena bench soak MINUTES [--kill] [--bots DIR] [--table-size N]
                [--jobs J] [--json]

In a fresh folder, a real `arena serve --ladder` (its bots sandboxed, as a server's are by
default) is given a token per entrant (`arena token add`) and every bot of the folder
through `arena submit`, each verdict waited for; then the ladder plays for MINUTES while
the soak samples, every few seconds, the server's resident memory and its whole process
tree's (from /proc) and the ladder games it reports. With `--kill` the server is
killed with SIGKILL at half time and started again on the same league and results. At the
end it is stopped with SIGTERM (its games in flight finish), and the record is judged: the
games' journals against the league store (`arena league check`), none doubled, none
journaled before the kill lost, no fault charged to a bot, no hang, no memory growth past
the bound (`bench.soak_figures`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import proctree
from bench.benchmark import BenchError
from bench.soak_figures import (
    HANG_S,
    Ledger,
    SoakFigures,
    longest_gap,
    memory_of,
    pace,
)
from bench.soak_record import journaled, league_checked, on_disk, tally
from bench.soak_server import Served, run
from bench.soak_submit import Entrant, entrants, submit_all, token_file
from bench.soak_watch import Watch

STOP_S = 300.0
"""The most a stopped server may take to finish its games in flight and end."""
ORPHANS_S = 30.0
"""How long the processes of a killed server are given to go with it."""
CHECK_S = 600.0
"""The most `arena league check` may take (it reads every round's folder)."""


@dataclass(frozen=True, slots=True)
class SoakSetup:
    minutes: float
    bots: Path
    """A folder of bots (sample_bots/), each submitted as an entrant of its own."""
    kill: bool = False
    table_size: int = 3
    jobs: int = 2


READINGS = 5
"""Readings of memory a sample averages."""


def interval(minutes: float) -> float:
    """Seconds between samples: every 5 s, more often in a soak of a few minutes, so that
    each tenth of it holds several."""
    return min(5.0, max(1.0, minutes))


def run_soak(setup: SoakSetup, say: Callable[[str], None]) -> SoakFigures:
    """The soak, in a folder of its own: removed after a pass, kept for a look after a
    finding or an error."""
    field = entrants(setup.bots)
    if len(field) < setup.table_size:
        raise BenchError(
            f"{setup.bots} holds {len(field)} bots: a table of {setup.table_size} needs more"
        )
    root = Path(tempfile.mkdtemp(prefix="arena-soak-"))
    say(f"soak: in {root}")
    try:
        figures = _Soak(setup, root, say).run(field)
    except BaseException:
        say(f"soak: its folder is kept for a look: {root}")
        raise
    if figures.findings():
        say(f"soak: its folder is kept for a look: {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    return figures


class _Soak:
    def __init__(self, setup: SoakSetup, root: Path, say: Callable[[str], None]) -> None:
        self.setup = setup
        self.root = root
        self.say = say
        self.league = root / "league.sqlite"
        self.results = root / "results"
        self.runs = 0
        self.server: Served | None = None

    def serve(self) -> Served:
        """`arena serve --ladder` (again, after a kill) on the soak's league and results."""
        self.runs += 1
        command = ["serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
        command += ["--league", str(self.league), "--out", str(self.results)]
        command += ["--log-format", "json", "--ladder"]
        command += ["--ladder-table-size", str(self.setup.table_size)]
        command += ["--ladder-jobs", str(self.setup.jobs)]
        self.server = Served(command, self.root / f"serve-{self.runs}.log")
        return self.server

    def run(self, field: list[Entrant]) -> SoakFigures:
        try:
            return self._run(field)
        finally:
            if self.server is not None:
                self.server.close()

    def _run(self, field: list[Entrant]) -> SoakFigures:
        setup = self.setup
        for entrant in field:
            self._token(entrant)
        watch = Watch(setup.minutes, setup.kill, interval(setup.minutes))
        server = self.serve()
        server.wait_listening(watch.seen)
        self.say(f"soak: arena serve --ladder listens on {server.address}; submitting")
        accepted, rejected = submit_all(field, server.address, self.root, self.say)
        if len(accepted) < setup.table_size:
            raise BenchError(f"{len(accepted)} bots accepted: too few for a table")
        self.say(f"soak: {len(accepted)} bots accepted; the ladder plays {setup.minutes:g} min")
        watch.begin()
        while not watch.over():
            time.sleep(watch.every / READINGS)
            for event in server.events():
                watch.seen(event)
            if server.process.poll() is not None:
                watch.died = f"exit {server.process.returncode}: {server.tail()}"
                break
            watch.read(*server.memory())
            if watch.since_game() > HANG_S:
                break
            if watch.kill_due():
                server = self._kill_and_restart(server, watch)
            if line := watch.progress():
                self.say(line)
        ended = time.time()
        stopped, clean = server.stop(STOP_S)
        self.say(f"soak: stopped ({stopped})")
        return self._judge(watch, ended, accepted, rejected, stopped, clean)

    def _token(self, entrant: Entrant) -> None:
        made = run(["token", "add", entrant.name, "--league", str(self.league)], 120)
        if made.returncode != 0 or not made.stdout.strip():
            raise BenchError(f"arena token add {entrant.name}: {made.stderr.strip()}")
        path = token_file(self.root, entrant.name)
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(made.stdout.strip().splitlines()[-1] + "\n")

    def _stored_paths(self) -> list[Path]:
        """The results folder and the league store's files (SQLite keeps two beside it)."""
        sidecars = [self.league.with_name(self.league.name + s) for s in ("-wal", "-shm")]
        return [self.results, self.league, *sidecars]

    def _kill_and_restart(self, server: Served, watch: Watch) -> Served:
        started = server.kill()
        watch.killed(tally(journaled(self.results)).ids)  # as the kill left them
        self.say(f"soak: SIGKILL at minute {watch.elapsed() / 60:.1f}; starting it again")
        deadline = time.monotonic() + ORPHANS_S
        while time.monotonic() < deadline and any(map(proctree.alive, started)):
            time.sleep(0.2)
        orphans = [p for p in started if proctree.alive(p)]
        for process in orphans:  # the soak's own, started by the server it killed
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)
        server = self.serve()
        server.wait_listening(watch.seen)
        watch.restarted(len(orphans))
        return server

    def _judge(
        self,
        watch: Watch,
        ended: float,
        accepted: list[str],
        rejected: dict[str, str],
        stopped: str,
        clean: bool,
    ) -> SoakFigures:
        record = tally(journaled(self.results))
        played = [t - watch.start for t in record.finished]
        checked = run(
            ["league", "check", "--league", str(self.league), "--results", str(self.results)],
            CHECK_S,
        )
        stored, said = league_checked(checked.returncode, checked.stdout + checked.stderr)
        return SoakFigures(
            minutes=(ended - watch.start) / 60,
            asked_minutes=self.setup.minutes,
            bots=tuple(accepted),
            rejected=rejected,
            table_size=self.setup.table_size,
            jobs=self.setup.jobs,
            games=sum(1 for t in record.finished if t >= watch.start),
            faults=record.faults,
            gap=longest_gap(played, 0.0, ended - watch.start),
            pace=pace(played, ended - watch.start),
            server=memory_of(
                [s.server_rss for s in watch.samples], [s.server_peak for s in watch.samples]
            ),
            tree=memory_of(
                [s.tree_rss for s in watch.samples], [s.tree_peak for s in watch.samples]
            ),
            ledger=Ledger(
                len(record.ids), record.doubled, stored, said, on_disk(self._stored_paths())
            ),
            kill=watch.kill_check(set(record.ids)),
            stopped=stopped,
            stop_clean=clean,
            died=watch.died,
            samples=tuple(watch.samples),
        )
