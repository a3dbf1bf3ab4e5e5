"""The guarded execution pipeline behind ``ToolRegistry.execute`` (tools layer).

One call goes through, in order:

1. ``tools/pre-execute`` waterfall → ``Allow`` | ``Deny(reason)`` | ``Ask(reason)``;
2. a refusal becomes an error result; otherwise the tool is looked up (``UNKNOWN_TOOL``) and
   its arguments validated (``INVALID_ARGS``); an ``Ask`` then goes to the ``PERMISSIONS``
   service (standing ``always`` answers first), or is refused when nobody provides one;
3. the tool's ``execute`` runs; whatever it raises becomes ``Error: <message>`` with
   ``error{name, code}`` for a ``DshError``;
4. ``tools/post-execute`` waterfall over that result (failures included) → ``Accept`` (content
   may replace the result's) | ``Block(feedback)`` (an error result with the feedback).

A result the session could not log (``result_check``: content, error and ``meta`` must be
lossless JSON in the shape of a ``tool/result`` event) becomes an ``INVALID_TOOL_OUTPUT`` error
result without ``meta``: at step 3 when the tool returned it (post-execute then sees the
error), after step 4 when a listener's replacement content or context brought it. The error
is chosen over silently dropping ``meta`` so that a broken tool is visible to the model and in
the log rather than losing its presentation data unnoticed. Text is the exception: a string
holding an unpaired surrogate (a file or buffer that is not valid Unicode) is stored with
U+FFFD in its place (``dsh_lsp.session.storable``), so the model still sees what was read.

A listener that raises turns the whole call into an error result as well, so the pipeline
never raises for anything but cancellation, which propagates untouched.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, assert_never

from dsh_lsp.kernel import Context, DshError
from dsh_lsp.llm import ContentBlock, TextBlock
from dsh_lsp.session import storable

from .decisions import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    ExecutionOutcome,
    PostExecutePayload,
    PostToolDecision,
    PreToolDecision,
)
from .definition import ToolErrorInfo, ToolExecution, ToolOutcome, ToolOutput, ToolResult
from .errors import (
    INVALID_PERMISSION_OUTCOME,
    INVALID_TOOL_OUTPUT,
    PERMISSION_CANCELLED,
    PERMISSION_UNAVAILABLE,
    TOOL_BLOCKED,
    ToolDeniedError,
    ToolError,
    ToolNotFoundError,
)
from .events import TOOLS_POST_EXECUTE, TOOLS_PRE_EXECUTE
from .permissions import PERMISSIONS, PermissionMemory
from .result_check import context_problem, result_problem
from .validation import check_args

if TYPE_CHECKING:
    from .registry import ToolRegistry

logger = logging.getLogger(__name__)


async def run_pipeline(
    registry: ToolRegistry, ctx: Context, memory: PermissionMemory, execution: ToolExecution
) -> ExecutionOutcome:
    """Run one call through the pipeline; see the module docstring. Raises only cancellation."""
    try:
        decision = await ctx.waterfall(TOOLS_PRE_EXECUTE, execution, _allow)
        result = await _decide_and_run(registry, ctx, memory, execution, decision)
        payload = PostExecutePayload(exec=execution, result=result)
        post = await ctx.waterfall(TOOLS_POST_EXECUTE, payload, _accept)
        return _apply_post(result, post)
    except Exception as exc:
        logger.warning("an interception listener failed for tool %r", execution.name, exc_info=True)
        return ExecutionOutcome(result=error_result(exc))


def error_result(exc: Exception) -> ToolResult:
    """The error result the model reads for ``exc``: ``Error: <message>``, plus
    ``error{name, code}`` when ``exc`` is a ``DshError``."""
    message = str(exc) or type(exc).__name__
    info = None
    if isinstance(exc, DshError):
        info = ToolErrorInfo(name=type(exc).__name__, code=exc.code)
    return ToolResult(content=(TextBlock(text=f"Error: {message}"),), is_error=True, error=info)


async def _allow() -> PreToolDecision:
    return Allow()


async def _accept() -> PostToolDecision:
    return Accept()


async def _decide_and_run(
    registry: ToolRegistry,
    ctx: Context,
    memory: PermissionMemory,
    execution: ToolExecution,
    decision: PreToolDecision,
) -> ToolResult:
    try:
        if isinstance(decision, Deny):
            raise ToolDeniedError(decision.reason)
        definition = registry.get(execution.name)
        if definition is None:
            raise ToolNotFoundError(execution.name, list(registry.names()))
        args = check_args(definition.parameters, execution.arguments)
        match decision:
            case Allow():
                pass
            case Ask(reason=reason):
                await _ask(registry, ctx, memory, execution, reason)
            case _:
                assert_never(decision)
        output = await definition.execute(args, execution)
        return _to_result(execution.name, output)
    except Exception as exc:
        logger.info("tool %r failed: %s", execution.name, type(exc).__name__)
        return error_result(exc)


async def _ask(
    registry: ToolRegistry,
    ctx: Context,
    memory: PermissionMemory,
    execution: ToolExecution,
    reason: str | None,
) -> None:
    name = execution.name
    session = None if execution.session is None else execution.session.id
    match memory.recall(session, name):
        case "allow":
            return
        case "reject":
            raise ToolDeniedError(f"the user declined to run {name} for this session")
        case None:
            pass
    service = ctx.get(PERMISSIONS)
    if service is None:
        why = "" if reason is None else f" ({reason})"
        raise ToolDeniedError(
            f"Permission required to run {name} but no one can approve it here{why}",
            code=PERMISSION_UNAVAILABLE,
        )
    outcome = await service.request(
        execution, registry.present_call(name, execution.arguments), reason
    )
    match outcome:
        case "allow_once":
            return
        case "allow_always":
            memory.remember(session, name, "allow")
            return
        case "reject_once":
            raise ToolDeniedError(f"the user declined to run {name}")
        case "reject_always":
            memory.remember(session, name, "reject")
            raise ToolDeniedError(f"the user declined to run {name} for this session")
        case "cancelled":
            raise ToolDeniedError(
                f"the permission request for {name} was cancelled", code=PERMISSION_CANCELLED
            )
        case _:
            raise ToolError(
                f"the permission service answered {outcome!r}", code=INVALID_PERMISSION_OUTCOME
            )


def _to_result(name: str, output: ToolOutput) -> ToolResult:
    content: Sequence[object]
    if isinstance(output, ToolOutcome):
        content, meta = output.content, output.meta
    elif isinstance(output, list | tuple):
        content, meta = output, None
    else:
        raise ToolError(
            f"tool {name!r} returned a {type(output).__name__}, not content blocks",
            code=INVALID_TOOL_OUTPUT,
        )
    # Text a tool read (a file, a buffer) may hold unpaired surrogates: stored as U+FFFD.
    result = storable(ToolResult(content=_blocks(name, content), meta=meta))
    problem = result_problem(result)
    if problem is not None:
        raise ToolError(
            f"tool {name!r} returned a result the session cannot log ({problem})",
            code=INVALID_TOOL_OUTPUT,
        )
    return result


def _blocks(name: str, content: Sequence[object]) -> tuple[ContentBlock, ...]:
    blocks: list[ContentBlock] = []
    for block in content:
        if not isinstance(block, ContentBlock):
            raise ToolError(
                f"tool {name!r} returned a {type(block).__name__} among its content blocks",
                code=INVALID_TOOL_OUTPUT,
            )
        blocks.append(block)
    return tuple(blocks)


def _apply_post(result: ToolResult, decision: PostToolDecision) -> ExecutionOutcome:
    match decision:
        case Accept(content=content, additional_context=extra):
            final = result if content is None else replace(result, content=storable(tuple(content)))
        case Block(feedback=feedback, additional_context=extra):
            final = ToolResult(
                content=(TextBlock(text=feedback),),
                is_error=True,
                error=ToolErrorInfo(name=ToolDeniedError.__name__, code=TOOL_BLOCKED),
                meta=result.meta,
            )
        case _:
            assert_never(decision)
    context = tuple(extra or ())
    problem = None if final is result else result_problem(final)
    if problem is None and context:
        problem = context_problem(context)
    if problem is not None:
        logger.warning("a tools/post-execute listener produced unloggable output: %s", problem)
        error = ToolError(
            f"a tools/post-execute listener produced a result the session cannot log ({problem})",
            code=INVALID_TOOL_OUTPUT,
        )
        return ExecutionOutcome(result=error_result(error))
    return ExecutionOutcome(result=final, additional_context=context)
