"""The agent tools over the editor's language servers (server layer).

``diagnostics {path?}``, ``definition {path, line, symbol}``, ``references {path, line,
symbol}``, ``symbols {query}`` and ``hover {path, line, symbol}``: each is one
``dsh/editor/*`` request. Positions are model-friendly: a 1-based line and the symbol's
name on it, resolved to a column from the text the agent sees (``symbols_on_line``).
Results are short lists of ``path:line`` (relative to the session's folder when below it)
with the line's text, bounded (the count of the rest is given); ``meta.locations`` holds
each listed location (absolute path, 1-based line) for the tool cards. A request the editor
does not answer in time gives the result "the editor did not answer"; a malformed answer
is a tool error naming what was wrong. Every tool is read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from pygls.uris import from_fs_path

from dsh_lsp.fs_tools import FileSystem, shown_path
from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.server.buffers import OpenDocuments, PositionEncoding, line_texts
from dsh_lsp.tools import (
    ExecuteFn,
    Prop,
    ToolArgsError,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolKind,
    ToolLocation,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .answers import EditorNoAnswerError, Place, Problem, Spot
from .capabilities import EditorMethod
from .client import EditorIntel
from .lines import LineSource, clip, uri_path
from .symbols_on_line import display_column, symbol_column

MAX_LOCATIONS: Final = 50
"""Locations a definition/references/symbols result lists."""
MAX_PROBLEMS: Final = 50
"""Diagnostics a diagnostics result lists."""
MAX_HOVER_CHARS: Final = 4000
"""Characters of hover text a result keeps."""
SEVERITIES: Final = {1: "error", 2: "warning", 3: "info", 4: "hint"}

SYMBOL_KINDS: Final = (
    "file",
    "module",
    "namespace",
    "package",
    "class",
    "method",
    "property",
    "field",
    "constructor",
    "enum",
    "interface",
    "function",
    "variable",
    "constant",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "key",
    "null",
    "enum-member",
    "struct",
    "event",
    "operator",
    "type-parameter",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class IntelDeps:
    """What the tools need: the requests, the mirror, the file system, the deadline."""

    intel: EditorIntel
    documents: OpenDocuments
    fs: FileSystem
    seconds: Callable[[], float]
    """How long a request may take before the tool gives up (read at each call)."""


def _cwd(execution: ToolExecution) -> str | None:
    session = execution.session
    return None if session is None else session.header.cwd


def no_answer(error: EditorNoAnswerError) -> ToolOutcome:
    """The result of a request the editor did not answer in time (not an error: the turn
    goes on, and the model may try again or do without)."""
    text = f"The editor did not answer ({error}). Go on without it, or try again later."
    return ToolOutcome(content=(TextBlock(text=text),), meta={"locations": []})


async def _document(
    deps: IntelDeps, execution: ToolExecution, path: str
) -> tuple[str, str, list[str]]:
    """The URI, absolute path and lines of ``path`` as the agent sees it. Raises FsError."""
    target = await deps.fs.resolve(path, cwd=_cwd(execution))
    text = await deps.fs.read_text(target)
    document = deps.documents.by_key(target.key)
    uri = document.uri if document is not None else str(from_fs_path(target.display_path))
    return uri, target.display_path, line_texts(text)


async def _position(
    deps: IntelDeps, execution: ToolExecution, args: JsonObject
) -> tuple[str, str, Spot]:
    """The URI, absolute path and LSP position of ``args``' symbol. Raises ToolArgsError
    (line out of range, symbol not on the line) and FsError."""
    path, line, symbol = str(args["path"]), args["line"], str(args["symbol"])
    assert isinstance(line, int)
    uri, full, lines = await _document(deps, execution, path)
    if not 1 <= line <= len(lines):
        raise ToolArgsError([f'"line" must be between 1 and {len(lines)} (the lines of {path})'])
    column = symbol_column(lines[line - 1], symbol, deps.documents.encoding)
    if column is None:
        shown = clip(lines[line - 1])
        raise ToolArgsError(
            [f"{symbol!r} is not on line {line} of {path} (that line is: {shown!r})"]
        )
    return uri, full, Spot(line=line - 1, character=column)


async def _render_places(
    deps: IntelDeps, places: Sequence[Place], cwd: str | None, what: str
) -> ToolOutcome:
    source = LineSource(deps.documents)
    rows: list[str] = []
    locations: list[JsonValue] = []
    for place in places[:MAX_LOCATIONS]:
        path = uri_path(place.uri)
        if place.start is None:
            rows.append(shown_path(path, cwd))
            locations.append({"path": path})
            continue
        text = await source.line(place.uri, place.start.line)
        row = f"{shown_path(path, cwd)}:{place.start.line + 1}"
        rows.append(row if text is None else f"{row}: {clip(text)}")
        locations.append({"path": path, "line": place.start.line + 1})
    return _listing(rows, locations, f"No {what} found.", len(places) - MAX_LOCATIONS, what)


def _listing(
    rows: list[str], locations: list[JsonValue], empty: str, hidden: int, what: str
) -> ToolOutcome:
    """A listing result: ``rows`` (``empty`` when there are none), then how many ``what``
    were left out (``hidden``, when positive); ``meta.locations`` for the tool card."""
    if not rows:
        rows.append(empty)
    if hidden > 0:
        rows.append(f"({hidden} more {what} not shown.)")
    return ToolOutcome(content=(TextBlock(text="\n".join(rows)),), meta={"locations": locations})


def problem_row(
    problem: Problem, shown: str, line_text: str | None, encoding: PositionEncoding
) -> str:
    """``path:line:col: severity: message [source code]`` (the column in characters, 1-based)
    and the line's text below it."""
    column = problem.start.character + 1
    if line_text is not None:
        column = display_column(line_text, problem.start.character, encoding)
    tag = " ".join(part for part in (problem.source, problem.code) if part)
    message = problem.message.strip().replace("\n", " ")
    row = f"{shown}:{problem.start.line + 1}:{column}: "
    row += f"{SEVERITIES.get(problem.severity, 'error')}: {clip(message, 400)}"
    if tag:
        row += f" [{tag}]"
    if line_text is not None and line_text.strip():
        row += f"\n    {clip(line_text)}"
    return row


def _located_tool(
    name: str,
    description: str,
    params: dict[str, Prop],
    execute: ExecuteFn,
    present_call: Callable[[JsonObject], ToolCallView],
) -> ToolDefinition:
    """A read-only tool whose result card has its call's title and kind and points at the
    locations the result lists (``meta.locations``)."""

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView:
        call = present_call(args)
        raw = None if result.meta is None else result.meta.get("locations")
        locations = tuple(
            ToolLocation(
                path=item["path"], line=item["line"] if isinstance(item.get("line"), int) else None
            )
            for item in (raw if isinstance(raw, list) else ())
            if isinstance(item, dict) and isinstance(item.get("path"), str)
        )
        return ToolResultView(title=call.title, kind=call.kind, locations=locations)

    return define_tool(
        name,
        description,
        params,
        execute,
        read_only=True,
        present_call=present_call,
        present_result=present_result,
    )


_PATH = Prop(type="string", required=True, description="The file the symbol is in")
_LINE = Prop(type="integer", required=True, description="The 1-based line the symbol is on")
_SYMBOL = Prop(
    type="string", required=True, description="The symbol's name as written on that line"
)


def _symbol_tool(
    name: str, description: str, execute: ExecuteFn, verb: str, kind: ToolKind
) -> ToolDefinition:
    """A read-only tool addressed by ``{path, line, symbol}``, its card titled
    ``<verb> <symbol> (<path>:<line>)`` and pointing at that line."""

    def present_call(args: JsonObject) -> ToolCallView:
        line = args.get("line")
        return ToolCallView(
            title=f"{verb} {args.get('symbol')} ({args.get('path')}:{line})",
            kind=kind,
            locations=(
                ToolLocation(
                    path=str(args.get("path")), line=line if isinstance(line, int) else None
                ),
            ),
        )

    params = {"path": _PATH, "line": _LINE, "symbol": _SYMBOL}
    return _located_tool(name, description, params, execute, present_call)


def diagnostics_tool(deps: IntelDeps) -> ToolDefinition:
    """``diagnostics {path?}``: the problems the editor's language servers report."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        cwd = _cwd(execution)
        path = args.get("path")
        uri = None
        if isinstance(path, str) and path:
            uri, _, _ = await _document(deps, execution, path)
        try:
            reports = await deps.intel.diagnostics(uri, seconds=deps.seconds())
        except EditorNoAnswerError as exc:
            return no_answer(exc)
        source = LineSource(deps.documents)
        rows: list[str] = []
        locations: list[JsonValue] = []
        total = 0
        for report in reports:
            full = uri_path(report.uri)
            for problem in sorted(report.problems, key=lambda p: (p.start.line, p.severity)):
                total += 1
                if total > MAX_PROBLEMS:
                    continue
                text = await source.line(report.uri, problem.start.line)
                shown = shown_path(full, cwd)
                rows.append(problem_row(problem, shown, text, deps.documents.encoding))
                locations.append({"path": full, "line": problem.start.line + 1})
        where = path if isinstance(path, str) and path else "the open files"
        empty = f"No problems reported for {where}."
        return _listing(rows, locations, empty, total - MAX_PROBLEMS, "problems")

    def present_call(args: JsonObject) -> ToolCallView:
        path = args.get("path")
        if isinstance(path, str) and path:
            return ToolCallView(
                title=f"Diagnostics {path}", kind="read", locations=(ToolLocation(path=path),)
            )
        return ToolCallView(title="Diagnostics", kind="read")

    return _located_tool(
        "diagnostics",
        "The errors and warnings the editor's language servers report (type checkers, "
        "linters), for one file or for every file the editor has problems for, printed "
        "`path:line:col: severity: message [source code]` with the line's text. Faster and "
        "fresher than running the checker in a shell.",
        {"path": Prop(type="string", description="One file (default: every file)")},
        execute,
        present_call,
    )


def _place_tool(
    deps: IntelDeps, method: EditorMethod, verb: str, description: str, what: str
) -> ToolDefinition:
    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        uri, _, spot = await _position(deps, execution, args)
        try:
            places = await deps.intel.locations(method, uri, spot, seconds=deps.seconds())
        except EditorNoAnswerError as exc:
            return no_answer(exc)
        return await _render_places(deps, places, _cwd(execution), what)

    return _symbol_tool(method, description, execute, verb, "search")


def definition_tool(deps: IntelDeps) -> ToolDefinition:
    """``definition {path, line, symbol}``: where the symbol is defined."""
    return _place_tool(
        deps,
        "definition",
        "Definition of",
        "Where a symbol is defined, from the editor's language servers: name the file, the "
        "1-based line the symbol appears on and the symbol. Prints `path:line: text` per "
        "definition.",
        "definitions",
    )


def references_tool(deps: IntelDeps) -> ToolDefinition:
    """``references {path, line, symbol}``: every reference to the symbol."""
    return _place_tool(
        deps,
        "references",
        "References to",
        "Every reference to a symbol (its declaration included), from the editor's language "
        "servers: name the file, the 1-based line the symbol appears on and the symbol. "
        "Prints `path:line: text` per reference, bounded.",
        "references",
    )


def symbols_tool(deps: IntelDeps) -> ToolDefinition:
    """``symbols {query}``: workspace symbols matching a query."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        query = str(args["query"]).strip()
        if not query:
            raise ToolArgsError(['"query" must not be empty'])
        try:
            found = await deps.intel.symbols(query, seconds=deps.seconds())
        except EditorNoAnswerError as exc:
            return no_answer(exc)
        cwd = _cwd(execution)
        rows: list[str] = []
        locations: list[JsonValue] = []
        for symbol in found[:MAX_LOCATIONS]:
            path = uri_path(symbol.place.uri)
            kind = SYMBOL_KINDS[symbol.kind - 1] if 1 <= symbol.kind <= len(SYMBOL_KINDS) else ""
            name = symbol.name if not symbol.container else f"{symbol.container}.{symbol.name}"
            where = shown_path(path, cwd)
            if symbol.place.start is not None:
                where += f":{symbol.place.start.line + 1}"
                locations.append({"path": path, "line": symbol.place.start.line + 1})
            else:
                locations.append({"path": path})
            rows.append(f"{name} ({kind}) {where}" if kind else f"{name} {where}")
        empty = f"No symbols match {query!r}."
        return _listing(rows, locations, empty, len(found) - MAX_LOCATIONS, "symbols")

    def present_call(args: JsonObject) -> ToolCallView:
        return ToolCallView(title=f"Symbols {args.get('query')!r}", kind="search")

    return _located_tool(
        "symbols",
        "Find classes, functions, methods and other symbols by name across the workspace, "
        "from the editor's language servers. Prints `name (kind) path:line` per symbol.",
        {"query": Prop(type="string", required=True, description="The name, or part of it")},
        execute,
        present_call,
    )


def hover_tool(deps: IntelDeps) -> ToolDefinition:
    """``hover {path, line, symbol}``: the type, signature and docs of the symbol."""

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        uri, full, spot = await _position(deps, execution, args)
        try:
            text = await deps.intel.hover(uri, spot, seconds=deps.seconds())
        except EditorNoAnswerError as exc:
            return no_answer(exc)
        text = text.strip()
        if not text:
            text = f"No hover information for {args['symbol']!r}."
        elif len(text) > MAX_HOVER_CHARS:
            left = len(text) - MAX_HOVER_CHARS
            text = text[:MAX_HOVER_CHARS] + f"\n(… {left} more characters not shown.)"
        meta: JsonObject = {"locations": [{"path": full, "line": spot.line + 1}]}
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    return _symbol_tool(
        "hover",
        "The type, signature and documentation of a symbol, from the editor's language "
        "servers: name the file, the 1-based line the symbol appears on and the symbol.",
        execute,
        "Hover",
        "read",
    )


TOOL_FACTORIES: Final[dict[EditorMethod, Callable[[IntelDeps], ToolDefinition]]] = {
    "diagnostics": diagnostics_tool,
    "definition": definition_tool,
    "references": references_tool,
    "symbols": symbols_tool,
    "hover": hover_tool,
}
"""Each method's tool, in registration order."""
