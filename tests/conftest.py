"""Shared test settings.

Hypothesis runs with a fixed derandomised profile so the default suite is
reproducible (same examples every run) and bounded in time.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    derandomize=True,
    deadline=None,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")
