"""The plugin-less front end's pure parts: command arguments, code actions, progress
messages and the answer summary."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from dsh_lsp.llm import JsonValue
from dsh_lsp.server.plain.code_actions import EXPLAIN_TITLE, FIX_TITLE, code_actions
from dsh_lsp.server.plain.commands import excerpt, parse_prompt_arguments
from dsh_lsp.server.plain.plain_client import summary
from dsh_lsp.server.plain.progress import progress_message
from dsh_lsp.tools import ToolCallView, ToolLocation


def _range(a: int, b: int, c: int, d: int) -> types.Range:
    return types.Range(
        start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)
    )


def _params(selection: types.Range, *diagnostics: types.Diagnostic) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri="file:///w/app.py"),
        range=selection,
        context=types.CodeActionContext(diagnostics=list(diagnostics)),
    )


def test_prompt_arguments_positional_and_object() -> None:
    positional = parse_prompt_arguments(["fix it", "file:///a.py", _json_range()])
    assert positional.prompt == "fix it"
    assert positional.uri == "file:///a.py"
    assert positional.range is not None
    assert positional.range.end.character == 4
    named = parse_prompt_arguments([{"prompt": "explain", "uri": "file:///a.py"}])
    assert (named.prompt, named.uri, named.range) == ("explain", "file:///a.py", None)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([], "takes [prompt, uri?, range?]"),
        (["a", "b", None, "extra"], "got 4"),
        ([""], "arguments.prompt"),
        ([42], "arguments.prompt"),
        (["x", "file:///a", {"start": {}}], "arguments.range"),
        ([{"prompt": "x", "bogus": 1}], "arguments.bogus: unknown field"),
    ],
)
def test_bad_prompt_arguments_name_the_argument(args: list[object], problem: str) -> None:
    with pytest.raises(JsonRpcInvalidParams, match=problem.replace("[", r"\[").replace("?", r"\?")):
        parse_prompt_arguments(args)  # type: ignore[arg-type]  # untrusted JSON on purpose


def _json_range() -> dict[str, JsonValue]:
    return {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 4}}


def test_a_selection_gets_both_actions_carrying_uri_and_range() -> None:
    fix, explain = code_actions(_params(_range(1, 0, 2, 4)))
    assert (fix.title, explain.title) == (FIX_TITLE, EXPLAIN_TITLE)
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.command is not None
    assert fix.command.command == "dsh.prompt"
    prompt, uri, where = fix.command.arguments or []
    assert prompt == "Fix the attached code."
    assert uri == "file:///w/app.py"
    assert where == _json_range()
    assert parse_prompt_arguments(fix.command.arguments or []).uri == uri


def test_a_diagnostic_under_the_cursor_is_quoted_and_spanned() -> None:
    diagnostic = types.Diagnostic(
        range=_range(4, 2, 4, 9), message="undefined name 'x'", source="pyflakes", code="F821"
    )
    fix, explain = code_actions(_params(_range(4, 5, 4, 5), diagnostic))
    assert fix.diagnostics == [diagnostic]
    assert fix.command is not None
    prompt, _, where = fix.command.arguments or []
    assert "line 5: undefined name 'x' (pyflakes F821)" in str(prompt)
    assert where == {"start": {"line": 4, "character": 2}, "end": {"line": 4, "character": 9}}
    assert explain.command is not None
    assert "undefined name" in str((explain.command.arguments or [])[0])


def test_a_bare_cursor_gets_nothing() -> None:
    assert code_actions(_params(_range(3, 1, 3, 1))) == []


@pytest.mark.parametrize(
    ("view", "message"),
    [
        (
            ToolCallView(
                title="Read src/app.py",
                kind="read",
                locations=(ToolLocation(path="/w/src/app.py"),),
            ),
            "Reading src/app.py",
        ),
        (
            ToolCallView(title="Edit x", kind="edit", locations=(ToolLocation(path="/else/x"),)),
            "Editing /else/x",
        ),
        (ToolCallView(title="Grep 'TODO' in .", kind="search"), "Grep 'TODO' in ."),
        (ToolCallView(title="todo_write"), "todo_write"),
    ],
)
def test_progress_messages(view: ToolCallView, message: str) -> None:
    assert progress_message(view, "/w") == message


def test_summaries_are_one_short_line() -> None:
    assert summary("Done.") == "dsh: Done."
    assert summary("Done.\n\nDetails follow.") == (
        "dsh: Done. (full answer: the dsh.lastAnswer command, or the dsh-lsp log)"
    )
    long = summary("word " * 100)
    assert len(long) < 280
    assert "\u2026" in long


def test_excerpts_are_one_line() -> None:
    assert excerpt("fix\n  the   bug") == "fix the bug"
    assert len(excerpt("x" * 500)) == 60
