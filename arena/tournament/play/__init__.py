"""Playing a run: the local bots lined up, the entrants entered, the games played on their
tables several at once and each recorded as it ends, a crashed bot restarted, and what the
run's observers are told meanwhile."""
