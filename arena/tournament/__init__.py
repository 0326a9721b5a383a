"""Tournaments: the schedule, the runner that plays it, the folder it writes, ratings."""
