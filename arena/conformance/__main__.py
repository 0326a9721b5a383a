"""`python -m arena.conformance FILE [FILE ...]`."""

from arena.conformance.runner import main

if __name__ == "__main__":
    raise SystemExit(main())
