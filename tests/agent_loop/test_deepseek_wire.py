"""The loop against the real DeepSeek adapter and a scripted HTTP server: what goes on the wire."""

from __future__ import annotations

import json

from dsh_lsp.agent import AgentOptions, AgentSpec
from dsh_lsp.llm import JsonObject
from dsh_lsp.llm.deepseek import DeepSeekPlugin
from dsh_lsp.testing.openai_chunks import ToolCallSpec, completion, wire_usage
from dsh_lsp.testing.scripted_server import ScriptedServer
from dsh_lsp.tools import ToolExecution

from .harness import block_types, loop_harness, of_type, reasons


async def test_a_reasoning_only_answer_goes_back_with_empty_content() -> None:
    usage = wire_usage(prompt=10, completion=5, reasoning=5)
    with ScriptedServer(
        [
            completion(reasoning="only thinking", usage=usage),
            completion(reasoning="now", text="an answer", usage=usage),
        ]
    ) as server:
        plugin = DeepSeekPlugin(environ={"DEEPSEEK_API_KEY": "test-key"})
        config = {"baseUrl": server.base_url, "models": ["deepseek-v4-flash"], "maxRetries": 0}
        async with loop_harness(models=[(plugin, config)]) as h:
            handle = await h.agents.create(
                AgentSpec(options=AgentOptions(model="deepseek-v4-flash"))
            )
            agent = handle.agent
            agent.send("think")
            await agent.when_idle()
            agent.send("and answer")
            await agent.when_idle()
            assert reasons(agent.session) == ["completed", "completed"]
            first = of_type(agent.session, "assistant/message")[0]
            assert block_types(first["content"]) == ["reasoning"]
        body = server.requests[1].json()
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
        assert body["messages"][1]["content"] == ""
        assert "test-key" not in json.dumps(body)


async def test_a_tool_round_trip_over_the_wire_keeps_the_call_ids() -> None:
    async def read(args: JsonObject, call: ToolExecution) -> str:
        return "file text"

    call = ToolCallSpec(id="call_00_x", name="read", arguments='{"path": "a.txt"}')
    with ScriptedServer([completion(tool_calls=[call]), completion(text="done")]) as server:
        plugin = DeepSeekPlugin(environ={"DEEPSEEK_API_KEY": "k"})
        config = {"baseUrl": server.base_url, "models": ["m"], "maxRetries": 0}
        async with loop_harness(models=[(plugin, config)]) as h:
            h.tool("read", read, read_only=True)
            handle = await h.agents.create(AgentSpec(options=AgentOptions(model="m")))
            handle.agent.send("read a.txt")
            await handle.agent.when_idle()
            assert reasons(handle.agent.session) == ["completed"]
        body = server.requests[1].json()
        assistant, tool = body["messages"][1], body["messages"][2]
        assert assistant["tool_calls"][0]["id"] == "call_00_x"
        assert assistant["tool_calls"][0]["function"]["arguments"] == '{"path": "a.txt"}'
        assert tool == {"role": "tool", "tool_call_id": "call_00_x", "content": "file text"}
        assert server.requests[0].json()["tools"][0]["function"]["name"] == "read"
