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
from typing import Any, TypeVar

import anyio
from lsprotocol import types
from pydantic import BaseModel
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

M = TypeVar("M", bound=BaseModel)


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


Handler = Callable[[DshLanguageServer, M], Awaitable[JsonObject]]
"""A ``dsh/*`` request's handler: the connection's server and the validated params."""


def build_server(ctx: Context, load_plugins: LoadPlugins) -> DshLanguageServer:
    """A server whose agents live in the kernel behind ``ctx``; see the module docstring."""
    server = DshLanguageServer(ctx, load_plugins)
    state = server.state

    def dsh_request(method: str, model: type[M]) -> Callable[[Handler[M]], Handler[M]]:
        """Register the handler of ``method``: it gets the params validated as ``model``
        (else -32602 naming the field); a ``DshError`` it raises answers as its JSON-RPC
        error."""

        def register(handler: Handler[M]) -> Handler[M]:
            @server.feature(method)
            async def feature(ls: DshLanguageServer, params: JsonValue) -> JsonObject:
                request = parse_params(model, params, method)
                try:
                    return await handler(ls, request)
                except DshError as exc:
                    raise to_jsonrpc(exc) from None

            return handler

        return register

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

    @dsh_request("dsh/session/new", SessionNewParams)
    async def session_new(ls: DshLanguageServer, request: SessionNewParams) -> JsonObject:
        if request.cwd is not None and not await anyio.to_thread.run_sync(
            os.path.isdir, request.cwd
        ):
            raise JsonRpcInvalidParams(
                f"invalid params for dsh/session/new: params.cwd: {request.cwd!r} is not an "
                "existing folder; send the absolute path of the workspace (or leave cwd out)"
            )
        bridge = await state.bridge()
        return {"sessionId": await bridge.new_session(request.cwd)}

    @dsh_request("dsh/session/list", SessionListParams)
    async def session_list(ls: DshLanguageServer, request: SessionListParams) -> JsonObject:
        bridge = await state.bridge()
        return {"sessions": await bridge.list_sessions()}

    @dsh_request("dsh/session/resume", SessionRefParams)
    async def session_resume(ls: DshLanguageServer, request: SessionRefParams) -> JsonObject:
        bridge = await state.bridge()
        return {"sessionId": await bridge.resume(request.session_id)}

    @dsh_request("dsh/status", StatusParams)
    async def status(ls: DshLanguageServer, request: StatusParams) -> JsonObject:
        return dict(await state.status())

    @dsh_request("dsh/session/compact", SessionRefParams)
    async def session_compact(ls: DshLanguageServer, request: SessionRefParams) -> JsonObject:
        bridge = await state.bridge()
        result = await bridge.compact(request.session_id)
        assert isinstance(result, dict)
        return result

    @dsh_request("dsh/shell/allowedPrefixes", ShellPrefixesParams)
    async def shell_prefixes(ls: DshLanguageServer, request: ShellPrefixesParams) -> JsonObject:
        bridge = await state.bridge()
        setting = state.settings.permissions.shell_allow
        return {"prefixes": bridge.allowed_prefixes(request.cwd, setting)}

    @dsh_request("dsh/shell/revokePrefix", ShellRevokeParams)
    async def shell_revoke(ls: DshLanguageServer, request: ShellRevokeParams) -> JsonObject:
        bridge = await state.bridge()
        return {"revoked": bridge.revoke_prefix(request.cwd, request.prefix)}

    @dsh_request("dsh/prompt", PromptParams)
    async def prompt(ls: DshLanguageServer, request: PromptParams) -> JsonObject:
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
