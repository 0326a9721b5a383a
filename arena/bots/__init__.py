"""Local bots: what a bot is (its manifest, its folder walked without following a link, the
toolchains it may require) at the top, and what is done with one in three parts: `isolation`
(the box), `builds` (building it) and `run` (its process); no other arena package."""
