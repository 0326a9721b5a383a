"""`python -m arena.conformance FILE [FILE ...]`."""

from arena.conformance.runner import main

raise SystemExit(main())
