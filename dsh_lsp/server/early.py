"""The early ``initialize`` answer: written before pygls and lsprotocol are imported (server).

Importing ``lsprotocol.types`` (about a thousand attrs classes) and pygls costs most of the
server's start-up, and the editor waits for the ``initialize`` answer before it sends
anything else. So ``serve`` reads the first message itself (``answer_initialize``) with the
wire's framing; when it is an ordinary ``initialize`` request, it writes the answer from a
precomputed result (``initialize_result``: the capabilities pygls would announce for this
server, chosen by the client's position encodings and whether it speaks the dsh protocol; a
test keeps the two equal) and only then imports the protocol. The first message is still
handed to pygls, which records the client's capabilities and settings as usual; its own
answer to that request is dropped (``DshProtocol.answered_early``).

Anything unusual goes the ordinary way, answered by pygls: a first message that is not an
``initialize`` request, params of the wrong shape, or ``initializationOptions`` that
``parse_settings`` rejects (so the ``-32602`` naming the field comes from one place).
``ANSWERED`` is logged (debug) right after the early answer is written; the start-up
benchmark and the import-set test read it.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from dsh_lsp import __version__

from .wire import DEFAULT_MAX_BODY, FrameDecoder, encode_frame

if TYPE_CHECKING:
    from .wire import Connection, Frame

_log = logging.getLogger(__name__)

ANSWERED: Final = "initialize answered"
"""The debug log line written right after the early answer."""
SERVER_NAME: Final = "dsh-lsp"
DSH_PROTOCOL_VERSION: Final = 1
"""``wire.DSH_VERSION``, spelled here so the early answer imports no protocol module (a test
keeps them equal)."""
SERVER_CAPABILITIES: Final[dict[str, Any]] = {
    "version": DSH_PROTOCOL_VERSION,
    "sessionUpdates": True,
    "permissions": True,
    "prompt": {"text": True, "resourceLink": True},
    "sessions": {"new": True, "list": True, "resume": True},
    "cancel": True,
}
"""``capabilities.experimental.dsh`` of the ``initialize`` result."""
PLAIN_COMMANDS: Final = (
    "dsh.newSession",
    "dsh.prompt",
    "dsh.cancel",
    "dsh.resumeLast",
    "dsh.lastAnswer",
)
"""The ``workspace/executeCommand`` commands offered to clients without a dsh plugin."""
PLAIN_CODE_ACTION_KINDS: Final = ("quickfix", "")
_ENCODINGS: Final = frozenset({"utf-8", "utf-16", "utf-32"})
"""The position encodings pygls supports (the first one the client lists wins)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EarlyStart:
    """What ``answer_initialize`` read: the decoder (with any partial frame), the frames
    read so far (the first message included), the id of the ``initialize`` request
    answered early (None when pygls must answer it) and whether the input already ended."""

    decoder: FrameDecoder
    frames: tuple[Frame, ...]
    answered: str | int | None
    ended: bool


async def answer_initialize(
    connection: Connection, *, max_message_bytes: int = DEFAULT_MAX_BODY
) -> EarlyStart:
    """Read up to the first complete message; answer it when it is an ordinary
    ``initialize`` request (see the module docstring). Bodies over ``max_message_bytes``
    are skipped unread. Never raises for bad input."""
    decoder = FrameDecoder(max_body=max_message_bytes)
    frames: list[Frame] = []
    while not any(isinstance(frame, bytes) for frame in frames):
        data = await connection.receive()
        if not data:
            return EarlyStart(decoder=decoder, frames=tuple(frames), answered=None, ended=True)
        frames.extend(decoder.feed(data))
    first = next(frame for frame in frames if isinstance(frame, bytes))
    answer = _early_answer(first)
    answered = None
    if answer is not None:
        answered, result = answer
        body = {"jsonrpc": "2.0", "id": answered, "result": result}
        connection.write(encode_frame(json.dumps(body, separators=(",", ":")).encode()))
        _log.debug(ANSWERED)
    return EarlyStart(decoder=decoder, frames=tuple(frames), answered=answered, ended=False)


def _early_answer(body: bytes) -> tuple[str | int, dict[str, Any]] | None:
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not (
        isinstance(message, dict)
        and message.get("jsonrpc") == "2.0"
        and message.get("method") == "initialize"
    ):
        return None
    msg_id = message.get("id")
    params = message.get("params")
    if isinstance(msg_id, bool) or not isinstance(msg_id, str | int) or not _ordinary(params):
        return None
    assert isinstance(params, dict)
    options = params.get("initializationOptions")
    if options is not None and options != {}:
        from .settings import SettingsError, parse_settings

        try:
            parse_settings(options)
        except SettingsError:
            return None  # pygls answers -32602 naming the field
    return msg_id, initialize_result(params["capabilities"])


_OPTIONAL_FIELDS: Final[dict[str, type | tuple[type, ...]]] = {
    "processId": int,
    "rootUri": str,
    "rootPath": str,
    "clientInfo": dict,
    "locale": str,
    "trace": str,
    "workspaceFolders": list,
    "workDoneToken": (str, int),
}


def _ordinary(params: object) -> bool:
    """Whether ``params`` has the shape pygls will structure (top-level fields only)."""
    if not isinstance(params, dict) or not isinstance(params.get("capabilities"), dict):
        return False
    for name, kind in _OPTIONAL_FIELDS.items():
        value = params.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            return False
    folders = params.get("workspaceFolders") or ()
    return all(
        isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)
        for f in folders
    )


def initialize_result(capabilities: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` result for a client with these (JSON) capabilities: what pygls
    announces for this server (a test compares them), without importing pygls."""
    server: dict[str, Any] = {
        "positionEncoding": _position_encoding(capabilities),
        "textDocumentSync": {"openClose": True, "change": 2, "save": True},
    }
    if not _speaks_dsh(capabilities):
        server["codeActionProvider"] = {"codeActionKinds": list(PLAIN_CODE_ACTION_KINDS)}
        server["executeCommandProvider"] = {"commands": list(PLAIN_COMMANDS)}
    server["workspace"] = {
        "workspaceFolders": {"supported": True, "changeNotifications": True},
        "fileOperations": {},
    }
    server["experimental"] = {"dsh": SERVER_CAPABILITIES}
    return {"capabilities": server, "serverInfo": {"name": SERVER_NAME, "version": __version__}}


def _position_encoding(capabilities: dict[str, Any]) -> str:
    general = capabilities.get("general")
    encodings = general.get("positionEncodings") if isinstance(general, dict) else None
    for encoding in encodings if isinstance(encodings, list) else ():
        if encoding in _ENCODINGS:
            return str(encoding)
    return "utf-16"


def _speaks_dsh(capabilities: dict[str, Any]) -> bool:
    """``wire.client_features(...).session_updates`` on the JSON capabilities."""
    experimental = capabilities.get("experimental")
    dsh = experimental.get("dsh") if isinstance(experimental, dict) else None
    return (
        isinstance(dsh, dict)
        and dsh.get("version") == DSH_PROTOCOL_VERSION
        and dsh.get("sessionUpdates") is True
    )
