"""Walking HTTP/2 frames by their headers: where a PING may go in, which answers come out.

By hand, byte by byte where it matters: a walk must give the same answer however
the bytes are cut into reads.
"""

from __future__ import annotations

import struct

import pytest

from arena.referee.service.h2_frames import (
    ACK,
    CONTINUATION,
    END_HEADERS,
    HEADERS,
    PING,
    PREFACE,
    FrameError,
    FromBot,
    FromReferee,
    ping,
)

SETTINGS, DATA = 0x4, 0x0
MAX = 16 * 1024


def frame(kind: int, flags: int = 0, stream: int = 0, body: bytes = b"") -> bytes:
    return struct.pack(">BHBBL", len(body) >> 16, len(body) & 0xFFFF, kind, flags, stream) + body


def answer(payload: bytes) -> bytes:
    return frame(PING, ACK, 0, payload)


OURS = b"\x01" * 8
THEIRS = b"\x02" * 8


def _through_bot(data: bytes, cut: int) -> tuple[bytes, list[bytes]]:
    """What a walk of the bot's `data`, read `cut` bytes at a time, passes on, and the PING
    answers it offered."""
    walk = FromBot(MAX)
    offered: list[bytes] = []

    def ours(payload: bytes) -> bool:
        offered.append(payload)
        return payload == OURS

    out = b"".join(walk.feed(data[i : i + cut], ours) for i in range(0, len(data), cut))
    return out, offered


@pytest.mark.parametrize("cut", [1, 2, 5, 9, 17, 1000])
def test_the_answer_to_our_ping_is_taken_out_and_everything_else_passed_on(cut: int) -> None:
    before = PREFACE + frame(SETTINGS) + frame(DATA, 0, 1, b"x" * 40)
    after = answer(THEIRS) + frame(HEADERS, END_HEADERS, 3, b"h" * 7) + frame(PING, 0, 0, OURS)
    out, offered = _through_bot(before + answer(OURS) + after, cut)
    assert out == before + after  # a PING (not an answer) with our bytes is the bot's own
    assert offered == [OURS, THEIRS]


def test_an_answer_inside_a_data_frames_body_is_only_data() -> None:
    body = answer(OURS) * 3
    data = PREFACE + frame(DATA, 0, 1, body)
    out, offered = _through_bot(data, 7)
    assert out == data and offered == []


def test_bytes_that_do_not_open_with_the_preface_are_refused() -> None:
    with pytest.raises(FrameError, match="preface"):
        FromBot(MAX).feed(b"GET / HTTP/1.1\r\n", lambda _: False)
    walk = FromBot(MAX)
    walk.feed(PREFACE[:10], lambda _: False)  # a preface cut short is fine so far
    with pytest.raises(FrameError, match="preface"):
        walk.feed(b"X" + PREFACE[11:], lambda _: False)


def test_a_frame_over_the_limit_is_refused_from_its_header_alone() -> None:
    walk = FromBot(MAX)
    header = struct.pack(">BHBBL", (MAX + 1) >> 16, (MAX + 1) & 0xFFFF, DATA, 0, 1)
    with pytest.raises(FrameError, match=f"{MAX + 1} bytes, over the referee's limit"):
        walk.feed(PREFACE + header, lambda _: False)
    ok = FromBot(MAX).feed(PREFACE + frame(DATA, 0, 1, b"x" * MAX), lambda _: False)
    assert len(ok) == len(PREFACE) + 9 + MAX


def test_a_malformed_answer_is_passed_on_for_the_referee_to_refuse() -> None:
    odd = frame(PING, ACK, 0, OURS + b"!")  # 9 bytes: not a PING the relay sent
    on_stream = frame(PING, ACK, 5, OURS)
    out, offered = _through_bot(PREFACE + odd + on_stream, 3)
    assert out == PREFACE + odd + on_stream and offered == []


def _through_referee(chunks: list[bytes], insert: bytes) -> tuple[bytes, list[bool]]:
    walk = FromReferee()
    out = b""
    put: list[bool] = []
    for chunk in chunks:
        passed, went = walk.feed(chunk, insert if not any(put) else b"")
        out += passed
        put.append(went)
    return out, put


def test_a_ping_goes_in_at_the_first_boundary_after_the_referees_settings() -> None:
    settings, data = frame(SETTINGS, 0, 0, b"s" * 6), frame(DATA, 0, 1, b"d" * 30)
    stream = settings + data
    mark = ping(OURS)
    for cut in range(1, len(stream) + 1):
        chunks = [stream[i : i + cut] for i in range(0, len(stream), cut)]
        out, put = _through_referee(chunks, mark)
        assert out == settings + mark + data, cut  # never before the SETTINGS, nor inside one
        assert any(put)


def test_no_ping_goes_inside_a_header_block() -> None:
    walk = FromReferee()
    walk.feed(frame(SETTINGS))
    assert walk.at_boundary
    opened = frame(HEADERS, 0, 1, b"h" * 5)
    continued = frame(CONTINUATION, 0, 1, b"c" * 5)
    closed = frame(CONTINUATION, END_HEADERS, 1, b"e" * 5)
    out, put = walk.feed(opened, ping(OURS))  # before the block: where it may go
    assert out == ping(OURS) + opened and put and not walk.at_boundary
    out, put = walk.feed(continued, ping(OURS))
    assert out == continued and not put and not walk.at_boundary
    out, put = walk.feed(closed + frame(DATA, 0, 1, b"d"), ping(OURS))
    assert out == closed + ping(OURS) + frame(DATA, 0, 1, b"d") and put


def test_nothing_goes_in_before_the_first_frame_is_whole() -> None:
    walk = FromReferee()
    assert not walk.at_boundary
    settings = frame(SETTINGS, 0, 0, b"s" * 6)
    out, put = walk.feed(settings[:12], ping(OURS))
    assert out == settings[:12] and not put and not walk.at_boundary
    out, put = walk.feed(settings[12:], ping(OURS))
    assert out == settings[12:] + ping(OURS) and put and walk.at_boundary
