"""Benchmark: an edit tool call through the editor on a 100,000-line open buffer.

Times, server side, the path from the ``edit`` tool call (registry, policy, intent waterfall,
per-target lock, version check, literal replace, minimal hunks, positions) to the moment the
mirror has applied the editor's ``didChange`` and the edit is verified. The editor is the
in-process scripted editor of the tests; the time it spends applying the edit to its own
copy is measured and left out (that is the client's share). What the wire would add on the
server is counted: the ``applyEdit`` params go through lsprotocol's converter and
``json.dumps`` as pygls sends them, and the ``didChange`` through ``json.loads`` and the
converter as pygls receives it, followed by the copy ``ls.workspace`` gets. Next to it, the
same edit tool call through the local provider (atomic write with fsync) on the same file.
Target: under 20 ms server-side.

Run: ``.venv/bin/python bench/edits.py [--lines 100000] [--repeat 30]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from lsprotocol import types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.kernel import Context, Kernel
from dsh_lsp.llm import CallId, JsonObject, JsonValue, SessionId, TextBlock
from dsh_lsp.server import dict_params_converter
from dsh_lsp.server.editor_fs.editor_connection import ApplyOutcome
from dsh_lsp.server.editor_fs.plugin import EditorFileSystemPlugin, EditorSetup
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolsPlugin
from tests.server.scripted_editor import VSCODE, ScriptedEditor

CONVERTER = dict_params_converter()


@dataclass(slots=True)
class Clock:
    """Marks of one edit: when the mirror applied the didChange, and the client's share."""

    applied_at: float = 0.0
    client: float = 0.0
    sizes: list[int] = field(default_factory=list)


class TimedEditor(ScriptedEditor):
    """The scripted editor, with the wire's server-side work and the client's time marked."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(VSCODE)
        self.clock = clock

    async def apply_edit(self, params: JsonObject) -> ApplyOutcome:
        typed = CONVERTER.structure(params, types.ApplyWorkspaceEditParams)
        wire = json.dumps(CONVERTER.unstructure(typed))
        self.clock.sizes.append(len(wire))
        started = time.perf_counter()
        answer, notices = self.model.apply(json.loads(wire))
        raw = [json.dumps({"method": n.method, "params": n.params}) for n in notices]
        self.clock.client += time.perf_counter() - started
        for message, notice in zip(raw, notices, strict=True):
            decoded = json.loads(message)
            change = CONVERTER.structure(decoded["params"], types.DidChangeTextDocumentParams)
            self._tell([notice])
            document = self.documents.get(change.text_document.uri)
            assert document is not None
            types.TextDocumentItem(  # the copy ls.workspace gets (document_sync)
                uri=document.uri,
                language_id="python",
                version=document.version,
                text=document.text(),
            )
        self.clock.applied_at = time.perf_counter()
        return ApplyOutcome(applied=answer["applied"], failure_reason=answer.get("failureReason"))


async def edit_tool(ctx: Context, session: Session) -> Callable[[str, str], Awaitable[str]]:
    """An ``edit`` call of big.py through the registry; raises on an error result."""
    registry = ctx.require(TOOLS)

    async def call(name: str, args: JsonValue) -> str:
        execution = ToolExecution(call_id=CallId("b"), name=name, arguments=args, session=session)
        result = (await registry.execute(execution)).result
        block = result.content[0]
        assert isinstance(block, TextBlock)
        if result.is_error:
            raise RuntimeError(block.text)
        return block.text

    await call("read", {"file_path": "big.py", "limit": 1})

    async def edit(old: str, new: str) -> str:
        return await call("edit", {"file_path": "big.py", "old_string": old, "new_string": new})

    return edit


async def load_common(ctx: Context) -> None:
    await ctx.plugin(LocalSearchPlugin)
    await ctx.plugin(FsPolicyPlugin)
    await ctx.plugin(FsToolsPlugin)


async def editor_path(base: Path, lines: int, repeat: int) -> None:
    clock = Clock()
    editor = TimedEditor(clock)
    editor.open(base / "big.py")
    session = Session(SessionHeader(id=SessionId("bench"), created_at=0, cwd=str(base)))
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        await ctx.plugin(
            EditorFileSystemPlugin(EditorSetup(connection=editor)), {"roots": [str(base)]}
        )
        await load_common(ctx)
        edit = await edit_tool(ctx, session)
        to_applied: list[float] = []
        whole: list[float] = []
        old, new = "compute(50000)", "compute(-1)"
        for run in range(repeat + 1):
            clock.client = 0.0
            started = time.perf_counter()
            await edit(old, new)
            ended = time.perf_counter()
            old, new = new, old
            if run:  # the first run warms up
                to_applied.append(clock.applied_at - started - clock.client)
                whole.append(ended - started - clock.client)
    _report("editor: tool call -> applied didChange", to_applied, target=20)
    _report("editor: whole tool call (+ result diff)", whole)
    print(f"applyEdit payload on the wire: {max(clock.sizes)} bytes (document: {lines:,} lines)")


async def local_path(base: Path, repeat: int) -> None:
    session = Session(SessionHeader(id=SessionId("bench"), created_at=0, cwd=str(base)))
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(base)]})
        await load_common(ctx)
        edit = await edit_tool(ctx, session)
        times: list[float] = []
        old, new = "compute(50000)", "compute(-1)"
        for run in range(repeat + 1):
            started = time.perf_counter()
            await edit(old, new)
            if run:
                times.append(time.perf_counter() - started)
            old, new = new, old
    _report("local: whole tool call (atomic write)", times)


def _report(label: str, times: list[float], *, target: float | None = None) -> None:
    best, median = min(times) * 1000, statistics.median(times) * 1000
    goal = f"  (target < {target:.0f} ms)" if target is not None else ""
    print(f"{label:42s} best {best:6.2f} ms  median {median:6.2f} ms{goal}")


async def main_async(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        base = Path(directory)
        (base / "big.py").write_text(
            "".join(f"value_{i} = compute({i})  # line {i}\n" for i in range(args.lines))
        )
        size = (base / "big.py").stat().st_size / 1e6
        print(
            f"== one-line edit of a {args.lines:,}-line buffer ({size:.1f} MB), {args.repeat} runs"
        )
        await editor_path(base, args.lines, args.repeat)
        await local_path(base, args.repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    anyio.run(main_async, parser.parse_args(), backend="asyncio")


if __name__ == "__main__":
    main()
