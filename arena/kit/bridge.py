"""Play in the arena from any language, without a gRPC library.

    python -m arena.kit.bridge [--sessions N] -- PROGRAM [ARGS...]

The bridge dials the referee like any bot (PERUDO_* variables or flags) and
starts PROGRAM once per session. It writes each request to the program's
stdin as one JSON object per line and reads one JSON line back per request:

    -> {"type": "request", "request_id": 7, "kind": "turn", "seat": 1, "my_dice": [2, 5, 1],
        "min_count": [2, 3, 3, 3, 3, 4], "dudo_allowed": true, ...}
    <- {"request_id": 7, "action": "bid", "count": 3, "face": 5}
    <- {"request_id": 7, "action": "dudo"}          (or "calza", or "pass" on a calza offer)
    -> {"type": "game_over", "game_id": "...", "order": [2, 0, 1], ...}

Fields are those of ActionRequest and GameOver in proto/perudo/v1/referee.proto,
named the same, with enum values as short lower-case words ("turn",
"calza_offer", "any", "dudo", ...). The program's stderr goes to the bot's
log; it must never write anything but answers to stdout. A line the bridge
cannot use is sent as an action of no kind, a malformed message, with the
bridge's complaint as the reply's `reason`: the fault's record says what was
wrong with the line, not only that the action had no kind. A line that is not
JSON at all is said in words of its own (`NOT_JSON`): it is most often a debug
line printed to stdout, after which every answer comes one request late, and
`arena check-bot` tells its author so in one line (`not_json_line`).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from arena.kit import Connection, RefusedError, connection_from_env, serve_sessions
from arena.protocol.messages import referee as pb

MAX_LINE = 64 * 1024
QUOTED = 200
"""The most of a line the bridge cannot use that its complaint quotes."""
NOT_JSON = "bridge: a line on the program's stdout is not JSON (debug output goes to stderr): "
"""How the complaint about a line that is not JSON begins; the line itself follows."""
_ACTIONS = {
    "bid": pb.ACTION_KIND_BID,
    "dudo": pb.ACTION_KIND_DUDO,
    "calza": pb.ACTION_KIND_CALZA,
    "pass": pb.ACTION_KIND_PASS,
}


def _word(enum: EnumDescriptor, name: str) -> str:
    """An enum value as a short word: "CALZA_RULE_TURN" -> "turn", "SIDE_LEFT" -> "left"."""
    words = [value.name.split("_") for value in enum.values]
    shared = 0
    while all(len(w) > shared + 1 and w[shared] == words[0][shared] for w in words):
        shared += 1
    return "_".join(name.split("_")[shared:]).lower()


def _plain(descriptor: Descriptor, data: dict[str, Any]) -> dict[str, Any]:
    """Proto3 JSON, made friendlier: enum values as short words and 64-bit ids as numbers.
    By the message's own fields, so that a name or an id that looks like an enum value
    (a bot called "SIDE_LEFT") is left as it is."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        field = descriptor.fields_by_name.get(key)
        if field is None:
            out[key] = value
        elif key == "request_id":
            out[key] = int(value)
        elif field.enum_type is not None:
            enum = field.enum_type
            out[key] = (
                [_word(enum, v) for v in value] if isinstance(value, list) else _word(enum, value)
            )
        elif field.message_type is not None:
            kind = field.message_type
            out[key] = (
                [_plain(kind, v) for v in value] if isinstance(value, list) else _plain(kind, value)
            )
        else:
            out[key] = value
    return out


def to_json(kind: str, message: Message) -> str:
    data = MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    fields = cast(Descriptor, message.DESCRIPTOR)
    return json.dumps({"type": kind, **_plain(fields, data)}, separators=(",", ":"))


def parse_answer(line: bytes, request_id: int) -> tuple[pb.Action, str | None]:
    """The action in one line from the program, and a complaint when it is not right.

    A line that cannot be understood becomes an action of no kind, which the
    referee records as a malformed message; the complaint goes to the log.
    """
    text = line.decode(errors="replace").strip()[:QUOTED]
    try:
        data = json.loads(line)
    except ValueError:  # not JSON, or not UTF-8: most often a debug line
        return pb.Action(), NOT_JSON + text
    try:
        if not isinstance(data, dict):
            raise ValueError("the answer must be a JSON object")
        if data.get("request_id") != request_id:
            raise ValueError(f"request_id must be {request_id}, got {data.get('request_id')!r}")
        kind = _ACTIONS[data["action"]]
        count, face = data.get("count", 0), data.get("face", 0)
        if not (isinstance(count, int) and isinstance(face, int)) or count < 0 or face < 0:
            raise ValueError("count and face must be whole numbers")
        return pb.Action(kind=kind, count=count, face=face), None
    except (ValueError, KeyError, TypeError) as error:
        return pb.Action(), f"bridge: cannot use the program's answer {text!r}: {error}"


def not_json_line(reason: str) -> str | None:
    """The line quoted by a reply's `reason` that says a line was not JSON, else None."""
    return reason.removeprefix(NOT_JSON) if reason.startswith(NOT_JSON) else None


class ProgramHandler:
    """One session's program, fed JSON lines."""

    def __init__(self, command: Sequence[str]) -> None:
        self._command = list(command)
        self._process: asyncio.subprocess.Process | None = None

    async def open(self) -> None:
        # Started before Hello, so that its start-up never eats a decision's time.
        await self._program()

    async def _program(self) -> asyncio.subprocess.Process:
        if self._process is None:
            self._process = await asyncio.create_subprocess_exec(
                *self._command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=MAX_LINE,
            )
        return self._process

    async def _send(self, line: str) -> asyncio.subprocess.Process:
        process = await self._program()
        assert process.stdin is not None
        process.stdin.write(line.encode() + b"\n")
        await process.stdin.drain()
        return process

    async def request(self, request: pb.ActionRequest) -> pb.ActionReply:
        process = await self._send(to_json("request", request))
        assert process.stdout is not None
        line = await process.stdout.readline()
        if not line:
            code = await process.wait()
            raise SystemExit(f"bridge: the program exited (code {code}) instead of answering")
        action, complaint = parse_answer(line, request.request_id)
        if complaint:
            print(complaint, file=sys.stderr, flush=True)
        return pb.ActionReply(action=action, reason=complaint or "")

    async def game_over(self, message: pb.GameOver) -> None:
        await self._send(to_json("game_over", message))

    async def close(self) -> None:
        process = self._process
        if process is None or process.returncode is not None:
            return
        assert process.stdin is not None
        process.stdin.close()
        try:
            async with asyncio.timeout(2):
                await process.wait()
        except TimeoutError:
            process.kill()
            await process.wait()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--" not in args:
        print(__doc__, file=sys.stderr)
        return 2
    split = args.index("--")
    flags, command = args[:split], args[split + 1 :]
    if not command:
        print("bridge: no program given after --", file=sys.stderr)
        return 2
    conn: Connection = connection_from_env(argv=flags, bot_version="bridge")
    try:
        asyncio.run(serve_sessions(conn, lambda: ProgramHandler(command)))
    except (RefusedError, ConnectionError) as error:
        print(f"bridge: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
