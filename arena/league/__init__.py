"""The league: the store every tournament adds to, and the league server."""
