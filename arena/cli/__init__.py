"""The command line: the only part of the arena that talks to a terminal."""
