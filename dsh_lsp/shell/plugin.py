"""ShellPlugin: registers the command tools and their prompt section (shell layer).

Injects ``TOOLS`` and ``SYSTEM_PROMPT``; the executor is ``LocalExecutor`` unless one is
handed in. ``environ`` (default ``os.environ``) is read at every call and scrubbed of
secrets before a command sees it. Unloading stops every command still running.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import ClassVar

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.tools import SYSTEM_PROMPT, TOOLS, PromptSection

from .config import ShellConfig
from .executor import LocalExecutor, ShellExecutor
from .tasks import ShellTasks
from .tools import ShellDeps, bash_kill_tool, bash_output_tool, bash_tool

SHELL_TEXT = """\
Running commands: `bash` runs a command in the workspace (stdin is closed, so nothing can \
prompt; pass flags like `--yes` or `-y` instead) and returns its output and exit code. Use \
it to run tests, builds, linters, formatters and git; use `read`/`grep`/`edit` for files, \
not `cat`, `sed` or `echo >`. Give every call a short `description`. The user may be asked \
to approve each command, so prefer one clear command over chains of `&&`/`;`. Long \
outputs are shortened in the middle. Servers and watchers go to the background \
(`run_in_background`); you are told when such a task ends. Your edits are saved to disk \
before a command runs; files a command changes must be read again before you edit them."""

OUTPUT_TEXT = """\
Command output: `bash_output` shows what a background task printed since you last looked; \
with `offset` (and `limit`) it pages through the whole output of any task whose result was \
shortened."""

KILL_TEXT = """\
Stopping commands: `bash_kill` stops a background task and everything it started."""

SHELL_SECTIONS: tuple[PromptSection, ...] = (
    PromptSection(name="tool:bash", order=110, text=SHELL_TEXT),
    PromptSection(name="tool:bash_output", order=111, text=OUTPUT_TEXT),
    PromptSection(name="tool:bash_kill", order=112, text=KILL_TEXT),
)
"""The shell's prompt sections, in prompt order."""

SHELL_TOOL_FACTORIES = (bash_tool, bash_output_tool, bash_kill_tool)
"""Every command tool's factory, in registration order."""


class ShellPlugin(Plugin[ShellConfig]):
    """The model-facing command tools over one ``ShellExecutor``."""

    name: ClassVar[str] = "shell"
    config_model = ShellConfig
    inject = (TOOLS, SYSTEM_PROMPT)

    def __init__(
        self,
        executor: ShellExecutor | None = None,
        *,
        environ: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.executor: ShellExecutor = executor or LocalExecutor()
        self._environ = environ or (lambda: os.environ)
        self.tasks: ShellTasks | None = None

    async def apply(self, ctx: Context, config: ShellConfig) -> None:
        """Register the tools and section (they leave with the plugin).

        Raises ToolError (``DUPLICATE_TOOL`` / ``DUPLICATE_SECTION``) on a name clash.
        """
        tasks = self.tasks = ShellTasks(ctx, self.executor, config)
        ctx.effect(lambda: tasks.close)
        deps = ShellDeps(ctx=ctx, tasks=tasks, config=config, environ=self._environ)
        registry = ctx.require(TOOLS)
        for make in SHELL_TOOL_FACTORIES:
            registry.register(make(deps), ctx=ctx)
        prompt = ctx.require(SYSTEM_PROMPT)
        for section in SHELL_SECTIONS:
            prompt.section(section, ctx=ctx)
