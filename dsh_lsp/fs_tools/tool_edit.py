"""The ``edit`` and ``multi_edit`` tools: literal replacements in one file (fs_tools layer).

Both run the same path: ``fs/edit-intent`` supplies the version the session last saw (the
policy refuses files it never read), the provider checks it and applies every edit atomically,
``fs/observed`` records the new version. The result quotes the updated lines with their
numbers (bounded), and ``meta`` carries the unified-diff hunks (3 context lines) for UIs.
"""

from __future__ import annotations

from collections.abc import Sequence

from dsh_lsp.llm import JsonObject, TextBlock
from dsh_lsp.tools import (
    FileDiff,
    Prop,
    ToolArgsError,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolLocation,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .diff import DiffHunk
from .events import FS_EDIT_INTENT, FS_OBSERVED, FsIntent, FsObservation
from .guards import ExpectVersion, LiteralEdit
from .tool_support import (
    ToolDeps,
    bool_arg,
    call_cwd,
    call_owner,
    diffs_from_meta,
    first_changed_line,
    hunks_meta,
    meta_str,
    require_text,
)

EDIT_DESCRIPTION = (
    "Replace exact text in a file you have read: `old_string` must match the file exactly "
    "(whitespace included) and only once, unless `replace_all` is true."
)
MULTI_EDIT_DESCRIPTION = (
    "Apply several exact-text replacements to one file you have read, in order, as one "
    "change: each edit sees the result of the previous ones; if any fails, none is applied."
)

_EDIT_PROPS = {
    "old_string": Prop(type="string", required=True, description="The exact text to replace"),
    "new_string": Prop(type="string", required=True, description="The text to put instead"),
    "replace_all": Prop(type="boolean", description="Replace every occurrence", default=False),
}


async def _unchecked() -> ExpectVersion | None:
    return None


def edit_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``edit`` definition over ``deps``."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        edit = _literal_edit(args, "")
        return await _run(deps, execution, require_text(args, "file_path"), (edit,))

    def present_call(args: JsonObject) -> ToolCallView:
        path = require_text(args, "file_path")
        diff = FileDiff(
            path=path,
            old_text=require_text(args, "old_string"),
            new_text=require_text(args, "new_string"),
        )
        return ToolCallView(
            title=f"Edit {path}", kind="edit", locations=(ToolLocation(path=path),), diffs=(diff,)
        )

    return define_tool(
        "edit",
        EDIT_DESCRIPTION,
        {
            "file_path": Prop(type="string", required=True, description="The file to edit"),
            **_EDIT_PROPS,
        },
        execute,
        present_call=present_call,
        present_result=_present_result,
    )


def multi_edit_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``multi_edit`` definition over ``deps``."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        raw = args.get("edits")
        assert isinstance(raw, Sequence)  # the schema declared an array of objects
        if not raw:
            raise ToolArgsError(['"edits" must hold at least one edit'])
        edits = tuple(_literal_edit(item, f"edits[{i}].") for i, item in enumerate(raw))
        return await _run(deps, execution, require_text(args, "file_path"), edits)

    def present_call(args: JsonObject) -> ToolCallView:
        path = require_text(args, "file_path")
        raw = args.get("edits")
        diffs = tuple(
            FileDiff(path=path, old_text=item.get("old_string"), new_text=item["new_string"])
            for item in (raw if isinstance(raw, Sequence) else ())
            if isinstance(item, dict) and isinstance(item.get("new_string"), str)
        )
        return ToolCallView(
            title=f"Edit {path}", kind="edit", locations=(ToolLocation(path=path),), diffs=diffs
        )

    return define_tool(
        "multi_edit",
        MULTI_EDIT_DESCRIPTION,
        {
            "file_path": Prop(type="string", required=True, description="The file to edit"),
            "edits": Prop(
                type="array",
                required=True,
                description="The replacements, applied in order",
                items=Prop(type="object", properties=_EDIT_PROPS),
            ),
        },
        execute,
        present_call=present_call,
        present_result=_present_result,
    )


def _literal_edit(args: object, where: str) -> LiteralEdit:
    assert isinstance(args, dict)  # validated against the schema
    old = require_text(args, "old_string")
    new = require_text(args, "new_string")
    problems: list[str] = []
    if not old:
        problems.append(f'"{where}old_string" must not be empty')
    elif old == new:
        problems.append(f'"{where}new_string" must differ from "{where}old_string"')
    if problems:
        raise ToolArgsError(problems)
    return LiteralEdit(old_string=old, new_string=new, replace_all=bool_arg(args, "replace_all"))


async def _run(
    deps: ToolDeps, execution: ToolExecution, path: str, edits: tuple[LiteralEdit, ...]
) -> ToolOutcome:
    target = await deps.fs.resolve(path, cwd=call_cwd(execution))
    owner = call_owner(execution)
    expected = await deps.ctx.waterfall(
        FS_EDIT_INTENT, FsIntent(target=target, owner=owner), _unchecked
    )
    outcome = await deps.fs.edit_text(target, edits, expected=expected)
    deps.ctx.emit(FS_OBSERVED, FsObservation(target=target, version=outcome.version, owner=owner))
    hunks = outcome.text_diff().hunks  # the provider's diff when it made one: diffed once
    total = sum(outcome.replacements)
    if len(edits) == 1:
        summary = (
            f"replaced all {total} occurrences"
            if edits[0].replace_all and total > 1
            else "replaced 1 occurrence"
        )
    else:
        summary = f"applied {len(edits)} edits ({total} replacements)"
    text = f"Edited {target.display_path}: {summary}."
    echo = _echo(hunks, deps.config.edit_echo_lines)
    if echo:
        text += " Updated lines:\n" + echo
    meta = hunks_meta(target.display_path, hunks)
    return ToolOutcome(content=(TextBlock(text=text),), meta=meta)


def _echo(hunks: Sequence[DiffHunk], budget: int) -> str:
    """The added lines of every hunk, numbered; a note for pure removals; bounded."""
    out: list[str] = []
    hidden = 0
    for hunk in hunks:
        number = hunk.new_start if hunk.new_lines else hunk.new_start + 1
        added = 0
        removed = 0
        for line in hunk.lines:
            if line[0] == " ":
                number += 1
            elif line[0] == "+":
                if len(out) < budget:
                    out.append(f"{number}: {line[1:]}")
                else:
                    hidden += 1
                number += 1
                added += 1
            else:
                removed += 1
        if not added and removed and len(out) < budget:
            lines = "1 line" if removed == 1 else f"{removed} lines"
            out.append(f"({lines} removed before line {hunk.first_changed_line})")
    if hidden:
        out.append(f"({hidden} more updated lines not shown; read the file to see them)")
    return "\n".join(out)


def _present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
    full = meta_str(result.meta, "path")
    if result.is_error or full is None:
        return None
    diffs = diffs_from_meta(result.meta)
    return ToolResultView(
        title=f"Edit {require_text(args, 'file_path')}",
        kind="edit",
        locations=(ToolLocation(path=full, line=first_changed_line(result.meta)),),
        diffs=diffs,
    )
