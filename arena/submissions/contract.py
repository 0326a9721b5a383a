"""What `arena submit` and the league server's submission service agree on, apart from the
service itself: an author's client loads no part of the server to know them."""

FORMAT = "tar.gz"
"""The archive the service takes: a gzipped tar of the bot's folder."""

UPLOAD_STOPPED = (
    "the server stopped while it was receiving it; nothing of it was kept: send it again "
    "once the server is back"
)
"""An upload cut short by the server's own stop: not its author's fault."""
