"""Work-done progress of a turn, for editors without a dsh plugin (server layer).

One server-initiated ``$/progress`` per turn (``window/workDoneProgress/create`` first):
``begin`` with ``cancellable: true`` (the editor's cancel button sends
``window/workDoneProgress/cancel``, which cancels the turn), one short ``report`` per tool
call ("Reading src/app.py", "Editing src/app.py") and, while a command runs, its latest
output line ("Running (4s): collected 12 items"), and ``end`` with how the turn ended.
Progress is a status line, never the answer: the text of the reply goes elsewhere.
"""

from __future__ import annotations

import logging
from typing import Final

from dsh_lsp.llm import JsonObject
from dsh_lsp.server.sessions import relative_path, relative_title
from dsh_lsp.server.wire import ClientChannel, ClientRequestError
from dsh_lsp.tools import ToolCallView, ToolKind

_log = logging.getLogger(__name__)

PROGRESS: Final = "$/progress"
CREATE: Final = "window/workDoneProgress/create"

_VERBS: Final[dict[ToolKind, str]] = {
    "read": "Reading",
    "edit": "Editing",
    "delete": "Deleting",
    "move": "Moving",
    "search": "Searching",
    "execute": "Running",
    "fetch": "Fetching",
}


def progress_message(view: ToolCallView, cwd: str | None) -> str:
    """A short message for a tool call: a verb and the file, relative to ``cwd`` (or the
    call's title, its paths relative to ``cwd``)."""
    verb = _VERBS.get(view.kind)
    if verb is None or not view.locations or view.kind in ("search", "execute"):
        return relative_title(view.title, cwd)
    return f"{verb} {relative_path(view.locations[0].path, cwd)}"


class TurnProgress:
    """One turn's work-done progress; ``start`` returns None when the client has none."""

    __slots__ = ("_channel", "_ended", "_last", "token")

    def __init__(self, channel: ClientChannel, token: str) -> None:
        self._channel = channel
        self.token = token
        self._last: str | None = None
        self._ended = False

    @classmethod
    async def start(
        cls, channel: ClientChannel, token: str, title: str, message: str
    ) -> TurnProgress | None:
        """Create the token and send ``begin``. Never raises but for cancellation."""
        try:
            await channel.request(CREATE, {"token": token})
        except ClientRequestError as exc:
            _log.info("the client refused a progress token: %s", exc)
            return None
        progress = cls(channel, token)
        progress._send({"kind": "begin", "title": title, "cancellable": True, "message": message})
        return progress

    def report(self, message: str) -> None:
        """A new status message (repeats are dropped)."""
        if not self._ended and message != self._last:
            self._last = message
            self._send({"kind": "report", "message": message})

    def end(self, message: str) -> None:
        """Close the progress (once)."""
        if not self._ended:
            self._ended = True
            self._send({"kind": "end", "message": message})

    def _send(self, value: JsonObject) -> None:
        self._channel.notify(PROGRESS, {"token": self.token, "value": value})
