"""What a query gives and what a write is, for every part of the store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Row = tuple[Any, ...]
Statement = tuple[str, Sequence[Any]]
