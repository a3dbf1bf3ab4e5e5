"""The ``read`` tool: a numbered window of a text file, or a directory's entries (fs_tools).

One stat decides the path: a directory gets its listing, a regular file its window
(``read_window``), loaded whole or streamed when large. A successful file read emits
``fs/observed`` with the version stat saw, taken *before* the content, so a change racing the
read can only make a later edit fail as stale, never succeed on text the model did not see.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import aclosing

from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
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

from .errors import FsError
from .events import FS_OBSERVED, FsObservation
from .read_window import Window, WindowLimits, build_window, render_directory, render_file
from .target import FsTarget
from .text import split_lines
from .tool_support import ToolDeps, call_cwd, call_owner, int_arg, meta_int, meta_str, require_text

DESCRIPTION = (
    "Read a text file with line numbers, or list a directory. Paths are absolute or relative "
    "to the working directory. Returns up to `limit` lines starting at line `offset` "
    "(1-based); long lines are truncated; the footer says how to continue."
)


def read_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``read`` definition over ``deps`` (raises nothing; errors surface per call)."""
    config = deps.config
    limits = WindowLimits(
        limit=config.read_limit,
        max_line_chars=config.read_max_line_chars,
        max_bytes=config.read_max_bytes,
    )

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        path = require_text(args, "file_path")
        offset = int_arg(args, "offset", 1, minimum=1)
        limit = int_arg(args, "limit", config.read_limit, minimum=1, maximum=config.read_limit)
        window_limits = WindowLimits(
            limit=limit, max_line_chars=limits.max_line_chars, max_bytes=limits.max_bytes
        )
        target = deps.checked.take(execution.call_id, path)
        if target is None:
            target = await deps.fs.resolve(path, cwd=call_cwd(execution))
        info = await deps.fs.stat(target)
        if info is None:
            raise FsError("FS_NOT_FOUND", await _not_found(deps, target))
        if info.type == "directory":
            return await _directory(deps, target, offset, limit)
        if info.type != "file":
            raise FsError("FS_NOT_REGULAR_FILE", f"{target.display_path} is not a regular file")
        if info.size is None or info.size >= config.read_stream_min_bytes:
            window = await _streamed(deps, target, offset, window_limits)
        else:
            lines = split_lines(await deps.fs.read_text(target))
            window = build_window(
                iter(lines),
                offset=offset,
                limits=window_limits,
                display_path=target.display_path,
                total=len(lines),
            )
        deps.ctx.emit(
            FS_OBSERVED,
            FsObservation(target=target, version=info.version, owner=call_owner(execution)),
        )
        meta: dict[str, JsonValue] = {
            "path": target.display_path,
            "type": "file",
            "startLine": window.first,
            "endLine": window.last,
        }
        if window.total is not None:
            meta["totalLines"] = window.total
        text = render_file(target.display_path, window)
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        path = require_text(args, "file_path")
        offset = args.get("offset")
        limit = args.get("limit")
        span = ""
        first = int(offset) if isinstance(offset, int | float) else 1
        if isinstance(limit, int | float):
            span = f" ({first}\u2013{first + int(limit) - 1})"
        elif isinstance(offset, int | float):
            span = f" (from line {first})"  # the end is the file's, unknown before the read
        line = int(offset) if isinstance(offset, int | float) else None
        return ToolCallView(
            title=f"Read {path}{span}",
            kind="read",
            locations=(ToolLocation(path=path, line=line),),
        )

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        meta = result.meta
        full = meta_str(meta, "path")
        if result.is_error or full is None:
            return None
        path = require_text(args, "file_path")
        if meta_str(meta, "type") == "directory":
            return ToolResultView(
                title=f"List {path}", kind="read", locations=(ToolLocation(path=full),)
            )
        start, end = meta_int(meta, "startLine"), meta_int(meta, "endLine")
        span = f" ({start}\u2013{end})" if start is not None and end else ""
        return ToolResultView(
            title=f"Read {path}{span}",
            kind="read",
            locations=(ToolLocation(path=full, line=start),),
        )

    return define_tool(
        "read",
        DESCRIPTION,
        {
            "file_path": Prop(
                type="string", required=True, description="The file or directory to read"
            ),
            "offset": Prop(type="integer", description="First line to return, 1-based (default 1)"),
            "limit": Prop(
                type="integer",
                description=f"How many lines to return (default and maximum {config.read_limit})",
            ),
        },
        execute,
        read_only=True,
        present_call=present_call,
        present_result=present_result,
    )


async def _directory(deps: ToolDeps, target: FsTarget, offset: int, limit: int) -> ToolOutcome:
    entries = await deps.fs.list_dir(target)
    names = [entry.name + ("/" if entry.type == "directory" else "") for entry in entries]
    if names and offset > len(names):
        raise FsError(
            "FS_NOT_FOUND",
            f"offset {offset} is past the end of {target.display_path} ({len(names)} entries)",
        )
    text = render_directory(target.display_path, names, offset, limit)
    meta: dict[str, JsonValue] = {
        "path": target.display_path,
        "type": "directory",
        "entries": len(names),
    }
    return ToolOutcome(content=(TextBlock(text=text),), meta=meta)


async def _streamed(deps: ToolDeps, target: FsTarget, offset: int, limits: WindowLimits) -> Window:
    async with aclosing(deps.fs.stream_text(target)) as chunks:
        lines, total = await _collect_lines(
            chunks, offset=offset, want=limits.limit + 1, keep_chars=limits.max_line_chars + 2
        )
    return build_window(
        iter(lines),
        offset=offset,
        limits=limits,
        display_path=target.display_path,
        total=total,
        first_number=offset,
    )


async def _collect_lines(
    chunks: AsyncIterator[str], *, offset: int, want: int, keep_chars: int
) -> tuple[list[str], int | None]:
    """Lines ``offset`` onwards (at most ``want``, each cut at ``keep_chars``) from a stream,
    and the total line count when the stream ended first."""
    collected: list[str] = []
    number = 0
    partial: list[str] = []
    kept = 0
    async for chunk in chunks:
        start = 0
        while True:
            newline = chunk.find("\n", start)
            piece = chunk[start:] if newline < 0 else chunk[start:newline]
            if kept < keep_chars:
                partial.append(piece[: keep_chars - kept])
                kept += len(piece)
            if newline < 0:
                break
            number += 1
            if number >= offset:
                collected.append("".join(partial))
                if len(collected) >= want:
                    return collected, None
            partial, kept, start = [], 0, newline + 1
    if partial and any(partial):
        number += 1
        if number >= offset:
            collected.append("".join(partial))
    return collected, number


async def _not_found(deps: ToolDeps, target: FsTarget) -> str:
    """The not-found message, with up to three similar names from the parent directory."""
    message = f"{target.display_path} does not exist"
    parent_path, name = os.path.split(target.display_path)
    try:
        parent = await deps.fs.resolve(parent_path)
        entries = await deps.fs.list_dir(parent)
    except FsError:
        return message
    stem = name.split(".")[0].lower()
    similar = [
        os.path.join(parent_path, entry.name)
        for entry in entries
        if stem and entry.name.lower().split(".")[0] == stem
    ][:3]
    if similar:
        message += "; did you mean " + " or ".join(similar) + "?"
    return message
