"""DshProtocol: pygls's LSP protocol with the lifecycle and error answers LSP asks for (server).

Subclassing ``LanguageServerProtocol`` in one place fixes what pygls leaves open:

- a request for a *known* LSP method whose params do not structure is answered ``-32602``
  naming the field (``$.params.position: required field missing``) instead of never;
- a request before ``initialize`` is answered ``-32002``, a second ``initialize`` and any
  request after ``shutdown`` ``-32600``; notifications in those windows are dropped;
- a reply to a server→client request that was already cancelled is ignored (pygls would
  report ``InvalidStateError`` to the user);
- ``exit`` calls ``on_exit(code)`` instead of ``sys.exit`` (0 after ``shutdown``, else 1),
  so the owner of the event loop decides how the process ends;
- the ``initialize`` result carries ``capabilities.experimental`` from ``experimental``, and
  leaves the plugin-less commands and code actions out for clients of the dsh protocol.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import Any, Final

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import MsgId, RPCRequest

from dsh_lsp.llm import JsonObject

_log = logging.getLogger(__name__)


class Ignored:
    """Stands for a message that was already answered while it was being decoded."""

    jsonrpc: Final = "ignored"


IGNORED: Final = Ignored()
"""What ``structure_message`` returns for a message it answered itself."""


def field_errors(exc: BaseException) -> str:
    """The cattrs structuring failure ``exc`` as ``$.path: problem`` lines joined by ``; ``."""
    if isinstance(exc, cattrs.BaseValidationError):
        lines = []
        for line in cattrs.transform_error(exc):
            problem, _, path = line.rpartition(" @ ")
            lines.append(f"{path}: {problem}" if problem else line)
        return "; ".join(lines)
    return str(exc) or type(exc).__name__


def _no_exit_hook(code: int) -> None:
    _log.info("exit (code %d) with no owner to tell", code)


class DshProtocol(LanguageServerProtocol):
    """See the module docstring. ``on_exit`` and ``experimental`` are set by the server."""

    # Any: pygls's signatures are untyped.
    def __init__(self, server: Any, converter: cattrs.Converter) -> None:
        super().__init__(server, converter)
        self.initialize_seen = False
        self.exit_code: int | None = None
        self.on_exit: Callable[[int], None] = _no_exit_hook
        self.experimental: JsonObject = {}

    def structure_message(self, data: dict[str, Any]) -> Any:  # Any: decoded JSON in, message out
        """Structure one decoded JSON object; a request whose params do not fit its method's
        type is answered ``-32602`` here and comes back as ``IGNORED``."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            method = data.get("method")
            if not isinstance(method, str):
                raise
            problem = field_errors(exc.__cause__ or exc)
            if "id" in data:
                message = f"invalid params for {method}: {problem}"
                error = JsonRpcInvalidParams(message, data={"method": method})
                self._send_response(data["id"], error=error.to_response_error())
            else:
                _log.warning("dropped notification %s with invalid params: %s", method, problem)
            return IGNORED

    def handle_message(self, message: Any) -> None:  # Any: any structured message
        """Apply the lifecycle rules of the module docstring, then dispatch."""
        method = getattr(message, "method", None)
        is_request = isinstance(message, RPCRequest)
        if method == types.INITIALIZE and is_request:
            if self.initialize_seen:
                self._refuse(message.id, JsonRpcInvalidRequest("initialize was already sent"))
                return
            self.initialize_seen = True
        elif method is not None and method != types.EXIT:
            if not self.initialize_seen:
                if is_request:
                    self._refuse(
                        message.id,
                        JsonRpcServerNotInitialized(
                            f"{method} was sent before initialize; send initialize first"
                        ),
                    )
                else:
                    _log.info("dropped notification %s sent before initialize", method)
                return
            if self._shutdown:
                if is_request:
                    self._refuse(
                        message.id,
                        JsonRpcInvalidRequest(f"{method} was sent after shutdown"),
                    )
                return
        super().handle_message(message)

    def _refuse(self, msg_id: MsgId, error: JsonRpcException) -> None:
        self._send_response(msg_id, error=error.to_response_error())

    def _handle_response(
        self, msg_id: MsgId, result: Any | None = None, error: Any | None = None
    ) -> None:  # Any: pygls's response payloads
        future = self._request_futures.get(msg_id)
        if future is not None and future.done():
            self._request_futures.pop(msg_id, None)
            _log.debug("ignored a late reply to withdrawn request %s", msg_id)
            return
        super()._handle_response(msg_id, result, error)

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> Generator[Any, Any, None]:  # Any: pygls's handler protocol
        """Record the exit code and tell the owner; never exits the process itself."""
        self.exit_code = 0 if self._shutdown else 1
        self.on_exit(self.exit_code)
        yield from ()

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:  # Any: pygls's handler protocol
        """pygls's initialize plus ``capabilities.experimental``.

        A client that speaks the dsh protocol (``experimental.dsh.sessionUpdates``) is not
        offered the plugin-less ``dsh.*`` commands and code actions: its plugin has its own
        UI, and vscode-languageclient would otherwise register the server's commands under
        names the extension already owns (``dsh.newSession``) and fail to start. The
        commands still answer if such a client sends them.
        """
        from .channel import client_features  # channel imports this module

        result: types.InitializeResult = yield from super().lsp_initialize(params)
        result.capabilities.experimental = self.experimental
        if client_features(params.capabilities).session_updates:
            result.capabilities.execute_command_provider = None
            result.capabilities.code_action_provider = None
        return result
