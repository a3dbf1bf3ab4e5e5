"""Configuration end to end: initializationOptions and the ``dsh`` configuration section,
errors that name the field, a missing key, and secrets kept out of traffic, logs and files."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from dsh_lsp.testing import ToolCallSpec, completion

from .support import (
    API_KEY,
    CLIENTS,
    ModelScript,
    capabilities,
    make_client,
    running_server,
    server_command,
    server_env,
    stop,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("spec", CLIENTS)
async def test_invalid_initialization_options_fail_initialize_naming_the_field(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    client = make_client()
    await client.start_io(*server_command(spec), env=server_env(model.base_url, tmp_path))
    try:
        with pytest.raises(JsonRpcException) as caught:
            await client.initialize_session(
                types.InitializeParams(
                    capabilities=capabilities(spec),
                    initialization_options={"permissions": {"shell": "maybe"}},
                )
            )
        assert caught.value.code == -32602
        assert "dsh.permissions.shell" in caught.value.message
        assert caught.value.data == {"code": "INVALID_SETTINGS", "retry": False}
    finally:
        await stop(client)


@pytest.mark.parametrize("spec", CLIENTS)
async def test_the_configuration_section_overrides_initialization_options(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(
        completion(tool_calls=[ToolCallSpec(id="l1", name="list", arguments="{}")]),
    )
    options = {"sessionDir": str(tmp_path / "sessions"), "maxStepsPerTurn": 5}
    async with running_server(
        spec, model, tmp_path, init_options=options, configuration={"maxStepsPerTurn": 1}
    ) as rig:
        session = await rig.client.new_session()
        assert (await rig.client.prompt(session, "list"))["stopReason"] == "max_turn_requests"
        assert rig.client.messages == []


@pytest.mark.parametrize("spec", CLIENTS)
async def test_an_invalid_configuration_section_is_shown_and_ignored(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(completion(text="still fine"))
    async with running_server(
        spec, model, tmp_path, configuration={"permissions": {"edit": "never"}}
    ) as rig:
        session = await rig.client.new_session()
        assert (await rig.client.prompt(session, "hi"))["stopReason"] == "end_turn"
        (message,) = rig.client.messages
        assert message.type == types.MessageType.Error
        assert "dsh.permissions.edit" in message.message


@pytest.mark.parametrize("spec", CLIENTS)
async def test_a_missing_api_key_fails_prompts_with_auth_and_keeps_sessions_usable(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    remote = {"DEEPSEEK_API_KEY": "", "DEEPSEEK_BASE_URL": "https://api.deepseek.com"}
    async with running_server(spec, model, tmp_path, env=remote) as rig:
        session = await rig.client.new_session()
        with pytest.raises(JsonRpcException) as caught:
            await rig.client.prompt(session, "hi")
        assert (caught.value.data or {})["code"] == "AUTH"
        assert "DEEPSEEK_API_KEY is not set" in caught.value.message
        assert (await rig.client.request("dsh/session/list", {}))["sessions"]


async def test_the_model_settings_reach_the_request(model: ModelScript, tmp_path: Path) -> None:
    model.enqueue(completion(text="tuned"))
    knobs = {"reasoningEffort": "high", "temperature": 0.5, "maxTokens": 77, "stop": ["END"]}
    async with running_server(
        CLIENTS[0], model, tmp_path, configuration={"model": {"thinking": "enabled", **knobs}}
    ) as rig:
        session = await rig.client.new_session()
        await rig.client.prompt(session, "hi")
    body = model.server.requests[-1].json()
    assert body["thinking"] == {"type": "enabled"}
    assert body["reasoning_effort"] == "high"
    assert "temperature" not in body  # DeepSeek ignores it while it thinks
    assert (body["max_tokens"], body["stop"]) == (77, ["END"])


async def test_temperature_reaches_the_request_when_thinking_is_off(
    model: ModelScript, tmp_path: Path
) -> None:
    model.enqueue(completion(text="tuned"))
    configuration = {"model": {"thinking": "disabled", "temperature": 0.5}}
    async with running_server(CLIENTS[0], model, tmp_path, configuration=configuration) as rig:
        session = await rig.client.new_session()
        await rig.client.prompt(session, "hi")
    body = model.server.requests[-1].json()
    assert (body["thinking"], body["temperature"]) == ({"type": "disabled"}, 0.5)


async def test_the_key_never_reaches_traffic_logs_or_session_files(
    model: ModelScript, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    model.enqueue(completion(text="secretless"))
    async with running_server(
        CLIENTS[0], model, tmp_path, args=("--log-file", str(log), "--log-level", "debug")
    ) as rig:
        session = await rig.client.new_session()
        await rig.client.prompt(session, "hi")
        traffic = repr(rig.client.updates) + repr(rig.client.log_messages)
    assert model.server.requests[-1].headers["authorization"] == f"Bearer {API_KEY}"
    assert API_KEY not in traffic
    text = log.read_text(encoding="utf-8")
    assert "dsh/session/update" in text  # debug logging saw the traffic
    assert API_KEY not in text
    for path in (tmp_path / "sessions").rglob("*"):
        if path.is_file():
            assert API_KEY not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("spec", CLIENTS)
async def test_a_configuration_change_applies_to_the_next_tool_call(
    spec: str, model: ModelScript, tmp_path: Path
) -> None:
    write = '{"file_path":"late.txt","content":"x"}'
    model.enqueue(
        completion(tool_calls=[ToolCallSpec(id="w", name="write", arguments=write)]),
        completion(text="done"),
    )
    async with running_server(spec, model, tmp_path, configuration={}) as rig:
        client = rig.client
        session = await client.new_session()
        client.set_configuration({"permissions": {"edit": "ask"}}, section="dsh")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await client.prompt(session, "write late.txt")
        assert [r["toolCall"]["toolCallId"] for r in client.permission_requests] == ["w"]
        assert not (rig.workspace / "late.txt").exists()
