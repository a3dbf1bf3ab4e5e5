"""DshLanguageServer and its handlers: LSP params in, a bridge call, LSP result out (server).

``build_server(ctx, load_plugins)`` makes a server bound to one kernel context; there is no
module-level server. Every handler is a thin translator: validate params (``wire.params``), wait for
start-up, call the ``SessionBridge``, and turn a ``DshError`` into its JSON-RPC error
(``errors.to_jsonrpc``). A ``dsh/prompt`` whose request is cancelled (``$/cancelRequest``)
cancels its turn and answers ``{"stopReason": "cancelled"}``. ``shutdown`` closes the bridge
first (turns cancelled, prompts answered, logs flushed) and then answers. Document
notifications feed the connection's mirror (``DocumentSyncProtocol``); the standard-LSP
front end adds ``workspace/executeCommand`` (``commands``) and ``textDocument/codeAction``
(``code_actions``).

Out-of-band errors are logged, never shown as pop-ups.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, ParamSpec, TypeVar

import anyio
from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from dsh_lsp import __version__
from dsh_lsp.kernel import Context, DshError
from dsh_lsp.llm import JsonObject, JsonValue

from .boot import LoadPlugins, ServerState
from .buffers import DocumentSyncProtocol
from .early import SERVER_CAPABILITIES, SERVER_NAME
from .errors import to_jsonrpc
from .plain import register_code_actions, register_commands
from .sessions import prompt_content
from .settings import SettingsError
from .wire import (
    PromptParams,
    PyglsChannel,
    SessionListParams,
    SessionNewParams,
    SessionRefParams,
    ShellPrefixesParams,
    ShellRevokeParams,
    StatusParams,
    dict_params_converter,
    parse_params,
)

_log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")


class DshLanguageServer(LanguageServer):
    """The pygls server of one connection; see the module docstring."""

    protocol: DocumentSyncProtocol

    def __init__(self, ctx: Context, load_plugins: LoadPlugins) -> None:
        super().__init__(
            SERVER_NAME,
            __version__,
            protocol_cls=DocumentSyncProtocol,
            converter_factory=dict_params_converter,
        )
        self.state = ServerState(ctx, load_plugins, documents=self.protocol.documents)
        self.protocol.experimental = {"dsh": SERVER_CAPABILITIES}

    # Any: pygls's error reporting signature is untyped.
    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log errors instead of showing them to the user; a failed request was already
        answered with its error, so it is only a debug record."""
        level = logging.DEBUG if source is FeatureRequestError else logging.ERROR
        _log.log(level, "%s: %s", getattr(source, "__name__", source), error)


def _translated(
    handler: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    """Raise a ``DshError`` from ``handler`` as its JSON-RPC error."""

    @wraps(handler)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except DshError as exc:
            raise to_jsonrpc(exc) from None

    return wrapper


def build_server(ctx: Context, load_plugins: LoadPlugins) -> DshLanguageServer:
    """A server whose agents live in the kernel behind ``ctx``; see the module docstring."""
    server = DshLanguageServer(ctx, load_plugins)
    state = server.state

    @server.feature(types.INITIALIZE)
    def initialize(ls: DshLanguageServer, params: types.InitializeParams) -> None:
        try:
            state.initialize(params, lambda features: PyglsChannel(ls.protocol, features))
        except SettingsError as exc:
            raise JsonRpcInvalidParams(
                f"invalid initializationOptions: {exc}", data={"code": exc.code, "retry": False}
            ) from None

    @server.feature(types.INITIALIZED)
    def initialized(ls: DshLanguageServer, params: types.InitializedParams) -> None:
        state.start()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(
        ls: DshLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        await state.refresh()

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: DshLanguageServer, params: None) -> None:
        await state.aclose()

    @server.feature("dsh/session/new")
    @_translated
    async def session_new(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(SessionNewParams, params, "dsh/session/new")
        if request.cwd is not None and not await anyio.to_thread.run_sync(
            os.path.isdir, request.cwd
        ):
            raise JsonRpcInvalidParams(
                f"invalid params for dsh/session/new: params.cwd: {request.cwd!r} is not an "
                "existing folder; send the absolute path of the workspace (or leave cwd out)"
            )
        bridge = await state.bridge()
        return {"sessionId": await bridge.new_session(request.cwd)}

    @server.feature("dsh/session/list")
    @_translated
    async def session_list(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        parse_params(SessionListParams, params, "dsh/session/list")
        bridge = await state.bridge()
        return {"sessions": await bridge.list_sessions()}

    @server.feature("dsh/session/resume")
    @_translated
    async def session_resume(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(SessionRefParams, params, "dsh/session/resume")
        bridge = await state.bridge()
        return {"sessionId": await bridge.resume(request.session_id)}

    @server.feature("dsh/status")
    @_translated
    async def status(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        parse_params(StatusParams, params, "dsh/status")
        return dict(await state.status())

    @server.feature("dsh/session/compact")
    @_translated
    async def session_compact(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(SessionRefParams, params, "dsh/session/compact")
        bridge = await state.bridge()
        result = await bridge.compact(request.session_id)
        assert isinstance(result, dict)
        return result

    @server.feature("dsh/shell/allowedPrefixes")
    @_translated
    async def shell_prefixes(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(ShellPrefixesParams, params, "dsh/shell/allowedPrefixes")
        bridge = await state.bridge()
        setting = state.settings.permissions.shell_allow
        return {"prefixes": bridge.allowed_prefixes(request.cwd, setting)}

    @server.feature("dsh/shell/revokePrefix")
    @_translated
    async def shell_revoke(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(ShellRevokeParams, params, "dsh/shell/revokePrefix")
        bridge = await state.bridge()
        return {"revoked": bridge.revoke_prefix(request.cwd, request.prefix)}

    @server.feature("dsh/prompt")
    @_translated
    async def prompt(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
        request = parse_params(PromptParams, params, "dsh/prompt")
        bridge = await state.bridge()
        content = await prompt_content(request.prompt, ls.workspace)
        try:
            result = await bridge.prompt(request.session_id, content)
        except anyio.get_cancelled_exc_class():
            return {"stopReason": "cancelled"}
        return result.to_json()

    @server.feature("dsh/cancel")
    async def cancel(ls: DshLanguageServer, params: JsonValue) -> None:
        try:
            request = parse_params(SessionRefParams, params, "dsh/cancel")
        except JsonRpcInvalidParams as exc:
            _log.warning("ignored dsh/cancel: %s", exc.message)
            return
        bridge = await state.bridge()
        bridge.cancel(request.session_id)

    register_commands(server, state.plain_client)
    register_code_actions(server)
    return server
