"""``loop_options``: the event loop a dsh-lsp process runs on (uvloop where installed)."""

from __future__ import annotations

import asyncio
import importlib.util

import anyio
import pytest

from dsh_lsp.kernel import loop_options


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_the_loop_is_uvloop_where_it_is_installed() -> None:
    assert importlib.util.find_spec("uvloop") is not None  # a dependency on this platform
    module = anyio.run(_loop_module, backend="asyncio", backend_options=loop_options())
    assert module.startswith("uvloop")


def test_without_uvloop_the_loop_is_asyncio_own(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def without_uvloop(name: str, package: str | None = None) -> object:
        return None if name == "uvloop" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_uvloop)
    assert loop_options() == {"use_uvloop": False}
    module = anyio.run(_loop_module, backend="asyncio", backend_options=loop_options())
    assert module.startswith("asyncio")
