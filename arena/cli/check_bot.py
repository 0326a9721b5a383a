"""`arena check-bot PATH`: one bot put through the compliance suite, each check said as it
passes or fails (the suite, and the referee it plays on, loaded when the command runs)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import options, toolchains
from arena.text import printable
from arena.tournament.options import Command

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def add_command(commands: Any) -> None:
    check = commands.add_parser("check-bot", help="put one bot through a compliance suite")
    check.add_argument("path", type=Path, help="a bot folder (with bot.toml) or script")
    options.add_options(check, Command.CHECK_BOT)
    toolchains.add_toolchains_flag(check)


def cmd_check_bot(args: argparse.Namespace, console: Console) -> int:
    from arena.checkbot.check import Check, check_bot

    def say(check: Check) -> None:
        mark = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{mark} {check.name}: ", end="")
        console.print(printable(check.detail), highlight=False, markup=False)
        if check.log_tail:
            console.print("     the bot's log ends:", style="dim")
            for line in check.log_tail:
                console.print(f"     | {printable(line)}", highlight=False, markup=False)
        if check.warning:
            console.print("[yellow]WARN[/] ", end="")
            console.print(printable(check.warning), highlight=False, markup=False)

    config = options.config(args, Command.CHECK_BOT, bots_dir=args.path)
    console.print(f"Checking {args.path}", highlight=False)
    if not config.timeouts:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    run = asyncio.run(
        check_bot(
            args.path,
            say,
            config.move_time,
            config.connect_timeout,
            sandbox=config.sandbox,
            build_network=config.build_network,
            rebuild=config.rebuild,
            timeouts=config.timeouts,
        )
    )
    failed = sum(not c.passed for c in run.checks)
    console.print(
        f"{len(run.checks) - failed} passed, {failed} failed",
        style="green" if run.passed else "red",
    )
    if run.log is not None:
        console.print(f"The bot's log is kept: {run.log}", highlight=False, markup=False)
    return 0 if run.passed else 1


COMMANDS = {"check-bot": cmd_check_bot}
