"""EditorIntel: the ``dsh/editor/*`` requests over the client channel (server layer).

One method per request. Each waits at most its deadline; a request given up on is withdrawn
(``$/cancelRequest``, by the channel) and its late answer is ignored. Answers are validated
(``answers``); an error answer or a malformed one raises ``EditorAnswerError``, no answer
in time ``EditorNoAnswerError``. Positions are in the connection's negotiated encoding.
"""

from __future__ import annotations

from typing import Final

import anyio

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.wire import ClientChannel, ClientRequestError

from .answers import (
    DocumentProblems,
    EditorAnswerError,
    EditorNoAnswerError,
    Place,
    Spot,
    SymbolInfo,
    read_diagnostics,
    read_hover,
    read_locations,
    read_symbols,
)
from .capabilities import EditorMethod, EditorMethods

PREFIX: Final = "dsh/editor/"


class EditorIntel:
    """The editor's language servers, as far as the client lends them; owns nothing."""

    __slots__ = ("_channel", "methods")

    def __init__(self, channel: ClientChannel, methods: EditorMethods) -> None:
        self._channel = channel
        self.methods = methods

    async def request(self, method: EditorMethod, params: JsonObject, seconds: float) -> JsonValue:
        """Send ``dsh/editor/<method>`` and wait at most ``seconds`` for the answer.

        Raises EditorNoAnswerError (no answer in time; the request is withdrawn),
        EditorAnswerError (an error answer, or a method the client does not answer)."""
        if method not in self.methods:
            raise EditorAnswerError(f"the editor does not answer dsh/editor/{method}")
        with anyio.move_on_after(seconds):
            try:
                return await self._channel.request(PREFIX + method, params)
            except ClientRequestError as exc:
                raise EditorAnswerError(str(exc)) from None
        raise EditorNoAnswerError(
            f"the editor did not answer dsh/editor/{method} within {seconds:g} s"
        )

    async def diagnostics(
        self,
        uri: str | None,
        *,
        seconds: float,
        version: int | None = None,
        timeout_ms: int = 0,
    ) -> tuple[DocumentProblems, ...]:
        """``dsh/editor/diagnostics`` for ``uri`` (None: every document); with ``version``
        the client may wait up to ``timeout_ms`` for that version's diagnostics. Raises
        like ``request``."""
        params: dict[str, JsonValue] = {}
        if uri is not None:
            params["uri"] = uri
            if version is not None:
                params["version"] = version
                params["timeoutMs"] = timeout_ms
        return read_diagnostics(await self.request("diagnostics", params, seconds))

    async def locations(
        self,
        method: EditorMethod,
        uri: str,
        spot: Spot,
        *,
        seconds: float,
        include_declaration: bool = True,
    ) -> tuple[Place, ...]:
        """``dsh/editor/definition`` or ``references`` at ``spot`` of ``uri``. Raises like
        ``request``."""
        params: dict[str, JsonValue] = {
            "textDocument": {"uri": uri},
            "position": {"line": spot.line, "character": spot.character},
        }
        if method == "references":
            params["includeDeclaration"] = include_declaration
        return read_locations(method, await self.request(method, params, seconds))

    async def symbols(self, query: str, *, seconds: float) -> tuple[SymbolInfo, ...]:
        """``dsh/editor/symbols``. Raises like ``request``."""
        return read_symbols(await self.request("symbols", {"query": query}, seconds))

    async def hover(self, uri: str, spot: Spot, *, seconds: float) -> str:
        """``dsh/editor/hover`` at ``spot`` of ``uri``. Raises like ``request``."""
        params: JsonObject = {
            "textDocument": {"uri": uri},
            "position": {"line": spot.line, "character": spot.character},
        }
        return read_hover(await self.request("hover", params, seconds))
