"""Composition root: the one place that chooses which plugins make up a running dsh-lsp.

It is the only module allowed to import :mod:`dsh_lsp.agent_loop` (import-linter enforces
this), so the loop stays one swappable plugin. ``build_kernel_plugins`` loads the default set
into a kernel from ``AppSettings``: invariants, the model service with the DeepSeek adapter,
the session store with JSONL persistence, tools, the file tools with their policy and search,
the shell (``bash``; the API key variable is scrubbed from commands), the plan tool
(``todo_write``), project instructions (``AGENTS.md`` …), compaction, the agent registry and
the agent loop. The language server and the headless runner
(``dsh-lsp run``) both start from it; each front end then loads the one ``FileSystem``
provider it wants (the runner: ``LocalFileSystemPlugin`` confined to ``--cwd``; the server:
the local or the editor-backed provider) and, for the runner, ``TerminalApprovalPlugin``
(asks on the terminal before a tool that is not read-only runs). The language server loads
``load_server_plugins`` (the default set, ``MissingKeyPlugin`` when the API key is unset,
and the ``FileSystem`` provider ``dsh_lsp.server.load_file_system`` picks for the client:
editor-backed when it applies edits, else the local disk); ``demo_plan`` scripts ``dsh-lsp demo``
with the shipped test kit, which only this module may import.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import ClassVar, TextIO

import anyio
import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from dsh_lsp.agent import AgentOptions, AgentsPlugin, InvariantsPlugin
from dsh_lsp.agent_loop import AgentLoopPlugin
from dsh_lsp.compact import CompactionPlugin
from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.instructions import DEFAULT_FILES, InstructionsPlugin
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import LLM, LLM_STREAM, LlmCode, LlmError, LlmPlugin, LlmRequest, StreamChunk
from dsh_lsp.llm.deepseek import DEFAULT_MODELS, DeepSeekPlugin, ReasoningEffort, Thinking
from dsh_lsp.server import DemoPlan, DshSettings, load_file_system
from dsh_lsp.session import JsonlPersistencePlugin, PersistenceCoordinatorPlugin, SessionPlugin
from dsh_lsp.shell import ShellPlugin
from dsh_lsp.testing import ToolCallSpec, completion, script_to_json, wire_usage
from dsh_lsp.todo import TodoPlugin
from dsh_lsp.tools import (
    PERMISSIONS,
    TOOLS,
    TOOLS_PRE_EXECUTE,
    Allow,
    Ask,
    PermissionOutcome,
    PreToolDecision,
    ToolCallView,
    ToolExecution,
    ToolsPlugin,
)


class AppSettings(BaseModel):
    """What a deployment chooses: the model endpoint, where sessions live, loop limits.

    JSON spelling is camelCase (``baseUrl``, ``apiKeyEnv``…); both spellings are accepted.
    The API key itself is never a setting: ``api_key_env`` names the variable holding it.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    model: str = Field(default=DEFAULT_MODELS[0], min_length=1)
    """The model every agent uses; registered with the endpoint besides its defaults."""
    base_url: str | None = None
    """The OpenAI-compatible API root; ``None``: ``$DEEPSEEK_BASE_URL`` or DeepSeek's."""
    api_key_env: str = Field(default="DEEPSEEK_API_KEY", min_length=1)
    thinking: Thinking | None = None
    reasoning_effort: ReasoningEffort | None = None
    """DeepSeek's reasoning effort in thinking mode; ``None``: the provider default."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    """Output budget of each model request; ``None``: the provider default."""
    stop: tuple[str, ...] | None = None
    """Sequences that end generation when the model produces them."""
    session_dir: Path | None = None
    """Where JSONL session logs go; ``None``: ``$XDG_STATE_HOME/dsh-lsp/sessions``."""
    max_steps: int = Field(default=64, ge=1)
    """Model requests one turn may make before it ends with ``max-steps``."""
    system_prompt: str | None = None
    """Appended to the assembled system prompt of every step."""
    strict_invariants: bool = False
    """Raise on a broken log invariant (tests) instead of only logging it."""
    shell_timeout: float = Field(default=120.0, gt=0)
    """Seconds a command may run when the model names no timeout."""
    shell_max_timeout: float = Field(default=600.0, gt=0)
    """The largest command timeout the model may ask for."""
    context_window: int | None = Field(default=None, ge=1024)
    """The model's context window in tokens; ``None``: known for the shipped models."""
    compact_threshold: float = Field(default=0.8, gt=0, le=1)
    """Compact before a step whose request would fill this share of the window."""
    instruction_files: tuple[str, ...] = DEFAULT_FILES
    """Project instruction files looked for in the workspace and folders the agent touches."""

    def agent_options(self) -> AgentOptions:
        """The ``AgentOptions`` every agent of this deployment gets."""
        return AgentOptions(
            model=self.model,
            system_prompt=self.system_prompt,
            max_steps=self.max_steps,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            stop=self.stop,
        )


async def build_kernel_plugins(
    ctx: Context, settings: AppSettings, *, environ: Mapping[str, str] | None = None
) -> None:
    """Load the default plugin set into the kernel behind ``ctx`` (its fibers are owned by
    ``ctx``). ``environ`` replaces ``os.environ`` for the API key and base URL.

    The file tools stay pending until the caller loads a ``FileSystem`` provider (``FS``).

    Raises PluginFailedError (e.g. the API key variable is unset: its cause is an LlmError
    with code ``AUTH``) and PluginConfigError for invalid settings.
    """
    models = tuple(dict.fromkeys((*DEFAULT_MODELS, settings.model)))
    deepseek: dict[str, object] = {"models": models, "apiKeyEnv": settings.api_key_env}
    if settings.base_url is not None:
        deepseek["baseUrl"] = settings.base_url
    if settings.thinking is not None:
        deepseek["thinking"] = settings.thinking
    if settings.reasoning_effort is not None:
        deepseek["reasoningEffort"] = settings.reasoning_effort
    sessions = None if settings.session_dir is None else str(settings.session_dir)
    shell = {
        "secret_env_names": [settings.api_key_env],
        "default_timeout_s": settings.shell_timeout,
        "max_timeout_s": max(settings.shell_max_timeout, settings.shell_timeout),
    }
    await ctx.plugin(InvariantsPlugin, {"strict": settings.strict_invariants})
    await ctx.plugin(LlmPlugin)
    await ctx.plugin(DeepSeekPlugin(environ=environ), deepseek)
    await ctx.plugin(SessionPlugin)
    await ctx.plugin(JsonlPersistencePlugin, {"directory": sessions})
    await ctx.plugin(PersistenceCoordinatorPlugin)
    await ctx.plugin(ToolsPlugin)
    await ctx.plugin(LocalSearchPlugin)
    await ctx.plugin(FsPolicyPlugin)
    await ctx.plugin(FsToolsPlugin)
    await ctx.plugin(ShellPlugin(environ=None if environ is None else lambda: environ), shell)
    await ctx.plugin(TodoPlugin)
    compaction: dict[str, object] = {"threshold_ratio": settings.compact_threshold}
    if settings.context_window is not None:
        compaction["windows"] = {settings.model: settings.context_window}
    await ctx.plugin(CompactionPlugin, compaction)
    await ctx.plugin(InstructionsPlugin, {"files": list(settings.instruction_files)})
    await ctx.plugin(AgentsPlugin)
    await ctx.plugin(AgentLoopPlugin)


class TerminalPermissions:
    """A ``PermissionService`` for a terminal: approve everything (``--yes``), refuse when
    nobody can answer (no TTY), or ask on ``prompt``/``answer`` (stderr/stdin)."""

    __slots__ = ("_answer", "_interactive", "_lock", "_prompt", "_yes")

    def __init__(
        self,
        *,
        yes: bool,
        interactive: bool,
        prompt: TextIO,
        answer: Callable[[], str],
    ) -> None:
        self._yes = yes
        self._interactive = interactive
        self._prompt = prompt
        self._answer = answer
        self._lock = anyio.Lock()
        """One question at a time: concurrent read-only calls must not race for stdin."""

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """The answer for one call: ``y`` once, ``a`` always (this session), else reject.

        Questions are asked one at a time. Cancelling the turn (Ctrl-C) abandons a pending
        question at once; the line the user may still type is discarded.
        """
        if self._yes:
            return "allow_once"
        if not self._interactive:
            return "reject_once"
        why = f" ({reason})" if reason else ""
        async with self._lock:
            self._prompt.write(f"Allow {view.title}{why}? [y]es / [a]lways / [N]o: ")
            self._prompt.flush()
            answer = await anyio.to_thread.run_sync(self._answer, abandon_on_cancel=True)
        reply = answer.strip().lower()
        if reply in ("y", "yes"):
            return "allow_once"
        if reply in ("a", "always"):
            # "always" for a command would approve every later command, chains included
            return "allow_once" if exec.name == "bash" else "allow_always"
        return "reject_once"


class TerminalApprovalPlugin(Plugin[None]):
    """Provides ``PERMISSIONS`` (``TerminalPermissions``) and asks before every call of a tool
    that is not read-only (a ``tools/pre-execute`` listener that turns ``Allow``
    into ``Ask``); injects ``TOOLS``."""

    name: ClassVar[str] = "terminal-approval"
    inject = (TOOLS,)

    def __init__(self, permissions: TerminalPermissions) -> None:
        self.permissions = permissions

    async def apply(self, ctx: Context, config: None) -> None:
        """Provide the service and the policy listener, owned by this plugin's fiber."""
        tools = ctx.require(TOOLS)
        ctx.provide(PERMISSIONS, self.permissions)

        async def ask_for_changes(
            execution: ToolExecution, proceed: Callable[[], Awaitable[PreToolDecision]]
        ) -> PreToolDecision:
            decision = await proceed()
            if isinstance(decision, Allow) and not tools.is_read_only(execution.name):
                return Ask(reason="it may change files or run commands")
            return decision

        ctx.on(TOOLS_PRE_EXECUTE, ask_for_changes)


NO_KEY = "dsh-lsp-no-key"
"""Stands in for an unset API key so the endpoint plugin loads; ``MissingKeyPlugin`` then
fails every model call before the adapter runs, so it never leaves the process."""


async def load_server_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """The language server's plugin set (``dsh_lsp.server.serve`` calls it after start-up):
    the default set for the ``dsh`` settings plus the file system over the workspace folders.

    An unset API key does not stop the server: sessions can still be listed and resumed, and
    each prompt fails with ``AUTH`` naming the variable. Raises PluginFailedError and
    PluginConfigError like ``build_kernel_plugins``.
    """
    model = settings.model
    app_settings = AppSettings(
        model=model.name,
        base_url=model.base_url,
        api_key_env=model.api_key_env,
        thinking=model.thinking,
        session_dir=None if settings.session_dir is None else Path(settings.session_dir),
        max_steps=settings.max_steps_per_turn,
        shell_timeout=settings.shell.default_timeout,
        shell_max_timeout=settings.shell.max_timeout,
        instruction_files=settings.instructions.files,
        context_window=model.context_window,
        compact_threshold=settings.compaction.threshold,
    )
    environ = dict(os.environ)
    missing = not environ.get(model.api_key_env)
    if missing:
        environ[model.api_key_env] = NO_KEY
    await build_kernel_plugins(ctx, app_settings, environ=environ)
    if missing:
        await ctx.plugin(MissingKeyPlugin(model.api_key_env))
    await load_file_system(ctx, roots)


class MissingKeyPlugin(Plugin[None]):
    """Fails every model call with ``LlmError(AUTH)`` naming the unset key variable: an
    ``llm/stream`` listener, first in line, that never calls the next step."""

    name: ClassVar[str] = "missing-api-key"
    inject = (LLM,)

    def __init__(self, variable: str) -> None:
        self.variable = variable

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the refusing listener, owned by this plugin's fiber."""
        error = LlmError(f"the API key variable {self.variable} is not set", code=LlmCode.AUTH)

        async def refuse(
            request: LlmRequest, proceed: Callable[[], AsyncIterator[StreamChunk]]
        ) -> AsyncIterator[StreamChunk]:
            raise error
            yield  # pragma: no cover - makes this an async generator that raises when started

        ctx.on(LLM_STREAM, refuse, prepend=True)


DEMO_NOTES = """# Release checklist

- [x] bump the version
- [ ] TODO: write the release notes
- [ ] tag the release
"""


def demo_plan() -> DemoPlan:
    """What ``dsh-lsp demo`` runs: ``notes.md`` open and changed (unsaved) in the client, and
    a scripted model that reads the file, searches the workspace, edits the file, and answers.
    """
    usage = wire_usage(prompt=1200, completion=60, cached=800)
    edit = {
        "file_path": "notes.md",
        "old_string": "- [ ] TODO: write the release notes",
        "new_string": "- [x] write the release notes",
    }
    answers = [
        completion(
            reasoning="The user wants the release-notes item checked off. Read the file first.",
            text="Let me look at notes.md.",
            tool_calls=[
                ToolCallSpec(id="call_read", name="read", arguments='{"file_path":"notes.md"}')
            ],
            usage=usage,
        ),
        completion(
            text="Any other TODOs in the workspace?",
            tool_calls=[
                ToolCallSpec(id="call_grep", name="grep", arguments='{"pattern":"TODO","path":"."}')
            ],
            usage=usage,
        ),
        completion(
            tool_calls=[ToolCallSpec(id="call_edit", name="edit", arguments=json.dumps(edit))],
            usage=usage,
        ),
        completion(
            text="Done: the release-notes item in notes.md is checked off; it was the only TODO.",
            usage=usage,
        ),
    ]
    return DemoPlan(
        files={"notes.md": DEMO_NOTES},
        open_file="notes.md",
        unsaved_edit=("# Release checklist", "# Release checklist (v0.1)"),
        prompt="Mark the release-notes TODO in notes.md as done.",
        script=script_to_json(answers),
    )
