"""The composition root: every model setting of the one settings model reaches the wire, and
a missing key defers (the server) or fails (the runner) in the DeepSeek plugin itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from dsh_lsp.agent import AGENTS, AgentSpec
from dsh_lsp.app import build_kernel_plugins
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin
from dsh_lsp.kernel import Kernel, PluginFailedError
from dsh_lsp.llm import LLM, LlmCode, LlmError
from dsh_lsp.server import DshSettings, parse_settings
from dsh_lsp.session import Session
from dsh_lsp.testing.openai_chunks import completion
from dsh_lsp.testing.scripted_server import ScriptedServer


async def _one_turn(kernel: Kernel, settings: DshSettings, cwd: Path) -> Session:
    """Give the loaded set a file system, send ``hi`` to a new agent, wait for the turn."""
    ctx = kernel.context
    await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(cwd)]})
    await kernel.wait_settled()
    handle = await ctx.require(AGENTS).create(
        AgentSpec(options=settings.agent_options(), cwd=str(cwd))
    )
    handle.agent.send("hi")
    await handle.agent.when_idle()
    session = handle.agent.session
    await handle.dispose()
    return session


async def test_every_model_setting_reaches_the_request_body(tmp_path: Path) -> None:
    with ScriptedServer([completion(text="ok")]) as server:
        settings = parse_settings(
            {
                "model": {
                    "name": "my-model",
                    "baseUrl": server.base_url,
                    "apiKeyEnv": "MY_KEY",
                    "thinking": "enabled",
                    "reasoningEffort": "high",
                    "temperature": 0.25,
                    "maxTokens": 321,
                    "stop": ["END"],
                },
                "sessionDir": str(tmp_path / "sessions"),
            }
        )
        async with Kernel() as kernel:
            ctx = kernel.context
            await build_kernel_plugins(ctx, settings, environ={"MY_KEY": "k-123"})
            await _one_turn(kernel, settings, tmp_path)
    body = server.requests[0].json()
    assert body["model"] == "my-model"
    assert body["temperature"] == 0.25
    assert body["max_tokens"] == 321
    assert body["stop"] == ["END"]
    assert body["thinking"] == {"type": "enabled"}
    assert body["reasoning_effort"] == "high"
    assert server.requests[0].headers["authorization"] == "Bearer k-123"
    assert any(path.suffix == ".jsonl" for path in (tmp_path / "sessions").rglob("*"))


async def test_a_missing_key_fails_the_runner_set_and_defers_for_the_server(
    tmp_path: Path,
) -> None:
    settings = parse_settings({"model": {"apiKeyEnv": "NO_SUCH_KEY"}})
    async with Kernel() as kernel:
        with pytest.raises(PluginFailedError) as caught:
            await build_kernel_plugins(kernel.context, settings, environ={})
        assert isinstance(caught.value.__cause__, LlmError)
        assert "NO_SUCH_KEY is not set" in str(caught.value.__cause__)
    async with Kernel() as kernel:
        ctx = kernel.context
        await build_kernel_plugins(ctx, settings, environ={}, defer_missing_key=True)
        session = await _one_turn(kernel, settings, tmp_path)
        (end,) = [e for e in session.events if e.type == "turn/end"]
        assert ctx.require(LLM).models()
    reason = end.data["reason"]
    assert isinstance(reason, dict)
    assert (reason["kind"], reason["code"]) == ("error", LlmCode.AUTH)
    assert "NO_SUCH_KEY is not set" in str(reason["message"])
