"""arena.tournament.options: a declaration keeps its help, commands and default with its
config field, and the options of a class are read back from its fields."""

from __future__ import annotations

import dataclasses

from arena.tournament.kinds import Count
from arena.tournament.options import Command, option, option_made_by, options_of


def test_a_declaration_is_its_fields_default_and_keeps_its_help_and_commands() -> None:
    made: list[str] = []

    def make() -> int:
        made.append("called")
        return 4

    @dataclasses.dataclass(frozen=True)
    class Example:
        plain: int = 0
        count: int = option(
            3, Count(1), "how many (default {default})", {Command.RUN}, metavar="N", bare=5
        )
        cores: int = option_made_by(make, Count(1), "here {default}", {Command.AB})

    assert Example().count == 3 and Example().cores == 4
    count, cores = options_of(Example)
    assert (count.name, count.flag, count.help(), count.spec.bare) == (
        "count",
        "--count",
        "how many (default 3)",
        5,
    )
    assert count.commands == {Command.RUN} and cores.commands == {Command.AB}
    assert cores.help() == "here 4"
    assert count.problem(0) == "--count: must be at least 1, not 0"
