"""An agent searches, reads and edits a real project through the file tools (scripted model)."""

from __future__ import annotations

import json
from pathlib import Path

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.testing.openai_chunks import ToolCallSpec
from dsh_lsp.testing.scripted_model import text_reply, tool_reply
from tests.agent_loop.harness import loop_harness, of_type


def _call(call_id: str, name: str, **arguments: object) -> ToolCallSpec:
    return ToolCallSpec(id=call_id, name=name, arguments=json.dumps(arguments))


async def test_grep_read_edit_in_one_turn(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "calc.py").write_bytes(b"def answer():\r\n    return 41\r\n")
    (tmp_path / "notes.txt").write_text("nothing here\n")
    script = (
        tool_reply(_call("c1", "grep", pattern=r"return \d+")),
        tool_reply(_call("c2", "edit", file_path="src/calc.py", old_string="41", new_string="0")),
        tool_reply(_call("c3", "read", file_path="src/calc.py")),
        tool_reply(
            _call(
                "c4",
                "edit",
                file_path="src/calc.py",
                old_string="return 41",
                new_string="return 42",
            )
        ),
        text_reply("Fixed."),
    )
    plugins = (
        (LocalFileSystemPlugin(), {"roots": [str(tmp_path)]}),
        (LocalSearchPlugin(), None),
        (FsPolicyPlugin(), None),
        (FsToolsPlugin(), None),
    )
    async with loop_harness(*script, models=plugins) as h:
        agent, handle = await h.create()
        agent.send("make answer() return 42")
        await agent.when_idle()
        results = of_type(agent.session, "tool/result")
        await handle.dispose()
    errors = [bool(result["isError"]) for result in results]
    assert errors == [False, True, False, False], "the blind edit is refused, the rest succeed"
    refused = results[1]["error"]
    assert isinstance(refused, dict)
    assert refused["code"] == "FS_NOT_OBSERVED"
    assert (tmp_path / "src" / "calc.py").read_bytes() == b"def answer():\r\n    return 42\r\n"
    assert (tmp_path / "notes.txt").read_bytes() == b"nothing here\n"
