"""Starts, and never dials the referee."""

import time

time.sleep(60)
