"""A lean HTTP/1.1 transport for httpx (llm layer): ``KeepAliveTransport`` under the model
adapters' ``httpx.AsyncClient``, with the pure framing it reads and writes by.

``framing`` is pure (request heads, response heads, body framing, the chunked decoder);
``transport`` is the anyio shell (the keep-alive pool and the response body stream).
"""

from __future__ import annotations

from .framing import MAX_HEAD_BYTES as MAX_HEAD_BYTES
from .framing import BodyFraming as BodyFraming
from .framing import BodyKind as BodyKind
from .framing import ChunkedDecoder as ChunkedDecoder
from .framing import FramingError as FramingError
from .framing import ResponseHead as ResponseHead
from .framing import body_framing as body_framing
from .framing import find_head_end as find_head_end
from .framing import parse_response_head as parse_response_head
from .framing import request_head as request_head
from .transport import KeepAliveTransport as KeepAliveTransport

__all__ = (
    "MAX_HEAD_BYTES",
    "BodyFraming",
    "BodyKind",
    "ChunkedDecoder",
    "FramingError",
    "KeepAliveTransport",
    "ResponseHead",
    "body_framing",
    "find_head_end",
    "parse_response_head",
    "request_head",
)
