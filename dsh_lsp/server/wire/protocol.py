"""DshProtocol: pygls's LSP protocol with the lifecycle and error answers LSP asks for (server).

Subclassing ``LanguageServerProtocol`` in one place fixes what pygls leaves open:

- a request for a *known* LSP method whose params do not structure is answered ``-32602``
  naming the field (``$.params.position: required field missing``) instead of never;
- a request before ``initialize`` is answered ``-32002``, a second ``initialize`` and any
  request after ``shutdown`` ``-32600``; notifications in those windows are dropped;
- server→client requests live in a table of their own (``_server_requests``), apart from
  pygls's table of client requests: a client request or ``$/cancelRequest`` whose id equals a
  pending server request id only ever touches client requests;
- a reply to a server→client request that was already cancelled is ignored (pygls would
  report ``InvalidStateError`` to the user); a reply that does not structure (``5`` for an
  ``ApplyWorkspaceEditResult``, an unknown envelope key) fails the waiting request with a
  ``JsonRpcInternalError`` and a log line, so the caller never waits for ever;
- a request sent before ``initialize`` is answered ``-32002`` even when its params do not
  fit its method;
- every outgoing body passes ``kernel.SECRETS`` (no registered secret reaches the client);
- nothing non-finite goes out: a message that would need ``NaN``/``Infinity`` is replaced by
  an internal error (for a response) or dropped with a log line;
- ``exit`` calls ``on_exit(code)`` instead of ``sys.exit`` (0 after ``shutdown``, else 1),
  so the owner of the event loop decides how the process ends;
- an ``initialize`` already answered before pygls loaded (``answered_early``) is not
  answered twice;
- the ``initialize`` result carries ``capabilities.experimental`` from ``experimental``, and
  leaves the plugin-less commands and code actions out for clients of the dsh protocol.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any, Final

import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import JsonRPCResponseMessage, LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import MsgId, RPCRequest

from dsh_lsp.kernel import SECRETS
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


def _is_id(value: object) -> bool:
    """Whether ``value`` can be a JSON-RPC id (a string or an integer, not a bool)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


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
        self.answered_early: MsgId | None = None
        """The ``initialize`` request the server answered before pygls loaded (its own
        answer to it is dropped once)."""
        self._server_requests: dict[MsgId, Future[Any]] = {}
        self._server_result_types: dict[MsgId, Any] = {}  # Any: attrs classes or None

    def structure_message(self, data: dict[str, Any]) -> Any:  # Any: decoded JSON in, message out
        """Structure one decoded JSON object; a request whose params do not fit its method's
        type is answered ``-32602`` here (``-32002`` before ``initialize``) and comes back as
        ``IGNORED``; so does a reply to a server request that does not structure, which fails
        that request instead."""
        method = data.get("method")
        if (
            "id" in data
            and isinstance(method, str)
            and method != types.INITIALIZE
            and not self.initialize_seen
        ):
            self._refuse(
                data["id"],
                JsonRpcServerNotInitialized(
                    f"{method} was sent before initialize; send initialize first"
                ),
            )
            return IGNORED
        if "id" in data and method is None and "error" not in data and "jsonrpc" in data:
            result_type = self._server_result_types.pop(data["id"], None)
            try:
                return self._converter.structure(data, result_type or JsonRPCResponseMessage)
            except Exception as exc:  # any structuring failure: the reply is unusable
                self._fail_server_request(data["id"], field_errors(exc))
                return IGNORED
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if not isinstance(method, str):
                if "id" in data:
                    self._fail_server_request(data["id"], field_errors(exc.__cause__ or exc))
                    return IGNORED
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

    # Any: pygls's response payloads
    def _send_response(self, msg_id: MsgId, result: Any | None = None, error: Any = None) -> None:
        """Send a response, except pygls's own answer to a request answered early."""
        if msg_id is not None and msg_id == self.answered_early:
            self.answered_early = None
            if error is not None:
                _log.error("initialize was answered early, but pygls refused it: %s", error)
            return
        super()._send_response(msg_id, result, error)

    def _refuse(self, msg_id: MsgId, error: JsonRpcException) -> None:
        self._send_response(msg_id, error=error.to_response_error())

    def _fail_server_request(self, msg_id: Any, problem: str) -> None:  # Any: a raw JSON id
        future = None
        if _is_id(msg_id):
            future = self._server_requests.pop(msg_id, None)
            self._server_result_types.pop(msg_id, None)
        if future is None or future.done():
            _log.warning("dropped a malformed reply to unknown request %r: %s", msg_id, problem)
            return
        _log.warning("the client's reply to request %s is malformed: %s", msg_id, problem)
        future.set_exception(JsonRpcInternalError(f"malformed reply: {problem}"))

    def send_request(
        self,
        method: str,
        params: Any | None = None,  # Any: pygls's params payloads
        callback: Callable[[Any], None] | None = None,
        msg_id: MsgId | None = None,
    ) -> Future[Any]:
        """pygls's ``send_request``, with the future kept in the server-request table."""
        future = super().send_request(method, params, callback, msg_id)
        for key, value in list(self._request_futures.items()):
            if value is future:
                del self._request_futures[key]
                self._server_requests[key] = future
                self._server_result_types[key] = self._result_types.pop(key, None)
                break
        return future

    def withdraw(self, msg_id: MsgId) -> None:
        """Forget the pending server request ``msg_id`` (its late reply is ignored)."""
        self._server_requests.pop(msg_id, None)
        self._server_result_types.pop(msg_id, None)

    def _handle_response(
        self, msg_id: MsgId, result: Any | None = None, error: Any | None = None
    ) -> None:  # Any: pygls's response payloads
        future = self._server_requests.pop(msg_id, None)
        if future is None:
            _log.info("ignored a reply to unknown or withdrawn request %r", msg_id)
            return
        if future.done():
            _log.debug("ignored a late reply to withdrawn request %s", msg_id)
            return
        if error is not None:
            future.set_exception(JsonRpcException.from_error(error))
        else:
            future.set_result(result)

    def notify_json(self, method: str, params: JsonObject) -> None:
        """Send a notification whose params are plain JSON (a custom method's), encoded as
        they are: pygls's ``notify`` would build an attrs message and walk the params through
        cattrs, which costs more than the rest of an update's path. Same wire form, secrets
        and non-finite rules as ``_send_data``; dropped when no client is connected."""
        if self.writer is None:
            return
        _log.debug("Sending notification: '%s' %s", method, params)  # as pygls's notify
        try:
            body = json.dumps(
                {"jsonrpc": "2.0", "method": method, "params": params},
                default=self._serialize_message,
                allow_nan=False,
            )
        except ValueError:
            _log.error("dropped an outgoing message holding a non-finite number")
            return
        self._write_body(body)

    def _send_data(self, data: Any) -> None:  # Any: a pygls message object or a dict
        """pygls's ``_send_data`` without ``NaN``/``Infinity`` (see the module docstring) and
        without logging every body."""
        if not data or self.writer is None:
            return
        try:
            body = json.dumps(data, default=self._serialize_message, allow_nan=False)
        except ValueError:
            msg_id = getattr(data, "id", None)
            _log.error("dropped an outgoing message holding a non-finite number")
            if not _is_id(msg_id) or getattr(data, "method", None) is not None:
                return
            error = {"code": JsonRpcInternalError.CODE, "message": "a non-finite number"}
            body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": error})
        self._write_body(body)

    def _write_body(self, body: str) -> None:
        """Frame ``body`` (after ``kernel.SECRETS``) and hand it to the writer."""
        assert self.writer is not None
        encoded = SECRETS.redact(body).encode(self.CHARSET)
        header = (
            f"Content-Length: {len(encoded)}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
        ).encode("ascii")
        self.writer.write(header + encoded)

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
