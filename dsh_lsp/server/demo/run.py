"""``dsh-lsp demo``: a whole agent turn over LSP, offline, printed as it streams (server layer).

Three processes, all real: a scripted OpenAI-compatible model server
(``python -m dsh_lsp.testing.scripted_server``, answering from a ``DemoPlan``'s script),
the language server (``python -m dsh_lsp``, pointed at it with ``DEEPSEEK_BASE_URL``), and
this process as the editor — a pygls LSP client over the server's stdio. In a temporary
workspace it opens one document, changes it without saving, attaches it to a prompt, and
prints every ``dsh/session/update`` as it arrives, then the prompt's stop reason and usage
and the diff the agent's edit made. The client answers ``workspace/applyEdit`` like an editor
(``demo_editor``), so the edit lands in the open, unsaved buffer and the disk stays as it
was. The composition root supplies the plan (the
script needs the shipped test kit, which this package may not import).

Nothing fails quietly or hangs (``demo_client``): an exception in one of the client's
handlers (pygls would only log it) stops the demo, as does any other failure; the language
server is then sent end of input (it stops its turn, flushes and exits), and ``run_demo``
reports the failure on ``err`` and returns 1.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
from anyio.abc import Process
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from dsh_lsp.llm import JsonObject, JsonValue

from .client import DemoClient, DemoFailedError, stop_demo_client, until_failure
from .editor import EDIT_CAPABILITIES, DemoEditor


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoPlan:
    """What the demo does: workspace files, the document opened and edited (unsaved) in
    the client, the prompt, and the model server's script (its JSON form)."""

    files: Mapping[str, str]
    open_file: str
    unsaved_edit: tuple[str, str]
    """``(old, new)``: text the client replaces in its buffer without saving."""
    prompt: str
    script: JsonObject


SCRIPTED_PORT_LINE = b"scripted server listening on port "
"""How ``python -m dsh_lsp.testing.scripted_server`` announces its port on stderr."""


class _Printer:
    """Prints updates for a person: streamed text inline, one line per tool call change."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._mode: str | None = None
        self.titles: dict[str, str] = {}

    def _start(self, mode: str, label: str) -> None:
        if self._mode != mode:
            if self._mode is not None:
                self._out.write("\n")
            self._out.write(label)
            self._mode = mode

    def line(self, text: str) -> None:
        if self._mode is not None:
            self._out.write("\n")
            self._mode = None
        self._out.write(text + "\n")
        self._out.flush()

    def update(self, update: Mapping[str, Any]) -> None:  # Any: a decoded update payload
        match update.get("kind"):
            case "agent_message_chunk":
                self._start("text", "assistant: ")
                self._out.write(str(update.get("text", "")))
            case "agent_thought_chunk":
                self._start("thought", "thinking:  ")
                self._out.write(str(update.get("text", "")))
            case "user_message":
                blocks = update.get("content", ())
                texts = [str(b.get("text", "")) for b in blocks if b.get("type") == "text"]
                links = sum(1 for b in blocks if b.get("type") == "resource_link")
                more = f" (+{links} attachment{'s' if links > 1 else ''})" if links else ""
                self.line(f"you:       {texts[0] if texts else ''}{more}")
            case "tool_call":
                self._tool(update.get("toolCall") or {})
            case "usage_update":
                self.line(
                    f"usage:     {update.get('inputTokens')} in / "
                    f"{update.get('outputTokens')} out tokens"
                )
            case "state_update":
                stop = update.get("stopReason")
                self.line(f"state:     {update.get('state')}" + (f" ({stop})" if stop else ""))
            case _:
                pass
        self._out.flush()

    def _tool(self, card: Mapping[str, Any]) -> None:  # Any: a decoded tool call
        call_id = str(card.get("toolCallId"))
        if "title" in card:
            self.titles[call_id] = str(card["title"])
        title = self.titles.get(call_id, call_id)
        kind = f" [{card['kind']}]" if card.get("kind", "other") != "other" else ""
        self.line(f"tool:      {title}{kind} — {card.get('status')}")


async def run_demo(
    plan: DemoPlan, out: TextIO, *, err: TextIO | None = None, keep: bool = False
) -> int:
    """Run the demo (see the module docstring); 0 when the turn ended ``end_turn`` and
    the document changed in the editor but not on disk, 1 otherwise. A failure (a process
    that cannot start, a client handler that raised, a time-out) is reported on ``err``
    (default: stderr) and returns 1; only cancellation propagates."""
    root = Path(tempfile.mkdtemp(prefix="dsh-demo-"))
    try:
        return await _demo(plan, root, out)
    except Exception as exc:
        (err or sys.stderr).write(f"dsh-lsp demo: failed: {_describe(exc)}\n")
        return 1
    finally:
        if keep:
            (err or sys.stderr).write(f"kept the demo directory: {root}\n")
        else:
            shutil.rmtree(root, ignore_errors=True)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, DemoFailedError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _demo(plan: DemoPlan, root: Path, out: TextIO) -> int:
    workspace = root / "workspace"
    workspace.mkdir()
    for name, text in plan.files.items():
        (workspace / name).write_text(text, encoding="utf-8")
    script = root / "script.json"
    script.write_text(json.dumps(plan.script), encoding="utf-8")
    out.write(
        "dsh-lsp demo: offline; a scripted model server stands in for DeepSeek.\n"
        f"workspace: {workspace}\n\n"
    )
    model = await anyio.open_process(
        [sys.executable, "-m", "dsh_lsp.testing.scripted_server", "--script", str(script)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        port = await announced_port(model, SCRIPTED_PORT_LINE)
        return await _session(plan, root, workspace, port, out)
    finally:
        model.terminate()
        with anyio.move_on_after(5, shield=True):
            await model.wait()


async def announced_port(process: Process, prefix: bytes) -> int:
    """The port in the first line ``process`` writes to stderr that starts with ``prefix``
    (the scripted model server and ``dsh-lsp --tcp`` both announce theirs this way). Raises
    OSError when the process closes stderr first, TimeoutError after 30 s."""
    assert process.stderr is not None
    seen = b""
    with anyio.fail_after(30):
        async for data in process.stderr:
            seen += data
            for line in seen.split(b"\n")[:-1]:
                if line.startswith(prefix):
                    return int(line[len(prefix) :].strip())
    raise OSError("the process exited before it announced its port")


async def _session(plan: DemoPlan, root: Path, workspace: Path, port: int, out: TextIO) -> int:
    printer = _Printer(out)
    client = DemoClient()

    @client.feature("dsh/session/update")  # type: ignore[untyped-decorator]  # pygls is untyped here
    def on_update(ls: LanguageClient, params: Mapping[str, Any]) -> None:  # Any: decoded JSON
        printer.update(params.get("update") or {})

    env = dict(
        os.environ,
        DEEPSEEK_BASE_URL=f"http://127.0.0.1:{port}",
        DEEPSEEK_API_KEY="demo-key",
        XDG_STATE_HOME=str(root / "state"),
    )
    log = root / "server.log"
    await client.start_io(
        sys.executable, "-m", "dsh_lsp", "--log-file", str(log), "--log-level", "info", env=env
    )
    try:
        with anyio.fail_after(60):
            return await until_failure(client, _drive(client, plan, workspace, printer, out))
    finally:
        with anyio.CancelScope(shield=True):
            await stop_demo_client(client)


async def _drive(
    client: LanguageClient, plan: DemoPlan, workspace: Path, printer: _Printer, out: TextIO
) -> int:
    capabilities = types.ClientCapabilities(
        workspace=EDIT_CAPABILITIES,
        experimental={"dsh": {"version": 1, "sessionUpdates": True, "permissions": True}},
    )
    folder = from_fs_path(str(workspace))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=capabilities,
            workspace_folders=[types.WorkspaceFolder(uri=folder, name="demo")],
        )
    )
    client.initialized(types.InitializedParams())
    path = workspace / plan.open_file
    uri = from_fs_path(str(path))
    on_disk = path.read_text(encoding="utf-8")
    editor = DemoEditor(client, uri, on_disk)
    editor.open()
    editor.type(*plan.unsaved_edit)
    before = editor.buffer.text()
    printer.line(f"editor:    opened {plan.open_file} and changed it without saving")
    created: Any = await client.protocol.send_request_async("dsh/session/new", {})
    prompt: list[JsonValue] = [
        {"type": "text", "text": plan.prompt},
        {"type": "resource_link", "uri": uri},
    ]
    result: Any = await client.protocol.send_request_async(
        "dsh/prompt", {"sessionId": created["sessionId"], "prompt": prompt}
    )  # Any: the decoded dsh/prompt result
    printer.line(f"\nresult:    {json.dumps(result)}")
    after = editor.buffer.text()
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        f"{plan.open_file} (editor buffer before the turn, unsaved)",
        f"{plan.open_file} (editor buffer after the turn, unsaved)",
    )
    out.write("\n" + "".join(diff) + "\n")
    untouched = path.read_text(encoding="utf-8") == on_disk
    labels = ", ".join(repr(edit.label) for edit in editor.edits)
    out.write(
        f"editor:    {len(editor.edits)} workspace/applyEdit ({labels}) applied to the buffer\n"
    )
    out.write(
        f"disk:      {plan.open_file} " + ("unchanged until saved\n" if untouched else "CHANGED\n")
    )
    await client.shutdown_async(None)
    client.exit(None)
    ok = (
        isinstance(result, dict)
        and result.get("stopReason") == "end_turn"
        and after != before
        and untouched
    )
    out.write("demo finished: " + ("ok\n" if ok else "FAILED\n"))
    out.flush()
    return 0 if ok else 1
