"""Runs jsonl_program.py behind the arena's bridge, as a manifest's run command would."""

import sys
from pathlib import Path

from arena.kit.bridge import main

program = Path(__file__).with_name("jsonl_program.py")
raise SystemExit(main(["--", sys.executable, str(program)]))
