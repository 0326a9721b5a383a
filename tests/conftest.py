"""Settings for the whole suite.

Hypothesis's timing checks (a deadline per example, "input generation is
slow") are guesses about how fast the machine is, and the suite must pass with
the other core busy: they are off everywhere, as the engine's properties
already had them. What a property checks is untouched.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
settings.load_profile("suite")
