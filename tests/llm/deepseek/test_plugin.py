"""DeepSeekPlugin inside a kernel: config, key, client lifetime, timeouts and retries."""

from __future__ import annotations

import httpx
import pytest

from dsh_lsp.kernel import PluginConfigError, PluginFailedError
from dsh_lsp.llm import (
    BlockEnd,
    LlmCode,
    LlmError,
    TextBlock,
    assemble,
)
from dsh_lsp.llm.deepseek import DeepSeekPlugin
from dsh_lsp.llm.deepseek.plugin import needs_tls
from dsh_lsp.testing import ScriptedServer, Stall, StreamResponse, completion, error
from tests.llm.deepseek.fakes import API_KEY, REQUEST, FakeClock
from tests.llm.http1.raw_server import answer_all, scripted
from tests.llm.kernel_support import llm_kernel


class RecordingTransport(httpx.AsyncHTTPTransport):
    """The real HTTP transport, remembering whether its client closed it."""

    closed = False

    async def aclose(self) -> None:
        self.closed = True
        await super().aclose()


def environ(**extra: str) -> dict[str, str]:
    return {"DEEPSEEK_API_KEY": API_KEY, **extra}


async def test_models_are_served_through_the_service_and_unloaded_with_the_plugin(
    server: ScriptedServer,
) -> None:
    server.enqueue(completion(text="hello"))
    transport = RecordingTransport()
    async with llm_kernel() as (ctx, llm):
        fiber = await ctx.plugin(
            DeepSeekPlugin(environ=environ(), transport=transport),
            {"models": ["deepseek-v4-flash", "local"], "baseUrl": server.base_url},
        )
        assert llm.models() == ("deepseek-v4-flash", "local")
        result = await assemble(llm.stream(REQUEST))
        assert result.message.content == (TextBlock(text="hello"),)
        assert server.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
        await fiber.dispose()
        assert transport.closed
        assert llm.models() == ()


async def test_base_url_comes_from_the_environment_when_not_configured(
    server: ScriptedServer,
) -> None:
    server.enqueue(completion(text="via env"))
    async with llm_kernel() as (ctx, llm):
        env = environ(DEEPSEEK_BASE_URL=server.base_url)
        await ctx.plugin(DeepSeekPlugin(environ=env), {})
        chunks = [c async for c in llm.stream(REQUEST)]
        assert BlockEnd(index=0, block=TextBlock(text="via env")) in chunks


async def test_a_missing_key_fails_the_plugin_with_auth() -> None:
    async with llm_kernel() as (ctx, _llm):
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(DeepSeekPlugin(environ={"OTHER": "x"}), {"apiKeyEnv": "MY_KEY"})
        cause = caught.value.__cause__
        assert isinstance(cause, LlmError)
        assert cause.code == LlmCode.AUTH
        assert "MY_KEY" in str(cause)


async def test_a_missing_key_in_deferred_mode_loads_and_fails_each_call_naming_the_variable() -> (
    None
):
    async with llm_kernel() as (ctx, llm):
        # a public endpoint needs a key (a local one would not: see key_required)
        config = {
            "apiKeyEnv": "MY_KEY",
            "missingKey": "defer",
            "baseUrl": "https://api.deepseek.com",
        }
        fiber = await ctx.plugin(DeepSeekPlugin(environ={"OTHER": "x"}), config)
        assert llm.models() == ("deepseek-v4-flash", "deepseek-v4-pro")
        for _ in range(2):
            with pytest.raises(LlmError) as caught:
                await assemble(llm.stream(REQUEST))
            assert caught.value.code == LlmCode.AUTH
            assert "the API key variable MY_KEY is not set" in str(caught.value)
        await fiber.dispose()
        assert llm.models() == ()


async def test_invalid_config_is_rejected_before_apply() -> None:
    async with llm_kernel() as (ctx, _llm):
        with pytest.raises(PluginConfigError) as caught:
            await ctx.plugin(DeepSeekPlugin(environ=environ()), {"readTimeout": -1})
        assert "readTimeout" in str(caught.value) or "read_timeout" in str(caught.value)


async def test_configured_read_timeout_and_retry_budget_are_honoured(
    server: ScriptedServer,
) -> None:
    clock = FakeClock()
    server.enqueue(StreamResponse(steps=(Stall(seconds=5),)), error(503, "busy"))
    async with llm_kernel() as (ctx, llm):
        config = {
            "baseUrl": server.base_url,
            "readTimeout": 0.3,
            "maxRetries": 1,
            "retryInitialDelay": 0.125,
        }
        await ctx.plugin(DeepSeekPlugin(environ=environ(), sleep=clock.sleep), config)
        with pytest.raises(LlmError) as caught:
            await assemble(llm.stream(REQUEST))
    assert caught.value.code == LlmCode.SERVER
    assert len(server.requests) == 2
    assert len(clock.sleeps) == 1
    assert 0.1 <= clock.sleeps[0] <= 0.15


async def test_thinking_settings_reach_the_wire(server: ScriptedServer) -> None:
    server.enqueue(completion(text="x"))
    async with llm_kernel() as (ctx, llm):
        config = {"baseUrl": server.base_url, "thinking": "disabled", "reasoningEffort": "high"}
        await ctx.plugin(DeepSeekPlugin(environ=environ()), config)
        await assemble(llm.stream(REQUEST))
    body = server.requests[0].json()
    assert (body["thinking"], body["reasoning_effort"]) == ({"type": "disabled"}, "high")


async def test_a_local_endpoint_needs_no_key(server: ScriptedServer) -> None:
    server.enqueue(completion(text="from ollama"))
    async with llm_kernel() as (ctx, llm):
        await ctx.plugin(DeepSeekPlugin(environ={}), {"baseUrl": server.base_url})
        result = await assemble(llm.stream(REQUEST))
    assert result.message.content == (TextBlock(text="from ollama"),)
    assert "authorization" not in server.requests[0].headers
    assert server.requests[0].path == "/v1/chat/completions"


async def test_a_base_url_without_scheme_fails_the_plugin_at_once() -> None:
    async with llm_kernel() as (ctx, _llm):
        with pytest.raises(PluginConfigError, match="baseUrl"):
            await ctx.plugin(DeepSeekPlugin(environ={}), {"baseUrl": "localhost:11434/v1"})
        env = {"DEEPSEEK_BASE_URL": "127.0.0.1:8000"}
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(DeepSeekPlugin(environ=env), {})
        assert "DEEPSEEK_BASE_URL" in str(caught.value.__cause__)


@pytest.mark.parametrize(
    ("base_url", "environ", "tls"),
    [
        ("https://api.deepseek.com", {}, True),
        ("http://127.0.0.1:8000/v1", {}, False),
        ("http://127.0.0.1:8000/v1", {"HTTPS_PROXY": "https://proxy:3128"}, True),
        ("http://127.0.0.1:8000/v1", {"all_proxy": "socks5://proxy"}, True),
        ("http://127.0.0.1:8000/v1", {"HTTP_PROXY": ""}, False),
    ],
)
def test_the_tls_context_is_built_only_when_a_request_can_use_it(
    base_url: str, environ: dict[str, str], tls: bool
) -> None:
    assert needs_tls(base_url, environ) is tls


async def test_the_client_is_lean_but_a_proxy_from_the_environment_is_still_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """httpx honours proxy variables only without a transport of ours: with one set, the
    plugin leaves the transport to httpx, and the proxy sees the absolute-form request."""
    async with scripted(answer_all) as proxy:
        variables = {"HTTP_PROXY": f"http://127.0.0.1:{proxy.port}"}
        for name in ("NO_PROXY", "no_proxy", "http_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", variables["HTTP_PROXY"])
        async with llm_kernel() as (ctx, llm):
            await ctx.plugin(
                DeepSeekPlugin(environ=environ(**variables)),
                {"baseUrl": "http://model.example/v1", "maxRetries": 0},
            )
            with pytest.raises(LlmError):  # the raw proxy answers "hello", not an event stream
                await assemble(llm.stream(REQUEST))
    assert proxy.requests[0].startswith(b"POST http://model.example/v1/chat/completions HTTP/1.1")
