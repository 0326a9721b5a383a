"""A season's records taken out of the league whole, offline: its games as JSON lines
(`export`, `arena league export`), and the season in one file (`arena league archive`): what
the file holds and the hash of each member (`manifest`), the folders walked without following
a link or opening a pipe (`walk`), the file written (`archive`), read as a stranger's within
bounds (`unpack`), and checked or restored elsewhere with its records' paths said anew
(`restore`).

None of it runs in the league server: each reads the store and the folders the server left,
as the CLI's `arena league` hands them, and the server's own modules import none of it. The
season's final stays beside the server (`arena.league.final`, `final_night`): it is played
live, on the server's referee and lobby."""
