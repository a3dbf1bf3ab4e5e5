"""ToolError and its kinds: failures of tool definitions, arguments and calls (tools layer).

Tree (the root lives in the kernel)::

    DshError                      dsh_lsp.kernel
     └── ToolError                TOOL_ERROR         a bad definition, registration or output
          ├── ToolArgsError       INVALID_ARGS       arguments that fail the tool's schema
          ├── ToolNotFoundError   UNKNOWN_TOOL       a call names no registered tool
          └── ToolDeniedError     TOOL_DENIED        a policy or the user refused the call

Inside ``ToolRegistry.execute`` every one of these becomes an error *result* the model reads;
they escape as exceptions only from registration (``register``, ``define_tool``, ``section``).
"""

from __future__ import annotations

from typing import ClassVar, Final

from dsh_lsp.kernel import DshError

INVALID_SCHEMA: Final = "INVALID_SCHEMA"
"""A schema spec or a definition's parameters are not a supported object schema."""
INVALID_TOOL_NAME: Final = "INVALID_TOOL_NAME"
"""A tool name the model API cannot carry (``[A-Za-z0-9_-]{1,64}``)."""
DUPLICATE_TOOL: Final = "DUPLICATE_TOOL"
"""A second tool registered under a name already in use."""
DUPLICATE_SECTION: Final = "DUPLICATE_SECTION"
"""A second prompt section registered under a name already in use."""
INVALID_TOOL_OUTPUT: Final = "INVALID_TOOL_OUTPUT"
"""A tool's ``execute`` returned something other than content blocks or a ``ToolOutcome``, or
a result (or post-execute output) the session log cannot hold (not lossless JSON)."""
INVALID_PERMISSION_OUTCOME: Final = "INVALID_PERMISSION_OUTCOME"
"""A permission service answered with something that is not a ``PermissionOutcome``."""
TOOL_BLOCKED: Final = "TOOL_BLOCKED"
"""A ``tools/post-execute`` listener blocked the result (used on ``ToolErrorInfo``)."""
PERMISSION_UNAVAILABLE: Final = "PERMISSION_UNAVAILABLE"
"""A call needed approval but no permission service is provided."""
PERMISSION_CANCELLED: Final = "PERMISSION_CANCELLED"
"""The permission request was cancelled before anyone answered."""


class ToolError(DshError):
    """A tool definition, registration or output is wrong; ``code`` says how."""

    code: ClassVar[str] = "TOOL_ERROR"


class ToolArgsError(ToolError):
    """Arguments failed the tool's schema; ``violations`` lists each problem in schema order.

    The message is ``invalid arguments: <v1>; <v2>``, quoting paths but never whole values.
    """

    code: ClassVar[str] = "INVALID_ARGS"

    def __init__(self, violations: list[str]) -> None:
        super().__init__(f"invalid arguments: {'; '.join(violations)}")
        self.violations = tuple(violations)


class ToolNotFoundError(ToolError):
    """A call named a tool nobody registered; the message lists the tools that exist."""

    code: ClassVar[str] = "UNKNOWN_TOOL"

    def __init__(self, name: str, available: list[str]) -> None:
        known = ", ".join(available) if available else "(none)"
        super().__init__(f"unknown tool {name!r}; available tools: {known}")
        self.name = name


class ToolDeniedError(ToolError):
    """A ``tools/pre-execute`` policy or the user refused the call, or nobody could approve it.

    The default code is ``TOOL_DENIED``; ``PERMISSION_UNAVAILABLE`` and ``PERMISSION_CANCELLED``
    narrow it.
    """

    code: ClassVar[str] = "TOOL_DENIED"
