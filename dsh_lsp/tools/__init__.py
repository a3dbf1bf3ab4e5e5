"""Tools: the registry, argument validation, the guarded pipeline and prompt assembly.

The layer between the session log and the agent loop. Its pieces:

- ``schema`` (the ``Prop`` DSL → JSON Schema) and ``validation`` (exact argument checks);
- ``definition`` (tools, calls, results), ``presentation`` (UI render intents);
- ``registry`` (the ``TOOLS`` service) running calls through ``pipeline``: the
  ``tools/pre-execute`` and ``tools/post-execute`` waterfalls with ``decisions`` and the
  ``permissions`` seam; ``concurrency`` runs one step's calls (read-only runs overlap);
- ``prompt`` and ``system_prompt`` (the ``SYSTEM_PROMPT`` service and its assembly waterfall),
  ``identity`` (the default identity section);
- ``plugin``: ``ToolsPlugin`` provides both services.
"""

from __future__ import annotations

from .concurrency import OutcomeCallback as OutcomeCallback
from .concurrency import run_tool_calls as run_tool_calls
from .decisions import Accept as Accept
from .decisions import Allow as Allow
from .decisions import Ask as Ask
from .decisions import Block as Block
from .decisions import Deny as Deny
from .decisions import ExecutionOutcome as ExecutionOutcome
from .decisions import PostExecutePayload as PostExecutePayload
from .decisions import PostToolDecision as PostToolDecision
from .decisions import PreToolDecision as PreToolDecision
from .decisions import outside_read_decision as outside_read_decision
from .definition import CallPresenter as CallPresenter
from .definition import ExecuteFn as ExecuteFn
from .definition import ResultPresenter as ResultPresenter
from .definition import ToolDefinition as ToolDefinition
from .definition import ToolErrorInfo as ToolErrorInfo
from .definition import ToolExecution as ToolExecution
from .definition import ToolOutcome as ToolOutcome
from .definition import ToolOutput as ToolOutput
from .definition import ToolResult as ToolResult
from .definition import define_tool as define_tool
from .errors import DUPLICATE_SECTION as DUPLICATE_SECTION
from .errors import DUPLICATE_TOOL as DUPLICATE_TOOL
from .errors import INVALID_PERMISSION_OUTCOME as INVALID_PERMISSION_OUTCOME
from .errors import INVALID_SCHEMA as INVALID_SCHEMA
from .errors import INVALID_TOOL_NAME as INVALID_TOOL_NAME
from .errors import INVALID_TOOL_OUTPUT as INVALID_TOOL_OUTPUT
from .errors import PERMISSION_CANCELLED as PERMISSION_CANCELLED
from .errors import PERMISSION_UNAVAILABLE as PERMISSION_UNAVAILABLE
from .errors import TOOL_BLOCKED as TOOL_BLOCKED
from .errors import ToolArgsError as ToolArgsError
from .errors import ToolDeniedError as ToolDeniedError
from .errors import ToolError as ToolError
from .errors import ToolNotFoundError as ToolNotFoundError
from .events import SYSTEM_PROMPT_ASSEMBLE as SYSTEM_PROMPT_ASSEMBLE
from .events import SYSTEM_PROMPT_CHANGE as SYSTEM_PROMPT_CHANGE
from .events import TOOLS_CHANGE as TOOLS_CHANGE
from .events import TOOLS_POST_EXECUTE as TOOLS_POST_EXECUTE
from .events import TOOLS_PRE_EXECUTE as TOOLS_PRE_EXECUTE
from .identity import IDENTITY_SECTION as IDENTITY_SECTION
from .identity import IDENTITY_TEXT as IDENTITY_TEXT
from .permissions import PERMISSIONS as PERMISSIONS
from .permissions import PermissionMemory as PermissionMemory
from .permissions import PermissionOutcome as PermissionOutcome
from .permissions import PermissionService as PermissionService
from .pipeline import error_result as error_result
from .plugin import ToolsConfig as ToolsConfig
from .plugin import ToolsPlugin as ToolsPlugin
from .presentation import FileDiff as FileDiff
from .presentation import ToolCallView as ToolCallView
from .presentation import ToolKind as ToolKind
from .presentation import ToolLocation as ToolLocation
from .presentation import ToolResultView as ToolResultView
from .presentation import generic_call_view as generic_call_view
from .presentation import generic_result_view as generic_result_view
from .prompt import PromptAssembly as PromptAssembly
from .prompt import PromptSection as PromptSection
from .prompt import render_prompt as render_prompt
from .prompt import section_text as section_text
from .registry import TOOLS as TOOLS
from .registry import ToolRegistry as ToolRegistry
from .schema import EnumValue as EnumValue
from .schema import JsonType as JsonType
from .schema import Prop as Prop
from .schema import copy_schema as copy_schema
from .schema import spec_to_schema as spec_to_schema
from .system_prompt import SYSTEM_PROMPT as SYSTEM_PROMPT
from .system_prompt import SystemPrompt as SystemPrompt
from .system_prompt import ToolProvider as ToolProvider
from .validation import UnparsedArguments as UnparsedArguments
from .validation import check_args as check_args
from .validation import parse_arguments as parse_arguments
from .validation import validate_args as validate_args

__all__ = (
    "DUPLICATE_SECTION",
    "DUPLICATE_TOOL",
    "IDENTITY_SECTION",
    "IDENTITY_TEXT",
    "INVALID_PERMISSION_OUTCOME",
    "INVALID_SCHEMA",
    "INVALID_TOOL_NAME",
    "INVALID_TOOL_OUTPUT",
    "PERMISSIONS",
    "PERMISSION_CANCELLED",
    "PERMISSION_UNAVAILABLE",
    "SYSTEM_PROMPT",
    "SYSTEM_PROMPT_ASSEMBLE",
    "SYSTEM_PROMPT_CHANGE",
    "TOOLS",
    "TOOLS_CHANGE",
    "TOOLS_POST_EXECUTE",
    "TOOLS_PRE_EXECUTE",
    "TOOL_BLOCKED",
    "Accept",
    "Allow",
    "Ask",
    "Block",
    "CallPresenter",
    "Deny",
    "EnumValue",
    "ExecuteFn",
    "ExecutionOutcome",
    "FileDiff",
    "JsonType",
    "OutcomeCallback",
    "PermissionMemory",
    "PermissionOutcome",
    "PermissionService",
    "PostExecutePayload",
    "PostToolDecision",
    "PreToolDecision",
    "PromptAssembly",
    "PromptSection",
    "Prop",
    "ResultPresenter",
    "SystemPrompt",
    "ToolArgsError",
    "ToolCallView",
    "ToolDefinition",
    "ToolDeniedError",
    "ToolError",
    "ToolErrorInfo",
    "ToolExecution",
    "ToolKind",
    "ToolLocation",
    "ToolNotFoundError",
    "ToolOutcome",
    "ToolOutput",
    "ToolProvider",
    "ToolRegistry",
    "ToolResult",
    "ToolResultView",
    "ToolsConfig",
    "ToolsPlugin",
    "UnparsedArguments",
    "check_args",
    "copy_schema",
    "define_tool",
    "error_result",
    "generic_call_view",
    "generic_result_view",
    "outside_read_decision",
    "parse_arguments",
    "render_prompt",
    "run_tool_calls",
    "section_text",
    "spec_to_schema",
    "validate_args",
)
