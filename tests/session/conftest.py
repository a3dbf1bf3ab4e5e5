"""Fixtures for the session tests: a fake clock and the persistence contract's harnesses."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .backends import Harness, JsonlHarness, SqliteHarness
from .scenarios import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["jsonl", "sqlite"])
async def harness(
    request: pytest.FixtureRequest, tmp_path: Path, clock: FakeClock
) -> AsyncIterator[Harness]:
    made: Harness = (
        JsonlHarness(tmp_path, clock)
        if request.param == "jsonl"
        else SqliteHarness(tmp_path, clock)
    )
    yield made
    await made.close()
