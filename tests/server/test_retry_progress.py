"""A model call being retried is not a silent "running" (issue 16): the client gets a
``state_update`` saying "retrying (1/5) after 429", and the timeouts are editor settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_lsp.server.settings import SettingsError, parse_settings
from dsh_lsp.testing import completion, error
from tests.server.support import Json, ModelScript, raw_server


@pytest.mark.asyncio(loop_scope="module")
async def test_the_client_sees_each_retry_in_a_state_update(
    model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(error(429, "slow down", retry_after="0"), completion(text="ok"))
    updates: list[Json] = []
    async with raw_server(model, tmp_path) as server:
        await server.initialize(tmp_path)
        await server.send({"jsonrpc": "2.0", "id": "new", "method": "dsh/session/new"})
        session = (await server.response("new"))["result"]["sessionId"]
        params = {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
        await server.send({"jsonrpc": "2.0", "id": "p", "method": "dsh/prompt", "params": params})
        while True:
            message = await server.receive()
            if message.get("id") == "p" and "method" not in message:
                break
            if message.get("method") == "dsh/session/update":
                updates.append(message["params"]["update"])
    retries = [u for u in updates if u["kind"] == "state_update" and "retry" in u]
    assert [u["message"] for u in retries] == ["retrying (1/5) after 429"]
    assert retries[0]["retry"] == {
        "attempt": 1,
        "maxRetries": 5,
        "reason": "429",
        "delaySeconds": 0.0,
    }


def test_timeouts_are_settings_validated_by_path() -> None:
    settings = parse_settings({"model": {"timeouts": {"firstByte": 5, "readIdle": 60}}})
    assert settings.model.timeouts.first_byte == 5
    assert settings.model.timeouts.read_idle == 60
    with pytest.raises(SettingsError, match=r"dsh\.model\.timeouts\.connect"):
        parse_settings({"model": {"timeouts": {"connect": 0}}})
