"""EditorConnection: what the editor-backed filesystem needs from the editor (server layer).

Three things: the mirror of the open documents, the client's edit capabilities, and the two
requests that change files, ``workspace/applyEdit`` and (for editor plugins that opt in)
``dsh/saveDocuments``. ``ChannelEditor`` implements it over the connection's
``ClientChannel``; tests implement it with a scripted in-process editor, so the provider runs
the same code either way.

``dsh/saveDocuments``: params ``{"uris": [...]}``, result ``{"saved": [...]}`` (the URIs the
editor saved; a document it could not save is left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from dsh_lsp.fs_tools import FsError
from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.buffers import OpenDocuments
from dsh_lsp.server.wire import ClientChannel, ClientRequestError

from .capabilities import EditCapabilities

APPLY_EDIT: Final = "workspace/applyEdit"
SAVE_DOCUMENTS: Final = "dsh/saveDocuments"


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplyOutcome:
    """The client's ``ApplyWorkspaceEditResult``."""

    applied: bool
    failure_reason: str | None = None


class EditorConnection(Protocol):
    """The editor as the editor-backed filesystem sees it."""

    @property
    def documents(self) -> OpenDocuments:
        """The mirror of the documents open in the editor."""
        ...

    @property
    def capabilities(self) -> EditCapabilities:
        """What the client can do with edits."""
        ...

    async def apply_edit(self, params: JsonObject) -> ApplyOutcome:
        """Send ``workspace/applyEdit`` with ``params`` and return the client's answer (an
        error answer is a refusal with its message as the reason). Cancelling the caller
        withdraws the request; the editor may still apply the edit.
        """
        ...

    async def save_documents(self, uris: Sequence[str]) -> tuple[str, ...]:
        """Ask the editor to save ``uris``; returns the ones it saved (none when the client
        cannot). Raises FsError ``FS_IO_ERROR`` when the client answers with an error."""
        ...


class ChannelEditor:
    """``EditorConnection`` over a ``ClientChannel``; owns nothing."""

    __slots__ = ("_channel", "capabilities", "documents")

    def __init__(
        self, channel: ClientChannel, documents: OpenDocuments, capabilities: EditCapabilities
    ) -> None:
        self._channel = channel
        self.documents = documents
        self.capabilities = capabilities

    async def apply_edit(self, params: JsonObject) -> ApplyOutcome:
        """See ``EditorConnection.apply_edit``; an error answer counts as a refusal with its
        message as the reason (eglot refuses a stale edit with an error, not with
        ``applied: false``), so a stale edit reads the same from every editor."""
        try:
            answer = await self._channel.request(APPLY_EDIT, params)
        except ClientRequestError as exc:
            return ApplyOutcome(applied=False, failure_reason=str(exc))
        return apply_outcome(answer)

    async def save_documents(self, uris: Sequence[str]) -> tuple[str, ...]:
        """See ``EditorConnection.save_documents``."""
        if not self.capabilities.save_documents or not uris:
            return ()
        answer = await self._request(SAVE_DOCUMENTS, {"uris": list(uris)})
        saved = answer.get("saved") if isinstance(answer, dict) else None
        if not isinstance(saved, list):
            return ()
        return tuple(uri for uri in saved if isinstance(uri, str))

    async def _request(self, method: str, params: JsonObject) -> JsonValue:
        try:
            return await self._channel.request(method, params)
        except ClientRequestError as exc:
            raise FsError("FS_IO_ERROR", f"the editor could not do it: {exc}", cause=exc) from None


def apply_outcome(answer: JsonValue) -> ApplyOutcome:
    """Read an ``ApplyWorkspaceEditResult``; anything unreadable counts as not applied."""
    if not isinstance(answer, dict):
        return ApplyOutcome(applied=False, failure_reason="the editor sent no result")
    reason = answer.get("failureReason")
    return ApplyOutcome(
        applied=answer.get("applied") is True,
        failure_reason=reason if isinstance(reason, str) and reason else None,
    )
