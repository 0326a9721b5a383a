"""Regenerate the Python code for the wire protocol from `proto/`.

The generated modules live in `arena/protocol/_proto/` and are never edited by hand.
grpc's code generator writes absolute imports (`from perudo.v1 import ...`),
which would need `perudo` as a top-level package; the one rewrite below points
them at `arena.protocol._proto` instead, so the generated code stays private to the arena.

Run `python -m arena.protocol.protogen` after changing a .proto file; the test suite
fails while the checked-in code is stale.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTO_ROOT = ROOT / "proto"
OUT_ROOT = ROOT / "arena" / "protocol" / "_proto"
_PACKAGE = "arena.protocol._proto"


def proto_files() -> list[Path]:
    return sorted(PROTO_ROOT.rglob("*.proto"))


def generate(out_root: Path) -> list[Path]:
    """Write the generated modules under `out_root`; return the files written."""
    import grpc_tools
    from grpc_tools import protoc  # a dev dependency: only needed to regenerate

    include = Path(grpc_tools.__file__).parent / "_proto"
    sources = [str(p.relative_to(PROTO_ROOT)) for p in proto_files()]
    out_root.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *sources,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed on {sources}")
    written: list[Path] = []
    for path in sorted(out_root.rglob("*.py*")):
        if path.suffix not in {".py", ".pyi"}:
            continue
        text = path.read_text()
        text = text.replace("from perudo.", f"from {_PACKAGE}.perudo.")
        path.write_text(text)
        written.append(path)
    folders = {out_root}
    for path in written:
        folders.update(parent for parent in path.parents if out_root in parent.parents)
    for folder in sorted(folders):
        init = folder / "__init__.py"
        if not init.exists():
            init.write_text("")
            written.append(init)
    return written


def stale_files() -> list[str]:
    """Names of generated files that differ from a fresh generation."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh_root = Path(tmp)
        generate(fresh_root)
        fresh = {p.relative_to(fresh_root): p.read_bytes() for p in fresh_root.rglob("*.py*")}
    current = {
        p.relative_to(OUT_ROOT): p.read_bytes()
        for p in OUT_ROOT.rglob("*.py*")
        if "__pycache__" not in p.parts
    }
    names = set(fresh) | set(current)
    return sorted(str(n) for n in names if fresh.get(n) != current.get(n))


def main() -> int:
    if "--check" in sys.argv[1:]:
        stale = stale_files()
        for name in stale:
            print(f"stale: arena/protocol/_proto/{name}")
        return 1 if stale else 0
    for path in generate(OUT_ROOT):
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
