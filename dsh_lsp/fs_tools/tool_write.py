"""The ``write`` tool: create a file, or replace one the session has read (fs_tools layer).

The ``fs/write-intent`` waterfall picks the guard (with ``FsPolicyPlugin``: create-only unless
the session has seen the file, then compare-and-swap on that version); the provider enforces
it atomically; ``fs/observed`` records the new version so an edit can follow without a re-read.
"""

from __future__ import annotations

from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
    FileDiff,
    Prop,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolLocation,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .events import FS_OBSERVED, FS_WRITE_INTENT, FsIntent, FsObservation
from .guards import WriteGuard
from .text import split_lines
from .tool_support import (
    ToolDeps,
    call_cwd,
    call_owner,
    diffs_from_meta,
    first_changed_line,
    hunks_meta,
    meta_str,
    require_text,
)

DESCRIPTION = (
    "Create a file, or overwrite one you have read, with `content`. Missing parent directories "
    "are created. Prefer edit for changes to existing files."
)


async def _unguarded() -> WriteGuard | None:
    return None


def write_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``write`` definition over ``deps``."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        target = await deps.fs.resolve(require_text(args, "file_path"), cwd=call_cwd(execution))
        owner = call_owner(execution)
        guard = await deps.ctx.waterfall(
            FS_WRITE_INTENT, FsIntent(target=target, owner=owner), _unguarded
        )
        outcome = await deps.fs.write_text(target, require_text(args, "content"), guard=guard)
        deps.ctx.emit(
            FS_OBSERVED, FsObservation(target=target, version=outcome.version, owner=owner)
        )
        lines = len(split_lines(outcome.after))
        verb = "Created" if outcome.operation == "create" else "Updated"
        meta: dict[str, JsonValue] = {"operation": outcome.operation}
        if outcome.operation == "create" or outcome.before is not None:
            hunks = outcome.text_diff().hunks
            meta.update(hunks_meta(target.display_path, hunks))
        else:
            meta["path"] = target.display_path
        text = f"{verb} {target.display_path} ({lines} line{'' if lines == 1 else 's'})."
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        path = require_text(args, "file_path")
        return ToolCallView(
            title=f"Write {path}",
            kind="edit",
            locations=(ToolLocation(path=path),),
            diffs=(FileDiff(path=path, old_text=None, new_text=require_text(args, "content")),),
        )

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        full = meta_str(result.meta, "path")
        if result.is_error or full is None:
            return None
        return ToolResultView(
            title=f"Write {require_text(args, 'file_path')}",
            kind="edit",
            locations=(ToolLocation(path=full, line=first_changed_line(result.meta)),),
            diffs=diffs_from_meta(result.meta),
        )

    return define_tool(
        "write",
        DESCRIPTION,
        {
            "file_path": Prop(type="string", required=True, description="The file to write"),
            "content": Prop(type="string", required=True, description="The complete new text"),
        },
        execute,
        present_call=present_call,
        present_result=present_result,
    )
