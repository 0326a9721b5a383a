"""While bots build, the screen shows each build running with its own time so far."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console

from arena.cli.live import LiveView


def test_each_running_build_shows_its_own_elapsed_time() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    with LiveView(console) as view:
        view.building("slowpoke", running=True)
        time.sleep(1.1)
        view.building("quick", running=True)
        view.building("done-soon", running=True)
        view.building("done-soon", running=False)
    # The last frame, drawn as the view closed before play began.
    frame = out.getvalue().rsplit("preparing the bots", 1)[1]
    slow = re.search(r"building slowpoke: (\d+) s", frame)
    quick = re.search(r"building quick: (\d+) s", frame)
    assert slow is not None and quick is not None, frame
    assert int(slow[1]) >= int(quick[1]) + 1  # it began more than a second earlier
    assert frame.index("slowpoke") < frame.index("quick")  # the oldest first
    assert "done-soon" not in frame


def test_a_plain_console_is_told_nothing_more_than_the_notes() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False)
    with LiveView(console) as view:
        view.building("slowpoke", running=True)
        view.building("slowpoke", running=False)
    assert out.getvalue() == ""
