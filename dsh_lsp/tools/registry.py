"""ToolRegistry: the ``TOOLS`` service holding every tool the model may call (tools layer).

Plugins register ``ToolDefinition``s; each registration is an effect of the registering
plugin's context and disappears when that plugin unloads. The registry exports schemas (deep
copies, never functions) to prompt assembly, answers presentation questions for UIs, and runs
calls through the guarded pipeline (``pipeline``), which never raises for a tool failure.
"""

from __future__ import annotations

import logging
import marshal
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from dsh_lsp.kernel import Context, Disposer, ServiceKey
from dsh_lsp.llm import JsonObject, JsonValue, ToolSchema

from .decisions import ExecutionOutcome
from .definition import ToolDefinition, ToolExecution, ToolResult
from .errors import DUPLICATE_TOOL, INVALID_SCHEMA, INVALID_TOOL_NAME, ToolArgsError, ToolError
from .events import TOOLS_CHANGE
from .permissions import PermissionMemory
from .pipeline import run_pipeline
from .presentation import ToolCallView, ToolResultView, generic_call_view, generic_result_view
from .schema import copy_schema
from .validation import check_args

logger = logging.getLogger(__name__)

V = TypeVar("V")

_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class _Registration:
    """One registration; compared by identity so a stale disposer never removes a newer one."""

    definition: ToolDefinition
    owner: str
    parameters: bytes
    """The ``marshal`` image of the checked schema copy: ``schemas`` loads a fresh deep copy
    from it per step, at C speed."""


class ToolRegistry:
    """The registered tools, their schemas, presenters and the execution pipeline.

    Constructed by ``ToolsPlugin`` with its context; that context dispatches the pipeline's
    events and owns registrations made without an explicit ``ctx``.
    """

    __slots__ = ("_ctx", "_permissions", "_tools")

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._tools: dict[str, _Registration] = {}
        self._permissions = PermissionMemory()

    def register(self, definition: ToolDefinition, *, ctx: Context | None = None) -> Disposer:
        """Register a tool as an effect of ``ctx`` (pass your plugin's context so the tool
        leaves with your plugin; by default it belongs to the registry's own plugin).

        Emits ``TOOLS_CHANGE`` (contained) on registration and removal. Raises ``ToolError``:
        ``DUPLICATE_TOOL`` naming the current owner, ``INVALID_TOOL_NAME`` for a name outside
        ``[A-Za-z0-9_-]{1,64}``, ``INVALID_SCHEMA`` when ``parameters`` is not an object JSON
        Schema; ``KernelClosedError`` when ``ctx`` is closed.
        """
        image = marshal.dumps(_checked_schema(definition))
        owner = ctx if ctx is not None else self._ctx

        def body() -> partial[None]:
            current = self._tools.get(definition.name)
            if current is not None:
                raise ToolError(
                    f"tool {definition.name!r} is already registered by {current.owner}",
                    code=DUPLICATE_TOOL,
                )
            registration = _Registration(definition=definition, owner=owner.owner, parameters=image)
            self._tools[definition.name] = registration
            self._ctx.emit_contained(TOOLS_CHANGE, None)
            return partial(self._unregister, registration)

        return owner.effect(body)

    def _unregister(self, registration: _Registration) -> None:
        name = registration.definition.name
        if self._tools.get(name) is registration:
            del self._tools[name]
            self._ctx.emit_contained(TOOLS_CHANGE, None)

    def get(self, name: str) -> ToolDefinition | None:
        """The tool registered under ``name``, if any."""
        entry = self._tools.get(name)
        return None if entry is None else entry.definition

    def names(self) -> tuple[str, ...]:
        """The registered tool names, in registration order."""
        return tuple(self._tools)

    def schemas(self) -> tuple[ToolSchema, ...]:
        """Every tool's name, description and a deep copy of its parameters as registered, in
        registration order. The copies are the caller's to change."""
        return tuple(
            ToolSchema(
                name=entry.definition.name,
                description=entry.definition.description,
                parameters=marshal.loads(entry.parameters),
            )
            for entry in self._tools.values()
        )

    def is_read_only(self, name: str) -> bool:
        """True when ``name`` is a registered tool declared read-only (unknown: False)."""
        definition = self.get(name)
        return definition is not None and definition.read_only

    def present_call(self, name: str, arguments: object) -> ToolCallView:
        """How a call looks in a UI: the tool's presenter on valid arguments, else the generic
        view (also when the presenter raises or returns None). Never raises."""
        definition = self.get(name)
        return _call_view(name, definition, _valid_args(definition, arguments))

    def present_result(self, name: str, arguments: object, result: ToolResult) -> ToolResultView:
        """How a finished call looks in a UI, with the same fallbacks as ``present_call`` (the
        generic result view keeps the call view's title, kind and locations). Never raises."""
        definition = self.get(name)
        args = _valid_args(definition, arguments)  # once, for both views

        def fallback() -> ToolResultView:
            return generic_result_view(_call_view(name, definition, args))

        if definition is None or definition.present_result is None or args is None:
            return fallback()
        present = definition.present_result
        return _presented(name, lambda: present(args, result), fallback)

    async def execute(self, execution: ToolExecution) -> ExecutionOutcome:
        """Run one call through the pipeline (see ``pipeline``).

        Never raises for a failing tool, refusal, bad arguments, unknown tool or failing
        listener: each becomes an error result. Cancellation propagates unchanged.
        """
        return await run_pipeline(self, self._ctx, self._permissions, execution)


TOOLS: ServiceKey[ToolRegistry] = ServiceKey("tools")
"""The tool registry, provided by ``ToolsPlugin``."""


def _checked_schema(definition: ToolDefinition) -> dict[str, JsonValue]:
    """A plain-JSON copy of ``definition``'s parameters, once its name and schema pass.
    Raises ``ToolError`` (``INVALID_TOOL_NAME``, ``INVALID_SCHEMA``)."""
    if not _TOOL_NAME.fullmatch(definition.name):
        raise ToolError(
            f"tool name {definition.name!r} must match [A-Za-z0-9_-]{{1,64}}",
            code=INVALID_TOOL_NAME,
        )
    schema = copy_schema(definition.parameters)
    if schema.get("type") != "object":
        raise ToolError(
            f"tool {definition.name!r}: parameters must be an object schema", code=INVALID_SCHEMA
        )
    return schema


def _call_view(
    name: str, definition: ToolDefinition | None, args: JsonObject | None
) -> ToolCallView:
    """``present_call`` once the arguments are checked (``None``: missing or invalid)."""
    if definition is None or definition.present_call is None or args is None:
        return generic_call_view(name)
    present = definition.present_call
    return _presented(name, lambda: present(args), lambda: generic_call_view(name))


def _valid_args(definition: ToolDefinition | None, arguments: object) -> JsonObject | None:
    if definition is None:
        return None
    try:
        return check_args(definition.parameters, arguments)
    except ToolArgsError:
        return None


def _presented(name: str, present: Callable[[], V | None], fallback: Callable[[], V]) -> V:
    """The presenter's view, else (it raised or gave None) the fallback, made only then."""
    try:
        view = present()
    except Exception:
        logger.warning("a presenter of tool %r raised; using the generic view", name, exc_info=True)
        return fallback()
    return fallback() if view is None else view
