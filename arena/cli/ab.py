"""`arena ab NEW OLD --bots FIELD/`: is NEW stronger than OLD? Duplicate deals, an SPRT."""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.ab.sprt import Hypotheses, Sprt, Verdict, elo_of
from arena.cli import live, options, validate
from arena.cli.interrupt import stop_on_ctrl_c
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.kinds import MAX_GAMES
from arena.tournament.options import Command
from arena.tournament.results.folder import TournamentFolder

if TYPE_CHECKING:
    from rich.console import Console

    from arena.ab.run import ABSummary, ABTest

DEFAULT_PAIRS = 1000
TOLD_EVERY = 2.0
"""Seconds between the live lines of the test (and one at every verdict)."""

HELP = """\
Every deal is played twice, on the same dice, at the same seat, against the
same opponents: once with NEW in that seat and once with OLD (which of them
goes first is drawn at random). NEW and OLD each meet a deal once; the field
meets it twice, so the field must be bots that keep no memory between games,
such as the house sample bots: one that remembered the hands shown in the
first game would know them in the second. A pair scores 1 for NEW when NEW
placed better than OLD did, 1/2 when the same, 0 when worse; a sequential
probability ratio test (fishtest's generalised SPRT) on these scores, in
both directions, stops the test by itself: NEW is stronger, OLD is stronger,
no evidence that either is stronger by --elo1, or the budget is reached.
--alpha is split between the two directions, so each direction's bounds are
log(beta / (1 - alpha/2)) and log((1 - beta) / (alpha/2)): -2.97 and 3.64 at
the defaults. The games are kept out of the league (their store is
OUT/ab.sqlite); a stopped test continues with --resume, losing and
repeating no pair.
"""


def add_command(commands: Any) -> None:
    ab = commands.add_parser(
        "ab",
        help="A/B test: is NEW stronger than OLD? (duplicate deals, SPRT)",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ab.add_argument("new", nargs="?", metavar="NEW", help="bot folder or script, or a bot of FIELD")
    ab.add_argument("old", nargs="?", metavar="OLD", help="bot folder or script, or a bot of FIELD")
    ab.add_argument(
        "--bots",
        type=validate.folder,
        metavar="FIELD",
        help="folder of the opponents (memoryless bots); NEW and OLD are left out of it",
    )
    ab.add_argument(
        "--resume", type=validate.folder, metavar="FOLDER", help="continue a stopped A/B test"
    )
    budget = ab.add_mutually_exclusive_group()
    budget.add_argument(
        "--pairs",
        type=validate.int_between(1, MAX_GAMES // 2),
        help=f"most pairs to play (default {DEFAULT_PAIRS}); two games each",
    )
    budget.add_argument(
        "--games",
        type=validate.int_between(2, MAX_GAMES),
        help="most games to play, instead of --pairs (half as many pairs, rounded up)",
    )
    test = ab.add_argument_group("the test (pair scores on the logistic Elo scale)")
    h = Hypotheses()
    test.add_argument(
        "--elo0",
        type=float,
        default=h.elo0,
        help=f"a difference that is no gain worth having (default {h.elo0:g})",
    )
    test.add_argument(
        "--elo1",
        type=float,
        default=h.elo1,
        help=f"the difference worth detecting, either way (default {h.elo1:g})",
    )
    test.add_argument(
        "--alpha",
        type=float,
        default=h.alpha,
        help="chance of naming a winner when they differ by --elo0 (the two directions "
        f"together; default {h.alpha:g})",
    )
    test.add_argument(
        "--beta",
        type=float,
        default=h.beta,
        help=f"chance of missing one stronger by --elo1 (default {h.beta:g})",
    )
    ab.add_argument(
        "--table-size",
        type=validate.int_between(2, 6),
        help="players per game, NEW or OLD among them (default: the field and one, up to 6)",
    )
    ab.add_argument(
        "--out",
        type=validate.out_folder,
        default=Path("results/ab"),
        help="where results go (default results/ab/)",
    )
    options.add_options(ab, Command.AB)


def _pairs(args: argparse.Namespace) -> int:
    games: int | None = args.games
    pairs: int | None = args.pairs
    if games is not None:
        return -(-games // 2)
    return pairs if pairs is not None else DEFAULT_PAIRS


def _config(args: argparse.Namespace) -> TournamentConfig:
    config = options.config(
        args,
        Command.AB,
        bots_dir=args.bots or Path("."),
        out=args.out,
        table_size=args.table_size,
        games=2 * _pairs(args),
    )
    config.check_cores()
    return config


def status_line(test: Sprt) -> str:
    """Where the test stands, for the live view."""
    c, h = test.counts, test.hypotheses
    elo = elo_of(c.score)
    # A difference under half a point is shown as +0, not -0.
    strength = (
        f"{elo if abs(elo) >= 0.5 else 0.0:+.0f} Elo"
        if math.isfinite(elo)
        else "every pair one way"
    )
    return (
        f"pairs {c.pairs:,}: NEW better {c.better}, equal {c.equal}, worse {c.worse}; "
        f"score {c.score:.3f} ({strength}); LLR {test.llr_new:.2f} for NEW, "
        f"{test.llr_old:.2f} for OLD; bounds {h.lower:.2f} {h.upper:.2f}"
    )


def _resume_plan(folder: Path, console: Console) -> tuple[Hypotheses, bool]:
    """The resumed test's hypotheses, and whether it is already over (then its verdict is told)."""
    from arena.ab.run import RESULT_FILE, hypotheses_of  # the test's code: loaded to run one

    books = TournamentFolder(folder)
    try:
        info = books.info()
    except (OSError, ValueError) as error:
        raise TournamentError(f"{folder} is not a tournament folder: {error}") from None
    if info.plan.ab is None:
        raise TournamentError(f"{folder} is no A/B test; continue it with: arena run --resume")
    if info.status is RunStatus.FINISHED:
        try:
            said = str(json.loads((folder / RESULT_FILE).read_text())["line"])
        except (OSError, ValueError, KeyError):
            said = f"(its {RESULT_FILE} is unreadable)"
        console.print(
            f"{folder} has finished: {said}", highlight=False, markup=False, soft_wrap=True
        )
        return hypotheses_of(info.plan.ab), True
    return hypotheses_of(info.plan.ab), False


def cmd_ab(args: argparse.Namespace, console: Console) -> int:
    from arena.ab.run import ABTest, configure, contenders  # loaded to run one, not for --help

    if args.resume is not None:
        if args.new or args.old or args.bots:
            raise TournamentError(
                "--resume continues a test as it began: give no NEW, OLD or --bots"
            )
        hypotheses, over = _resume_plan(args.resume, console)
        if over:
            return 0
        config = _config(args)
    else:
        if not (args.new and args.old and args.bots):
            raise TournamentError("give NEW, OLD and --bots FIELD/, or --resume FOLDER")
        hypotheses = Hypotheses(args.elo0, args.elo1, args.alpha, args.beta)
        config = configure(_config(args), hypotheses, contenders(args.new, args.old, args.bots))
    with live.LiveView(console) as view:
        last = [0.0]

        def told(test: Sprt) -> None:
            now = time.monotonic()
            if test.verdict is Verdict.UNDECIDED and now - last[0] < TOLD_EVERY:
                return
            last[0] = now
            view.note(status_line(test))

        ab = ABTest(config, hypotheses, view, told)
        summary = asyncio.run(_run(ab, view, args.resume))
    return _report(summary, console)


async def _run(ab: ABTest, view: live.LiveView, resume: Path | None) -> ABSummary:
    stop_on_ctrl_c(view, ab)
    return await ab.run(resume)


def _report(summary: ABSummary, console: Console) -> int:
    def say(text: str) -> None:
        live.say(console, text)

    say(f"NEW: {summary.new}   OLD: {summary.old}")
    say(status_line(summary.test))
    say(summary.verdict_line)
    say(f"Results: {summary.folder}")
    if not summary.finished:
        say("Continue with:")
        live.command(console, f"arena ab --resume {summary.folder}")
        return 130
    say("Check every deal with:")
    live.command(console, f"arena verify {summary.folder}")
    return 0


COMMANDS = {"ab": cmd_ab}
