"""The league server's own pages, apart from the live page: the public league page (`/league`,
`league_page`) and the author's portal (`/author`), served together by `authors`.

An author logs in with its name and token into a server-side session (`sessions`, failed logins
limited by `login_limits`) and sees its versions, games (`author_games`, drawn by
`author_html`), logs, faults explained (`fault_view`, `fault_html`), its games as JSON lines
(`author_export`) and its requests for test games (`request_pages`); the season's games are kept
between requests (`league_cache`).

They are a package of their own because they are a different thing from the live page: they
exist only on a league server, hold sessions and take uploads, and read the league store and
the results folders, where the live page (`arena.web.spectator`, `stream`, `web_server`) shows
one run as it plays and holds nothing of anyone. What both show sits in `arena.web` and the
portal imports it: the league read for the pages (`league_view`), the ladder's board
(`ladder_view`, through the protocols of `ladder_source`), the replays (`replay_page`) and the
one style sheet (`static_files`). Nothing of `arena.web` imports the portal but the CLI, which
mounts it (`arena.cli.webpage`)."""
