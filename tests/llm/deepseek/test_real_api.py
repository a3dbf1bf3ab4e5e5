"""Opt-in checks against the real DeepSeek API.

They run only when the user opts in with ``DSH_LIVE_TESTS=1`` *and* exports
``DEEPSEEK_API_KEY`` (``DEEPSEEK_BASE_URL`` optional); a key alone, as exported for daily use,
never makes the suite call the API (``tests/conftest.py`` also hides it from every other
test).
"""

from __future__ import annotations

import os

import httpx
import pytest

from dsh_lsp.llm import (
    FinishChunk,
    FinishStop,
    FinishToolCalls,
    LlmRequest,
    Message,
    StreamChunk,
    TextBlock,
    ToolCallBlock,
    ToolSchema,
    UsageChunk,
    assemble,
)
from dsh_lsp.llm.deepseek import DEFAULT_MODELS, DeepSeekAdapter, DeepSeekConfig

KEY = os.environ.get("DEEPSEEK_API_KEY", "") if os.environ.get("DSH_LIVE_TESTS") == "1" else ""
pytestmark = pytest.mark.skipif(
    not KEY, reason="live API tests need DSH_LIVE_TESTS=1 and DEEPSEEK_API_KEY"
)


def adapter(client: httpx.AsyncClient) -> DeepSeekAdapter:
    base_url = DeepSeekConfig().resolved_base_url(os.environ)
    return DeepSeekAdapter(client, base_url=base_url, api_key=KEY)


def ask(text: str, tools: tuple[ToolSchema, ...] = ()) -> LlmRequest:
    message = Message(role="user", content=(TextBlock(text=text),))
    return LlmRequest(model=DEFAULT_MODELS[0], messages=(message,), tools=tools, max_tokens=400)


def assert_protocol_order(chunks: list[StreamChunk]) -> None:
    kinds = [chunk.kind for chunk in chunks]
    assert kinds[-1] == "finish"
    assert kinds.count("finish") == 1
    if "usage" in kinds:
        assert kinds.index("usage") == len(kinds) - 2


async def test_text_answer() -> None:
    async with httpx.AsyncClient(timeout=httpx.Timeout(120, connect=10)) as client:
        chunks = [c async for c in adapter(client).stream(ask("Reply with the word: pong"))]
    assert_protocol_order(chunks)
    assert chunks[-1] == FinishChunk(reason=FinishStop())
    assert any(isinstance(c, UsageChunk) and c.usage.output_tokens > 0 for c in chunks)


async def test_tool_call() -> None:
    tool = ToolSchema(
        name="read",
        description="Read a file",
        parameters={
            "type": "object",
            "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"],
        },
    )
    request = ask("Use the read tool to read config.txt.", tools=(tool,))
    async with httpx.AsyncClient(timeout=httpx.Timeout(120, connect=10)) as client:
        result = await assemble(adapter(client).stream(request))
    assert result.finish == FinishToolCalls()
    calls = [b for b in result.message.content if isinstance(b, ToolCallBlock)]
    assert calls
    assert calls[0].name == "read"
    assert "config.txt" in calls[0].arguments
