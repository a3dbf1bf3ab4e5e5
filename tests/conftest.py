"""Suite-wide fixtures: the suite never depends on the developer's model environment.

Every test runs with ``DEEPSEEK_API_KEY`` and ``DEEPSEEK_BASE_URL`` removed from
``os.environ``, so a key exported for daily use (as the README says) neither makes the suite
call the real API nor changes what a test sees. The live checks in
``tests/llm/deepseek/test_real_api.py`` run only with ``DSH_LIVE_TESTS=1`` plus a key; with
that opt-in the variables are left alone.

Hypothesis runs without its per-example deadline: a deadline is a timing assertion, and on a
shared, loaded machine a large example can take longer than 200 ms without anything being
wrong (``test_line_level_diff_on_large_regions`` took 309 ms once). Speed lives in ``bench/``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("dsh", deadline=None)
settings.load_profile("dsh")

LIVE_OPT_IN = "DSH_LIVE_TESTS"
MODEL_ENVIRONMENT = ("DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL")


def live_tests_enabled() -> bool:
    """Whether the user opted in to tests that call a real model API."""
    return os.environ.get(LIVE_OPT_IN) == "1"


@pytest.fixture(autouse=True)
def _no_model_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    if live_tests_enabled():
        return
    for name in MODEL_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
