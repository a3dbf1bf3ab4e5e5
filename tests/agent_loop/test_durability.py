"""The loop's durability rule (the durable-turns RFC): what is stored when, and text that
could not be stored as it is."""

from __future__ import annotations

import json
from pathlib import Path

from dsh_lsp.llm import JsonObject
from dsh_lsp.session import PERSISTENCE_COORDINATOR, SESSION_STORED, SessionStored
from dsh_lsp.testing import ToolCallSpec
from dsh_lsp.testing.scripted_model import text_reply, tool_reply
from dsh_lsp.tools import ToolExecution

from .harness import loop_harness, of_type, reasons, types

LONE = "\ud83d"


async def test_a_call_is_stored_before_it_runs_and_the_turn_before_the_agent_idles(
    tmp_path: Path,
) -> None:
    call = ToolCallSpec(id="w1", name="change", arguments='{"path": "a"}')
    async with loop_harness(tool_reply(call), text_reply("done"), directory=tmp_path) as h:
        coordinator = h.ctx.require(PERSISTENCE_COORDINATOR)
        agent, _ = await h.create()
        stored_when_run: list[tuple[int, list[str]]] = []

        async def change(args: JsonObject, execution: ToolExecution) -> str:
            session = agent.session
            stored = coordinator.stored(session)
            stored_when_run.append((stored, [e.type for e in session.events[:stored]]))
            return "changed"

        h.tool("change", change)
        notices: list[SessionStored] = []
        h.ctx.on(SESSION_STORED, notices.append)
        agent.send("change a")
        await agent.when_idle()
        ((_, stored_types),) = stored_when_run
        assert stored_types[:2] == ["turn/start", "user/message"]
        assert stored_types[-1] == "tool/call"  # everything up to the call, before it ran
        assert reasons(agent.session) == ["completed"]
        assert coordinator.stored(agent.session) == len(agent.session)
        assert notices[0].stored == 2  # the opening flush: header, turn/start, user/message
        assert all(n.error is None for n in notices)
        assert [n.stored for n in notices] == sorted(n.stored for n in notices)


async def test_model_output_and_tool_results_with_unpaired_surrogates_are_stored_replaced(
    tmp_path: Path,
) -> None:
    call = ToolCallSpec(id="c1", name="echo", arguments=f'{{"path": "x{LONE}"}}')
    entries = (tool_reply(call, text=f"cut {LONE}"), text_reply(f"end {LONE}"))
    async with loop_harness(*entries, directory=tmp_path) as h:
        seen: list[object] = []

        async def echo(args: JsonObject, execution: ToolExecution) -> str:
            seen.append(args["path"])
            return f"read {LONE} back"

        h.tool("echo", echo)
        agent, _ = await h.create()
        agent.send("go")
        await agent.when_idle()
        assert reasons(agent.session) == ["completed"]
        assert seen == ["x\ufffd"]
        (result,) = of_type(agent.session, "tool/result")
        assert result["content"] == [{"type": "text", "text": "read \ufffd back"}]
        messages = json.dumps(of_type(agent.session, "assistant/message"), ensure_ascii=False)
        assert '{"type": "text", "text": "cut \ufffd"}' in messages
        assert '{"type": "text", "text": "end \ufffd"}' in messages
        assert "error" not in types(agent.session)
        coordinator = h.ctx.require(PERSISTENCE_COORDINATOR)
        assert coordinator.stored(agent.session) == len(agent.session)
