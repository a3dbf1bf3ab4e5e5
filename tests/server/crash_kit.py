"""The kill -9 crash kit: SIGKILL a real ``dsh-lsp`` mid-turn, restart, check what survived.

Shared by ``tests/server/test_crash.py`` (a quick seeded run) and ``bench/crash.py`` (the
figures). Everything is real: ``python -m dsh_lsp`` over stdio, driven with raw JSON-RPC
frames, and the scripted model server over HTTP on 127.0.0.1.

One *trial*: start a server on the shared session directory (``sessionStore`` jsonl or
sqlite, edits asked for), open a session and send two prompts whose turns write, read and
edit a file (each write and edit asks permission, which the client grants) and stream text,
and SIGKILL the process right after the client received its ``kill_at``-th message (counted
from the ``initialize`` answer on; a trial that ends first is killed after its last
answer). Kill points are chosen by a seeded RNG, never by time. What the client was told
is recorded: the session id, every ``user_message``, every tool call shown ``completed`` or
``failed``, every prompt answer.

Then a long-lived *checker* server on the same directory lists the sessions, resumes the
trial's session, and the kit checks: a session the client saw any update of is listed and
resumes (else it is *lost*); every recorded user message, finished tool call and answer is
in the replay (each missing one is a *lost event*); the replay closes every turn and every
tool call it opens, and a new prompt is answered ``end_turn`` from a model request whose
transcript is valid (each tool call answered by its tool message, nothing unanswered, no
stray results) — any failure is an *invalid transcript*. No temporary file may remain in
the session directory.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import anyio
from anyio.abc import Process
from pygls.uris import from_fs_path

from dsh_lsp.server.wire import FrameDecoder, encode_frame
from dsh_lsp.testing import ScriptedServer, StreamResponse, ToolCallSpec, completion

from .support import RICH, server_env

Store = Literal["jsonl", "sqlite"]
# Any: decoded JSON-RPC messages; the kit indexes into them.
Json = Any

NOTES = "notes.txt"


class Killed(Exception):
    """The trial reached its kill point (the process is dead)."""


def _call(call_id: str, name: str, **args: str) -> ToolCallSpec:
    return ToolCallSpec(id=call_id, name=name, arguments=json.dumps(args))


def trial_script(trial: int) -> list[StreamResponse]:
    """The model's answers for one trial's two prompts (call ids unique per trial)."""
    tag = f"t{trial}"
    story = " ".join(f"word{i}" for i in range(40))
    return [
        completion(
            text="I will write the notes first.",
            tool_calls=[_call(f"{tag}w", "write", file_path=NOTES, content="alpha\nbeta\n")],
        ),
        completion(reasoning="Check it.", tool_calls=[_call(f"{tag}r", "read", file_path=NOTES)]),
        completion(
            tool_calls=[
                _call(f"{tag}e", "edit", file_path=NOTES, old_string="beta", new_string="gamma")
            ]
        ),
        completion(text=f"Done: {story}.", piece_size=6),
        completion(
            reasoning="A second file.",
            tool_calls=[_call(f"{tag}x", "write", file_path=f"{tag}.txt", content="x\n")],
        ),
        completion(text="Second answer, also streamed in pieces.", piece_size=5),
    ]


PROMPTS = ("Write notes, then fix them.", "And one more file.")


@dataclass(slots=True)
class Seen:
    """What the client of a trial was told before the kill."""

    session_id: str | None = None
    updates: int = 0
    user_messages: list[str] = field(default_factory=list)
    finished_calls: dict[str, str] = field(default_factory=dict)
    answers: list[str] = field(default_factory=list)
    messages: int = 0


@dataclass(slots=True)
class Verdict:
    """The check of one trial."""

    session_lost: bool = False
    events_lost: int = 0
    invalid: list[str] = field(default_factory=list)
    stray_files: list[str] = field(default_factory=list)
    """Temporary files found in the session directory."""


@dataclass(slots=True)
class Figures:
    """The totals of a run."""

    kills: int = 0
    sessions_seen: int = 0
    sessions_lost: int = 0
    events_seen: int = 0
    events_lost: int = 0
    invalid_transcripts: int = 0
    stray_files: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, trial: int, kill_at: int, seen: Seen, verdict: Verdict) -> None:
        """Count one trial."""
        self.kills += 1
        if seen.updates:
            self.sessions_seen += 1
        self.events_seen += len(seen.user_messages) + len(seen.finished_calls) + len(seen.answers)
        self.sessions_lost += verdict.session_lost
        self.events_lost += verdict.events_lost
        self.invalid_transcripts += bool(verdict.invalid)
        self.stray_files += len(verdict.stray_files)
        where = f"trial {trial} (killed after message {kill_at})"
        if verdict.session_lost:
            self.problems.append(f"{where}: session {seen.session_id} lost")
        if verdict.events_lost:
            self.problems.append(f"{where}: {verdict.events_lost} client-visible events lost")
        self.problems.extend(f"{where}: {problem}" for problem in verdict.invalid)
        self.problems.extend(f"{where}: temp file {name} remains" for name in verdict.stray_files)

    @property
    def clean(self) -> bool:
        """Every must-be-zero figure is zero."""
        return not (
            self.sessions_lost or self.events_lost or self.invalid_transcripts or self.stray_files
        )


class Proc(Protocol):
    """A running server process: bytes in, bytes out, SIGKILL."""

    async def send(self, data: bytes) -> None:
        """Write ``data`` to its stdin."""
        ...

    async def receive(self) -> bytes:
        """The next bytes from its stdout; raises ``anyio.EndOfStream`` once it died."""
        ...

    def kill(self) -> None:
        """SIGKILL it (no-op when it is gone)."""
        ...

    async def wait(self) -> None:
        """Return once it is dead (its stdout reached end of file)."""
        ...


class ExecProc:
    """A fresh ``python -m dsh_lsp`` process."""

    def __init__(self, process: Process) -> None:
        self._process = process

    async def send(self, data: bytes) -> None:
        assert self._process.stdin is not None
        await self._process.stdin.send(data)

    async def receive(self) -> bytes:
        assert self._process.stdout is not None
        return await self._process.stdout.receive()

    def kill(self) -> None:
        if self._process.returncode is None:
            self._process.kill()

    async def wait(self) -> None:
        await self._process.wait()


class ForkProc:
    """A server forked by the zygote (``crash_zygote``): same code, imports done."""

    def __init__(self, pid: int, stdin: int, stdout: int) -> None:
        self.pid = pid
        self._stdin = os.fdopen(stdin, "wb", buffering=0)
        self._stdout = os.fdopen(stdout, "rb", buffering=0)
        self._ended = False

    async def send(self, data: bytes) -> None:
        await anyio.to_thread.run_sync(self._stdin.write, data)

    async def receive(self) -> bytes:
        data = await anyio.to_thread.run_sync(self._stdout.read, 1 << 16)
        if not data:
            self._ended = True
            raise anyio.EndOfStream
        return bytes(data)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    async def wait(self) -> None:
        while not self._ended:
            with contextlib.suppress(anyio.EndOfStream):
                await self.receive()
        self._stdin.close()
        self._stdout.close()


class Zygote:
    """The fork server; ``spawn`` starts one server with ``env``."""

    def __init__(self) -> None:
        self._mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        script = Path(__file__).with_name("crash_zygote.py")
        self._process = subprocess.Popen(
            [sys.executable, str(script), str(theirs.fileno())], pass_fds=(theirs.fileno(),)
        )
        theirs.close()
        self._lock = anyio.Lock()

    async def spawn(self, env: dict[str, str], stderr: int) -> ForkProc:
        """Fork a server whose stdio are new pipes (stderr: ``stderr``)."""
        child_in, to_child = os.pipe()
        from_child, child_out = os.pipe()
        err = os.open(os.devnull, os.O_WRONLY) if stderr == subprocess.DEVNULL else stderr
        try:
            async with self._lock:
                pid = await anyio.to_thread.run_sync(
                    self._request, json.dumps(env).encode(), [child_in, child_out, err]
                )
        finally:
            os.close(child_in)
            os.close(child_out)
            if err != stderr:
                os.close(err)
        return ForkProc(pid, to_child, from_child)

    def _request(self, data: bytes, fds: list[int]) -> int:
        socket.send_fds(self._mine, [data], fds)
        return int(self._mine.recv(64))

    def close(self) -> None:
        """Stop the zygote (its running children are not touched)."""
        self._mine.close()
        self._process.wait(timeout=10)


class Conn:
    """A server driven with raw frames; counts what it receives."""

    def __init__(self, proc: Proc) -> None:
        self.process = proc
        self._decoder = FrameDecoder()
        self._pending: list[Json] = []
        self.received = 0
        self._next_id = 0

    async def send(self, message: Json) -> None:
        """Frame and write one message."""
        await self.process.send(encode_frame(json.dumps(message).encode()))

    async def request(self, method: str, params: Json) -> str:
        """Send a request; returns its id."""
        self._next_id += 1
        msg_id = f"k{self._next_id}"
        await self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    async def receive(self, seconds: float = 30) -> Json:
        """The next message from the server."""
        with anyio.fail_after(seconds):
            while not self._pending:
                data = await self.process.receive()
                for frame in self._decoder.feed(data):
                    assert isinstance(frame, bytes), frame
                    self._pending.append(json.loads(frame))
        self.received += 1
        return self._pending.pop(0)


OnMessage = Callable[[Json], None]


async def until_answer(conn: Conn, msg_id: str, on_message: OnMessage | None = None) -> Json:
    """Receive until the response to ``msg_id``, answering the server's requests (a
    permission question: allow once; anything else: null) and passing every message to
    ``on_message`` first (which may raise ``Killed``)."""
    while True:
        message = await conn.receive()
        if on_message is not None:
            on_message(message)
        method = message.get("method")
        if method is None and message.get("id") == msg_id:
            return message
        if method is not None and "id" in message:
            result: Json = None
            if method == "dsh/requestPermission":
                result = {"outcome": {"outcome": "selected", "optionId": "allow_once"}}
            await conn.send({"jsonrpc": "2.0", "id": message["id"], "result": result})


@asynccontextmanager
async def server(
    root: Path,
    model_url: str,
    store: Store,
    *,
    zygote: Zygote | None = None,
    stderr: int = subprocess.DEVNULL,
) -> AsyncIterator[Conn]:
    """A server on ``root``'s workspace and session directory, initialized (forked by
    ``zygote``, else a fresh ``python -m dsh_lsp``); killed on exit if still running."""
    env = server_env(model_url, root / "state")
    proc: Proc
    if zygote is not None:
        proc = await zygote.spawn(env, stderr)
    else:
        proc = ExecProc(
            await anyio.open_process([sys.executable, "-m", "dsh_lsp"], env=env, stderr=stderr)
        )
    conn = Conn(proc)
    try:
        workspace = root / "workspace"
        options: Json = {"sessionDir": str(root / "sessions"), "permissions": {"edit": "ask"}}
        if store != "jsonl":
            options["sessionStore"] = store
        init = await conn.request(
            "initialize",
            {
                "processId": None,
                "rootUri": str(from_fs_path(str(workspace))),
                "capabilities": {"experimental": RICH},
                "initializationOptions": options,
            },
        )
        await until_answer(conn, init)
        await conn.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        conn.received = 0
        yield conn
    finally:
        proc.kill()
        with anyio.CancelScope(shield=True):
            await proc.wait()


def _record(seen: Seen, message: Json) -> None:
    if message.get("method") != "dsh/session/update":
        return
    update = message["params"]["update"]
    seen.updates += 1
    kind = update.get("kind")
    if kind == "user_message":
        seen.user_messages.append(_text(update.get("content")))
    elif kind == "tool_call":
        call = update["toolCall"]
        if call.get("status") in ("completed", "failed"):
            seen.finished_calls[call["toolCallId"]] = call["status"]


def _text(content: Json) -> str:
    return "".join(block.get("text", "") for block in content or () if isinstance(block, dict))


def _answer(response: Json) -> str:
    if "error" in response:
        return "error:" + str((response["error"].get("data") or {}).get("code"))
    return str(response["result"]["stopReason"])


async def crash_trial(
    root: Path, store: Store, trial: int, kill_at: int | None, zygote: Zygote | None
) -> Seen:
    """Run one trial and SIGKILL its server after message ``kill_at`` (None: let the
    scenario finish, then kill). Returns what the client was told."""
    seen = Seen()
    with ScriptedServer(trial_script(trial)) as model:
        async with server(root, model.base_url, store, zygote=zygote) as conn:

            def observe(message: Json) -> None:
                _record(seen, message)
                seen.messages = conn.received
                if kill_at is not None and conn.received >= kill_at:
                    conn.process.kill()
                    raise Killed

            try:
                new = await conn.request("dsh/session/new", {"cwd": str(root / "workspace")})
                seen.session_id = (await until_answer(conn, new, observe))["result"]["sessionId"]
                for text in PROMPTS:
                    prompt = await conn.request(
                        "dsh/prompt",
                        {"sessionId": seen.session_id, "prompt": [{"type": "text", "text": text}]},
                    )
                    seen.answers.append(_answer(await until_answer(conn, prompt, observe)))
            except Killed:
                pass
    return seen


async def check_trial(
    checker: Conn, checker_model: ScriptedServer, root: Path, seen: Seen
) -> Verdict:
    """Check one killed trial through the long-lived ``checker`` server (see the module
    docstring)."""
    verdict = Verdict(stray_files=stray_files(root / "sessions"))
    if seen.session_id is None:
        return verdict
    listing = await until_answer(checker, await checker.request("dsh/session/list", {}))
    listed = {entry["sessionId"] for entry in listing["result"]["sessions"]}
    if seen.session_id not in listed:
        if seen.updates:
            verdict.session_lost = True
            verdict.events_lost = (
                len(seen.user_messages) + len(seen.finished_calls) + len(seen.answers)
            )
        return verdict
    replay: list[Json] = []

    def collect(message: Json) -> None:
        params = message.get("params") or {}
        if message.get("method") == "dsh/session/update" and params["sessionId"] == seen.session_id:
            replay.append(params["update"])

    resume = await checker.request("dsh/session/resume", {"sessionId": seen.session_id})
    answer = await until_answer(checker, resume, collect)
    if "error" in answer:
        verdict.session_lost = bool(seen.updates)
        verdict.invalid.append(f"resume failed: {answer['error'].get('message')}")
        return verdict
    verdict.events_lost = _lost(seen, replay)
    verdict.invalid.extend(_replay_problems(replay))
    before = len(checker_model.requests)
    prompt = await checker.request(
        "dsh/prompt",
        {"sessionId": seen.session_id, "prompt": [{"type": "text", "text": "Go on."}]},
    )
    after = await until_answer(checker, prompt)
    if "error" in after or after["result"]["stopReason"] != "end_turn":
        verdict.invalid.append(f"the next prompt failed: {after}")
    elif len(checker_model.requests) != before + 1:
        verdict.invalid.append("the next prompt did not reach the model exactly once")
    else:
        verdict.invalid.extend(transcript_problems(checker_model.requests[-1].json()))
    return verdict


def _lost(seen: Seen, replay: list[Json]) -> int:
    lost = 0
    replayed_users = [_text(u.get("content")) for u in replay if u.get("kind") == "user_message"]
    for index, text in enumerate(seen.user_messages):
        if index >= len(replayed_users) or replayed_users[index] != text:
            lost += 1
    final: dict[str, str] = {}
    for update in replay:
        if update.get("kind") == "tool_call":
            call = update["toolCall"]
            final[call["toolCallId"]] = call.get("status", final.get(call["toolCallId"], ""))
    for call_id, status in seen.finished_calls.items():
        if final.get(call_id) != status:
            lost += 1
    idles = [u for u in replay if u.get("kind") == "state_update" and u.get("state") == "idle"]
    for index, answer in enumerate(seen.answers):
        if index >= len(idles):
            lost += 1
            continue
        idle = idles[index]
        shown = idle.get("stopReason") or "error:" + str((idle.get("error") or {}).get("code"))
        if shown != answer:
            lost += 1
    return lost


def _replay_problems(replay: list[Json]) -> list[str]:
    problems: list[str] = []
    depth = 0
    for update in replay:
        if update.get("kind") == "state_update":
            if update.get("state") == "running":
                depth += 1
            elif update.get("state") == "idle":
                depth -= 1
    if depth != 0:
        problems.append(f"the replay leaves {depth} turn(s) open")
    final: dict[str, str] = {}
    for update in replay:
        if update.get("kind") == "tool_call":
            call = update["toolCall"]
            final[call["toolCallId"]] = call.get("status", "")
    unfinished = [cid for cid, status in final.items() if status in ("pending", "in_progress")]
    if unfinished:
        problems.append(f"the replay leaves tool calls unfinished: {unfinished}")
    return problems


def transcript_problems(body: Json) -> list[str]:
    """What is wrong with the chat request ``body`` as a transcript (empty when valid)."""
    problems: list[str] = []
    waiting: list[str] = []
    for index, message in enumerate(body.get("messages", ())):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                problems.append(f"message {index}: tool result {call_id!r} answers no open call")
            else:
                waiting.remove(call_id)
            continue
        if waiting:
            problems.append(f"message {index}: tool calls {waiting} were never answered")
            waiting = []
        if role == "assistant":
            waiting = [call["id"] for call in message.get("tool_calls") or ()]
    if waiting:
        problems.append(f"the transcript ends with unanswered tool calls {waiting}")
    if not body.get("messages") or body["messages"][-1].get("role") != "user":
        problems.append("the transcript does not end with the new user message")
    return problems


def stray_files(directory: Path) -> list[str]:
    """Temporary files under ``directory`` (a log published halfway leaves one)."""
    if not directory.exists():
        return []
    return sorted(
        str(path.relative_to(directory))
        for path in directory.rglob("*")
        if path.is_file() and (path.name.endswith(".tmp") or path.name.endswith("-journal"))
    )


async def run(
    root: Path,
    store: Store,
    kills: int,
    seed: int,
    *,
    fork: bool = True,
    zygote: Zygote | None = None,
    progress: Callable[[str], None] | None = None,
) -> Figures:
    """``kills`` trials on one session directory under ``root``; returns the figures.

    The first trial runs to its end (that also measures how many messages a whole trial
    sends); each later one is killed after a message drawn from the seeded RNG. ``fork``:
    the trial servers and the checker are forked by a zygote (``zygote``, or one started
    here; imports done once), else each is a fresh ``python -m dsh_lsp``.
    """
    rng = random.Random(seed)
    figures = Figures()
    start = time.perf_counter()
    (root / "workspace").mkdir(parents=True, exist_ok=True)
    own = Zygote() if fork and zygote is None else None
    try:
        await _run(root, store, kills, rng, figures, zygote or own, progress)
    finally:
        if own is not None:
            own.close()
    figures.seconds = time.perf_counter() - start
    return figures


async def _run(
    root: Path,
    store: Store,
    kills: int,
    rng: random.Random,
    figures: Figures,
    zygote: Zygote | None,
    progress: Callable[[str], None] | None,
) -> None:
    with ScriptedServer(cycle=True) as checker_model:
        checker_model.enqueue(completion(text="Continuing."))
        total = 0
        async with server(root, checker_model.base_url, store, zygote=zygote) as checker:
            for trial in range(kills):
                kill_at = None if trial == 0 else rng.randint(1, total + 2)
                seen = await crash_trial(root, store, trial, kill_at, zygote)
                if trial == 0:
                    total = seen.messages
                verdict = await check_trial(checker, checker_model, root, seen)
                figures.add(trial, seen.messages if kill_at is None else kill_at, seen, verdict)
                if progress is not None and (verdict.invalid or verdict.events_lost):
                    progress(figures.problems[-1])
