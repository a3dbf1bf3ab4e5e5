"""Whether a tool result fits the session log, checked before anyone logs it (tools layer).

The agent loop logs each result as a ``tool/result`` event (content blocks, error info,
``meta``) and post-execute context as ``context/message`` events. The session refuses event
data that is not lossless JSON (tuples, ``IntEnum``, ``OrderedDict``, non-string keys, NaN,
nesting past its depth limit ...). These checks build the very records the loop will log and
apply the session's rule to them, so the pipeline can turn such output into an error result
instead of handing the loop a result it cannot log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dsh_lsp.llm import CallId, ContentBlock, PluginSource
from dsh_lsp.session import clone_json, context_message_data, tool_result_data

from .definition import ToolResult

_PROBE_CALL: Final = CallId("probe")
_PROBE_SOURCE: Final = PluginSource(plugin="tools")


def result_problem(result: ToolResult) -> str | None:
    """Why ``result`` cannot be logged as a ``tool/result`` event, or None when it can.

    ``meta`` must be a plain ``dict`` and, with the content blocks, lossless JSON. Never raises:
    an extension block whose ``to_json`` raises is reported as a problem.
    """
    meta = result.meta
    if meta is not None and type(meta) is not dict:
        return f"meta is a {type(meta).__name__}, not a dict"
    try:
        clone_json(
            tool_result_data(
                1,
                1,
                _PROBE_CALL,
                result.content,
                is_error=result.is_error,
                error=result.error,
                meta=meta,
            )
        )
    except Exception as exc:  # extension blocks' to_json is plugin code: any failure counts
        return str(exc) or type(exc).__name__
    return None


def context_problem(content: Sequence[ContentBlock]) -> str | None:
    """Why ``content`` cannot be logged as a ``context/message`` event, or None when it can.
    Never raises (see ``result_problem``)."""
    try:
        clone_json(context_message_data(content, _PROBE_SOURCE))
    except Exception as exc:  # extension blocks' to_json is plugin code: any failure counts
        return str(exc) or type(exc).__name__
    return None
