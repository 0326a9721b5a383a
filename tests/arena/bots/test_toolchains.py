"""The toolchain table: a submitted bot's programs are found on the system PATH and the
table's folders only, it sees nothing of a home folder, a refusal names no host path,
a JDK builds in the box, and an organiser adds a toolchain with a file (real bwrap)."""

from __future__ import annotations

import argparse
import asyncio
import shutil
from pathlib import Path

import pytest
from tournament_harness import Recorder, minimal_info

from arena.bots.builds.build import run_build
from arena.bots.builds.toolcache import build_tools
from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.environment import bot_environment
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import Jail, SandboxMode, decide
from arena.bots.manifest import load_entry
from arena.bots.toolchains import (
    SYSTEM_PATH,
    VARIABLE,
    ToolchainError,
    find,
    folders,
    offered,
    refusal,
    strict_path,
    table,
)
from arena.referee.service.auth import TokenBook
from arena.submissions import worker
from arena.tournament.config import TournamentConfig
from arena.tournament.play.lineup import Lineup
from arena.tournament.results.folder import TournamentFolder

sandboxed = pytest.mark.skipif(
    not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not
)
DEBIAN_DOTNET = """
[dotnet]
programs = ["dotnet"]
bin = ["/usr/lib/dotnet"]
install = 1
readonly = ["/etc/dotnet"]
caches = [{ variable = "NUGET_PACKAGES", path = "~/.nuget/packages" }]
"""


@pytest.fixture
def organiser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An organiser's home: a helper in ~/bin (on the server's own PATH, as often), and a
    credential beside it."""
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    helper = home / "bin" / "helper"
    helper.write_text("#!/bin/sh\necho helped\n")
    helper.chmod(0o755)
    (home / ".pgpass").write_text("db:5432:*:organiser:hunter2\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / 'bin'}:/usr/bin:/bin")
    return home


def _bot(folder: Path, manifest: str) -> Path:
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(manifest)
    return folder


def test_a_bare_name_is_not_looked_up_on_the_servers_own_path(organiser: Path) -> None:
    spec = load_entry(
        _bot(
            organiser.parent / "bot",
            'name = "b"\nrun = "python bot.py"\nrequires = ["helper", "sh"]\n',
        )
    )
    assert spec is not None
    assert spec.missing_programs(strict=False) == []  # the organiser's own arena run: as ever
    assert spec.missing_programs(strict=True) == ["helper"]
    assert find("sh", strict=True) is not None
    inside = bot_environment({}, sandboxed=True, strict=True)["PATH"].split(":")
    assert str(organiser / "bin") not in inside
    assert all(p in inside for p in SYSTEM_PATH)


def test_an_absolute_path_is_accepted_only_where_the_table_finds_that_program(
    organiser: Path,
) -> None:
    helper = str(organiser / "bin" / "helper")
    assert find(helper, strict=True) is None
    assert folders(helper, strict=True) == []
    sh = find("sh", strict=True)
    assert sh is not None
    assert find(str(sh), strict=True) == sh
    assert find(str(organiser / "bin" / "sh"), strict=True) is None
    assert find("bin/helper", strict=True) is None


def test_a_refusal_names_the_programs_offered_and_no_host_path(organiser: Path) -> None:
    said = refusal(["helper"])
    assert said.startswith("it needs helper, which this server does not offer; it offers: ")
    assert "/" not in said
    assert "sh" not in said.split(": ", 1)[1].split(", ")  # toolchains' programs only
    assert set(offered()) <= {p for t in table() for p in t.programs}


def test_the_worker_refuses_a_program_in_a_home_folder_and_names_no_path(
    organiser: Path, tmp_path: Path
) -> None:
    helper = organiser / "bin" / "helper"
    bot = _bot(tmp_path / "bot", f'name = "b"\nrun = "python bot.py"\nrequires = ["{helper}"]\n')
    args = argparse.Namespace(
        bot=bot,
        build_log=tmp_path / "build.log",
        check_log=tmp_path / "check.log",
        memory_mb=1024,
        cpu_s=60,
        build_timeout=60.0,
        build_network=BuildNetwork.OFF.value,
        move_time=1.0,
        connect_timeout=5.0,
    )
    end = asyncio.run(worker.work(args))
    assert not end.passed
    assert end.failure.startswith(
        "it needs helper by a path (name the program), which this server does not offer; "
        "it offers: "
    )
    assert "/" not in end.failure


@sandboxed
def test_a_submitted_build_that_names_a_home_program_sees_nothing_of_the_home(
    organiser: Path, tmp_path: Path
) -> None:
    """The build runs though its program was refused (as if a line of bot.toml had been
    added after intake): the organiser's ~/.pgpass stays out of its log all the same."""
    helper = organiser / "bin" / "helper"
    bot = _bot(
        tmp_path / "bot",
        f'name = "b"\nrun = "python bot.py"\nrequires = ["{helper}", "helper"]\n'
        f"build = \"sh -c 'cat {organiser}/.pgpass; ls {organiser}/bin; helper; exit 0'\"\n",
    )
    spec = load_entry(bot)
    assert spec is not None
    log = tmp_path / "build.log"
    confinement = Confinement(decide(SandboxMode.REQUIRE, BuildNetwork.OFF), strict=True)
    assert asyncio.run(run_build(spec, {}, log, confinement=confinement)) is None
    text = log.read_text()
    assert "hunter2" not in text
    assert "helped" not in text
    assert "No such file" in text  # nothing of the home is there at all


def test_the_box_shows_no_home_folder_and_no_top_folder(
    organiser: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even a toolchain whose install would be a home folder (three levels above a program
    in ~/tools/bin) shows only the program's own folder."""
    tool = organiser / "tools" / "bin" / "mytool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    file = tmp_path / "toolchains.toml"
    file.write_text('[mine]\nprograms = ["mytool"]\nbin = ["~/tools/bin"]\ninstall = 3\n')
    monkeypatch.setenv(VARIABLE, str(file))
    assert find("mytool", strict=True) == tool
    assert folders("mytool", strict=True) == [tool.parent]
    jail = Jail(home=tmp_path, workdir=tmp_path, scratch_mb=1, programs=("mytool",), strict=True)
    bound = jail.command("bwrap", ["true"])
    assert str(organiser) not in [bound[i + 1] for i, a in enumerate(bound) if a == "--ro-bind"]


def test_a_link_on_the_path_into_a_home_shows_nothing_of_that_home(
    organiser: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A declared bin folder (outside any home) holding a link into the organiser's home:
    the program is offered, but the home's folder it leads to is not shown."""
    tool = organiser / "tools" / "linked"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (organiser / "tools" / "notes.txt").write_text("private\n")
    declared = tmp_path / "sysbin"
    declared.mkdir()
    (declared / "linked").symlink_to(tool)
    file = tmp_path / "linked.toml"
    file.write_text(f'[mine]\nprograms = ["linked"]\nbin = ["{declared}"]\n')
    monkeypatch.setenv(VARIABLE, str(file))
    assert find("linked", strict=True) == declared / "linked"
    assert folders("linked", strict=True) == [declared]
    assert tool.parent in folders("linked", strict=False)  # the organiser's own: as ever


def test_an_organiser_adds_a_toolchain_with_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "dotnet.toml"
    file.write_text(DEBIAN_DOTNET)
    monkeypatch.setenv(VARIABLE, str(file))
    dotnet = next(t for t in table() if t.name == "dotnet")
    assert dotnet.bin == ("/usr/lib/dotnet",)
    assert "/usr/lib/dotnet" in strict_path()
    assert any(t.name == "jdk" for t in table())  # the shipped ones stay
    tools = build_tools(sandboxed=True)
    assert tools.env["NUGET_PACKAGES"].endswith("/.nuget/packages")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[x]\nprograms = []\n", "'programs' must list program names"),
        ('[x]\nprograms = ["a/b"]\n', "'programs' must list program names"),
        ('[x]\nprograms = ["a"]\ninstall = 0\n', "'install' must be 1"),
        ('[x]\nprograms = ["a"]\nbin = ["relative"]\n', "must be absolute paths"),
        ('[x]\nprograms = ["a"]\nfolders = ["/x"]\n', "unknown ['folders']"),
        ('[x]\nprograms = ["a"]\ncaches = [{ path = "~/.c" }]\n', "needs a 'name'"),
        ("x = 1\n", "'x' must be a table"),
    ],
)
def test_a_wrong_toolchain_file_is_refused_naming_the_file_and_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, said: str
) -> None:
    file = tmp_path / f"bad-{abs(hash(text))}.toml"
    file.write_text(text)
    monkeypatch.setenv(VARIABLE, str(file))
    with pytest.raises(ToolchainError, match=str(file)) as error:
        table()
    assert said in str(error.value)


def test_the_jdk_is_shown_with_its_configuration() -> None:
    if find("javac", strict=True) is None:
        pytest.skip("no JDK here")
    shown = folders("javac", strict=True)
    config = sorted(Path("/etc").glob("java-*"))
    assert all(c in shown for c in config)


def test_mavens_repository_is_an_arena_copy_without_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / ".m2" / "repository" / "org").mkdir(parents=True)
    (home / ".m2" / "settings.xml").write_text("<password>secret</password>")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    copies = {seen: copy for copy, seen in build_tools(sandboxed=True).writable}
    copy = copies[home / ".m2" / "repository"]
    assert (copy / "org").is_dir()
    assert home / ".cache" / "perudo-arena" in copy.parents
    assert not any(p.name == "settings.xml" for c in copies.values() for p in c.rglob("*"))


@sandboxed
@pytest.mark.slow
def test_a_java_bot_builds_with_javac_in_the_box(tmp_path: Path) -> None:
    if shutil.which("javac") is None:
        pytest.skip("no JDK here")
    bot = tmp_path / "java-bot"
    bot.mkdir()
    (bot / "Bot.java").write_text(
        'public class Bot { public static void main(String[] a) { System.out.println("hi"); } }\n'
    )
    (bot / "bot.toml").write_text(
        'name = "java-bot"\nrun = "java -cp classes Bot"\n'
        'build = "javac -d classes Bot.java"\nrequires = ["java", "javac"]\n'
    )
    spec = load_entry(bot)
    assert spec is not None
    log = tmp_path / "build.log"
    confinement = Confinement(decide(SandboxMode.REQUIRE, BuildNetwork.OFF), strict=True)
    assert spec.missing_programs(strict=True) == []
    failure = asyncio.run(run_build(spec, {}, log, confinement=confinement))
    assert failure is None, log.read_text()
    assert (bot / "classes" / "Bot.class").is_file()


def test_the_run_says_which_lookup_holds() -> None:
    sandbox = decide(SandboxMode.AUTO)
    if not sandbox.active:
        pytest.skip(sandbox.why_not)
    league = " ".join(Confinement(sandbox, strict=True).describe(ResourceLimits()))
    local = " ".join(Confinement(sandbox).describe(ResourceLimits()))
    assert "found on the system PATH and the toolchain table's folders only" in league
    assert "found on this machine's PATH" in local
    assert "organiser's own" in local


@pytest.mark.parametrize("strict", [True, False])
def test_a_league_servers_lineup_looks_programs_up_strictly(
    organiser: Path, tmp_path: Path, strict: bool
) -> None:
    """A league server's line-up (strict) skips a bot that needs the server's ~/bin/helper,
    saying what is offered; the organiser's own `arena run` finds it as ever."""
    bots = tmp_path / "bots"
    bots.mkdir()
    _bot(bots / "needy", 'name = "needy"\nrun = "python bot.py"\nrequires = ["helper"]\n')
    notes = Recorder()
    lineup = Lineup(TournamentConfig(bots_dir=bots), notes)
    lineup.confinement = Confinement(decide(SandboxMode.AUTO), strict=strict)
    folder = TournamentFolder(tmp_path / "out")
    folder.logs.mkdir(parents=True)
    info = minimal_info("t", bots_dir=str(bots))
    ready = asyncio.run(lineup.prepare(folder, info, resuming=False, tokens=TokenBook(), need=0))
    if strict:
        assert ready == []
        assert lineup.skipped[0].reason.startswith(
            "it needs helper, which this server does not offer; it offers: "
        )
    else:
        assert [b.name for b in ready] == ["needy"]
