"""`arena submit`, and the organiser's `arena admin submissions` and `arena admin withdraw`.

`arena submit DIR --server ADDR` packs the bot, sends it, shows the build's
output and each check as the server makes them, and ends on exactly one
line: `accepted as version N of NAME` (exit 0) or `rejected: WHY` (exit 1).
`--use-version N` plays an earlier accepted version instead (nothing is sent).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.bots.manifest import ManifestError, load_entry
from arena.cli import validate
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.protocol.messages import submission as spb
from arena.submissions.archive import PackError, pack
from arena.submissions.client import Server, interrupted, submit, use_version
from arena.submissions.versions import Verdict
from arena.text import printable
from arena.tournament.config import TournamentError

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def add_command(commands: Any) -> None:
    sub = commands.add_parser(
        "submit", help="send a bot to a league server, which builds, checks and keeps it"
    )
    sub.add_argument(
        "path", nargs="?", type=Path, help="the bot: a folder with bot.toml, or a script"
    )
    sub.add_argument("--server", required=True, metavar="HOST:PORT", help="the league server")
    sub.add_argument(
        "--token-file", type=Path, help="a file holding your token (default: $PERUDO_TOKEN)"
    )
    sub.add_argument(
        "--tls", action="store_true", help="dial with TLS (also PERUDO_TLS=1), as a remote bot does"
    )
    sub.add_argument(
        "--ca-file", help="the certificate to trust, for a self-signed server (or PERUDO_CA_FILE)"
    )
    sub.add_argument(
        "--use-version",
        type=validate.int_at_least(1),
        metavar="N",
        help="send nothing: play your accepted version N from now on",
    )
    sub.add_argument("--name", help="with --use-version and no PATH: your entrant's name")


def read_token_file(path: Path) -> str:
    """The token in `path`: one word alone (blank lines around it are forgiven). A file that
    holds more (a header line, a note) is refused here, saying so, rather than sent as a token
    the server would only say it does not know."""
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        raise TournamentError(f"cannot read {path}: {error.strerror}") from None
    words = text.split()
    if len(words) == 1:
        return words[0]
    if not words:
        raise TournamentError(f"{path} is empty: a token file holds the token alone")
    lines = [line for line in text.splitlines() if line.strip()]
    raise TournamentError(
        f"{path} is not a token file: it holds {len(lines)} line(s) beginning "
        f"{printable(lines[0], 60)!r}, where a token file holds the token alone, one word on "
        f"one line. Remove the other lines, or make it again with: arena token add NAME > FILE "
        f"(which writes only the token to FILE)"
    )


def _token(args: argparse.Namespace) -> str:
    if args.token_file is not None:
        return read_token_file(args.token_file)
    token = os.environ.get("PERUDO_TOKEN", "").strip()
    if not token:
        raise TournamentError("no token: give --token-file FILE, or set PERUDO_TOKEN")
    return token


def cmd_submit(args: argparse.Namespace, console: Console) -> int:
    server = Server(
        args.server,
        tls=args.tls or os.environ.get("PERUDO_TLS", "") not in {"", "0"},
        ca_file=args.ca_file or os.environ.get("PERUDO_CA_FILE") or None,
    )
    try:
        verdict = asyncio.run(_submit(args, server, console))
    except (PackError, TournamentError) as error:
        verdict = Verdict(False, "", reason=str(error))
    if args.use_version is not None and verdict.accepted:
        line = f"version {verdict.version} of {verdict.name} plays from now on"
    elif interrupted(verdict):  # the server's stop, not the bot: no verdict to take to heart
        line = f"interrupted: {verdict.reason}"
    else:
        line = verdict.line()
    console.print(printable(line), highlight=False, markup=False, soft_wrap=True)
    return 0 if verdict.accepted else 1


async def _submit(args: argparse.Namespace, server: Server, console: Console) -> Verdict:
    token = _token(args)
    if args.use_version is not None:
        return await use_version(server, _name(args), token, args.use_version)
    if args.path is None:
        raise TournamentError("arena submit needs the bot's folder (or script)")
    packed = pack(args.path)
    console.print(
        f"Sending {packed.name} ({packed.files} files, {len(packed.data) / 1024:.1f} KiB) "
        f"to {server.address}",
        highlight=False,
        markup=False,
    )
    if packed.left_out:
        left = ", ".join(f"{name}/" for name in packed.left_out)
        console.print(f"left out: {left} (the server builds the bot itself)", highlight=False)
    return await submit(server, token, packed, lambda reply: _show(reply, console))


def _name(args: argparse.Namespace) -> str:
    if args.name:
        return str(args.name)
    if args.path is None:
        raise TournamentError("--use-version needs your bot's folder, or --name NAME")
    try:
        spec = load_entry(args.path)
    except ManifestError as error:
        raise TournamentError(str(error)) from None
    if spec is None:
        raise TournamentError(f"{args.path} is not a bot: give --name NAME")
    return spec.name


def _show(reply: spb.SubmitReply, console: Console) -> None:
    """A line or a check as the server sends it: the bot's words shown as text."""
    say = console.print
    if reply.WhichOneof("kind") == "line":
        line = reply.line
        prefix = "  build | " if line.stage == "build" else "  "
        say(prefix + printable(line.text), highlight=False, markup=False, soft_wrap=True)
        return
    check = reply.check
    say("[green]PASS[/] " if check.passed else "[red]FAIL[/] ", end="")
    say(f"{printable(check.name)}: {printable(check.detail)}", highlight=False, markup=False)
    for tail in check.log_tail:
        say(f"     | {printable(tail)}", highlight=False, markup=False)
    if check.warning:
        say("[yellow]WARN[/] ", end="")
        say(printable(check.warning), highlight=False, markup=False)


async def admin_action(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    args: argparse.Namespace,
    console: Console,
) -> int:
    """`arena admin submissions [--author NAME]` and `arena admin withdraw NAME@VERSION`."""
    if args.action == "withdraw":
        name, at, number = args.version.partition("@")
        if not (name and at and number.isdigit() and int(number) > 0):
            raise TournamentError("arena admin withdraw wants NAME@VERSION, e.g. alice@3")
        request = apb.WithdrawSubmissionRequest(name=name, version=int(number))
        reply = await stub.WithdrawSubmission(request, metadata=metadata, timeout=10)
        now = f"version {reply.playing} plays" if reply.playing else "no version of it plays"
        console.print(f"Withdrew {name}@{number}; {now}.", highlight=False, markup=False)
        return 0
    listing = await stub.ListSubmissions(
        apb.ListSubmissionsRequest(author=args.author or ""), metadata=metadata, timeout=10
    )
    if not listing.submissions:
        console.print("No submissions.")
        return 0
    for s in listing.submissions:
        version = f"v{s.version}" if s.version else "-"
        state = "withdrawn" if s.withdrawn else s.state
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.received))
        mark = "  (plays)" if s.playing else ""
        why = f"  {s.reason}" if s.reason else ""
        console.print(
            printable(
                f"{s.name:<20} {version:>4} {state:<11} {when}  {s.size / 1024:8.1f} KiB  "
                f"{s.sha256[:12]}{mark}{why}"
            ),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    return 0


COMMANDS = {"submit": cmd_submit}
