"""`arena token`: the league server's entrants, each registered by the hash of its token."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console

from arena.bots.manifest import valid_name
from arena.cli import validate
from arena.cli.admin import DEFAULT_LEAGUE, LEAGUE
from arena.referee.service.auth import new_token, token_hash
from arena.store import open_store
from arena.tournament.config import TournamentError

TOKEN_ACTIONS = {
    "add": "register NAME: its token on stdout alone (so `> FILE` makes a token file), the "
    "words on stderr",
    "revoke": "forget NAME's token; its sessions are closed within seconds",
    "list": "the registered names",
}


def add_command(commands: Any) -> None:
    token = commands.add_parser("token", help="register entrants of the league server")
    token.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE, help=LEAGUE)
    # An action of its own parser, so that `token add --league X alice` reads as
    # `token add alice --league X` does (one parser's optional NAME would be taken as absent).
    actions = token.add_subparsers(dest="action", required=True, metavar="{add,revoke,list}")
    for action in ("add", "revoke", "list"):
        sub = actions.add_parser(action, help=TOKEN_ACTIONS[action])
        if action != "list":
            sub.add_argument("name", nargs="?", help="the bot's name, as it says it in its Hello")
        sub.add_argument(
            "--league",
            type=validate.league_store,
            default=argparse.SUPPRESS,
            help=f"{LEAGUE} (default: {DEFAULT_LEAGUE})",
        )


def cmd_token(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.league)
    try:
        if args.action == "list":
            for name in sorted(store.entrants()):
                console.print(name, highlight=False)
            return 0
        if not getattr(args, "name", None):
            raise TournamentError(f"arena token {args.action} needs a bot name")
        if args.action == "add":
            if not valid_name(args.name):
                raise TournamentError(f"{args.name!r} is not a usable bot name")
            secret = new_token()
            store.set_entrant(args.name, token_hash(secret))
            # The words on stderr, the bare token alone on stdout: `arena token add NAME >
            # FILE` makes a token file `arena submit --token-file FILE` reads.
            print(f"Token for {args.name} (shown once; only its hash is kept):", file=sys.stderr)
            print(secret)
            return 0
        if not store.revoke_entrant(args.name):
            raise TournamentError(f"no entrant named {args.name!r}")
        console.print(
            f"Revoked {args.name}; its sessions are closed within seconds.", highlight=False
        )
        return 0
    finally:
        store.close()


COMMANDS = {"token": cmd_token}
