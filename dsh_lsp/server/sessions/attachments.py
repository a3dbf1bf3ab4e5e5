"""Prompt content: ``dsh/prompt`` blocks to model content, attachments read (server layer).

A ``text`` block becomes a text block. A ``resource_link`` (a file, or a range of it, the user
attached as context) becomes a text block holding that text, framed so the model knows where
it came from (``attachment_frame``)::

    <attachment path="/abs/path.py" lines="3-7" range="2:0-6:12" source="editor">
    …
    </attachment>

The text comes from the editor's buffer when the document is open (unsaved changes
included; ``source="editor"``) and from disk otherwise (``source="disk"``). A range is
interpreted in the position encoding negotiated with the client.

A disk read is bounded whatever the link names: the file is opened once without blocking
(a FIFO or a device never hangs the prompt), must be a regular file by ``fstat`` of the
opened descriptor, and at most ``MAX_ATTACHMENT_BYTES + 1`` bytes are read (``/dev/zero``
or a file that grows cost no more than the limit).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Final

import anyio
import anyio.to_thread
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument, Workspace

from dsh_lsp.llm import ContentBlock, TextBlock
from dsh_lsp.server.wire import Range, ResourceLinkContent, TextContent

from .attachment_frame import frame_attachment

MAX_ATTACHMENT_BYTES: Final = 1 << 20
"""The largest file read from disk for an attachment."""


async def prompt_content(
    blocks: Sequence[TextContent | ResourceLinkContent], workspace: Workspace
) -> tuple[ContentBlock, ...]:
    """The model content for a prompt.

    Raises JsonRpcInvalidParams (-32602) for an attachment that cannot be read and for a
    prompt with neither text nor attachments.
    """
    content: list[ContentBlock] = []
    for index, block in enumerate(blocks):
        if isinstance(block, TextContent):
            if block.text:
                content.append(TextBlock(text=block.text))
        else:
            content.append(await _attachment(block, workspace, index))
    if not content:
        raise JsonRpcInvalidParams(
            "invalid params for dsh/prompt: params.prompt: needs non-empty text or a resource_link"
        )
    return tuple(content)


async def _attachment(link: ResourceLinkContent, workspace: Workspace, index: int) -> TextBlock:
    document = workspace.text_documents.get(link.uri)
    source = "editor"
    if document is None:
        source = "disk"
        path = to_fs_path(link.uri) if link.uri.startswith("file:") else None
        if path is None:
            raise _unreadable(index, link.uri, "only file: URIs can be read from disk")
        # The file layer loads after ``initialize`` was answered (this module loads before).
        from dsh_lsp.fs_tools import FsError
        from dsh_lsp.fs_tools.provider_kit import read_regular

        try:
            read = partial(read_regular, max_bytes=MAX_ATTACHMENT_BYTES, verb="an attachment")
            loaded = await anyio.to_thread.run_sync(read, path, path, abandon_on_cancel=True)
        except FsError as exc:
            raise _unreadable(index, link.uri, str(exc)) from None
        data = loaded.data
        document = TextDocument(
            link.uri,
            source=data.decode("utf-8", errors="replace"),
            position_codec=workspace.position_codec,
        )
    text = document.source
    if link.range is not None:
        text = document.text_in_client_range(_lsp_range(link.range))
    framed = frame_attachment(
        path=document.path, uri=link.uri, text=text, source=source, link_range=link.range
    )
    return TextBlock(text=framed)


def _lsp_range(value: Range) -> types.Range:
    return types.Range(
        start=types.Position(line=value.start.line, character=value.start.character),
        end=types.Position(line=value.end.line, character=value.end.character),
    )


def _unreadable(index: int, uri: str, why: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(
        f"invalid params for dsh/prompt: params.prompt[{index}].uri: cannot read {uri!r}: {why}"
    )
