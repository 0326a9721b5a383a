"""The web page of a tournament: a live page while it runs, and HTML replays after.

`spectator` decides what a spectator may see (no die before its round ends), `stream` keeps
the pages' one log of frames, `web_server` serves the live page in the referee's event loop,
and `replay_page` writes replays that open from disk. The page itself is `static/`, shipped in
the package. A league server's own pages (the public league page and the author's portal) are
the `portal` package beside them.
"""
