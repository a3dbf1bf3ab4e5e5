"""``dsh.editor.diagnosticsAfterEdit`` is read at every edit: off, an edit sends no
``dsh/editor/*`` request and its result is the file tools' own; on again, the next edit
reports. In process: the scripted editor and a channel that answers like a plugin."""

from __future__ import annotations

from pathlib import Path

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.wire import ClientFeatures
from tests.server.scripted_editor import VSCODE, ScriptedEditor

from .tool_registry import editor_tools


class Plugin:
    """A ``ClientChannel`` answering ``dsh/editor/diagnostics`` from the editor's buffers."""

    features = ClientFeatures()

    def __init__(self, editor: ScriptedEditor) -> None:
        self.editor = editor
        self.asked: list[JsonObject] = []

    def notify(self, method: str, params: JsonObject) -> None:
        """Drop notifications."""

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        """The current buffer's version and one error per ``bogus`` line."""
        self.asked.append(params)
        uri = str(params["uri"])
        buffer = self.editor.model.buffers[uri]
        found: list[JsonValue] = [
            {
                "range": {
                    "start": {"line": n, "character": 0},
                    "end": {"line": n, "character": 1},
                },
                "severity": 1,
                "message": "bogus",
            }
            for n, line in enumerate(buffer.text.split("\n"))
            if "bogus" in line
        ]
        return {"items": [{"uri": uri, "version": buffer.version, "diagnostics": found}]}


async def test_the_setting_is_read_at_every_edit(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    editor = ScriptedEditor(VSCODE)
    editor.open(tmp_path / "a.py")
    channel = Plugin(editor)
    on = {"value": False}
    async with editor_tools(
        tmp_path,
        editor,
        channel,
        frozenset({"diagnostics"}),
        after_edit=lambda: on["value"],
        timeout_ms=1000,
    ) as call:
        await call("read", {"file_path": "a.py"})
        text = await call(
            "edit", {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = bogus"}
        )
        assert "problems" not in text.lower()
        assert channel.asked == []
        on["value"] = True
        text = await call(
            "edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = bogus"}
        )
        assert "New problems in the lines you changed (version 3):" in text
        assert "a.py:2:1: error: bogus" in text
        assert "a.py:1:" not in text  # line 1's problem was there before this edit
        assert [p.get("version") for p in channel.asked] == [None, 3]
