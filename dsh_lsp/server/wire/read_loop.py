"""The read loop: bytes from the connection → frames → JSON → the protocol (server layer).

It replaces pygls's ``run_async`` so the server's owner (not pygls) runs it, inside the
kernel's lifetime, and so every kind of bad input gets an answer instead of a pop-up:

- a body that is not JSON is answered ``-32700`` (id ``null``), and so is one holding a
  number no float can hold (``1e400``) or ``NaN``/``Infinity``: nothing non-finite is ever
  echoed back; a JSON value that is not a JSON-RPC 2.0 object (not an object, ``jsonrpc``
  other than ``"2.0"``, a method that is not a string, an id that is not a string or an
  integer) is answered ``-32600`` (with its ``id`` when that id is usable);
- only the top-level object is a message: objects nested in params are data, whatever keys
  they hold;
- a bad header block is logged (a ``Content-Length`` that is no number is answered
  ``-32700``) and the decoder resynchronises on the next ``Content-Length:``;
- params that do not fit a known method are answered by ``DshProtocol`` while decoding;
- a body over ``max_message_bytes`` is skipped as it arrives, never buffered, and after a
  large body the collector runs and freed heap pages go back to the system (glibc's
  ``malloc_trim``), so a storm of rejected big requests gives its memory back at once.

``pump`` returns at end of input; the caller cancels it to stop earlier (``exit``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Final

from pygls.exceptions import JsonRpcException

from .framing import DEFAULT_MAX_BODY, BadHeader, Frame, FrameDecoder
from .protocol import IGNORED, DshProtocol
from .strict_json import strict_loads
from .transport import Connection

_log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
LARGE_BODY: Final = 1 << 20
"""After a body this large the garbage collector runs (see the module docstring)."""


async def pump(
    connection: Connection,
    protocol: DshProtocol,
    *,
    max_message_bytes: int = DEFAULT_MAX_BODY,
    decoder: FrameDecoder | None = None,
    frames: Sequence[Frame] = (),
    ended: bool = False,
) -> None:
    """Feed every message from ``connection`` to ``protocol`` until the input ends;
    ``frames`` already read with ``decoder`` go first (``ended``: nothing more follows).
    Without a ``decoder``, bodies over ``max_message_bytes`` are skipped unread."""
    decoder = decoder if decoder is not None else FrameDecoder(max_body=max_message_bytes)
    pending: Sequence[Frame] = frames
    while True:
        for frame in pending:
            if isinstance(frame, BadHeader):
                _log.warning("skipped a malformed message header: %s", frame.reason)
                if frame.reason == "Content-Length is not a number":
                    _reply_error(protocol, None, PARSE_ERROR, f"Parse error: {frame.reason}")
            else:
                dispatch(frame, protocol)
                if len(frame) >= LARGE_BODY:
                    del frame
                    _give_back_memory()
        data = b"" if ended else await connection.receive()
        if not data:
            _log.info("the client closed its output (end of input)")
            return
        pending = decoder.feed(data)


def _load_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, where there is one."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_TRIM: Final = _load_trim() if sys.platform.startswith("linux") else None


def _give_back_memory() -> None:
    """Collect cycles, then hand freed heap pages back to the system (glibc keeps large
    freed blocks otherwise, so a few big rejected requests would hold their size for good)."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


def dispatch(body: bytes, protocol: DshProtocol) -> None:
    """Decode one body and hand it to ``protocol``; never raises."""
    try:
        data = strict_loads(body)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        _log.warning("received a body that is not JSON: %s", str(exc)[:200])
        _reply_error(protocol, None, PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
        return
    problem = _envelope_problem(data)
    if problem is not None:
        msg_id = data.get("id") if isinstance(data, dict) else None
        if not _usable_id(msg_id):
            msg_id = None
        _log.warning("received JSON that is not a JSON-RPC 2.0 message: %s", problem)
        _reply_error(protocol, msg_id, INVALID_REQUEST, f"Invalid Request: {problem}")
        return
    try:
        message = protocol.structure_message(data)
    except JsonRpcException as exc:
        _log.warning("received a message that does not decode: %s", exc)
        return
    except Exception:
        _log.exception("structuring a message failed")
        return
    if message is IGNORED:
        return
    if isinstance(message, dict) or not hasattr(message, "jsonrpc"):
        _log.warning("received JSON that is not a JSON-RPC 2.0 message")
        return
    try:
        protocol.handle_message(message)
    except Exception:
        _log.exception("handling a message failed")


def _usable_id(value: object) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _envelope_problem(data: object) -> str | None:
    """Why ``data`` is no JSON-RPC 2.0 message, or None when its envelope is sound."""
    if not isinstance(data, dict):
        return "not a JSON-RPC message (not an object)"
    if "jsonrpc" not in data:
        return "not a JSON-RPC message (no jsonrpc field)"
    if data["jsonrpc"] != "2.0":
        return 'jsonrpc must be "2.0"'
    if "method" in data and not isinstance(data["method"], str):
        return "method must be a string"
    if "id" in data and data["id"] is not None and not _usable_id(data["id"]):
        return "id must be a string or an integer"
    if "method" in data and "id" in data and data["id"] is None:
        return "a request id must not be null"
    if "method" not in data and "id" not in data:
        return "neither a request, a notification nor a response"
    return None


def _reply_error(protocol: DshProtocol, msg_id: str | int | None, code: int, text: str) -> None:
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": text}})
