"""The confidence the rankings speak at, unless told otherwise: apart, so that the options
that name it (`--until-confident`) need not load numpy to say their default."""

LEVEL = 0.95
