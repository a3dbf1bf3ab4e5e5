"""Start-up: what a real server (stdio, ``-X importtime``) imports before it answers
``initialize`` is an allowed set, the early answer is the one pygls would give, the first
``dsh/session/new`` is answered before the server loaded (and is the session the ordinary
path makes), and the test kit never loads in production.

The server logs ``early.ANSWERED`` (debug level) right after it wrote the early answer, so
the ``-X importtime`` lines before that log line are exactly the modules imported first.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.server import DshSettings
from dsh_lsp.server.early import ANSWERED, DSH_PROTOCOL_VERSION, initialize_result
from dsh_lsp.server.handlers import build_server
from dsh_lsp.server.wire import DSH_VERSION
from dsh_lsp.server.wire.read_loop import dispatch

from .support import RICH, Json, ModelScript, raw_server

ALLOWED_SERVER = {  # and the kernel, ``dsh_lsp``, ``dsh_lsp.cli`` and ``dsh_lsp.cli.entry``
    "dsh_lsp.server",
    "dsh_lsp.server._lazy",
    "dsh_lsp.server.early",
    "dsh_lsp.server.wire",
    "dsh_lsp.server.wire.framing",
    "dsh_lsp.server.wire.transport",
    "dsh_lsp.server.serve",
    "dsh_lsp.server.logs",
}
ALLOWED_THIRD_PARTY = {"anyio", "sniffio", "idna", "typing_extensions", "exceptiongroup", "uvloop"}
"""anyio (the kernel) and what it imports, and uvloop (the event loop); nothing of pygls,
lsprotocol, attrs/cattrs, pydantic or httpx."""
WITH_SETTINGS = {"pydantic", "pydantic_core", "annotated_types", "typing_inspection"}
"""Validating non-empty ``initializationOptions`` early also loads the settings model."""


def before_answer(lines: Sequence[str]) -> set[str]:
    """The modules ``-X importtime`` reported before the ``ANSWERED`` log line."""
    names: set[str] = set()
    for line in lines:
        if ANSWERED in line:
            return names
        if line.startswith("import time:") and "|" in line and "imported package" not in line:
            names.add(line.rsplit("|", 1)[1].strip())
    raise AssertionError("the server never logged that it answered initialize early")


def third_party(names: set[str]) -> set[str]:
    tops = {name.split(".")[0] for name in names}
    return {t for t in tops if t not in sys.stdlib_module_names and not t.startswith("_")} - {
        "dsh_lsp",
        "sitecustomize",
        "org",  # ``copy`` probes for Jython's org.python.core
    }


def allowed_dsh(name: str) -> bool:
    if name in {"dsh_lsp", "dsh_lsp.cli", "dsh_lsp.cli.entry"} or name in ALLOWED_SERVER:
        return True
    return name == "dsh_lsp.kernel" or name.startswith("dsh_lsp.kernel.")


async def _imports_before_answer(
    model: ModelScript, tmp_path: Path, params: Json
) -> tuple[set[str], set[str]]:
    """(before the answer, once started) of one real server."""
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        started = raw_server(
            model,
            tmp_path,
            ("--log-level", "debug"),
            python=("-X", "importtime"),
            stderr=err,
        )
        async with started as server:
            await server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
            assert "result" in await server.response(1)
            await server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            await server.send({"jsonrpc": "2.0", "id": 2, "method": "dsh/session/new"})
            assert "result" in await server.response(2, seconds=60)
            await server.send({"jsonrpc": "2.0", "id": 3, "method": "dsh/session/list"})
            assert "result" in await server.response(3, seconds=60)  # after the start-up
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    everything = {
        line.rsplit("|", 1)[1].strip()
        for line in lines
        if line.startswith("import time:") and "|" in line
    }
    return before_answer(lines), everything


@pytest.mark.asyncio(loop_scope="module")
async def test_initialize_is_answered_before_pygls_and_lsprotocol_load(
    model: ModelScript, tmp_path: Path
) -> None:
    params: Json = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
    early, everything = await _imports_before_answer(model, tmp_path, params)
    ours = {name for name in early if name.startswith("dsh_lsp")}
    assert {name for name in ours if not allowed_dsh(name)} == set()
    assert third_party(early) - ALLOWED_THIRD_PARTY == set()
    assert "uvloop.loop" in early  # the server runs on uvloop's event loop (kernel.loop_options)
    # The whole server loaded afterwards, and never the shipped test kit.
    assert {"lsprotocol.types", "pygls.lsp.server", "dsh_lsp.app"} <= everything
    assert {name for name in everything if name.startswith("dsh_lsp.testing")} == set()


@pytest.mark.asyncio(loop_scope="module")
async def test_initialization_options_add_only_the_settings_model(
    model: ModelScript, tmp_path: Path
) -> None:
    params = {
        "processId": None,
        "rootUri": tmp_path.as_uri(),
        "capabilities": {"experimental": RICH},
        "initializationOptions": {"sessionDir": str(tmp_path / "sessions")},
    }
    early, _ = await _imports_before_answer(model, tmp_path, params)
    assert third_party(early) - ALLOWED_THIRD_PARTY - WITH_SETTINGS == set()
    assert {"lsprotocol", "pygls", "cattrs", "httpx"} & third_party(early) == set()


CAPABILITIES: list[Json] = [
    {},
    {"experimental": RICH},
    {"experimental": {"dsh": {"version": 1, "sessionUpdates": False}}},
    {"experimental": {"dsh": {"version": 2, "sessionUpdates": True}}},
    {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
    {"general": {"positionEncodings": ["utf-32"]}, "experimental": RICH},
    {"general": {"positionEncodings": ["latin-1"]}},
    {"general": {}},
    {"window": {"workDoneProgress": True}, "workspace": {"configuration": True}},
]


async def _no_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """Nothing to load: only the ``initialize`` answer is compared."""


@pytest.mark.parametrize("capabilities", CAPABILITIES)
@pytest.mark.asyncio
async def test_the_early_answer_is_the_one_pygls_gives(capabilities: Json) -> None:
    frames: list[bytes] = []

    class Capture:
        def write(self, data: bytes) -> None:
            frames.append(data)

        def close(self) -> None:
            """Nothing to close."""

    async with Kernel() as kernel:
        server = build_server(kernel.context, _no_plugins)
        server.protocol.set_writer(Capture())
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "capabilities": capabilities},
        }
        dispatch(json.dumps(message).encode(), server.protocol)
    assert len(frames) == 1
    answer = json.loads(frames[0].split(b"\r\n\r\n", 1)[1])
    assert answer["result"] == initialize_result(capabilities)


def test_the_early_answer_speaks_the_wire_version() -> None:
    assert DSH_PROTOCOL_VERSION == DSH_VERSION
