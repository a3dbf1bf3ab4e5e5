"""``dsh/status`` over stdio: the model and resolved endpoint the server uses, never the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException

from .support import API_KEY, CLIENTS, ModelScript, running_server

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("spec", CLIENTS)
async def test_status_names_the_model_and_the_resolved_base_url_without_the_key(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    async with running_server(
        spec, model, tmp_path, configuration={"model": {"name": "qwen3-coder"}}
    ) as rig:
        status = await rig.client.request("dsh/status", {})
    assert status == {
        "model": "qwen3-coder",
        "baseUrl": f"{model.base_url}/v1",
        "apiKeyEnv": "DEEPSEEK_API_KEY",
        "apiKeySet": True,
        "apiKeyRequired": False,
    }
    assert API_KEY not in repr(status)


async def test_status_reports_a_missing_key_on_a_public_endpoint(
    model: ModelScript, tmp_path: Path
) -> None:
    remote = {"DEEPSEEK_API_KEY": "", "DEEPSEEK_BASE_URL": "https://api.deepseek.com/"}
    async with running_server(CLIENTS[0], model, tmp_path, env=remote) as rig:
        status = await rig.client.request("dsh/status", None)
        with pytest.raises(JsonRpcException) as caught:
            await rig.client.request("dsh/status", {"verbose": True})
    assert status["baseUrl"] == "https://api.deepseek.com/v1"
    assert (status["apiKeySet"], status["apiKeyRequired"]) == (False, True)
    assert caught.value.code == -32602
