"""ServerBridgePlugin: the language server's part inside the kernel (server layer).

Injects ``AGENTS`` and ``TOOLS``. It builds the ``UpdateSink`` (its flusher is a task of this
plugin's fiber) and the ``SessionBridge`` (provided as ``BRIDGE``), listens to
``SESSION_EVENT``, ``SESSION_STORED``, ``agent/status`` and ``shell/output`` (live command
output on the tool card), provides ``PERMISSIONS`` (``EditorPermissions``) and registers
the ``dsh.permissions`` policy ahead of every other ``tools/pre-execute`` listener, and the
payload classes of the plugin events it renders (``todo/write``, ``instructions/loaded``,
``compact/*``). A model call being retried (``llm/retry``) reaches the client as a
``state_update{running}`` with ``message: "retrying (2/5) after 429"`` and a ``retry``
object. Unloading it closes the bridge first: turns are cancelled, prompts settled and
agents disposed while the rest of the kernel still stands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from dsh_lsp.agent import AGENT_STATUS, AGENTS, AgentOptions
from dsh_lsp.compact import CompactEndPayload, CompactStartPayload, CompactSummaryPayload
from dsh_lsp.instructions import InstructionsLoadedPayload
from dsh_lsp.kernel import Context, Plugin, ServiceKey
from dsh_lsp.llm import LLM_RETRY, JsonObject, LlmRetry
from dsh_lsp.server.settings import PermissionSettings
from dsh_lsp.server.wire import ClientChannel
from dsh_lsp.session import EVENT_PAYLOADS, SESSION_EVENT, SESSION_STORED
from dsh_lsp.shell import SHELL_OUTPUT
from dsh_lsp.todo import TodoWritePayload
from dsh_lsp.tools import PERMISSIONS, TOOLS, TOOLS_PRE_EXECUTE

from .bridge import SessionBridge
from .permissions import EditorPermissions
from .policy import permission_policy
from .shell_rules import ShellAllowList
from .sink import UpdateSink

BRIDGE: ServiceKey[SessionBridge] = ServiceKey("lsp-bridge")
"""The session bridge the LSP handlers talk to."""


class ServerBridgePlugin(Plugin[None]):
    """See the module docstring. The callables read the server's current settings."""

    name: ClassVar[str] = "lsp-bridge"
    inject = (AGENTS, TOOLS)

    def __init__(
        self,
        channel: ClientChannel,
        *,
        options: Callable[[], AgentOptions],
        permissions: Callable[[], PermissionSettings],
        default_cwd: Callable[[], str | None],
        shell_rules: ShellAllowList | None = None,
    ) -> None:
        self._channel = channel
        self._options = options
        self._permissions = permissions
        self._default_cwd = default_cwd
        self.shell_rules = shell_rules or ShellAllowList(None)

    async def apply(self, ctx: Context, config: None) -> None:
        """Wire the bridge; everything registered here leaves with this plugin."""
        tools = ctx.require(TOOLS)
        ctx.effect(lambda: EVENT_PAYLOADS.register(TodoWritePayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(InstructionsLoadedPayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactStartPayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactSummaryPayload))
        ctx.effect(lambda: EVENT_PAYLOADS.register(CompactEndPayload))
        sink = UpdateSink(self._channel)
        bridge = SessionBridge(
            ctx,
            agents=ctx.require(AGENTS),
            tools=tools,
            sink=sink,
            options=self._options,
            default_cwd=self._default_cwd,
        )
        ctx.start_soon(sink.run, name="dsh/session/update flusher")
        ctx.on(SESSION_EVENT, bridge.on_session_event)
        ctx.on(AGENT_STATUS, bridge.on_status)
        ctx.on(SESSION_STORED, bridge.on_stored)
        ctx.on(SHELL_OUTPUT, bridge.on_shell_output)

        def on_retry(notice: LlmRetry) -> None:
            session = notice.session_id
            if session is not None and bridge.translator(session) is not None:
                sink.send(session, retry_update(notice))

        ctx.on(LLM_RETRY, on_retry)
        rules = self.shell_rules
        bridge.shell_rules = rules
        ctx.provide(
            PERMISSIONS,
            EditorPermissions(
                self._channel, sink, bridge.translator, rules, shown=bridge.until_shown
            ),
        )
        ctx.on(TOOLS_PRE_EXECUTE, permission_policy(self._permissions, tools, rules), prepend=True)
        ctx.provide(BRIDGE, bridge)
        ctx.effect(lambda: bridge.aclose)


def retry_update(notice: LlmRetry) -> JsonObject:
    """The ``state_update`` that tells the client a model call is being retried."""
    return {
        "kind": "state_update",
        "state": "running",
        "message": notice.message,
        "retry": {
            "attempt": notice.attempt,
            "maxRetries": notice.max_retries,
            "reason": notice.reason,
            "delaySeconds": round(notice.delay, 3),
        },
    }
