"""The web page of a tournament: a live page while it runs, and HTML replays after.

`spectator` decides what a spectator may see (no die before its round ends),
`server` serves the live page in the referee's event loop, `replay_page`
writes replays that open from disk, and `bench` measures what a hundred
pages cost the referee. The page itself is `static/`, shipped in the package.
"""
