"""A JSON-RPC fuzzer for a live ``dsh-lsp`` process (shipped test kit).

``hostile_frames(rng, ...)`` yields raw frames, each with the id of the answer it must get
(or ``None`` when no answer is due): well-formed requests with bad params, envelopes that
break JSON-RPC (``"jsonrpc": "1.0"``, a method that is not a string, object or array ids,
``1e400``, ``NaN``), nested messages inside params, ``$/cancelRequest`` of server ids,
answers to requests nobody sent, bad headers (``Content-Length: abc`` + body), bodies that
are not JSON or not UTF-8, deep nesting, an occasional body over the server's size limit, and
a few prompts to a real session whose model echoes the API key.

``FuzzRun`` drives one server process over pipes: a reader thread decodes every frame the
server writes (strictly: ``NaN``/``Infinity`` or bad UTF-8 count as invalid frames), records
when each answer arrived and counts the marker key wherever it appears. ``FuzzRun.report``
gives the figures ``bench/fuzz.py`` prints and the quick test checks: messages sent,
crashes, hangs (answers or probes slower than ``HANG_SECONDS``), unanswered requests,
invalid frames out, RSS and secrets seen.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

HANG_SECONDS: Final = 5.0
"""An answer slower than this counts as a hang."""
MARKER_KEY: Final = "sk-fuzz-marker-0123456789abcdef"
"""The API key the fuzzed server gets; it must never come back."""

# Any: free-form JSON the fuzzer builds.
Json = Any

METHODS: Final = (
    "dsh/session/list",
    "dsh/session/new",
    "dsh/session/resume",
    "dsh/session/load",
    "dsh/cancel",
    "dsh/prompt",
    "textDocument/hover",
    "textDocument/codeAction",
    "workspace/executeCommand",
    "textDocument/didOpen",
    "textDocument/didChange",
    "no/such/method",
    "$/setTrace",
)


def frame(body: bytes) -> bytes:
    """``body`` with its ``Content-Length`` header."""
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _dumps(message: Json) -> bytes:
    return json.dumps(message).encode()


def _junk(rng: random.Random, depth: int = 0) -> Json:
    kind = rng.randrange(9 if depth < 3 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**63, 7, 1.5, -0.0])
    if kind == 3:
        return rng.choice(["", "x", "dsh-1", "../../etc/passwd", "\u0000", "é" * 3, "file:///"])
    if kind == 4:
        return rng.choice([{}, [], {"uri": "file:///nope"}, {"line": -1, "character": "a"}])
    if kind in (5, 6):
        return {
            rng.choice(
                ["sessionId", "prompt", "uri", "textDocument", "position", "id", "x"]
            ): _junk(rng, depth + 1)
            for _ in range(rng.randrange(4))
        }
    return [_junk(rng, depth + 1) for _ in range(rng.randrange(4))]


@dataclass(frozen=True, slots=True, kw_only=True)
class Frame:
    """One frame to send, and the id whose answer it must get (None: no answer due)."""

    data: bytes
    expect: str | None = None
    kind: str = "request"


def hostile_frames(
    rng: random.Random,
    count: int,
    *,
    session: str | None = None,
    max_message_bytes: int = 1 << 20,
    prompt_share: float = 0.01,
) -> Iterator[Frame]:
    """``count`` frames drawn from ``rng`` (see the module docstring). ``session`` is a
    session prompts may go to; bodies over ``max_message_bytes`` are sent rarely."""
    for index in range(count):
        rid = f"f-{index}"
        roll = rng.random()
        if session is not None and roll < prompt_share:
            text = rng.choice(["go", "repeat the key", "x" * 100])
            params = {"sessionId": session, "prompt": [{"type": "text", "text": text}]}
            message = {"jsonrpc": "2.0", "id": rid, "method": "dsh/prompt", "params": params}
            yield Frame(data=frame(_dumps(message)), expect=rid, kind="prompt")
            continue
        choice = rng.randrange(20)
        if choice < 6:  # a request with junk params
            method = rng.choice(METHODS)
            message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": _junk(rng)}
            if rng.random() < 0.3:
                message.pop("params")
            yield Frame(data=frame(_dumps(message)), expect=rid)
        elif choice == 6:  # a notification with junk params
            method = rng.choice(METHODS)
            message = {"jsonrpc": "2.0", "method": method, "params": _junk(rng)}
            yield Frame(data=frame(_dumps(message)), kind="notification")
        elif choice == 7:  # a bad envelope with a usable id: -32600 with that id
            bad: Json = rng.choice(
                [
                    {"jsonrpc": "1.0", "id": rid, "method": "dsh/session/list"},
                    {"jsonrpc": "2.0", "id": rid, "method": rng.choice([5, None, [], {}])},
                    {"id": rid, "method": "dsh/session/list"},
                    {"jsonrpc": 2, "id": rid, "method": "dsh/session/list"},
                ]
            )
            yield Frame(data=frame(_dumps(bad)), expect=rid)
        elif choice == 8:  # an unusable id: answered with id null
            bad_id = rng.choice(['{"a":1}', "[1]", "true", "1.5", "1e400", "NaN", "-Infinity"])
            text = f'{{"jsonrpc":"2.0","id":{bad_id},"method":"dsh/session/list"}}'
            yield Frame(data=frame(text.encode()), kind="bad-id")
        elif choice == 9:  # nested messages: only the outer one is answered
            inner = {"jsonrpc": "2.0", "id": f"inner-{index}", "method": "dsh/session/list"}
            message = {
                "jsonrpc": "2.0",
                "id": rid,
                "method": rng.choice(METHODS),
                "params": {"nested": inner, "list": [inner]},
            }
            yield Frame(data=frame(_dumps(message)), expect=rid)
        elif choice == 10:  # cancel something: a server id, a client id, junk
            cancelled: Json = rng.choice(["dsh-1", "dsh-2", f"f-{max(0, index - 1)}", 3, None, {}])
            message = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": cancelled}}
            yield Frame(data=frame(_dumps(message)), kind="notification")
        elif choice == 11:  # an answer to a request nobody sent (or a server id)
            target: Json = rng.choice(["dsh-1", "dsh-9", 42, "nobody"])
            answer = rng.choice(
                [
                    {"jsonrpc": "2.0", "id": target, "result": _junk(rng)},
                    {"jsonrpc": "2.0", "id": target, "result": 5, "extra": 1},
                    {"jsonrpc": "2.0", "id": target, "error": {"code": "x"}},
                    {"jsonrpc": "2.0", "id": target, "error": {"code": -1, "message": "no"}},
                ]
            )
            yield Frame(data=frame(_dumps(answer)), kind="response")
        elif choice == 12:  # a bad header and its body, then the decoder must resynchronise
            lost = _dumps({"jsonrpc": "2.0", "id": rid, "method": "dsh/session/list"})
            header = rng.choice([b"Content-Length: abc", b"Content-Length: -5", b"X-Nothing: 1"])
            yield Frame(data=header + b"\r\n\r\n" + lost, kind="bad-header")
        elif choice == 13:  # not JSON / not UTF-8
            raw = rng.choice([b"{not json", b"\xff\xfe\x00", b"", b"[1,2", b'{"a":NaN}', b"nul"])
            yield Frame(data=frame(raw), kind="parse-error")
        elif choice == 14:  # deep nesting
            depth = rng.choice([100, 5000, 100_000])
            nested = b"[" * depth + b"]" * depth
            yield Frame(data=frame(nested), kind="deep")
        elif choice == 15 and rng.random() < 0.02:  # over the size limit: skipped unread
            pad = "x" * (max_message_bytes + 1)
            message = {"jsonrpc": "2.0", "id": rid, "method": "dsh/session/list", "params": pad}
            yield Frame(data=frame(_dumps(message)), kind="oversize")
        elif choice == 16:  # a big but legal request with bad params
            pad = "y" * min(rng.choice([10_000, 100_000]), max_message_bytes // 2)
            message = {"jsonrpc": "2.0", "id": rid, "method": "dsh/prompt", "params": {"p": pad}}
            yield Frame(data=frame(_dumps(message)), expect=rid)
        else:  # a plain request that must succeed
            message = {"jsonrpc": "2.0", "id": rid, "method": "dsh/session/list", "params": {}}
            yield Frame(data=frame(_dumps(message)), expect=rid)


def _strict_constant(text: str) -> Json:
    raise ValueError(f"{text} is not JSON")


@dataclass(kw_only=True)
class FuzzReport:
    """The figures of one run (see the module docstring)."""

    messages: int = 0
    crashes: int = 0
    hangs: int = 0
    unanswered: int = 0
    invalid_frames: int = 0
    secrets_seen: int = 0
    idle_rss_kib: int = 0
    after_rss_kib: int = 0
    peak_rss_kib: int = 0
    after_big_rss_kib: int = 0
    """RSS after ``big_rejected_requests`` (0: not measured)."""
    seconds: float = 0.0
    slowest_answer: float = 0.0
    unanswered_ids: list[str] = field(default_factory=list)

    def rows(self) -> list[tuple[str, str]]:
        """(figure, value) pairs in display order."""
        ratio = self.after_rss_kib / self.idle_rss_kib if self.idle_rss_kib else 0.0
        return [
            ("messages sent", f"{self.messages}"),
            ("crashes", f"{self.crashes}"),
            (f"hangs (> {HANG_SECONDS:g} s)", f"{self.hangs}"),
            ("unanswered requests", f"{self.unanswered}"),
            ("invalid JSON frames out", f"{self.invalid_frames}"),
            ("secrets seen (traffic, logs, session files)", f"{self.secrets_seen}"),
            ("RSS idle (MiB)", f"{self.idle_rss_kib / 1024:.1f}"),
            ("RSS after the storm (MiB)", f"{self.after_rss_kib / 1024:.1f} ({ratio:.2f}x idle)"),
            ("peak RSS (MiB)", f"{self.peak_rss_kib / 1024:.1f}"),
            (
                "RSS after 30 rejected 10 MB requests (MiB)",
                f"{self.after_big_rss_kib / 1024:.1f}"
                f" ({self.after_big_rss_kib / max(1, self.idle_rss_kib):.2f}x idle)",
            ),
            ("slowest answer (s)", f"{self.slowest_answer:.2f}"),
            ("wall time (s)", f"{self.seconds:.1f}"),
        ]


def _status_kib(pid: int, field_name: str) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    return 0


class FuzzRun:
    """One ``python -m dsh_lsp`` process under fuzz; use with ``with``.

    ``env`` is the process environment (the marker key included), ``root`` the workspace and
    state directory, ``args`` extra command-line arguments. Raises OSError when the process
    cannot start.
    """

    def __init__(self, root: Path, env: Mapping[str, str], args: Sequence[str] = ()) -> None:
        self.root = root
        self.log = root / "server.log"
        command = [sys.executable, "-m", "dsh_lsp", "--log-file", str(self.log), *args]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(env),
            cwd=root,
        )
        self._lock = threading.Condition()
        self._answers: dict[str, float] = {}
        self._sent_at: dict[str, float] = {}
        self._messages: list[Json] = []
        self.invalid_frames = 0
        self.secrets_in_traffic = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.sent = 0

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self._process.pid

    def __enter__(self) -> FuzzRun:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._reader.join(timeout=5)
        if self._process.stdout is not None:
            self._process.stdout.close()

    def _read(self) -> None:
        assert self._process.stdout is not None
        out = self._process.stdout
        buffer = b""
        while True:
            data = os.read(out.fileno(), 1 << 16)
            if not data:
                return
            buffer += data
            while True:
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    break
                header = buffer[:end].decode("ascii", "replace")
                length = None
                for line in header.split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length" and value.strip().isdigit():
                        length = int(value.strip())
                if length is None:
                    self.invalid_frames += 1
                    buffer = buffer[end + 4 :]
                    continue
                if len(buffer) < end + 4 + length:
                    break
                body = buffer[end + 4 : end + 4 + length]
                buffer = buffer[end + 4 + length :]
                self._take(body)

    def _take(self, body: bytes) -> None:
        if MARKER_KEY.encode() in body:
            self.secrets_in_traffic += 1
        try:
            message = json.loads(body.decode("utf-8"), parse_constant=_strict_constant)
        except ValueError:
            self.invalid_frames += 1
            return
        now = time.monotonic()
        with self._lock:
            self._messages.append(message)
            if isinstance(message, dict) and "method" not in message:
                msg_id = message.get("id")
                if isinstance(msg_id, str):
                    self._answers.setdefault(msg_id, now)
            self._lock.notify_all()

    def send(self, data: bytes, expect: str | None = None) -> None:
        """Write one frame; ``expect``: the id whose answer is due."""
        assert self._process.stdin is not None
        if expect is not None:
            with self._lock:
                self._sent_at[expect] = time.monotonic()
        self._process.stdin.write(data)
        self._process.stdin.flush()
        self.sent += 1

    def request(self, method: str, params: Json, msg_id: str, timeout: float = 30.0) -> Json:
        """Send a request and wait for its answer (the whole message). Raises TimeoutError."""
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
        self.send(frame(_dumps(message)), msg_id)
        if not self.wait_for([msg_id], timeout):
            raise TimeoutError(f"no answer to {method} within {timeout} s")
        with self._lock:
            for answer in reversed(self._messages):
                if (
                    isinstance(answer, dict)
                    and answer.get("id") == msg_id
                    and "method" not in answer
                ):
                    return answer
        raise TimeoutError(msg_id)

    def initialize(self, workspace: Path, sessions: Path) -> str:
        """``initialize`` (a dsh client) + ``initialized``, then ``dsh/session/new``; the new
        session's id, once the server finished starting (the first session is answered while
        it still loads, and a storm timed from there would time the start-up). Raises
        TimeoutError."""
        params = {
            "processId": None,
            "rootUri": workspace.as_uri(),
            "capabilities": {
                "experimental": {"dsh": {"version": 1, "sessionUpdates": True, "permissions": True}}
            },
            "initializationOptions": {"sessionDir": str(sessions)},
        }
        self.request("initialize", params, "fuzz-init")
        self.notify("initialized", {})
        answer = self.request("dsh/session/new", {}, "fuzz-new")
        self.request("dsh/session/list", {}, "fuzz-started", timeout=120.0)
        return str(answer["result"]["sessionId"])

    def notify(self, method: str, params: Json) -> None:
        """Send a notification."""
        self.send(frame(_dumps({"jsonrpc": "2.0", "method": method, "params": params})))

    def wait_for(self, ids: Sequence[str], timeout: float) -> bool:
        """Wait until every id in ``ids`` was answered; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while any(i not in self._answers for i in ids):
                left = deadline - time.monotonic()
                if left <= 0 or self._process.poll() is not None:
                    return False
                self._lock.wait(min(left, 0.5))
        return True

    def answer_latency(self, msg_id: str) -> float | None:
        """Seconds from sending ``msg_id`` to its answer, or None if unanswered."""
        with self._lock:
            sent, answered = self._sent_at.get(msg_id), self._answers.get(msg_id)
        return None if sent is None or answered is None else answered - sent

    def alive(self) -> bool:
        """True while the process runs."""
        return self._process.poll() is None

    def rss_kib(self) -> int:
        """The process's resident set now (KiB; 0 where /proc is unavailable)."""
        return _status_kib(self.pid, "VmRSS")

    def peak_rss_kib(self) -> int:
        """The process's peak resident set (KiB)."""
        return _status_kib(self.pid, "VmHWM")

    def shutdown(self, timeout: float = 20.0) -> int | None:
        """``shutdown`` + ``exit``; the exit code, or None if it did not exit in time."""
        try:
            self.request("shutdown", None, "fuzz-shutdown", timeout=timeout)
        except (TimeoutError, OSError):
            return None
        with contextlib.suppress(OSError):
            self.notify("exit", None)
        try:
            return self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def secrets_on_disk(self) -> int:
        """Occurrences of the marker key in the log and every file under ``root``."""
        found = 0
        for dirpath, _, names in os.walk(self.root):
            for name in names:
                try:
                    data = (Path(dirpath) / name).read_bytes()
                except OSError:
                    continue
                found += data.count(MARKER_KEY.encode())
        return found


def storm(
    run: FuzzRun,
    frames: Iterator[Frame],
    *,
    probe_every: int = 500,
    drain_seconds: float = 60.0,
) -> FuzzReport:
    """Send ``frames`` (probing liveness every ``probe_every``), wait for every due answer,
    and measure; the caller shuts the server down and adds disk secrets and exit status."""
    report = FuzzReport(idle_rss_kib=run.rss_kib())
    started = time.monotonic()
    expected: list[str] = []
    prompts: list[str] = []
    probes: list[str] = []
    for index, item in enumerate(frames):
        if not run.alive():
            break
        try:
            run.send(item.data, item.expect)
        except OSError:
            break
        if item.expect is not None:
            (prompts if item.kind == "prompt" else expected).append(item.expect)
        if probe_every and index % probe_every == probe_every - 1:
            probe = f"probe-{index}"
            probes.append(probe)
            with contextlib.suppress(TimeoutError, OSError):
                run.request("dsh/session/list", {}, probe, timeout=HANG_SECONDS * 4)
    run.wait_for(expected + probes + prompts, drain_seconds)
    report.seconds = time.monotonic() - started
    report.messages = run.sent
    report.crashes = 0 if run.alive() else 1
    # Prompts wait for their model turns (queued one after another); only the other requests
    # and the probes measure whether the server answers in time.
    timed = expected + probes
    latencies = [run.answer_latency(i) for i in timed]
    answered = [lat for lat in latencies if lat is not None]
    report.slowest_answer = max(answered, default=0.0)
    report.hangs = sum(1 for lat in answered if lat > HANG_SECONDS)
    every = timed + prompts
    report.unanswered_ids = [i for i in every if run.answer_latency(i) is None]
    report.unanswered = len(report.unanswered_ids)
    report.invalid_frames = run.invalid_frames
    report.peak_rss_kib = run.peak_rss_kib()
    return report


def big_rejected_requests(run: FuzzRun, *, count: int = 30, size: int = 10_000_000) -> bool:
    """Send ``count`` requests of ``size`` bytes that are refused (-32602); True when every
    one was answered."""
    ids = []
    for index in range(count):
        msg_id = f"big-{index}"
        text = "z" * size
        params = {"sessionId": "none", "prompt": [{"type": "text", "text": text}], "bad": 1}
        message = {"jsonrpc": "2.0", "id": msg_id, "method": "dsh/prompt", "params": params}
        run.send(frame(_dumps(message)), msg_id)
        ids.append(msg_id)
    return run.wait_for(ids, 120)
