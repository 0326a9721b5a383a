"""StartTournamentRequest carries every option `arena admin start` takes, by its declared
name and type, and the one conversion takes it there and back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from arena.bots.isolation.sandbox import SandboxMode
from arena.league.start import CARRIED, OWN_FIELDS, given_of, request_of
from arena.protocol.messages import admin as apb
from arena.tournament.config import TournamentConfig
from arena.tournament.kinds import (
    Choice,
    Count,
    Domain,
    Level,
    OptionError,
    Rules,
    Seconds,
    Seed,
    Switch,
    Text,
)
from arena.tournament.schedule.round_robin import Deals
from engine import CalzaRule, Ruleset

SCALARS = {
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_DOUBLE: "double",
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_STRING: "string",
    FieldDescriptor.TYPE_BYTES: "bytes",
}
FIELDS = apb.StartTournamentRequest.DESCRIPTOR.fields_by_name


def _proto_type(field: FieldDescriptor) -> str:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return str(field.message_type.full_name)
    return SCALARS[field.type]


def test_every_option_of_admin_start_is_a_field_of_its_name_and_type_with_presence() -> None:
    for declared in CARRIED:
        wire = declared.domain.wire
        assert wire is not None, f"{declared.flag} belongs to arena admin start but cannot travel"
        line = f"optional {wire} {declared.name} = N;"
        field = FIELDS.get(declared.name)
        assert field is not None, f"add `{line}` to StartTournamentRequest in admin.proto"
        assert _proto_type(field) == wire, f"{declared.name} should be `{line}`"
        assert field.has_presence, f"{declared.name} should be `{line}`: unset is the default"


def test_every_field_of_the_request_is_an_option_or_the_requests_own() -> None:
    carried = {o.name for o in CARRIED}
    assert set(FIELDS) - carried == set(OWN_FIELDS)


def _example(domain: Domain[Any]) -> object:
    """A value of each kind other than any default, so that a round trip shows it."""
    examples: dict[type[Domain[Any]], object] = {
        Count: 7,
        Seconds: 2.5,
        Level: 0.9,
        Switch: True,
        Seed: bytes(range(32)),
        Text: "steady",
        Rules: Ruleset(calza=CalzaRule.ANY, dice_per_player=3, calza_max_dice=4),
    }
    if isinstance(domain, Choice):
        return list(domain.kind)[-1]
    if type(domain) in examples:
        return examples[type(domain)]
    if type(domain).__name__ == "TournamentName":
        return "night-1"
    raise AssertionError(f"no example of {type(domain).__name__}: add one here")


def test_every_option_goes_there_and_back_as_it_was_given() -> None:
    given = {o.name: _example(o.domain) for o in CARRIED}
    given["recover"] = 2  # a count of restarts, not one of the examples' needs
    wired = apb.StartTournamentRequest.FromString(request_of(given).SerializeToString())
    assert given_of(wired) == given


def test_what_was_not_given_stays_unset_for_the_servers_defaults() -> None:
    request = request_of({"games": 4, "timeouts": False, "sandbox": SandboxMode.OFF})
    assert given_of(request) == {"games": 4, "timeouts": False, "sandbox": SandboxMode.OFF}
    assert not request.HasField("jobs") and not request.HasField("ruleset")
    config = TournamentConfig(bots_dir=Path("bots"), jobs=3, **given_of(request))
    assert (config.games, config.jobs, config.timeouts) == (4, 3, False)
    assert config.deals is Deals.OWN


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("deals", "sometimes", "--deals: 'sometimes' is not one of own, disjoint"),
        ("build_network", "wifi", "--build-network: 'wifi' is not one of isolated, off, host"),
    ],
)
def test_a_choice_this_server_does_not_know_is_refused_naming_the_flag(
    field: str, value: str, said: str
) -> None:
    with pytest.raises(OptionError) as refused:
        given_of(apb.StartTournamentRequest(**{field: value}))
    assert str(refused.value) == said
