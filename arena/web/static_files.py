"""The page's files, shipped in the package (package data: no CDN, the page works offline)."""

from __future__ import annotations

from importlib import resources


def static_text(name: str) -> str:
    return resources.files("arena.web").joinpath("static", name).read_text()
