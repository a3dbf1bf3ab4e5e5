"""``dsh.editor.diagnosticsAfterEdit`` is read at every edit: off, an edit sends no
``dsh/editor/*`` request and its result is the file tools' own; on again, the next edit
reports. In process: the scripted editor and a channel that answers like a plugin."""

from __future__ import annotations

from pathlib import Path

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, JsonObject, JsonValue, SessionId, TextBlock
from dsh_lsp.server.editor_fs import EditorFileSystemPlugin, EditorSetup
from dsh_lsp.server.editor_intel import EditorIntel, EditorIntelPlugin, EditorMethods
from dsh_lsp.server.wire import ClientFeatures
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolsPlugin
from tests.server.scripted_editor import VSCODE, ScriptedEditor


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
    session = Session(SessionHeader(id=SessionId("s"), created_at=0, cwd=str(tmp_path)))
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        setup = EditorSetup(connection=editor)
        await ctx.plugin(EditorFileSystemPlugin(setup), {"roots": [str(tmp_path)]})
        await ctx.plugin(LocalSearchPlugin)
        await ctx.plugin(FsPolicyPlugin)
        await ctx.plugin(FsToolsPlugin)
        intel = EditorIntel(channel, EditorMethods(methods=frozenset({"diagnostics"})))
        await ctx.plugin(
            EditorIntelPlugin(
                intel,
                editor.documents,
                request_seconds=lambda: 5.0,
                after_edit=lambda: on["value"],
                timeout_ms=lambda: 1000,
            )
        )
        registry = ctx.require(TOOLS)

        async def call(name: str, args: JsonValue) -> str:
            execution = ToolExecution(
                call_id=CallId("c"), name=name, arguments=args, session=session
            )
            result = (await registry.execute(execution)).result
            assert not result.is_error, result
            return "\n".join(b.text for b in result.content if isinstance(b, TextBlock))

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
