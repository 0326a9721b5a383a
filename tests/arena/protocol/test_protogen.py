"""The generated protobuf code is what the .proto files say, to the byte."""

from __future__ import annotations

from pathlib import Path

from arena.protocol import protogen


def test_generated_code_matches_the_proto_files() -> None:
    stale = protogen.stale_files()
    assert stale == [], f"run `python -m arena.protocol.protogen`; stale: {stale}"


def test_a_changed_proto_is_detected(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    copy = tmp_path / "proto"
    for source in protogen.proto_files():
        target = copy / source.relative_to(protogen.PROTO_ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text())
    referee = copy / "perudo" / "v1" / "referee.proto"
    referee.write_text(
        referee.read_text().replace(
            "string bot_version = 4;", "string bot_version = 4;\n  string extra = 99;"
        )
    )
    monkeypatch.setattr(protogen, "PROTO_ROOT", copy)
    assert "perudo/v1/referee_pb2.py" in protogen.stale_files()
