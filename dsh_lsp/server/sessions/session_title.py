"""Session titles: the first line of the first thing the user typed (server layer).

A session is titled when its first prompt creates it (the title goes into the stored
header, so ``dsh/session/list`` shows it in every later process); a session stored without
one (an older log) is titled from its first logged user message while it is open.
Attachments (framed file text) never make a title.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from dsh_lsp.llm import ContentBlock, TextBlock
from dsh_lsp.session import SessionEvent

from .attachment_frame import attachment_link

MAX_TITLE: Final = 80
"""Characters a title may have; a longer first line is cut and ends with an ellipsis."""


def session_title(content: Iterable[ContentBlock]) -> str | None:
    """The title a prompt of ``content`` gives its session; None without typed text."""
    for block in content:
        if isinstance(block, TextBlock) and attachment_link(block.text) is None:
            line = block.text.strip().split("\n", 1)[0].strip()
            if line:
                return line if len(line) <= MAX_TITLE else line[: MAX_TITLE - 1] + "…"
    return None


def title_from_log(events: Iterable[SessionEvent]) -> str | None:
    """The title of a logged session: that of its first user message with typed text."""
    for event in events:
        if event.type != "user/message":
            continue
        blocks = event.data.get("content")
        texts = [
            TextBlock(text=str(block.get("text", "")))
            for block in (blocks if isinstance(blocks, list) else ())
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        title = session_title(texts)
        if title is not None:
            return title
    return None
