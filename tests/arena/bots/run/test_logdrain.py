"""A bot's last words, as the arena quotes them: its own text, shown and never obeyed."""

from __future__ import annotations

from pathlib import Path

from arena.bots.run.logdrain import last_line, last_lines


def test_the_last_lines_are_quoted_with_their_escapes_shown(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text(
        "loading\n\x1b[2J\x1b[H\x1b[1;32mall good\x1b[0m\n\u202edeppots\u202c\tand\x9b2J\n"
    )
    assert last_line(log) == "\\u202edeppots\\u202c\\tand\\x9b2J"
    assert last_lines(log, 2) == (
        "\\x1b[2J\\x1b[H\\x1b[1;32mall good\\x1b[0m",
        "\\u202edeppots\\u202c\\tand\\x9b2J",
    )
    assert "\x1b" in log.read_text()  # the log itself is the bot's, kept as it wrote it


def test_a_quoted_line_is_cut_to_its_width_never_inside_an_escape(tmp_path: Path) -> None:
    log = tmp_path / "bot.log"
    log.write_text("ok " + "\x1b" * 500 + "\n")
    assert last_line(log, 13) == "ok \\x1b\\x1b"
    assert len(last_line(log)) <= 200 and last_line(log).endswith("\\x1b")
    (line,) = last_lines(log, width=200)
    assert len(line) <= 200 and line.endswith("\\x1b")
    plain = tmp_path / "plain.log"
    plain.write_text("x" * 500 + "\n")
    assert last_line(plain) == "x" * 200
