"""Composition root: the one place that chooses which plugins make up a running dsh-lsp.

It is the only module allowed to import :mod:`dsh_lsp.agent_loop` (import-linter enforces
this), so the loop stays one swappable plugin. ``build_kernel_plugins`` loads the default set
into a kernel from ``AppSettings``: invariants, the model service with the DeepSeek adapter,
the session store with JSONL persistence, tools, the file tools with their policy and search,
the agent registry and the agent loop. The language server and the headless runner
(``dsh-lsp run``) both start from it; each front end then loads the one ``FileSystem``
provider it wants (the runner: ``LocalFileSystemPlugin`` confined to ``--cwd``; the server:
the local or the editor-backed provider) and, for the runner, ``TerminalApprovalPlugin``
(asks on the terminal before a tool that is not read-only runs).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import ClassVar, TextIO

import anyio
import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from dsh_lsp.agent import AgentOptions, AgentsPlugin, InvariantsPlugin
from dsh_lsp.agent_loop import AgentLoopPlugin
from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import LlmPlugin
from dsh_lsp.llm.deepseek import DEFAULT_MODELS, DeepSeekPlugin, Thinking
from dsh_lsp.session import JsonlPersistencePlugin, PersistenceCoordinatorPlugin, SessionPlugin
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
    session_dir: Path | None = None
    """Where JSONL session logs go; ``None``: ``$XDG_STATE_HOME/dsh-lsp/sessions``."""
    max_steps: int = Field(default=64, ge=1)
    """Model requests one turn may make before it ends with ``max-steps``."""
    system_prompt: str | None = None
    """Appended to the assembled system prompt of every step."""
    strict_invariants: bool = False
    """Raise on a broken log invariant (tests) instead of only logging it."""

    def agent_options(self) -> AgentOptions:
        """The ``AgentOptions`` every agent of this deployment gets."""
        return AgentOptions(
            model=self.model, system_prompt=self.system_prompt, max_steps=self.max_steps
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
    sessions = None if settings.session_dir is None else str(settings.session_dir)
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
    await ctx.plugin(AgentsPlugin)
    await ctx.plugin(AgentLoopPlugin)


class TerminalPermissions:
    """A ``PermissionService`` for a terminal: approve everything (``--yes``), refuse when
    nobody can answer (no TTY), or ask on ``prompt``/``answer`` (stderr/stdin)."""

    __slots__ = ("_answer", "_interactive", "_prompt", "_yes")

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

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        """The answer for one call: ``y`` once, ``a`` always (this session), else reject."""
        if self._yes:
            return "allow_once"
        if not self._interactive:
            return "reject_once"
        why = f" ({reason})" if reason else ""
        self._prompt.write(f"Allow {view.title}{why}? [y]es / [a]lways / [N]o: ")
        self._prompt.flush()
        reply = (await anyio.to_thread.run_sync(self._answer)).strip().lower()
        if reply in ("y", "yes"):
            return "allow_once"
        if reply in ("a", "always"):
            return "allow_always"
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
