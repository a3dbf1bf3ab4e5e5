"""The client channel: what the bridge may send to the editor, and what the editor supports.

``ClientFeatures`` is read once from the ``initialize`` capabilities: the rich ``dsh``
protocol is opted into under ``capabilities.experimental.dsh`` (``version: 1`` plus
``sessionUpdates`` and ``permissions`` flags); any other client gets the standard-LSP
fallbacks. ``PyglsChannel`` implements ``ClientChannel`` over the pygls protocol: a
server→client request that is cancelled (the turn it belongs to was cancelled) is withdrawn
with ``$/cancelRequest``, and its late reply is ignored by ``DshProtocol``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol

import anyio
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from dsh_lsp.kernel import DshError
from dsh_lsp.llm import JsonObject, JsonValue

from .protocol import DshProtocol

DSH_VERSION: Final = 1
"""The version of the ``dsh`` protocol this server speaks."""


class ClientRequestError(DshError):
    """The client answered a server→client request with an error."""

    code: ClassVar[str] = "CLIENT_REQUEST_FAILED"


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientFeatures:
    """What the connected client opted into."""

    session_updates: bool = False
    """It handles ``dsh/session/update`` notifications."""
    permissions: bool = False
    """It answers ``dsh/requestPermission`` (else: ``window/showMessageRequest``)."""
    configuration: bool = False
    """It answers ``workspace/configuration``."""


def client_features(capabilities: types.ClientCapabilities) -> ClientFeatures:
    """Read ``ClientFeatures`` from the client's ``initialize`` capabilities."""
    experimental = capabilities.experimental
    dsh = experimental.get("dsh") if isinstance(experimental, Mapping) else None
    if not isinstance(dsh, Mapping) or dsh.get("version") != DSH_VERSION:
        dsh = {}
    workspace = capabilities.workspace
    return ClientFeatures(
        session_updates=dsh.get("sessionUpdates") is True,
        permissions=dsh.get("permissions") is True,
        configuration=bool(workspace is not None and workspace.configuration),
    )


class ClientChannel(Protocol):
    """The bridge's way to the editor."""

    @property
    def features(self) -> ClientFeatures:
        """What the client supports."""
        ...

    def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification; never raises."""
        ...

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        """Send a request and return the client's result as JSON.

        Raises ClientRequestError when the client answers with an error. Cancelling the
        caller withdraws the request (``$/cancelRequest``).
        """
        ...


class PyglsChannel:
    """``ClientChannel`` over a ``DshProtocol``."""

    __slots__ = ("_ids", "_protocol", "features")

    def __init__(self, protocol: DshProtocol, features: ClientFeatures) -> None:
        self._protocol = protocol
        self._ids = itertools.count(1)
        self.features = features

    def notify(self, method: str, params: JsonObject) -> None:
        """Send a notification (the connection drops it when the client is gone)."""
        typed = self._typed(method, params)
        if typed is params:  # a custom method: its params go out as the JSON they are
            self._protocol.notify_json(method, params)
        else:
            self._protocol.notify(method, typed)

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        """See ``ClientChannel.request``."""
        msg_id = f"dsh-{next(self._ids)}"
        future = self._protocol.send_request(method, self._typed(method, params), msg_id=msg_id)
        try:
            result = await asyncio.wrap_future(future)
        except anyio.get_cancelled_exc_class():
            future.cancel()
            self._protocol.withdraw(msg_id)
            self.notify(types.CANCEL_REQUEST, {"id": msg_id})
            raise
        except JsonRpcException as exc:
            raise ClientRequestError(
                f"the client answered {method} with error {exc.code}: {exc.message}"
            ) from None
        if result is None or isinstance(result, str | int | float | bool | dict | list):
            return result
        unstructured: JsonValue = self._protocol._converter.unstructure(result)
        return unstructured

    def _typed(self, method: str, params: JsonObject) -> object:
        """``params`` as lsprotocol's params type for a standard method (pygls serializes
        standard messages through their attrs types); custom methods keep the dict."""
        entry = types.METHOD_TO_TYPES.get(method)
        if entry is None or entry[2] is None:
            return params
        params_type: Any = entry[2]  # Any: lsprotocol's table mixes classes and aliases
        return self._protocol._converter.structure(params, params_type)
