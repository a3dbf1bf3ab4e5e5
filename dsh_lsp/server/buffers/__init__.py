"""The buffers: the server's mirror of the documents the editor has open (server layer).

Above the wire, below everything that reads documents. ``DocumentSyncProtocol`` routes
``didOpen``/``didChange``/``didClose``/``didSave`` into ``OpenDocuments`` (``document_sync``,
``documents``), which keeps each document as LSP lines (``lsp_lines``) so an incremental
change costs a look-up and a splice; ``positions`` converts LSP positions in the negotiated
encoding (UTF-16, UTF-8, UTF-32) to Python string offsets and back.
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .document_sync import DocumentSyncProtocol as DocumentSyncProtocol
    from .documents import ContentChange as ContentChange
    from .documents import DocumentEvent as DocumentEvent
    from .documents import OpenDocument as OpenDocument
    from .documents import OpenDocuments as OpenDocuments
    from .lsp_lines import line_texts as line_texts
    from .positions import DEFAULT_ENCODING as DEFAULT_ENCODING
    from .positions import Position as Position
    from .positions import PositionEncoding as PositionEncoding
    from .positions import index_at as index_at
    from .positions import parse_encoding as parse_encoding
    from .positions import positions_at as positions_at
    from .positions import splits_crlf as splits_crlf

__all__ = _lazy_face(globals())
