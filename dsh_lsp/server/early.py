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

While the rest of the server loads (``serve`` imports it in a worker thread), the editor is
not kept waiting for its first session either: ``answer_sessions`` answers every ordinary
``dsh/session/new`` itself (params ``{}``, ``null`` or ``{"cwd": <an existing folder>}``)
with a fresh id, recorded as an ``EarlySession``; the server's bridge reserves exactly that
session (id, cwd, creation time) before its start-up reports ready, and a reservation writes
nothing, so the session is the one the ordinary path would have made. Notifications
(``initialized`` among them) are kept for pygls in their order; the first other message
(``dsh/prompt``, a session/new with any other params, ``shutdown``, ``exit``, ...) ends the
light path, and it and everything after it wait for the server, so every error comes from
the ordinary handlers. ``ReadAhead`` makes the connection's reads cancel-safe for that hand-over.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import anyio

from dsh_lsp import __version__

from .wire import DEFAULT_MAX_BODY, FrameDecoder, encode_frame, strict_loads

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
    sessions: tuple[EarlySession, ...] = ()
    """The ``dsh/session/new`` requests ``answer_sessions`` answered (their frames are not
    in ``frames``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EarlySession:
    """A session reserved by ``answer_sessions``: the id it answered, the ``cwd`` asked
    for (None: the first workspace folder) and when (milliseconds since the epoch)."""

    session_id: str
    cwd: str | None
    created_at: int


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


SESSION_NEW: Final = "dsh/session/new"
_ENVELOPE: Final = frozenset({"jsonrpc", "id", "method", "params"})


class ReadAhead:
    """A ``Connection`` whose reads are made by a task of its own (``run``), one read ahead
    of the reader, so a reader may stop waiting (``wait`` cancelled) without losing what a
    read brings. Reads still wait for the reader, so nothing piles up."""

    __slots__ = ("_connection", "_data", "_taken", "_wake")

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._data: bytes | None = None
        self._wake = anyio.Event()
        self._taken = anyio.Event()

    @property
    def raw(self) -> Connection:
        """The connection read from (only before ``run`` starts)."""
        return self._connection

    @property
    def lost(self) -> bool:
        """True once a write failed because the peer is gone."""
        return self._connection.lost

    async def run(self) -> None:
        """Read until the input ends (the owner cancels it to stop earlier)."""
        while True:
            data = await self._connection.receive()
            self._taken = anyio.Event()
            self._data = data
            self._wake.set()
            if not data:
                return
            await self._taken.wait()

    def take(self) -> bytes | None:
        """The bytes read ahead (``b""`` once the input ended), or None when none are ready."""
        data = self._data
        if data:
            self._data = None
            self._taken.set()
        return data

    def nudge(self) -> None:
        """Wake a ``wait`` now (the server finished loading)."""
        self._wake.set()

    async def wait(self) -> None:
        """Until bytes are ready or ``nudge`` was called (since the last wait)."""
        await self._wake.wait()
        self._wake = anyio.Event()

    async def receive(self) -> bytes:
        """The next bytes; ``b""`` once the input ended."""
        while (data := self.take()) is None:
            await self.wait()
        return data

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the client; never raises."""
        self._connection.write(data)

    async def aclose(self) -> None:
        """Close the connection; never raises."""
        await self._connection.aclose()


async def answer_sessions(
    connection: ReadAhead, start: EarlyStart, loaded: anyio.Event
) -> EarlyStart:
    """Answer ordinary ``dsh/session/new`` requests until ``loaded`` is set or a message
    needs the server (see the module docstring); returns what pygls gets: the frames to
    handle, in order, and the sessions reserved. Never raises for bad input."""
    if start.answered is None or start.ended:
        return start
    handed: list[Frame] = []
    sessions: list[EarlySession] = []
    queue = list(start.frames)
    first = next(i for i, frame in enumerate(queue) if isinstance(frame, bytes))
    handed.extend(queue[: first + 1])
    queue = queue[first + 1 :]
    ended = False
    while True:
        while queue:
            frame = queue.pop(0)
            verdict = _light(frame, connection)
            if isinstance(verdict, EarlySession):
                sessions.append(verdict)
                continue
            handed.append(frame)
            if not verdict:  # the server answers this one and everything after it
                handed.extend(queue)
                return _handed(start, handed, sessions, ended=False)
        if loaded.is_set():
            break
        data = connection.take()
        if data is None:
            await connection.wait()
            continue
        if not data:
            ended = True
            break
        queue.extend(start.decoder.feed(data))
    return _handed(start, handed, sessions, ended=ended)


def _handed(
    start: EarlyStart, frames: list[Frame], sessions: list[EarlySession], *, ended: bool
) -> EarlyStart:
    return EarlyStart(
        decoder=start.decoder,
        frames=tuple(frames),
        answered=start.answered,
        ended=ended,
        sessions=tuple(sessions),
    )


def _light(frame: Frame, connection: ReadAhead) -> EarlySession | bool:
    """An ordinary ``dsh/session/new`` answered (its reservation); True for a notification
    pygls may handle later; False for anything the server must answer now."""
    if not isinstance(frame, bytes):
        return False
    try:
        message = strict_loads(frame)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return False
    method = message.get("method")
    if "id" not in message:
        return isinstance(method, str) and method != "exit"
    msg_id = message["id"]
    if method != SESSION_NEW or isinstance(msg_id, bool) or not isinstance(msg_id, str | int):
        return False
    if not message.keys() <= _ENVELOPE:
        return False
    ordinary, cwd = ordinary_session_params(message.get("params"))
    if not ordinary:
        return False
    session = EarlySession(
        session_id=new_session_id(), cwd=cwd, created_at=time.time_ns() // 1_000_000
    )
    body = {"jsonrpc": "2.0", "id": msg_id, "result": {"sessionId": session.session_id}}
    connection.write(encode_frame(json.dumps(body, separators=(",", ":")).encode()))
    _log.debug("answered %s early: %s", SESSION_NEW, session.session_id)
    return session


def ordinary_session_params(params: object) -> tuple[bool, str | None]:
    """(True, the cwd or None) for ``dsh/session/new`` params the ordinary handler accepts
    as they are; (False, None) when it must look at them (and answer any error)."""
    if params is None:
        return True, None
    if not isinstance(params, dict) or not params.keys() <= {"cwd"}:
        return False, None
    cwd = params.get("cwd")
    if cwd is None:
        return True, None
    if not isinstance(cwd, str) or not cwd:
        return False, None
    try:
        cwd.encode("utf-8")  # an unpaired surrogate cannot be stored
    except UnicodeEncodeError:
        return False, None
    return (True, cwd) if os.path.isdir(cwd) else (False, None)


def new_session_id() -> str:
    """A fresh random session id: a UUID4 string, as ``dsh_lsp.session.new_session_id``
    makes (spelled here so the early path imports no ``uuid``/``platform``)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
