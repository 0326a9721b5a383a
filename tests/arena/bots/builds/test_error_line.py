"""A failed build summed up by the line that says what broke: each compiler's own words,
run for real where it is installed, and a build whose cause comes before a stack trace."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.bots.builds.build import run_build
from arena.bots.builds.error_line import error_line
from arena.bots.manifest import load_entry

BROKEN = {
    "javac": ("Bot.java", 'public class Bot { void f() { int x = "s"; } }\n', ["javac"]),
    "cc": ("b.c", "int main(void) { return y; }\n", ["cc", "-c"]),
    "go": ("m.go", "package main\nfunc main() { x }\n", ["go", "build"]),
    "python3": ("p.py", "import no_such_module_here\n", ["python3"]),
}
SAID = {
    "javac": "Bot.java:1: error: incompatible types",
    "cc": "b.c:1:25: error:",
    "go": "./m.go:2:15: undefined: x",
    "python3": "ModuleNotFoundError: No module named 'no_such_module_here'",
}


@pytest.mark.parametrize("tool", sorted(BROKEN))
def test_each_compilers_own_error_is_the_line_said(tool: str, tmp_path: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    name, source, command = BROKEN[tool]
    (tmp_path / name).write_text(source)
    done = subprocess.run(
        [*command, name], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0
    said = error_line((done.stdout + done.stderr).splitlines())
    assert said is not None and said.startswith(SAID[tool]), said


def test_warnings_and_counts_are_not_errors_and_tabs_read_as_spaces() -> None:
    assert error_line(["b.c:3:1: warning: unused variable 'x'", "0 errors", "done"]) is None
    lines = ["[INFO] Scanning", "Error loading java.security file", "\tat java.base/X.y(X.java:5)"]
    assert error_line(lines) == "Error loading java.security file"
    assert error_line(["make: ***\tError\x1b[31m 2"]) is None  # make's last word alone: no
    assert error_line(["error:\tno\x1b[2J such crate"]) == "error: no\\x1b[2J such crate"


def test_a_failed_build_is_summed_up_by_its_first_error_not_its_stack_trace(
    tmp_path: Path,
) -> None:
    bot = tmp_path / "javaish"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "javaish"\nrun = "python bot.py"\nbuild = "sh b.sh"\n')
    (bot / "b.sh").write_text(
        "echo 'Compiling 3 files'\n"
        "echo 'Bot.java:12: error: cannot find symbol' >&2\n"
        "printf '\\tat jdk.compiler/com.sun.tools.javac.Main.compile(Main.java:64)\\n' >&2\n"
        "printf '\\tat jdk.compiler/com.sun.tools.javac.Main.main(Main.java:50)\\n' >&2\n"
        "exit 1\n"
    )
    spec = load_entry(bot)
    assert spec is not None
    failure = asyncio.run(run_build(spec, {}, tmp_path / "build.log"))
    assert failure == "the build failed with exit code 1: Bot.java:12: error: cannot find symbol"
