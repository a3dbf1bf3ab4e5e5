"""Composition root: the one place that chooses which plugins make up a running dsh-lsp.

It composes, nothing else. It is the only module allowed to import :mod:`dsh_lsp.agent_loop`
(import-linter enforces this), so the loop stays one swappable plugin. ``build_kernel_plugins``
loads the default set into a kernel from the one settings model (``DshSettings``, validated
by whichever front end produced it): invariants, the model service with the DeepSeek
adapter, the session store with JSONL persistence, tools, the file tools with their policy
and search, the shell (``bash``; the API key variable is scrubbed from commands), the plan
tool (``todo_write``), project instructions (``AGENTS.md`` …), compaction, the agent
registry and the agent loop. Each front end then loads the one ``FileSystem`` provider it
wants: ``load_server_plugins`` (what the language server runs after start-up) loads the
provider ``dsh_lsp.server.load_file_system`` picks for the client; the headless runner
(``dsh_lsp.cli``) loads the local disk confined to ``--cwd`` plus its terminal approvals.

Without an API key the language server still starts (sessions can be listed and resumed):
it loads the DeepSeek plugin in its deferred mode, where each model call fails with ``AUTH``
naming the variable. The runner cannot do anything without a model, so it fails to start.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

from dsh_lsp.agent import AgentsPlugin, InvariantsPlugin
from dsh_lsp.agent_loop import AgentLoopPlugin
from dsh_lsp.compact import CompactionPlugin
from dsh_lsp.fs_tools import FsPolicyPlugin, FsToolsPlugin
from dsh_lsp.fs_tools.local import LocalSearchPlugin
from dsh_lsp.instructions import InstructionsPlugin
from dsh_lsp.kernel import Context
from dsh_lsp.llm import LlmPlugin
from dsh_lsp.llm.deepseek import DEFAULT_MODELS, DeepSeekPlugin
from dsh_lsp.server import DshSettings, load_file_system
from dsh_lsp.session import (
    JsonlPersistencePlugin,
    PersistenceCoordinatorPlugin,
    SessionPlugin,
    SqlitePersistencePlugin,
)
from dsh_lsp.shell import ShellPlugin
from dsh_lsp.todo import TodoPlugin
from dsh_lsp.tools import ToolsPlugin

_log = logging.getLogger(__name__)


async def build_kernel_plugins(
    ctx: Context,
    settings: DshSettings,
    *,
    environ: Mapping[str, str] | None = None,
    defer_missing_key: bool = False,
) -> None:
    """Load the default plugin set into the kernel behind ``ctx`` (its fibers are owned by
    ``ctx``). ``environ`` replaces ``os.environ`` for the API key and base URL;
    ``defer_missing_key`` loads the DeepSeek plugin in its deferred mode when the key is unset.

    The file tools stay pending until the caller loads a ``FileSystem`` provider (``FS``).

    Raises PluginFailedError (e.g. the API key variable is unset and not deferred: its cause
    is an LlmError with code ``AUTH``) and PluginConfigError for invalid settings.
    """
    model = settings.model
    _log.info("model in use: %s (dsh.model.name)", model.name)
    endpoint = {"base_url", "api_key_env", "thinking", "reasoning_effort"}
    deepseek: dict[str, object] = {
        "models": tuple(dict.fromkeys((*DEFAULT_MODELS, model.name))),
        "missingKey": "defer" if defer_missing_key else "fail",
        **model.model_dump(by_alias=True, exclude_none=True, include=endpoint),
    }
    deepseek.update(model.timeouts.plugin_config())
    await ctx.plugin(InvariantsPlugin, {})
    await ctx.plugin(LlmPlugin)
    await ctx.plugin(DeepSeekPlugin(environ=environ), deepseek)
    await ctx.plugin(SessionPlugin)
    sessions = settings.session_dir
    if settings.session_store == "sqlite":
        database = None if sessions is None else str(Path(sessions) / "sessions.sqlite3")
        await ctx.plugin(SqlitePersistencePlugin, {"path": database})
    else:
        await ctx.plugin(JsonlPersistencePlugin, {"directory": sessions})
    await ctx.plugin(PersistenceCoordinatorPlugin)
    await ctx.plugin(ToolsPlugin)
    await ctx.plugin(LocalSearchPlugin)
    await ctx.plugin(FsPolicyPlugin)
    await ctx.plugin(FsToolsPlugin)
    shell = settings.shell
    shell_config = {
        "secret_env_names": [model.api_key_env],
        "default_timeout_s": shell.default_timeout,
        "max_timeout_s": max(shell.max_timeout, shell.default_timeout),
    }
    shell_env = None if environ is None else (lambda: environ)
    await ctx.plugin(ShellPlugin(environ=shell_env), shell_config)
    await ctx.plugin(TodoPlugin)
    compaction: dict[str, object] = {"threshold_ratio": settings.compaction.threshold}
    if model.context_window is not None:
        compaction["windows"] = {model.name: model.context_window}
    await ctx.plugin(CompactionPlugin, compaction)
    await ctx.plugin(InstructionsPlugin, {"files": list(settings.instructions.files)})
    await ctx.plugin(AgentsPlugin)
    await ctx.plugin(AgentLoopPlugin)


async def load_server_plugins(ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
    """The language server's plugin set (``dsh_lsp.server.serve`` calls it after start-up):
    the default set for the ``dsh`` settings plus the file system over the workspace folders.

    An unset API key does not stop the server: sessions can still be listed and resumed, and
    each prompt fails with ``AUTH`` naming the variable. Raises PluginFailedError and
    PluginConfigError like ``build_kernel_plugins``.
    """
    await build_kernel_plugins(ctx, settings, defer_missing_key=True)
    await load_file_system(ctx, roots)
