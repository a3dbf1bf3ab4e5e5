"""The attachment frame: how an attached file travels in a user message, and back (server).

A ``resource_link`` the user attaches to a prompt reaches the model — and the session log —
as one text block holding the file's text in a frame that says where it came from::

    <attachment path="/abs/notes.md" lines="2-3" range="1:0-2:7" source="editor">
    …
    </attachment>

``path`` is the file (for a document that is no file, ``uri`` follows it with the document's
URI); ``lines`` (1-based, inclusive) and ``range`` (the LSP range as sent,
``line:character-line:character``, zero-based, in the negotiated position encoding) are
there when the user attached a range; ``source`` is ``editor`` (an open buffer, unsaved
changes included) or ``disk``. ``frame_attachment`` writes the frame; ``attachment_link``
reads a logged block back as the ``resource_link`` the user sent, so a replay shows the
attachment, not the file's text.
"""

from __future__ import annotations

import re
from typing import Final

from pygls.uris import from_fs_path

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.wire.params import Range

_OPEN: Final = re.compile(
    r'<attachment path="(?P<path>.*?)"(?: uri="(?P<uri>[^"]*)")?'
    r'(?: lines="(?P<first>\d+)-(?P<last>\d+)")?'
    r'(?: range="(?P<sl>\d+):(?P<sc>\d+)-(?P<el>\d+):(?P<ec>\d+)")?'
    r' source="(?:editor|disk)">'
)
_CLOSE: Final = "\n</attachment>"


def frame_attachment(
    *, path: str, uri: str, text: str, source: str, link_range: Range | None
) -> str:
    """The framed text of one attachment (see the module docstring)."""
    where = "" if uri.startswith("file:") else f' uri="{uri}"'
    span = ""
    if link_range is not None:
        start, end = link_range.start, link_range.end
        span = (
            f' lines="{start.line + 1}-{end.line + 1}"'
            f' range="{start.line}:{start.character}-{end.line}:{end.character}"'
        )
    return f'<attachment path="{path}"{where}{span} source="{source}">\n{text}{_CLOSE}'


def attachment_link(text: str) -> JsonObject | None:
    """The ``resource_link`` block a framed attachment came from; None for other text."""
    if not text.startswith("<attachment ") or not text.endswith(_CLOSE):
        return None
    header, newline, _ = text.partition("\n")
    found = _OPEN.fullmatch(header) if newline else None
    if found is None:
        return None
    uri = found["uri"] or from_fs_path(found["path"])
    if uri is None:
        return None
    link: dict[str, JsonValue] = {"type": "resource_link", "uri": uri}
    if found["sl"] is not None:
        link["range"] = _range(found["sl"], found["sc"], found["el"], found["ec"])
    elif found["first"] is not None:  # a frame without the exact range: whole lines
        link["range"] = _range(str(int(found["first"]) - 1), "0", found["last"], "0")
    return link


def _range(start_line: str, start_char: str, end_line: str, end_char: str) -> JsonObject:
    return {
        "start": {"line": int(start_line), "character": int(start_char)},
        "end": {"line": int(end_line), "character": int(end_char)},
    }
