"""Test support for the language server: a real server process, a pytest-lsp client that
collects ``dsh/*`` traffic, the scripted model server, and a raw JSON-RPC client.

Nothing here mocks our own layers: the server under test is ``python -m dsh_lsp`` talking to
the scripted OpenAI-compatible server over real HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypedDict

import anyio
import pytest_lsp
from anyio.abc import Process
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from dsh_lsp.server.wire import FrameDecoder, dict_params_converter, encode_frame
from dsh_lsp.testing import (
    Event,
    ScriptedResponse,
    ScriptedServer,
    Stall,
    StreamResponse,
    ToolCallSpec,
    delta_payload,
)

from .editor_model import EditorBehaviour, EditorModel, Notice

CLIENTS = ("neovim@v0.11", "visual-studio-code")
"""The bundled client capability sets every end-to-end module runs with."""

API_KEY = "sk-test-canary-7f3a9c"
"""The dummy key the server gets; it must never appear in traffic, logs or session files."""

RICH = {"dsh": {"version": 1, "sessionUpdates": True, "permissions": True}}
"""The ``experimental`` client capability that opts into the dsh protocol."""

# Any: decoded JSON payloads from the server; tests index into them.
Json = Any
PermissionResponder = Callable[[Json], Awaitable[Json]]


def stalled(text: str = "working on it") -> StreamResponse:
    """An answer that streams ``text`` and then stalls until the client goes away: once the
    text shows up as an update, the model request is known to be in flight."""
    return StreamResponse(steps=(Event(data=delta_payload({"content": text})), Stall(seconds=None)))


def capabilities(
    spec: str, *, rich: bool = True, save_documents: bool = False, experimental: Json = None
) -> types.ClientCapabilities:
    """The bundled capabilities of ``spec``, opted into the dsh protocol when ``rich``
    (answering ``dsh/saveDocuments`` too with ``save_documents``, as the dsh plugins do;
    ``experimental``, when given, replaces the whole ``experimental`` capability)."""
    caps = pytest_lsp.client_capabilities(spec)
    dsh = {**RICH["dsh"], "saveDocuments": True} if save_documents else RICH["dsh"]
    caps.experimental = experimental if experimental is not None else {"dsh": dsh} if rich else None
    return caps


async def _reject(params: Json) -> Json:
    return {"outcome": {"outcome": "selected", "optionId": "reject_once"}}


class DshClient(LanguageClient):
    """pytest-lsp's client plus collectors for ``dsh/session/update``, permission requests
    and message requests; ``changed`` fires after every collected message."""

    def __init__(self) -> None:
        super().__init__(converter_factory=dict_params_converter)
        self.updates: dict[str, list[Json]] = defaultdict(list)
        self.permission_requests: list[Json] = []
        self.message_requests: list[Json] = []
        self.save_requests: list[list[str]] = []
        """The URIs of every ``dsh/saveDocuments`` request, in order."""
        self.before_save: Callable[[list[str]], None] | None = None
        self.withdrawn: list[str] = []
        self.answer_permission: PermissionResponder = _reject
        self.answer_message: Callable[[Json], Awaitable[Json]] = self._dismiss
        self.editor = EditorModel(EditorBehaviour(save_loaded=True))
        """The editor half: buffers and the answer to ``workspace/applyEdit`` (files it
        loads only to apply an edit are saved, so disk checks of closed files hold)."""
        self.before_apply: Callable[[Json], Awaitable[None]] | None = None
        self._changed = anyio.Event()

    async def _dismiss(self, params: Json) -> Json:
        return None

    def tell(self, notices: Iterable[Notice]) -> None:
        """Send the didOpen/didChange notifications the editor owes the server."""
        converter = self.protocol._converter
        for notice in notices:
            if notice.method == types.TEXT_DOCUMENT_DID_OPEN:
                opened = converter.structure(notice.params, types.DidOpenTextDocumentParams)
                self.text_document_did_open(opened)
            else:
                changed = converter.structure(notice.params, types.DidChangeTextDocumentParams)
                self.text_document_did_change(changed)

    def type(self, uri: str, start: int, end: int, text: str) -> None:
        """The user replaces ``[start, end)`` of an open buffer with ``text`` (unsaved)."""
        self.tell([self.editor.type(uri, start, end, text)])

    def touched(self) -> None:
        """Wake whoever waits in ``until``."""
        self._changed.set()
        self._changed = anyio.Event()

    async def until(self, condition: Callable[[], bool], seconds: float = 20) -> None:
        """Wait until ``condition()`` holds (re-checked after every collected message)."""
        with anyio.fail_after(seconds):
            while not condition():
                await self._changed.wait()

    def kinds(self, session_id: str) -> list[str]:
        """The update kinds of ``session_id`` so far, in order."""
        return [u["kind"] for u in self.updates[session_id]]

    def text(self, session_id: str, kind: str = "agent_message_chunk") -> str:
        """The concatenated text of the session's chunks of ``kind``."""
        return "".join(u["text"] for u in self.updates[session_id] if u["kind"] == kind)

    def tool_calls(self, session_id: str) -> list[Json]:
        """Every ``tool_call`` payload (``update.toolCall``) of the session, in order."""
        return [u["toolCall"] for u in self.updates[session_id] if u["kind"] == "tool_call"]

    def cards(self, session_id: str) -> dict[str, Json]:
        """Each tool call's card as a client holds it after every ``tool_call`` upsert
        (later fields replace earlier ones), by call id in first-seen order."""
        cards: dict[str, Json] = {}
        for card in self.tool_calls(session_id):
            cards[card["toolCallId"]] = {**cards.get(card["toolCallId"], {}), **card}
        return cards

    def statuses(self, session_id: str, call_id: str) -> list[str]:
        """The statuses the updates of one card showed, in order."""
        return [c["status"] for c in self.tool_calls(session_id) if c["toolCallId"] == call_id]

    def states(self, session_id: str) -> list[Json]:
        """Every ``state_update`` of the session, in order."""
        return [u for u in self.updates[session_id] if u["kind"] == "state_update"]

    async def request(self, method: str, params: Json, msg_id: str | None = None) -> Json:
        """Send a request with dict params; returns the decoded result."""
        # pygls leaves send_request_async untyped.
        return await self.protocol.send_request_async(method, params, msg_id=msg_id)  # type: ignore[no-untyped-call]

    async def new_session(self, cwd: str | None = None) -> str:
        """``dsh/session/new``; returns the id."""
        params = {} if cwd is None else {"cwd": cwd}
        result = await self.request("dsh/session/new", params)
        return str(result["sessionId"])

    @asynccontextmanager
    async def prompting(
        self, session_id: str, text: str, *extra: Json
    ) -> AsyncIterator[dict[str, Json]]:
        """Run ``prompt`` in the background; the yielded dict gets ``result`` (or ``error``)
        when it answers, and leaving the block waits for that."""
        outcome: dict[str, Json] = {}

        async def run() -> None:
            try:
                outcome["result"] = await self.prompt(session_id, text, *extra)
            except JsonRpcException as exc:
                outcome["error"] = exc
            self.touched()

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            yield outcome

    async def prompt(self, session_id: str, text: str, *extra: Json) -> Json:
        """``dsh/prompt`` with one text block (plus ``extra`` blocks); returns the result."""
        blocks = [{"type": "text", "text": text}, *extra]
        return await self.request("dsh/prompt", {"sessionId": session_id, "prompt": blocks})


def make_client() -> DshClient:
    """A ``DshClient`` with pytest-lsp's default handlers and the dsh ones."""
    client = DshClient()
    register_lsp_features(client)

    @client.feature("dsh/session/update")  # type: ignore[untyped-decorator]  # pygls
    def on_update(ls: DshClient, params: Json) -> None:
        ls.updates[params["sessionId"]].append(params["update"])
        ls.touched()

    @client.feature("dsh/requestPermission")  # type: ignore[untyped-decorator]  # pygls
    async def on_permission(ls: DshClient, params: Json) -> Json:
        ls.permission_requests.append(params)
        ls.touched()
        try:
            return await ls.answer_permission(params)
        except anyio.get_cancelled_exc_class():
            ls.withdrawn.append(params["toolCall"]["toolCallId"])
            ls.touched()
            raise

    @client.feature("dsh/saveDocuments")  # type: ignore[untyped-decorator]  # pygls
    def on_save_documents(ls: DshClient, params: Json) -> Json:
        uris = [uri for uri in params["uris"] if uri in ls.editor.buffers]
        ls.save_requests.append(list(params["uris"]))
        if ls.before_save is not None:
            ls.before_save(uris)
        for uri in uris:  # as the dsh plugins do: write the buffer, then didSave
            ls.editor.save(uri)
            ls.text_document_did_save(
                types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
        ls.touched()
        return {"saved": uris}

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)  # type: ignore[untyped-decorator]  # pygls
    async def on_message_request(
        ls: DshClient, params: types.ShowMessageRequestParams
    ) -> types.MessageActionItem | None:
        payload = {
            "message": params.message,
            "actions": [a.title for a in params.actions or ()],
        }
        ls.message_requests.append(payload)
        ls.touched()
        title = await ls.answer_message(payload)
        return None if title is None else types.MessageActionItem(title=title)

    @client.feature(types.WORKSPACE_APPLY_EDIT)  # type: ignore[untyped-decorator]  # pygls
    async def on_apply_edit(
        ls: DshClient, params: types.ApplyWorkspaceEditParams
    ) -> types.ApplyWorkspaceEditResult:
        raw = ls.protocol._converter.unstructure(params)
        if ls.before_apply is not None:
            await ls.before_apply(raw)
        answer, notices = ls.editor.apply(raw)
        ls.tell(notices)
        ls.touched()
        return types.ApplyWorkspaceEditResult(
            applied=answer["applied"], failure_reason=answer.get("failureReason")
        )

    return client


class ModelScript:
    """The scripted model server shared by a module, with bookkeeping: each test enqueues
    exactly the answers it consumes (``check_consumed``)."""

    def __init__(self, server: ScriptedServer) -> None:
        self.server = server
        self.expected = 0

    @property
    def base_url(self) -> str:
        """The server's base URL."""
        return self.server.base_url

    def enqueue(self, *responses: ScriptedResponse) -> None:
        """Append answers to the script."""
        self.expected += len(responses)
        self.server.enqueue(*responses)

    def requests(self) -> list[Json]:
        """Every chat request body received so far."""
        return [request.json() for request in self.server.requests]

    def check_consumed(self) -> None:
        """Fail when a test left scripted answers unused (or used more than it queued)."""
        served = len(self.server.requests)
        assert served == self.expected, f"{self.expected} answers scripted, {served} requested"


def server_env(base_url: str, state: Path, **extra: str) -> dict[str, str]:
    """The environment of a server under test: scripted model, dummy key, isolated state."""
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("DEEPSEEK_", "XDG_"))
    }
    env.update(
        DEEPSEEK_BASE_URL=base_url,
        DEEPSEEK_API_KEY=API_KEY,
        XDG_STATE_HOME=str(state),
        XDG_DATA_HOME=str(state / "data"),
    )
    env.update(extra)
    return env


def server_command(spec: str, *args: str) -> list[str]:
    """``python -m dsh_lsp`` (VS Code appends ``--stdio``, so that client's runs do too)."""
    stdio = ("--stdio",) if spec.startswith("visual") else ()
    return [sys.executable, "-m", "dsh_lsp", *stdio, *args]


@dataclass(kw_only=True)
class Rig:
    """One running server with its client and directories."""

    client: DshClient
    model: ModelScript
    workspace: Path
    sessions: Path
    spec: str
    log: Path | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def uri(self, name: str) -> str:
        """The file URI of ``name`` inside the workspace."""
        return str(from_fs_path(str(self.workspace / name)))


class ServerOptions(TypedDict, total=False):
    """Keywords of ``running_server`` that configure a module's shared ``rig`` (a module
    overrides the ``rig_options`` fixture of ``conftest`` to set them)."""

    rich: bool
    init_options: Json
    configuration: Json
    save_documents: bool


@asynccontextmanager
async def running_server(
    spec: str,
    model: ModelScript,
    root: Path,
    *,
    rich: bool = True,
    init_options: Json = None,
    configuration: Json = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    shutdown: bool = True,
    save_documents: bool = False,
    experimental: Json = None,
    client: DshClient | None = None,
) -> AsyncIterator[Rig]:
    """Start a server, initialize it (workspace folder ``root/workspace``; initialization
    options ``init_options`` over the default ``sessionDir`` ``root/sessions``; the client
    answers ``dsh/saveDocuments`` with ``save_documents``), yield, then shut it down.
    ``experimental`` replaces the client's ``experimental`` capability; ``client`` is a
    client from ``make_client`` with more handlers registered."""
    workspace = root / "workspace"
    sessions = root / "sessions"
    workspace.mkdir(parents=True, exist_ok=True)
    options = {"sessionDir": str(sessions), **(init_options or {})}
    client = client if client is not None else make_client()
    if configuration is not None:
        client.set_configuration(configuration, section="dsh")
    base_env = server_env(model.base_url, root / "state")
    if env is not None:
        base_env.update(env)
    await client.start_io(*server_command(spec, *args), env=base_env)
    rig = Rig(client=client, model=model, workspace=workspace, sessions=sessions, spec=spec)
    try:
        rig.extra["initialize"] = result = await client.initialize_session(
            types.InitializeParams(
                capabilities=capabilities(
                    spec, rich=rich, save_documents=save_documents, experimental=experimental
                ),
                client_info=types.ClientInfo(name=client_name(spec)),
                workspace_folders=[
                    types.WorkspaceFolder(uri=str(from_fs_path(str(workspace))), name="ws")
                ],
                initialization_options=options,
            )
        )
        client.editor.behaviour = editor_behaviour(
            spec, result.capabilities.position_encoding, rich=rich
        )
        yield rig
        if shutdown:
            await client.shutdown_session()
    finally:
        await stop(client)


def client_name(spec: str) -> str:
    """The ``clientInfo.name`` the editor of ``spec`` sends."""
    if spec.startswith("neovim"):
        return "Neovim"
    if spec.startswith("visual-studio-code"):
        return "Visual Studio Code"
    return "Emacs" if spec == "emacs" else spec


async def stop(client: DshClient) -> None:
    """Stop the client; a server that is still running is told to ``exit`` first."""
    server = client._server
    if server is not None and server.returncode is None:
        client.exit(None)
    await client.stop()  # type: ignore[no-untyped-call]  # pygls leaves stop untyped


def editor_behaviour(spec: str, encoding: object, *, rich: bool = True) -> EditorBehaviour:
    """How the client's editor half answers edits: VS Code and the dsh Neovim plugin refuse
    a stale version, Neovim's built-in handler (no plugin: not ``rich``) skips it and reports
    success; positions in the negotiated encoding."""
    neovim = spec.startswith("neovim") and not rich
    return EditorBehaviour(
        encoding=str(getattr(encoding, "value", encoding) or "utf-16"),
        check_versions=not neovim,
        skip_stale=neovim,
        save_loaded=True,
    )


def open_document(client: DshClient, uri: str, text: str, version: int = 1) -> None:
    """``textDocument/didOpen`` (the client's editor half holds the buffer from now on)."""
    client.editor.open(uri, text, version=version)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="markdown", version=version, text=text
            )
        )
    )


def read_call(path: str, call_id: str = "r1") -> ToolCallSpec:
    """The model's ``read`` of ``path``."""
    return ToolCallSpec(id=call_id, name="read", arguments=json.dumps({"file_path": path}))


def edit_call(path: str, old: str, new: str, call_id: str = "e1") -> ToolCallSpec:
    """The model's ``edit`` of ``path``, replacing ``old`` by ``new``."""
    args = {"file_path": path, "old_string": old, "new_string": new}
    return ToolCallSpec(id=call_id, name="edit", arguments=json.dumps(args))


def open_workspace_file(rig: Rig, client: DshClient, name: str, text: str) -> str:
    """The workspace file ``name`` written with ``text`` (as is, no newline translation) and
    opened in ``client`` with the same text; its uri."""
    (rig.workspace / name).write_text(text, encoding="utf-8", newline="")
    uri = rig.uri(name)
    open_document(client, uri, text)
    return uri


def change_document(client: DshClient, uri: str, text: str, version: int) -> None:
    """``textDocument/didChange`` replacing the whole buffer (unsaved)."""
    buffer = client.editor.buffers.get(uri)
    if buffer is not None:
        buffer.text, buffer.version = text, version
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def last_user_text(body: Json) -> str:
    """The text of the last user message of a chat request body."""
    users = [m for m in body["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


class RawServer:
    """A server process driven with raw bytes: frames in, decoded JSON messages out."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self._decoder = FrameDecoder()
        self._pending: list[Json] = []

    def send_bytes(self, data: bytes) -> Awaitable[None]:
        """Write ``data`` as is."""
        assert self.process.stdin is not None
        return self.process.stdin.send(data)

    async def send(self, message: Json) -> None:
        """Frame and write one JSON message."""
        await self.send_bytes(encode_frame(json.dumps(message).encode()))

    async def receive(self, seconds: float = 20) -> Json:
        """The next message from the server."""
        assert self.process.stdout is not None
        with anyio.fail_after(seconds):
            while not self._pending:
                data = await self.process.stdout.receive()
                for frame in self._decoder.feed(data):
                    assert isinstance(frame, bytes), frame
                    self._pending.append(json.loads(frame))
        return self._pending.pop(0)

    async def response(self, msg_id: Json, seconds: float = 20) -> Json:
        """The response to ``msg_id``, skipping (and keeping) other messages."""
        seen: list[Json] = []
        while True:
            message = await self.receive(seconds)
            if message.get("id") == msg_id and "method" not in message:
                self._pending[:0] = seen
                return message
            seen.append(message)

    async def initialize(
        self, root: Path, capabilities: Json = None, options: dict[str, Json] | None = None
    ) -> Json:
        """``initialize`` + ``initialized`` (``options`` join the session directory's in the
        initialization options); returns the result."""
        await self.send(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "processId": None,
                    "rootUri": str(from_fs_path(str(root))),
                    "capabilities": capabilities or {"experimental": RICH},
                    "initializationOptions": {
                        "sessionDir": str(root / "sessions"),
                        **(options or {}),
                    },
                },
            }
        )
        result = await self.response("init")
        await self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return result

    async def close_input(self) -> None:
        """Close the server's stdin (end of input)."""
        assert self.process.stdin is not None
        await self.process.stdin.aclose()


@asynccontextmanager
async def raw_server(
    model: ModelScript,
    root: Path,
    args: Iterable[str] = (),
    *,
    python: Iterable[str] = (),
    stderr: IO[bytes] | int = subprocess.DEVNULL,
    **env: str,
) -> AsyncIterator[RawServer]:
    """A ``RawServer`` on a fresh process (``python`` holds interpreter options, e.g.
    ``-X importtime``); killed on exit if still running."""
    process = await anyio.open_process(
        [sys.executable, *python, "-m", "dsh_lsp", *args],
        env=server_env(model.base_url, root / "state", **env),
        stderr=stderr,
    )
    try:
        yield RawServer(process)
    finally:
        if process.returncode is None:
            process.kill()
        with anyio.CancelScope(shield=True):
            await process.wait()
