"""The options of `arena admin start` on the wire, both ways, from their declarations.

The client puts in the request only the options its organiser gave, and the
server fills in the rest from its own defaults (its cores for `--jobs`), so every
option is a field with presence (`optional` in admin.proto). Both sides go
through the declarations (`TournamentConfig`'s options for `arena admin start`):
an option added there travels once its field is in the proto, which a test checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from google.protobuf.message import Message

from arena.protocol.messages import admin as apb
from arena.tournament.config import OPTIONS
from arena.tournament.kinds import OptionError
from arena.tournament.options import Command, Option

CARRIED: tuple[Option, ...] = tuple(o for o in OPTIONS if Command.ADMIN_START in o.commands)
"""The options `arena admin start` takes, each a field of StartTournamentRequest."""

OWN_FIELDS = {
    "bots_dir": "a folder of local bots on the server's machine (`arena admin start --bots`)",
    "only": "which connected bots play (`arena admin start --only`)",
    "resume": "a stopped tournament to continue (`arena admin start --resume`)",
}
"""The request's fields that are no tournament option, and what each says."""


def request_of(given: Mapping[str, Any]) -> apb.StartTournamentRequest:
    """The request for the options `given` (by name, as typed values); the others are unset."""
    request = apb.StartTournamentRequest()
    for declared in CARRIED:
        value = given.get(declared.name)
        if value is None:
            continue
        wired = declared.domain.to_wire(value)
        if isinstance(wired, Message):
            getattr(request, declared.name).CopyFrom(wired)
        else:
            setattr(request, declared.name, wired)
    return request


def given_of(request: apb.StartTournamentRequest) -> dict[str, Any]:
    """The options a request sets, by name, as typed values; `OptionError` naming the flag
    for a field no value of its option could be (a choice this server does not know)."""
    given: dict[str, Any] = {}
    for declared in CARRIED:
        if not request.HasField(declared.name):
            continue
        try:
            given[declared.name] = declared.domain.from_wire(getattr(request, declared.name))
        except OptionError as error:
            raise OptionError(f"{declared.flag}: {error}") from None
    return given
