"""Bot processes: limited, drained into capped logs, stopped with everything they started."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

from arena.bots.builds.build import run_build
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.environment import bot_environment
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.manifest import BotSpec, load_entry
from arena.bots.run.processes import BotProcess


def _script_bot(folder: Path, name: str, code: str, memory_mb: int | None = None) -> BotSpec:
    script = folder / f"{name}.py"
    script.write_text(code)
    return BotSpec(
        name=name, path=script, workdir=folder, run=("python", script.name), memory_mb=memory_mb
    )


def _gone(pid: int) -> bool:
    """No such process, or only a zombie waiting for a parent that is not us to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in {"Z", "X"}


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.02)
    return _gone(pid)


async def _wait_for_line(log: Path, prefix: str, seconds: float = 15.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists():
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith(prefix):
                    return line
        await asyncio.sleep(0.02)
    raise AssertionError(f"{log} never showed a line starting {prefix!r}")


def test_a_chatty_bot_is_drained_and_its_log_capped(tmp_path: Path) -> None:
    cap = 10_000
    out_bytes = 700_000  # far more than a pipe holds: an undrained pipe would block the bot
    err_bytes = 300_000
    spec = _script_bot(
        tmp_path,
        "chatty",
        "import sys\n"
        f"for _ in range({out_bytes // 1000}):\n"
        "    sys.stdout.buffer.write(b'o' * 999 + b'\\n')\n"
        f"for _ in range({err_bytes // 1000}):\n"
        "    sys.stderr.buffer.write(b'e' * 999 + b'\\n')\n",
    )
    log = tmp_path / "logs" / "chatty.log"

    async def scenario() -> int | None:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits(log_bytes=cap))
        try:
            return await asyncio.wait_for(bot.process.wait(), 30)
        finally:
            await bot.stop(grace=1)

    assert asyncio.run(scenario()) == 0
    text = log.read_bytes()
    kept, _, note = text.partition(b"\n[log capped")
    assert len(kept) == cap
    assert kept == (b"o" * 999 + b"\n") * (cap // 1000)  # the first bytes, as written
    dropped = out_bytes + err_bytes - cap
    assert note.decode().strip() == f"at {cap} bytes: {dropped} more bytes dropped]"


def test_a_quiet_log_is_not_marked_capped(tmp_path: Path) -> None:
    spec = _script_bot(tmp_path, "quiet", "print('just this')\n")
    log = tmp_path / "quiet.log"

    async def scenario() -> int | None:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits(log_bytes=1000))
        await asyncio.wait_for(bot.process.wait(), 30)
        return await bot.stop(grace=1)

    assert asyncio.run(scenario()) == 0
    assert log.read_text() == "just this\n"


def test_the_exit_status_of_a_bot_seen_exited_is_named_before_asyncio_has_reaped_it(
    tmp_path: Path,
) -> None:
    spec = _script_bot(tmp_path, "quitter", "raise SystemExit(3)\n")

    async def scenario() -> tuple[int | None, bool, int | None]:
        bot = await BotProcess.start(spec, {}, tmp_path / "quitter.log", ResourceLimits())
        assert _wait_gone(bot.process.pid, 30)  # the loop blocked: seen exited, not yet reaped
        unreaped, alive = bot.process.returncode, bot.alive
        return unreaped, alive, await bot.exit_status()

    unreaped, alive, status = asyncio.run(scenario())
    assert unreaped is None and not alive
    assert status == 3


def test_stop_ends_a_stubborn_bot_and_its_grandchild(tmp_path: Path) -> None:
    spec = _script_bot(
        tmp_path,
        "stubborn",
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(f'grandchild {child.pid}', flush=True)\n"
        "time.sleep(600)\n",
    )
    log = tmp_path / "stubborn.log"

    async def scenario() -> tuple[int, int, BotProcess]:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits())
        try:
            line = await _wait_for_line(log, "grandchild ")
            grandchild = int(line.split()[1])
            assert bot.alive
            assert not _gone(grandchild)
            assert os.getpgid(bot.process.pid) == bot.process.pid  # a group of its own
            assert os.getpgid(grandchild) == bot.process.pid
        finally:
            await bot.stop(grace=0.1)
        return bot.process.pid, grandchild, bot

    pid, grandchild, bot = asyncio.run(scenario())
    assert bot.process.returncode is not None
    assert not bot.alive
    assert _wait_gone(pid)
    assert _wait_gone(grandchild), f"grandchild {grandchild} outlived stop()"


@pytest.mark.parametrize("sandboxed", [False, True], ids=["off", "sandboxed"])
def test_sigterm_reaches_the_bot_which_may_end_cleanly(tmp_path: Path, sandboxed: bool) -> None:
    """Whatever stands between arena and bot (launcher, bwrap) lets SIGTERM reach it."""
    sandbox = decide(SandboxMode.AUTO if sandboxed else SandboxMode.OFF)
    if sandboxed and not sandbox.active:
        pytest.skip(sandbox.why_not)
    spec = _script_bot(
        tmp_path,
        "tidy",
        "import signal, sys, time\n"
        "def bye(*_):\n"
        "    time.sleep(0.3)\n"
        "    print('tidied up', flush=True)\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, bye)\n"
        "print('ready', flush=True)\n"
        "time.sleep(600)\n",
    )
    log = tmp_path / "tidy.log"

    async def scenario() -> int | None:
        cgroups = CgroupRoot.find()
        confinement = Confinement(sandbox, cgroups)
        try:
            bot = await BotProcess.start(spec, {}, log, ResourceLimits(), confinement)
            await _wait_for_line(log, "ready")
            return await bot.stop(grace=0)
        finally:
            if cgroups is not None:
                cgroups.remove()

    code = asyncio.run(scenario())
    assert "tidied up" in log.read_text()
    assert code == 0


def test_children_left_by_a_bot_that_exited_die_with_it(tmp_path: Path) -> None:
    spec = _script_bot(
        tmp_path,
        "orphaner",
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "print(f'grandchild {child.pid}', flush=True)\n",
    )
    log = tmp_path / "orphaner.log"

    async def scenario() -> tuple[int | None, int]:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits())
        line = await _wait_for_line(log, "grandchild ")
        deadline = time.monotonic() + 30
        while bot.alive and time.monotonic() < deadline:  # wait() would wait for the pipe too
            await asyncio.sleep(0.02)
        assert not bot.alive
        grandchild = int(line.split()[1])
        # Before stop(): the launcher that watches over the bot sweeps what it left.
        assert _wait_gone(grandchild), f"grandchild {grandchild} outlived its bot"
        return await bot.stop(grace=0.1), grandchild

    code, _ = asyncio.run(scenario())
    assert code == 0


def test_resource_limits_and_environment_reach_the_bot(tmp_path: Path) -> None:
    spec = _script_bot(
        tmp_path,
        "limited",
        "import json, os, resource as r\n"
        "print(json.dumps({\n"
        "    'nofile': r.getrlimit(r.RLIMIT_NOFILE),\n"
        "    'as': r.getrlimit(r.RLIMIT_AS),\n"
        "    'cpu': r.getrlimit(r.RLIMIT_CPU),\n"
        "    'nproc': r.getrlimit(r.RLIMIT_NPROC),\n"
        "    'core': r.getrlimit(r.RLIMIT_CORE),\n"
        "    'cwd': os.getcwd(),\n"
        "    'name': os.environ.get('PERUDO_BOT_NAME'),\n"
        "    'path0': os.environ['PATH'].split(os.pathsep)[0],\n"
        "}))\n",
        memory_mb=300,
    )
    limits = ResourceLimits(memory_mb=4000, cpu_s=77, nproc=5000, nofile=99)
    log = tmp_path / "limited.log"

    async def scenario() -> None:
        bot = await BotProcess.start(spec, {"PERUDO_BOT_NAME": "limited"}, log, limits)
        await asyncio.wait_for(bot.process.wait(), 30)
        await bot.stop(grace=1)

    asyncio.run(scenario())
    seen = json.loads(log.read_text())
    # A limit the bot could lift again by itself would be no limit: hard = soft.
    assert seen["nofile"] == [99, 99]
    assert seen["as"] == [300 * 1024 * 1024] * 2  # the manifest's memory_mb wins
    assert seen["cpu"] == [77, 77]
    assert seen["nproc"] == [5000, 5000]
    assert seen["core"] == [0, 0]
    assert seen["cwd"] == str(tmp_path)
    assert seen["name"] == "limited"
    assert seen["path0"] == str(Path(sys.executable).parent)


def test_a_manifest_cannot_raise_the_organisers_caps(tmp_path: Path) -> None:
    spec = _script_bot(
        tmp_path,
        "greedy",
        "import resource as r\nprint(r.getrlimit(r.RLIMIT_AS)[0])\n",
        memory_mb=4_194_304,
    )
    log = tmp_path / "greedy.log"

    async def scenario() -> None:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits(memory_mb=1024))
        await asyncio.wait_for(bot.process.wait(), 30)
        await bot.stop(grace=1)

    asyncio.run(scenario())
    assert int(log.read_text()) == 1024 * 1024 * 1024
    slow = _build_folder(tmp_path / "slowpoke", "sleep 60\n", timeout=1_000_000)
    started = time.monotonic()
    failure = asyncio.run(
        run_build(slow, {}, tmp_path / "slowpoke.log", ResourceLimits(build_timeout=1))
    )
    assert failure is not None and "longer than 1 s" in failure
    assert time.monotonic() - started < 30


def test_a_bot_gets_only_the_listed_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORGANISER_SECRET", "hunter2")
    spec = _script_bot(tmp_path, "nosy", "import json, os\nprint(json.dumps(dict(os.environ)))\n")
    log = tmp_path / "nosy.log"

    async def scenario() -> None:
        bot = await BotProcess.start(spec, {"PERUDO_TOKEN": "t"}, log, ResourceLimits())
        await asyncio.wait_for(bot.process.wait(), 30)
        await bot.stop(grace=1)

    asyncio.run(scenario())
    seen = json.loads(log.read_text())
    assert "ORGANISER_SECRET" not in seen
    assert seen["PERUDO_TOKEN"] == "t"
    assert set(seen) <= {*bot_environment({}, sandboxed=False), "PERUDO_TOKEN"}


def test_a_bot_cannot_raise_its_file_limit_again(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may raise a hard limit (CAP_SYS_RESOURCE)")
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = 4096 if hard == resource.RLIM_INFINITY else hard
    spec = _script_bot(
        tmp_path,
        "escaper",
        "import resource as r\n"
        "try:\n"
        f"    r.setrlimit(r.RLIMIT_NOFILE, ({target}, {target}))\n"
        "    print('raised', r.getrlimit(r.RLIMIT_NOFILE)[0])\n"
        "except (ValueError, OSError):\n"
        "    print('refused', r.getrlimit(r.RLIMIT_NOFILE)[0])\n",
    )
    log = tmp_path / "escaper.log"

    async def scenario() -> None:
        bot = await BotProcess.start(spec, {}, log, ResourceLimits(nofile=64))
        await asyncio.wait_for(bot.process.wait(), 30)
        await bot.stop(grace=1)

    asyncio.run(scenario())
    assert log.read_text().split() == ["refused", "64"]


def _build_folder(folder: Path, script: str, timeout: float = 60) -> BotSpec:
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{folder.name}"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
        f"build_timeout = {timeout}\n"
    )
    (folder / "build.sh").write_text(script)
    spec = load_entry(folder)
    assert spec is not None
    return spec


def test_a_failed_build_reports_its_exit_code_and_last_line(tmp_path: Path) -> None:
    spec = _build_folder(
        tmp_path / "broken",
        "echo compiling\necho 'main.c:3: error: expected ;' >&2\nexit 3\n",
    )
    log = tmp_path / "logs" / "broken.build.log"
    failure = asyncio.run(run_build(spec, {}, log))
    assert failure is not None
    assert "exit code 3" in failure
    assert failure.endswith("main.c:3: error: expected ;")
    assert log.read_text() == "compiling\nmain.c:3: error: expected ;\n"


def test_a_silent_failed_build(tmp_path: Path) -> None:
    spec = _build_folder(tmp_path / "mute", "exit 5\n")
    failure = asyncio.run(run_build(spec, {}, tmp_path / "mute.build.log"))
    assert failure is not None
    assert "exit code 5" in failure
    assert "(no output)" in failure


def test_a_build_that_cannot_start(tmp_path: Path) -> None:
    folder = tmp_path / "nocc"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "nocc"\nrun = "python bot.py"\nbuild = "no-such-compiler-perudo-xyz -O2"\n'
    )
    spec = load_entry(folder)
    assert spec is not None
    failure = asyncio.run(run_build(spec, {}, tmp_path / "nocc.build.log"))
    assert failure is not None
    assert "cannot start" in failure


def test_a_good_build_and_no_build(tmp_path: Path) -> None:
    spec = _build_folder(tmp_path / "fine", "echo built > built.txt\n")
    assert asyncio.run(run_build(spec, {"EXTRA": "1"}, tmp_path / "fine.build.log")) is None
    assert (tmp_path / "fine" / "built.txt").read_text() == "built\n"  # ran in its folder
    script = _script_bot(tmp_path, "plain", "pass\n")
    assert asyncio.run(run_build(script, {}, tmp_path / "plain.build.log")) is None


def test_a_build_over_its_time_is_killed_with_its_children(tmp_path: Path) -> None:
    spec = _build_folder(
        tmp_path / "slow",
        "sleep 60 &\necho $! > sleeper.pid\necho waiting\nwait\n",
        timeout=1,
    )
    started = time.monotonic()
    failure = asyncio.run(run_build(spec, {}, tmp_path / "slow.build.log"))
    elapsed = time.monotonic() - started
    assert failure is not None
    assert "longer than 1 s" in failure
    assert elapsed < 10
    sleeper = int((tmp_path / "slow" / "sleeper.pid").read_text())
    assert _wait_gone(sleeper), "the build's own child outlived the timeout"
