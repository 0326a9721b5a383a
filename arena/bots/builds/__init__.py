"""A bot's build: run confined and in time, remembered when it succeeded (so an unchanged bot
is not built again), the toolchains' caches it may write, and the line that says what broke.

Named `builds`, not `build`: pytest and ruff skip any folder named `build` (and .gitignore
ignores it), so the package and its tests would be silently left out."""
