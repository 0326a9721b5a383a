"""A bot's process: the launcher that limits it and becomes it, its command line, its output
drained into a capped log indexed by game, the warden that ends it when the arena dies, and
how many games this machine can run at once."""
