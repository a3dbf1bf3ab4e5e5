"""The first ``dsh/session/new`` answered while the server still loads (``server.early``).

A real server (stdio) answers an ordinary ``dsh/session/new`` sent right after
``initialized`` on its light path, and that session is the one the ordinary path makes: it
is listed, prompted, stored with the same records and resumed like a session made after
start-up. Params the light path does not take as they are go the ordinary way, so their
errors are exactly those the started server gives.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from dsh_lsp.server.early import new_session_id, ordinary_session_params
from dsh_lsp.server.wire import SessionNewParams, parse_params
from dsh_lsp.testing import completion

from .support import Json, ModelScript, RawServer, raw_server

EARLY_LINE = "answered dsh/session/new early"


async def _call(server: RawServer, msg_id: str, method: str, params: Json) -> Json:
    await server.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await server.response(msg_id, seconds=60)


async def _prompt(server: RawServer, session: str, msg_id: str) -> Json:
    params = {"sessionId": session, "prompt": [{"type": "text", "text": "hello"}]}
    answer = await _call(server, msg_id, "dsh/prompt", params)
    return answer["result"]


def _stored(root: Path, session: str) -> list[Json]:
    (path,) = (root / "sessions").rglob(f"{session}.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _shape(records: list[Json]) -> list[Json]:
    """The records without what differs between two sessions (ids, times, and how many
    deltas the network reads cut the same text into)."""
    header, *events = records
    kept = {k: v for k, v in header.items() if k not in {"id", "createdAt"}}
    shapes: list[Json] = [kept]
    for event in events:
        shape = (event["type"], sorted(event["data"]), _delta_kind(event))
        if shape[2] is None or shapes[-1] != shape:
            shapes.append(shape)
    return shapes


def _delta_kind(event: Json) -> str | None:
    """The chunk type of a streamed delta's event (``None`` for any other event)."""
    chunk = event["data"].get("chunk") if event["type"] == "assistant/chunk" else None
    kind = chunk.get("type") if isinstance(chunk, dict) else None
    return kind if isinstance(kind, str) and kind.endswith("-delta") else None


@pytest.mark.asyncio(loop_scope="module")
async def test_an_early_session_is_the_session_the_ordinary_path_makes(
    model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(completion(text="Hi there."), completion(text="Hi there."))
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        async with raw_server(model, tmp_path, ("--log-level", "debug"), stderr=err) as server:
            await server.initialize(tmp_path)
            early = (await _call(server, "a", "dsh/session/new", {}))["result"]["sessionId"]
            listed = await _call(server, "list", "dsh/session/list", {})  # after the start-up
            ordinary = (await _call(server, "b", "dsh/session/new", {}))["result"]["sessionId"]
            entries = {e["sessionId"]: e for e in listed["result"]["sessions"]}
            assert entries[early]["cwd"] == str(tmp_path)
            assert await _prompt(server, early, "p1") == await _prompt(server, ordinary, "p2")
            await _call(server, "bye", "shutdown", None)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert f"{EARLY_LINE}: {early}" in text
    assert f"{EARLY_LINE}: {ordinary}" not in text
    assert _shape(_stored(tmp_path, early)) == _shape(_stored(tmp_path, ordinary))
    # Resumable like any stored session.
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        resumed = await _call(server, "r", "dsh/session/resume", {"sessionId": early})
        assert resumed["result"] == {"sessionId": early}


BAD_PARAMS: list[Json] = [
    {"cwd": "/no/such/folder/anywhere"},
    {"cwd": "/tmp", "extra": 1},
    {"cwd": ""},
    {"cwd": 5},
    [],
    {"cwd": "\ud800"},
    {"sessionId": "x"},
]


@pytest.mark.asyncio(loop_scope="module")
async def test_bad_params_of_an_early_session_get_the_ordinary_errors(
    model: ModelScript, tmp_path: Path
) -> None:
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        early = [
            (await _call(server, f"e{i}", "dsh/session/new", params))["error"]
            for i, params in enumerate(BAD_PARAMS)
        ]
        await _call(server, "list", "dsh/session/list", {})  # the server has started
        started = [
            (await _call(server, f"s{i}", "dsh/session/new", params))["error"]
            for i, params in enumerate(BAD_PARAMS)
        ]
    assert early == started
    assert {error["code"] for error in early} == {-32602}


GOOD_PARAMS: list[Json] = [None, {}, {"cwd": None}, {"cwd": "/tmp"}]


@pytest.mark.parametrize("params", [*GOOD_PARAMS, *BAD_PARAMS])
def test_the_light_path_takes_only_params_the_ordinary_path_accepts(params: Json) -> None:
    ordinary, cwd = ordinary_session_params(params)
    try:
        request = parse_params(SessionNewParams, params, "dsh/session/new")
        accepted = request.cwd is None or os.path.isdir(request.cwd)
    except JsonRpcInvalidParams:
        accepted = False
    if ordinary:
        assert accepted
        assert cwd == request.cwd
    assert ordinary == (params in GOOD_PARAMS)


def test_early_session_ids_are_uuid4_strings() -> None:
    ids = {new_session_id() for _ in range(200)}
    assert len(ids) == 200
    for text in ids:
        parsed = uuid.UUID(text)
        assert parsed.version == 4
        assert str(parsed) == text
