"""Fixtures for the referee tests; the helpers live in referee_harness.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_harness import Arena


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Arena]:
    a = Arena(tmp_path)
    try:
        yield a
    finally:
        a.kill_all()
