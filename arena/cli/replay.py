"""`arena replay`: a recorded game told round by round, dice revealed, or as an HTML replay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError
from arena.records import Deal, Decision, Replay, RoundEnd
from arena.text import printable
from arena.tournament.results.days import REPLAYS
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.replays import FoldedReplays, ReplayLookup

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


class ReplayNotFoundError(ArenaError, FileNotFoundError):
    """No replay of the game asked for: the message says where the arena looked."""


@dataclass(frozen=True, slots=True)
class Found:
    """The replay a name points to, and the other tournaments that have a game of that id."""

    tournament: str
    game: str
    where: str
    """Where it was read: its file, or its day's record."""
    text: bytes
    others: tuple[str, ...] = ()
    """Newest first: a bare game id picks the newest tournament, and these are the rest."""

    def replay(self) -> Replay:
        """The replay; a ResultsError saying where, if it is none."""
        try:
            return Replay.from_json(json.loads(self.text))
        except (ValueError, KeyError, TypeError) as error:  # a file that is not a replay
            raise ResultsError(f"{self.where} is not a replay: {error}") from None


def find_replay(game: str, results: Path) -> Found:
    """A replay from a path, `TOURNAMENT/GAME` (the id every page and the export give), or a
    game id, from the newest tournament that has it.

    A game folded into its day's record (`arena.tournament.results.days`) is found by
    `TOURNAMENT/GAME`. A bare game id repeats across tournaments (every one has
    `u000-t000-r0`): it is looked for among the tournament folders alone, the newest (by
    when it began) told, and the others named with how to ask for one of them.
    """
    direct = Path(game)
    if direct.is_file():
        return Found(tournament_of(direct), direct.stem, str(direct), direct.read_bytes())
    if "/" in game:
        tournament, _, game_id = game.rpartition("/")
        lookup = ReplayLookup(results)
        candidate = results / tournament / "replays" / f"{game_id}.json"
        if candidate.is_file():
            return Found(tournament, game_id, str(candidate), candidate.read_bytes())
        folded = lookup.folded(tournament) if "/" not in tournament else None
        text = FoldedReplays(folded).text(game_id) if folded is not None else None
        if folded is not None and text is not None:
            return Found(tournament, game_id, f"{folded.day / REPLAYS} ({tournament})", text)
        raise ReplayNotFoundError(f"no replay of game {game_id!r} in {results / tournament}")
    matches = sorted(results.glob(f"*/replays/{game}.json"), key=_began, reverse=True)
    if not matches:
        raise ReplayNotFoundError(
            f"no replay of game {game!r} in a tournament folder under {results}; a ladder "
            f"round's games are asked for as ROUND/GAME (ladder-000042/{game})"
        )
    first = matches[0]
    others = tuple(tournament_of(m) for m in matches[1:])
    return Found(tournament_of(first), game, str(first), first.read_bytes(), others)


def _began(replay: Path) -> tuple[float, str]:
    """When the replay's tournament began (its `tournament.json`, else its folder's time)."""
    folder = replay.parent.parent
    try:
        return TournamentFolder(folder).info().created, folder.name
    except (OSError, ValueError):
        try:
            return folder.stat().st_mtime, folder.name
        except OSError:
            return 0.0, folder.name


def elsewhere(game: str, found: Found) -> str:
    """The line that names the other tournaments with a game of the id asked for, or ""."""
    if not found.others:
        return ""
    return (
        f"{game!r} is in {len(found.others)} other tournament(s) too, newest first: "
        f"{', '.join(found.others)} (arena replay {found.others[0]}/{found.game})"
    )


def add_command(commands: Any) -> None:
    show = commands.add_parser("replay", help="tell one game round by round")
    show.add_argument("game", help="game id, TOURNAMENT/GAME, or a replay file")
    show.add_argument(
        "--results",
        type=Path,
        default=Path("results"),
        help="the results folder a game id is looked for in (default results/)",
    )
    show.add_argument(
        "--html", type=Path, metavar="OUT.html", help="write the game as an HTML replay instead"
    )


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    found = find_replay(args.game, args.results)
    also = elsewhere(args.game, found)  # a bare id, newest first: the others named
    replay = found.replay()
    if args.html is not None:
        from arena.web.replay_page import replay_html  # the page's code only for a page

        try:
            args.html.write_text(replay_html(replay, found.tournament))
        except OSError as error:
            raise ResultsError(f"cannot write {args.html}: {error.strerror or error}") from None
        lead = f"Wrote {args.html} (open it in a browser)"
    else:
        lead = f"Tournament {found.tournament} ({found.where})"
    # A path is copied from the screen: one line each, however narrow the terminal.
    for line in (lead, also):
        if line:
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    if args.html is not None:
        return 0
    for line in tell(replay):
        console.print(printable(line), highlight=False, markup=False)
    return 0


def tournament_of(replay: Path) -> str:
    """The tournament a replay file belongs to (results/<tournament>/replays/<game>.json)."""
    return replay.parent.parent.name if replay.parent.name == "replays" else "?"


def _face(face: int) -> str:
    return "pacos" if face == 1 else f"{face}s"


def _bid(text: str) -> str:
    _, count, face = text.split()
    return f"{count} x {_face(int(face))}"


def tell(replay: Replay) -> list[str]:
    names = replay.players
    lines = [f"Game {replay.game}: {', '.join(f'{i}:{n}' for i, n in enumerate(names))}"]
    standing = ""
    for event in replay.events:
        if isinstance(event, Deal):
            standing = ""
            kind = " (palifico)" if event.palifico else ""
            lines.append(f"Round {event.round}{kind}, {names[event.opener]} opens")
            for seat, hand in enumerate(event.hands):
                if hand:
                    lines.append(f"    {names[seat]:>16}: {' '.join(map(str, hand))}")
        elif isinstance(event, Decision):
            action = event.action
            if action.startswith("bid "):
                standing = _bid(action)
                action = f"bids {standing}"
            elif event.declined:  # only ever the answer to a calza offer out of turn
                action = f"is offered calza on {standing} and declines"
            elif action == "calza":
                action = f"calls calza on {standing}"
            elif action == "dudo":
                action = f"calls dudo on {standing}"
            lines.append(f"  {names[event.seat]} {action}  ({event.ms:.1f} ms)")
        elif isinstance(event, RoundEnd):
            verb = {-1: "loses a die", 1: "gains a die", 0: "keeps every die"}.get(
                event.change, f"changes by {event.change}"
            )
            lines.append(f"  -> {event.counted} counted: {names[event.changed]} {verb}")
        else:
            lines.append(
                f"  !! {names[event.seat]} fault ({event.kind.value}): {event.detail}"
                + (f" — sent {event.sent}" if event.sent else "")
            )
    lines.append("Finishing order: " + ", ".join(replay.ranking))
    return lines
