"""Tournaments, one package per job: `schedule` (who plays whom), `play` (the games played),
`results` (what a run leaves), `report` (what it tells); `tournament.py` runs one from bots
to leaderboard."""
