"""Tool definitions, calls and results: the values the registry works with (tools layer).

A ``ToolDefinition`` is a schema the model sees (name, description, JSON Schema parameters)
plus the ``execute`` coroutine and optional pure presenters. ``define_tool`` builds one from a
``Prop`` spec. A ``ToolExecution`` is one call as the caller hands it over; a ``ToolResult`` is
what the model reads back. ``execute`` receives arguments already validated against
``parameters`` and returns content blocks, or a ``ToolOutcome`` when it also has ``meta`` (JSON
persisted on the ``tool/result`` event so replays render the same cards).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from dsh_lsp.llm import CallId, ContentBlock, JsonObject, JsonValue

from .presentation import ToolCallView, ToolResultView
from .schema import Prop, spec_to_schema

if TYPE_CHECKING:
    from dsh_lsp.session import Session


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecution:
    """One call of one tool, as the caller (usually the agent loop) hands it to the registry.

    ``arguments`` is what ``parse_arguments`` made of the raw text: the parsed JSON, or the
    text as ``UnparsedArguments`` when it did not parse (validation then rejects it).
    ``session`` is the caller's session, whose ``header.cwd`` anchors relative paths.
    Cancellation arrives as anyio cancellation of the awaiting task; ``cancel``, when
    given, is an event the caller sets as well, for tools that poll instead of awaiting.
    ``title`` is a display title chosen by the caller, if any.
    """

    call_id: CallId
    name: str
    arguments: JsonValue | str
    session: Session | None = None
    cancel: anyio.Event | None = None
    title: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolErrorInfo:
    """Which error a failed call raised: the class name and its stable ``code``."""

    name: str
    code: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """What the model reads back for one call; ``is_error`` marks failures and refusals."""

    content: tuple[ContentBlock, ...]
    is_error: bool = False
    error: ToolErrorInfo | None = None
    meta: JsonObject | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutcome:
    """A tool's return value when it has presentation ``meta`` besides its content."""

    content: tuple[ContentBlock, ...]
    meta: JsonObject | None = None


ToolOutput = Sequence[ContentBlock] | ToolOutcome
"""What ``execute`` returns: content blocks, or a ``ToolOutcome``."""

ExecuteFn = Callable[[JsonObject, ToolExecution], Awaitable[ToolOutput]]
"""A tool's body: validated arguments and the call in, content out. Raising fails the call."""

CallPresenter = Callable[[JsonObject], ToolCallView | None]
"""A pure function from valid arguments to the pending view (None: use the generic one)."""

ResultPresenter = Callable[[JsonObject, ToolResult], ToolResultView | None]
"""A pure function from valid arguments and the result to the finished view."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolDefinition:
    """A registrable tool. ``parameters`` is an object JSON Schema; ``read_only`` tools never
    change anything outside themselves, so consecutive calls of them may overlap."""

    name: str
    description: str
    parameters: JsonObject
    execute: ExecuteFn
    read_only: bool = False
    present_call: CallPresenter | None = None
    present_result: ResultPresenter | None = None


def define_tool(
    name: str,
    description: str,
    params: Mapping[str, Prop],
    execute: ExecuteFn,
    *,
    read_only: bool = False,
    present_call: CallPresenter | None = None,
    present_result: ResultPresenter | None = None,
) -> ToolDefinition:
    """A ``ToolDefinition`` whose parameters are compiled from a ``Prop`` spec.

    The registry validates every call's arguments against the compiled schema before
    ``execute`` runs. Raises ``ToolError`` (``INVALID_SCHEMA``) for a malformed spec.
    """
    return ToolDefinition(
        name=name,
        description=description,
        parameters=spec_to_schema(params),
        execute=execute,
        read_only=read_only,
        present_call=present_call,
        present_result=present_result,
    )
