"""A DeepSeek thinking-mode session that used tools keeps going (issue 17).

The real agent loop, the real DeepSeek adapter and a scripted server that checks every request
the way DeepSeek's API does (``rules.deepseek_thinking``: the recorded 400 for a history whose
tool-using stretch lacks ``reasoning_content``). The first turn calls tools twice — once with
empty thinking, once with thinking — then answers; five more user turns follow, one of them
with another tool call. No request may be rejected.
"""

from __future__ import annotations

from dsh_lsp.agent import AgentOptions, AgentSpec
from dsh_lsp.llm import JsonObject
from dsh_lsp.llm.deepseek import DeepSeekPlugin
from dsh_lsp.testing import ErrorResponse, ToolCallSpec, completion, wire_usage
from dsh_lsp.testing.scripted_server import (
    REASONING_PASSBACK_400,
    RecordedRequest,
    ScriptedServer,
    deepseek_thinking,
    thinking_history_violation,
)
from dsh_lsp.tools import ToolExecution
from tests.agent_loop.harness import loop_harness, reasons

MODEL = "deepseek-v4-flash"
USAGE = wire_usage(prompt=100, completion=20, cached=64, reasoning=10)


def call(n: int) -> ToolCallSpec:
    return ToolCallSpec(id=f"call_0{n}_x", name="read", arguments=f'{{"path": "f{n}.txt"}}')


def test_the_checker_rejects_what_deepseek_rejects() -> None:
    tool_turn: list[dict[str, object]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]},
        {"role": "tool", "tool_call_id": "c", "content": "r"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "next"},
    ]
    body = {"model": MODEL, "messages": tool_turn}
    assert thinking_history_violation(body) == (
        "messages[1]: assistant message without reasoning_content"
    )
    tool_turn[1]["reasoning_content"] = ""
    assert thinking_history_violation(body) == (
        "messages[3]: assistant message without reasoning_content"
    )
    tool_turn[3]["reasoning_content"] = "why"
    assert thinking_history_violation(body) is None
    del tool_turn[1]["reasoning_content"]
    assert thinking_history_violation({**body, "thinking": {"type": "disabled"}}) is None
    assert thinking_history_violation({**body, "model": "deepseek-chat"}) is None
    plain = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    assert thinking_history_violation({"model": MODEL, "messages": plain}) is None
    request = RecordedRequest(
        method="POST", path="/v1/chat/completions", headers={}, body=b"{}", client=("", 0)
    )
    assert deepseek_thinking(request) is None
    assert isinstance(REASONING_PASSBACK_400, ErrorResponse)
    assert REASONING_PASSBACK_400.status == 400


async def test_a_thinking_session_that_used_tools_continues_for_five_more_turns() -> None:
    async def read(args: JsonObject, execution: ToolExecution) -> str:
        return f"contents of {args['path']}"

    script = [
        completion(tool_calls=[call(1)], usage=USAGE),  # thinking came back empty
        completion(reasoning="now the second file", tool_calls=[call(2)], usage=USAGE),
        completion(reasoning="both read", text="Both files say hello.", usage=USAGE),
        completion(reasoning="chat", text="Turn 2.", usage=USAGE),
        completion(reasoning="check again", tool_calls=[call(3)], usage=USAGE),
        completion(text="Turn 3 after a tool.", usage=USAGE),
        completion(reasoning="chat", text="Turn 4.", usage=USAGE),
        completion(reasoning="chat", text="Turn 5.", usage=USAGE),
        completion(reasoning="chat", text="Turn 6.", usage=USAGE),
    ]
    with ScriptedServer(script, check=deepseek_thinking) as server:
        plugin = DeepSeekPlugin(environ={"DEEPSEEK_API_KEY": "test-key"})
        config = {"baseUrl": server.base_url, "models": [MODEL], "maxRetries": 0}
        async with loop_harness(models=[(plugin, config)]) as h:
            h.tool("read", read, read_only=True)
            handle = await h.agents.create(AgentSpec(options=AgentOptions(model=MODEL)))
            agent = handle.agent
            for prompt in ("read f1 and f2", "two", "three", "four", "five", "six"):
                agent.send(prompt)
                await agent.when_idle()
            assert reasons(agent.session) == ["completed"] * 6
        assert server.rejected == 0
        assert len(server.requests) == len(script)
        last = server.requests[-1].json()
        assert "temperature" not in last
        assistants = [m for m in last["messages"] if m["role"] == "assistant"]
        assert [m.get("reasoning_content") for m in assistants] == [
            "",  # tool call with empty thinking: the key is there, empty
            "now the second file",
            "both read",  # the final answer of the tool-using turn keeps its reasoning
            None,  # turn 2 used no tool: not sent (DeepSeek ignores it there)
            "check again",
            "",  # turn 3's answer had no thinking: "" because the turn used a tool
            None,
            None,
        ]
