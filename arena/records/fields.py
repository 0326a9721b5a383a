"""Reading a record back from decoded JSON, saying every field in it that is wrong.

Each record's `from_json` reads its fields through `Fields`, which gathers the
names of those missing or of the wrong type, so that one `RecordError` names
them all and the caller can say which file and line hold it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from arena.errors import ArenaError

Json = dict[str, Any]
"""A decoded JSON object: what a record is written as, and read from."""

_T = TypeVar("_T")


class RecordError(ArenaError, ValueError):
    """Decoded JSON that is not the record it should be; the message says which fields."""


class Fields:
    """Reads the fields of one JSON object, gathering the names of those that are wrong."""

    def __init__(self, data: object, what: str) -> None:
        if not isinstance(data, dict):
            raise RecordError(f"is not {what} (not a JSON object)")
        self.data: Mapping[str, object] = data
        self.what = what
        self.wrong: list[str] = []

    def get(self, key: str, parse: Callable[[object], _T], fallback: _T) -> _T:
        """The field parsed; else `fallback`, which stands in only until `done` raises."""
        try:
            return parse(self.data[key])
        except (KeyError, TypeError, ValueError):
            self.wrong.append(key)
            return fallback

    def optional(self, key: str, parse: Callable[[object], _T]) -> _T | None:
        if key not in self.data:
            return None
        return self.get(key, parse, None)

    def done(self) -> None:
        if self.wrong:
            raise RecordError(f"is not {self.what} (no valid {', '.join(self.wrong)})")


def string(value: object) -> str:
    if not isinstance(value, str):
        raise RecordError("of the wrong type")
    return value


def integer(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError("of the wrong type")
    return value


def boolean(value: object) -> bool:
    if not isinstance(value, bool):
        raise RecordError("of the wrong type")
    return value


def number(value: object) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise RecordError("of the wrong type")
    return float(value)


def array(value: object) -> list[object]:
    if not isinstance(value, list):
        raise RecordError("of the wrong type")
    return value


def strings(value: object) -> tuple[str, ...]:
    return tuple(string(x) for x in array(value))


def each(parse: Callable[[object], _T]) -> Callable[[object], tuple[_T, ...]]:
    """A parser of a list of records: one wrong record (a RecordError is a ValueError) makes
    the whole field wrong."""
    return lambda value: tuple(parse(x) for x in array(value))
