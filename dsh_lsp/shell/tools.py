"""The command tools: ``bash``, ``bash_output`` and ``bash_kill`` (shell layer).

``bash`` runs a command in the session's workspace (``workdir`` may name a folder inside
it) and returns its output with markers for how it ended (``[exit code: N]``,
``[timed out after Ns]``, ``[killed by signal: …]``); a failing command is a result, not a
tool error. With ``run_in_background`` it returns a task id at once; the task's end is
injected into the conversation. ``bash_output`` returns what a task printed since the last
look (or a page of the whole output with ``offset``); ``bash_kill`` stops a task.
Cancelling the turn while ``bash`` waits stops the command's whole process group.

Around each command: ``shell/before-run`` (a front end saves the agent's unsaved editor
buffers, or answers notes naming files that differ on disk) and, afterwards, every file the
session had read that the command changed becomes unread for the read-before-edit policy
(``FS_OBSERVATIONS``), and the result names them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import anyio

from dsh_lsp.fs_tools import FS, FS_OBSERVATIONS, FsError
from dsh_lsp.kernel import Context
from dsh_lsp.llm import JsonObject, JsonValue, TextBlock
from dsh_lsp.tools import (
    Prop,
    ToolArgsError,
    ToolCallView,
    ToolDefinition,
    ToolExecution,
    ToolOutcome,
    ToolResult,
    ToolResultView,
    define_tool,
)

from .config import ShellConfig
from .env import EnvScrubber
from .errors import SHELL_BAD_WORKDIR, SHELL_NO_WORKSPACE, ShellError
from .events import SHELL_AFTER_RUN, SHELL_BEFORE_RUN, ShellRunIntent
from .executor import ShellSpec, ShellTask
from .tasks import ShellTasks

BASH_DESCRIPTION = (
    "Run a shell command (bash -c) in the workspace and return its output (stdout and stderr "
    "together) with its exit code. Use it to run tests, builds, linters, git and other "
    "project tools; use the file tools to read, search and edit files."
)
OUTPUT_DESCRIPTION = (
    "The output a command printed since you last looked (a background task's, or a page of "
    "a long output with `offset`), and whether it is still running."
)
KILL_DESCRIPTION = "Stop a background command (its whole process group)."


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellDeps:
    """What the tools share: the dispatching context, the tasks, the limits, the env."""

    ctx: Context
    tasks: ShellTasks
    config: ShellConfig
    environ: Callable[[], Mapping[str, str]]
    scrub: EnvScrubber = field(default_factory=EnvScrubber)


def _cwd(args: JsonObject, execution: ToolExecution) -> str:
    session = execution.session
    root = None if session is None else session.header.cwd
    if not root:
        raise ShellError(
            "commands run in a session's workspace; this call has none", code=SHELL_NO_WORKSPACE
        )
    root = os.path.realpath(root)
    workdir = args.get("workdir")
    if not isinstance(workdir, str) or not workdir:
        return root
    path = os.path.realpath(os.path.join(root, workdir))
    if os.path.commonpath([root, path]) != root or not os.path.isdir(path):
        raise ShellError(
            f"workdir {workdir!r} is not a folder inside the workspace {root}",
            code=SHELL_BAD_WORKDIR,
        )
    return path


def _timeout(args: JsonObject, config: ShellConfig) -> float:
    value = args.get("timeout")
    if value is None:
        return config.default_timeout_s
    assert isinstance(value, int | float)
    if value <= 0 or value > config.max_timeout_s:
        raise ToolArgsError([f'"timeout" must be between 0 and {config.max_timeout_s:g} seconds'])
    return float(value)


def result_text(task: ShellTask, notes: tuple[str, ...] = ()) -> str:
    """What the model reads for a finished (or still running) task."""
    body = task.output.text()
    parts = [*notes, body if body else "(no output)", task.status_line()]
    return "\n".join(part for part in parts if part)


def result_meta(task: ShellTask) -> dict[str, JsonValue]:
    """The ``meta`` a ``bash`` result carries for cards and replays."""
    return {
        "taskId": task.id,
        "command": task.spec.command,
        "cwd": task.spec.cwd,
        "exitCode": task.exit_code,
        "signal": task.signal,
        "timedOut": task.timed_out,
        "bytes": task.output.total,
        "background": task.background,
    }


def bash_tool(deps: ShellDeps) -> ToolDefinition:
    """The ``bash`` definition over ``deps``."""
    config = deps.config

    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutcome:
        command = str(args.get("command", ""))
        if not command.strip():
            raise ToolArgsError(['"command" must not be empty'])
        cwd = _cwd(args, execution)
        spec = ShellSpec(
            command=command,
            cwd=cwd,
            env=deps.scrub(deps.environ(), config.secret_env_names),
            timeout_s=_timeout(args, config),
            grace_s=config.kill_grace_s,
        )
        session_id = None if execution.session is None else execution.session.id
        intent = ShellRunIntent(session_id=session_id, command=command, cwd=cwd)
        notes = await deps.ctx.waterfall(SHELL_BEFORE_RUN, intent, _no_notes)
        background = args.get("run_in_background") is True
        call_id = str(execution.call_id)
        if background:
            task = deps.tasks.start(spec, session_id=session_id, call_id=call_id)
            text = (
                f"Started background task {task.id}. Its end will be reported to you; read "
                f'its output any time with bash_output {{"task_id": "{task.id}"}}.'
            )
            return ToolOutcome(content=(TextBlock(text=text),), meta=result_meta(task))
        task = await deps.tasks.run(spec, session_id=session_id, call_id=call_id)
        deps.ctx.emit_contained(SHELL_AFTER_RUN, intent)
        changed = await forget_changed(deps.ctx, execution.session)
        if changed:
            notes = (
                *notes,
                "Changed on disk while the command ran (read them again before editing): "
                + ", ".join(changed),
            )
        text = result_text(task, notes)
        meta = result_meta(task)
        if not task.output.spilled:
            deps.tasks.forget(task)
        return ToolOutcome(content=(TextBlock(text=text),), meta=meta)

    def present_call(args: JsonObject) -> ToolCallView:
        command = str(args.get("command", ""))
        description = args.get("description")
        title = str(description) if isinstance(description, str) and description else command
        return ToolCallView(title=f"Run: {title}", kind="execute")

    def present_result(args: JsonObject, result: ToolResult) -> ToolResultView | None:
        call = present_call(args)
        return ToolResultView(title=call.title, kind="execute")

    return define_tool(
        "bash",
        BASH_DESCRIPTION,
        {
            "command": Prop(type="string", required=True, description="The command to run"),
            "description": Prop(
                type="string",
                required=True,
                description="What the command does, in 5-10 words, shown to the user",
            ),
            "timeout": Prop(
                type="number",
                description=f"Seconds before it is stopped (default {config.default_timeout_s:g}, "
                f"at most {config.max_timeout_s:g})",
            ),
            "workdir": Prop(
                type="string",
                description="A folder inside the workspace to run in (default: its root)",
            ),
            "run_in_background": Prop(
                type="boolean",
                description="Start it and return at once (servers, watchers, long builds)",
            ),
        },
        execute,
        present_call=present_call,
        present_result=present_result,
    )


async def forget_changed(ctx: Context, owner: object | None) -> tuple[str, ...]:
    """Make every file ``owner`` has read whose version changed since unread again (the
    read-before-edit policy then asks for a fresh read); returns their display paths.
    Does nothing without the policy memory or a file system. Never raises."""
    observed = ctx.get(FS_OBSERVATIONS)
    fs = ctx.get(FS)
    if observed is None or fs is None or owner is None:
        return ()
    changed: list[str] = []
    for key, version in observed.seen(owner):
        try:
            target = await fs.resolve(key)
            info = await fs.stat(target)
        except FsError:
            info, target = None, None
        if info is None or info.version != version:
            observed.forget(owner, key)
            changed.append(key if target is None else target.display_path)
    return tuple(changed)


async def _no_notes() -> tuple[str, ...]:
    return ()


def bash_output_tool(deps: ShellDeps) -> ToolDefinition:
    """The ``bash_output`` definition over ``deps``."""
    cap = deps.config.output_cap_bytes

    async def execute(args: JsonObject, execution: ToolExecution) -> list[TextBlock]:
        session_id = None if execution.session is None else execution.session.id
        task = deps.tasks.get(str(args.get("task_id", "")), session_id)
        offset = args.get("offset")
        limit = args.get("limit")
        size = cap if not isinstance(limit, int) or limit <= 0 else min(limit, cap)
        if isinstance(offset, int):
            if offset < 0:
                raise ToolArgsError(['"offset" must be at least 0'])
            page = task.output.page(offset, size)
            end = min(offset + size, task.output.total)
            text = f"{page}\n[bytes {offset}-{end} of {task.output.total}] {task.status_line()}"
            return [TextBlock(text=text)]
        fresh, remaining = task.output.unread(size)
        more = f"\n[{remaining} more bytes unread: call bash_output again]" if remaining else ""
        text = f"{fresh or '(no new output)'}{more}\n{task.status_line()}"
        return [TextBlock(text=text)]

    return define_tool(
        "bash_output",
        OUTPUT_DESCRIPTION,
        {
            "task_id": Prop(type="string", required=True, description="The task id bash gave"),
            "offset": Prop(
                type="integer", description="Byte offset into the whole output (paging)"
            ),
            "limit": Prop(type="integer", description="Bytes to return at most"),
        },
        execute,
        read_only=True,
    )


def bash_kill_tool(deps: ShellDeps) -> ToolDefinition:
    """The ``bash_kill`` definition over ``deps``."""
    grace = deps.config.kill_grace_s

    async def execute(args: JsonObject, execution: ToolExecution) -> list[TextBlock]:
        session_id = None if execution.session is None else execution.session.id
        task = deps.tasks.get(str(args.get("task_id", "")), session_id)
        if not task.running:
            return [TextBlock(text=f"{task.id} had already ended: {task.status_line()}")]
        task.kill()
        with anyio.move_on_after(grace + 2):
            await task.done.wait()
        return [TextBlock(text=f"Stopped {task.id}: {task.status_line()}")]

    def present_call(args: JsonObject) -> ToolCallView:
        return ToolCallView(title=f"Stop {args.get('task_id', 'task')}")

    return define_tool(
        "bash_kill",
        KILL_DESCRIPTION,
        {"task_id": Prop(type="string", required=True, description="The task id bash gave")},
        execute,
        present_call=present_call,
    )
