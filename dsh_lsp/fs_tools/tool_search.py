"""The ``list``, ``glob`` and ``grep`` tools over the ``FS_SEARCH`` service (fs_tools layer).

Each is a thin translation: arguments → a query → one bounded text block. Paths in the output
are relative to the session's working directory when they lie below it (short, and valid
``file_path`` arguments as they stand), absolute otherwise. ``meta`` carries the searched
root and, for grep, the first match locations, so UIs can link to them.
"""

from __future__ import annotations

from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
    CallPresenter,
    Prop,
    ResultPresenter,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolLocation,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .search import GlobQuery, GrepQuery, GrepReport, TreeQuery, TreeReport
from .tool_support import (
    ToolDeps,
    bool_arg,
    call_cwd,
    int_arg,
    meta_str,
    require_text,
    shown,
    str_arg,
)

MAX_META_LOCATIONS = 20
"""Match locations a grep result lists in ``meta``."""


def list_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``list`` definition: a bounded, ``.gitignore``-aware directory tree."""
    config = deps.config

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        depth = int_arg(args, "depth", config.list_depth, minimum=1, maximum=config.list_max_depth)
        query = TreeQuery(
            path=str_arg(args, "path") or ".",
            depth=depth,
            max_entries=config.list_max_entries,
            cwd=call_cwd(execution),
        )
        report = await deps.search.tree(query)
        text = _render_tree(report, call_cwd(execution))
        return ToolOutcome(content=(TextBlock(text=text),), meta={"path": report.root})

    def present_call(args: JsonObject) -> ToolCallView:
        path = str_arg(args, "path") or "."
        return ToolCallView(title=f"List {path}", kind="read", locations=(ToolLocation(path=path),))

    return define_tool(
        "list",
        "List the files and directories under a directory as an indented tree, skipping "
        "what .gitignore ignores. Directories end in `/`.",
        {
            "path": Prop(type="string", description="Directory to list (default: working dir)"),
            "depth": Prop(
                type="integer",
                description=f"Levels to descend (default {config.list_depth}, "
                f"max {config.list_max_depth})",
            ),
        },
        execute,
        read_only=True,
        present_call=present_call,
        present_result=_with_root(present_call),
    )


def glob_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``glob`` definition: files matching a pattern, most recently modified first."""
    config = deps.config

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        cwd = call_cwd(execution)
        pattern = require_text(args, "pattern")
        query = GlobQuery(
            pattern=pattern,
            path=str_arg(args, "path") or ".",
            max_results=config.glob_max_results,
            cwd=cwd,
        )
        report = await deps.search.glob(query)
        if not report.paths:
            text = f"No files match {pattern} under {shown(report.root, cwd)}."
        else:
            text = "\n".join(shown(path, cwd) for path in report.paths)
            if report.total > len(report.paths):
                text += (
                    f"\n(Showing {len(report.paths)} of {report.total} matches, most recently "
                    "modified first. Use a more specific pattern or path to see others.)"
                )
        meta: dict[str, JsonValue] = {"path": report.root, "total": report.total}
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        where = str_arg(args, "path")
        title = f"Glob {require_text(args, 'pattern')}" + (f" in {where}" if where else "")
        return ToolCallView(title=title, kind="search")

    return define_tool(
        "glob",
        "Find files whose path matches a glob pattern (`**/*.py`, `src/**/test_*.ts`, "
        "`*.{js,ts}`), most recently modified first, skipping what .gitignore ignores.",
        {
            "pattern": Prop(type="string", required=True, description="Glob relative to `path`"),
            "path": Prop(type="string", description="Directory to search (default: working dir)"),
        },
        execute,
        read_only=True,
        present_call=present_call,
        present_result=_with_root(present_call),
    )


def grep_tool(deps: ToolDeps) -> ToolDefinition:
    """The ``grep`` definition: regex search printing ``path:line:text``."""
    config = deps.config

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        cwd = call_cwd(execution)
        pattern = require_text(args, "pattern")
        query = GrepQuery(
            pattern=pattern,
            path=str_arg(args, "path") or ".",
            glob=str_arg(args, "glob"),
            context=int_arg(args, "context", 0, minimum=0, maximum=config.grep_max_context),
            ignore_case=bool_arg(args, "ignore_case"),
            max_matches=config.grep_max_matches,
            cwd=cwd,
        )
        report = await deps.search.grep(query)
        text = _render_grep(report, pattern, cwd, query.context, config.grep_max_bytes)
        locations: list[JsonValue] = []
        for file in report.files:
            for line in file.lines:
                if line.matched and len(locations) < MAX_META_LOCATIONS:
                    locations.append({"path": file.path, "line": line.number})
        meta: dict[str, JsonValue] = {
            "path": report.root,
            "matches": report.matches,
            "locations": locations,
        }
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        where = str_arg(args, "path")
        title = f"Grep {require_text(args, 'pattern')!r}" + (f" in {where}" if where else "")
        return ToolCallView(title=title, kind="search")

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        view = present_call(args)
        raw = None if result.meta is None else result.meta.get("locations")
        locations = tuple(
            ToolLocation(path=item["path"], line=item.get("line"))
            for item in (raw if isinstance(raw, list) else ())
            if isinstance(item, dict) and isinstance(item.get("path"), str)
        )
        return ToolResultView(title=view.title, kind="search", locations=locations)

    return define_tool(
        "grep",
        "Search file contents with a regular expression (Python syntax), printing "
        "`path:line:text` for each matching line; skips binary files and what .gitignore "
        "ignores.",
        {
            "pattern": Prop(type="string", required=True, description="Regular expression"),
            "path": Prop(
                type="string", description="File or directory to search (default: working dir)"
            ),
            "glob": Prop(
                type="string",
                description="Only files matching this glob (`*.py`: by name at any depth)",
            ),
            "context": Prop(
                type="integer",
                description=f"Lines of context around each match (0-{config.grep_max_context})",
            ),
            "ignore_case": Prop(
                type="boolean", description="Match case-insensitively", default=False
            ),
        },
        execute,
        read_only=True,
        present_call=present_call,
        present_result=present_result,
    )


def _render_tree(report: TreeReport, cwd: str | None) -> str:
    lines = [shown(report.root, cwd).rstrip("/") + "/"]
    for entry in report.entries:
        name = entry.rel.rpartition("/")[2]
        suffix = {"directory": "/", "symlink": " (symlink)"}.get(entry.kind, "")
        lines.append("  " * entry.depth + name + suffix)
    if not report.entries:
        lines.append("  (empty)")
    if report.truncated:
        lines.append(
            f"(Showing the first {len(report.entries)} entries. List a subdirectory or lower "
            "depth to see the rest.)"
        )
    return "\n".join(lines)


def _render_grep(
    report: GrepReport, pattern: str, cwd: str | None, context: int, max_bytes: int
) -> str:
    where = shown(report.root, cwd)
    if not report.files:
        return f"No matches for {pattern!r} in {where} ({report.files_searched} files searched)."
    out: list[str] = []
    used = 0
    capped = False
    for file in report.files:
        path = shown(file.path, cwd)
        previous: int | None = None
        for line in file.lines:
            if context and out and (previous is None or line.number != previous + 1):
                out.append("--")  # like grep: groups of context are separated
            mark = ":" if line.matched else "-"
            entry = f"{path}{mark}{line.number}{mark}{line.text}"
            used += len(entry.encode("utf-8")) + 1
            if used > max_bytes:
                capped = True
                break
            out.append(entry)
            previous = line.number
        if capped:
            break
    if capped:
        out.append(
            "(Output capped at the byte limit. Narrow the pattern, path or glob to see more.)"
        )
    elif report.truncated:
        out.append(
            f"(Showing the first {report.matches} matches; there are more. Narrow the pattern, "
            "path or glob to see the rest.)"
        )
    else:
        found = _count(report.matches, "match", "matches")
        out.append(f"({found} in {_count(len(report.files), 'file', 'files')})")
    return "\n".join(out)


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _with_root(present_call: CallPresenter) -> ResultPresenter:
    """A result presenter: the call's title and kind, located at the searched root."""

    def present(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        root = meta_str(result.meta, "path")
        view = present_call(args)
        if result.is_error or root is None or view is None:
            return None
        return ToolResultView(
            title=view.title, kind=view.kind, locations=(ToolLocation(path=root),)
        )

    return present
