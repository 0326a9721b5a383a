"""The league store kept true to the results folders, offline: `arena league check` lists where
the store and the folders differ (`check`, remembering where it last agreed so the next check
reads only what moved: `check_memory`), and `arena league rebuild` makes the store again from the
folders (`rebuild`).

They sit beside the results they compare, not in the league server's package: the folders are
the record and the store their index, so the check and the rebuild read the folders through the
results package (`folder`, `days`, `lock`, `in_league`) and write through `arena.store`, which the
tournament may import and the store may not (it knows the game line and nothing else of the
arena). Nothing of the league server imports them; the CLI and a season's restore do."""
