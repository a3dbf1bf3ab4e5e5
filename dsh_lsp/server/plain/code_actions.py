"""``textDocument/codeAction``: "Ask dsh: fix this" and "Ask dsh: explain this" (server layer).

Offered on a selection, or where the editor reports diagnostics. Each action is a
``dsh.prompt`` command carrying the prompt (with the diagnostics' text), the document's URI
and the range (the selection, or the diagnostics' span when nothing is selected), so the
model gets the code attached. Pure: building the actions needs nothing but the params.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .commands import PROMPT

FIX_TITLE: Final = "Ask dsh: fix this"
EXPLAIN_TITLE: Final = "Ask dsh: explain this"
KINDS: Final = (types.CodeActionKind.QuickFix, types.CodeActionKind.Empty)


def code_actions(params: types.CodeActionParams) -> list[types.CodeAction]:
    """The dsh actions for ``params`` (none for a bare cursor without diagnostics)."""
    diagnostics = list(params.context.diagnostics)
    span = _span(params.range, diagnostics)
    if span is None:
        return []
    problems = "".join(f"\n- {_describe(d)}" for d in diagnostics)
    fix = "Fix the attached code." + (f" The editor reports:{problems}" if problems else "")
    explain = "Explain the attached code." + (
        f" Also explain what the editor reports:{problems}" if problems else ""
    )
    where: list[object] = [params.text_document.uri, _range_json(span)]
    return [
        types.CodeAction(
            title=FIX_TITLE,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=diagnostics or None,
            command=types.Command(title=FIX_TITLE, command=PROMPT, arguments=[fix, *where]),
        ),
        types.CodeAction(
            title=EXPLAIN_TITLE,
            kind=types.CodeActionKind.Empty,
            command=types.Command(title=EXPLAIN_TITLE, command=PROMPT, arguments=[explain, *where]),
        ),
    ]


def register_code_actions(server: LanguageServer) -> None:
    """Register the ``textDocument/codeAction`` provider on ``server``."""

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=list(KINDS))
    )
    def actions(ls: LanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions(params)


def _span(selection: types.Range, diagnostics: Sequence[types.Diagnostic]) -> types.Range | None:
    if selection.start != selection.end:
        return selection
    if not diagnostics:
        return None
    start = min((d.range.start for d in diagnostics), key=lambda p: (p.line, p.character))
    end = max((d.range.end for d in diagnostics), key=lambda p: (p.line, p.character))
    return types.Range(start=start, end=end)


def _describe(diagnostic: types.Diagnostic) -> str:
    origin = " ".join(str(part) for part in (diagnostic.source, diagnostic.code) if part)
    line = diagnostic.range.start.line + 1
    return f"line {line}: {diagnostic.message}" + (f" ({origin})" if origin else "")


def _range_json(span: types.Range) -> dict[str, object]:
    return {
        "start": {"line": span.start.line, "character": span.start.character},
        "end": {"line": span.end.line, "character": span.end.character},
    }
