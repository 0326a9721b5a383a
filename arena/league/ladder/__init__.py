"""The ladder on the league server: its rounds chosen, played, recorded and rated.

Everything the ladder does lives here, beside the server; the pure matchmaker it feeds is
`arena.matchmaking`. Nothing is imported here, so that a light reader (`arena leaderboard`
telling the ladder's rounds from the nights', `rounds.is_ladder`) loads only what it names.
"""
