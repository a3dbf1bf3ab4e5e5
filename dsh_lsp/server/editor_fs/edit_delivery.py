"""Edit delivery: send one ``workspace/applyEdit`` and verify it landed (server layer).

The verification rule. The editor's answer alone is not trusted:

- ``applied: false`` is an error the model reads and recovers from: ``FS_STALE_VERSION`` when
  the document moved on (its version changed, or the editor says so), ``FS_PERMISSION_DENIED``
  when the user was asked to confirm (the preview was declined), ``FS_IO_ERROR`` otherwise,
  with the editor's reason;
- ``applied: true`` is verified against the didChange that follows (or one that arrived
  before the answer; any state inside a didChange counts, so the user typing right after the
  edit landed does not hide it): the result's version names the state that showed the
  expected text. An edit the editor applied is never reported as failed because its
  didChange is slow (eglot sends it from an idle timer, at times only at the user's next
  keystroke): after ``settle`` seconds the answer is trusted, the mirror notes that the
  editor holds the expected text (``OpenDocuments.expect``) and the result carries a
  provisional version that the late didChange confirms. Only a client known to answer
  ``true`` for an edit it skipped (Neovim's built-in handler, without the dsh plugin, skips a
  versioned edit when the buffer is newer: ``EditCapabilities.skips_stale_silently``) gets
  ``FS_STALE_VERSION`` when no didChange shows the edit in time;
- a document the editor does not mirror to us (a closed file the edit opened in the
  background) cannot be checked; the answer is taken as it is.

The user's text is never overwritten: a versioned edit computed against an older buffer is
refused by the editor, and an edit only replaces its own small ranges.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Final

import anyio

from dsh_lsp.fs_tools import FsError
from dsh_lsp.llm import JsonObject

from .editor_connection import ApplyOutcome, EditorConnection

_log = logging.getLogger(__name__)

SETTLE_SECONDS: Final = 2.0
"""How long an ``applied: true`` edit is waited for in a didChange before the answer is
trusted (or, for a client that skips silently, refused)."""

_STALE_REASON: Final = re.compile(r"version|stale|newer|modified|changed", re.IGNORECASE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Delivery:
    """One edit to send: the params, and the text the document must show afterwards."""

    uri: str
    params: JsonObject
    expected: str
    """The whole text the editor's buffer holds once the edit applied."""
    version: int | None
    """The document version the edit was computed against (None: not versioned)."""
    confirm: bool
    """The user is asked to confirm the edit in a preview."""
    display_path: str


async def deliver(
    editor: EditorConnection, delivery: Delivery, *, settle: float = SETTLE_SECONDS
) -> str | None:
    """Send ``delivery`` and verify it (see the module docstring).

    Returns the version token of the document state that showed the expected text (a
    provisional one while its didChange is late), or None when the editor does not mirror
    the document. Raises FsError ``FS_STALE_VERSION``,
    ``FS_PERMISSION_DENIED`` or ``FS_IO_ERROR``; cancellation withdraws the request.
    """
    documents = editor.documents
    with documents.watch(delivery.uri, delivery.expected) as watch:
        outcome = await editor.apply_edit(delivery.params)
        if not outcome.applied:
            raise _refused(editor, delivery, outcome)
        if not watch.seen.is_set():
            if documents.get(delivery.uri) is None:
                return None
            with anyio.move_on_after(settle):
                await watch.seen.wait()
        if watch.closed:
            raise FsError(
                "FS_IO_ERROR",
                f"{delivery.display_path} was closed in the editor before the edit could be "
                "checked; read it again to see what it holds",
            )
        if watch.shown_at is None and editor.capabilities.skips_stale_silently:
            raise FsError(
                "FS_STALE_VERSION",
                f"the editor reported the edit of {delivery.display_path} as applied, but the "
                "document did not change that way (the editor skipped it: the buffer changed "
                "first). Read the file again, then redo the edit.",
            )
        if watch.shown_at is None:
            _log.info("%s: applied, its didChange is late; trusting the editor", delivery.uri)
            return documents.expect(delivery.uri, delivery.expected)
        return watch.shown_at


def _refused(editor: EditorConnection, delivery: Delivery, outcome: ApplyOutcome) -> FsError:
    document = editor.documents.get(delivery.uri)
    moved = (
        document is not None
        and delivery.version is not None
        and document.version != delivery.version
    )
    reason = outcome.failure_reason
    said = f" (the editor said: {reason})" if reason else ""
    shown = delivery.display_path
    if moved or (reason is not None and _STALE_REASON.search(reason)):
        return FsError(
            "FS_STALE_VERSION",
            f"{shown} changed in the editor before the edit arrived, so nothing was applied"
            f"{said}. Read it again, then redo the edit.",
        )
    if delivery.confirm:
        return FsError(
            "FS_PERMISSION_DENIED",
            f"the edit of {shown} was not applied: the user declined it in the editor{said}",
        )
    return FsError("FS_IO_ERROR", f"the editor did not apply the edit of {shown}{said}")
