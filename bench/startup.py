"""Benchmark: start-up of ``python -m dsh_lsp`` over stdio, next to baselines of the same run.

A small synchronous LSP driver here (its own ``Content-Length`` framing, no pygls) spawns each
server, sends ``initialize``, then ``initialized`` and ``dsh/session/new``, answering any
request the server sends with ``null``. Figures, best of ``--rounds`` (targets and baselines
interleaved round by round, so a busy host slows them alike):

- spawn → ``initialize`` answered, against a bare pygls server (``bench/bare_pygls.py``) and
  the interpreter alone (``python -c pass``);
- spawn → first ``dsh/session/new`` answered (ready to prompt: the editor may send its
  first prompt; since the session is answered while the server still loads, that prompt
  waits for the rest of the start-up);
- spawn → started (``dsh/status`` answered: every plugin loaded, a prompt runs at once);
- CPU to the ``initialize`` answer, to the ``dsh/session/new`` answer and to the end of the
  start-up (all threads, from ``/proc``), against the bare pygls server's CPU to answer
  ``initialize``;
- the ``dsh_lsp`` and third-party modules imported before the ``initialize`` answer (one run
  under ``-X importtime``; the server logs ``initialize answered`` at debug level).

    .venv/bin/python bench/startup.py [--rounds 7] [--imports]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Json = Any  # Any: decoded JSON payloads
BENCH = Path(__file__).resolve().parent
OURS = (sys.executable, "-m", "dsh_lsp")
BARE = (sys.executable, str(BENCH / "bare_pygls.py"))
PASS = (sys.executable, "-c", "pass")
ANSWERED = "initialize answered"
"""What the server logs (debug level) right after it wrote the ``initialize`` answer."""


@dataclass(frozen=True, slots=True)
class Run:
    """One spawned server: seconds from spawn to each answer, CPU seconds at the last one."""

    initialize: float
    ready: float | None
    cpu: float
    initialize_cpu: float = 0.0
    started: float = 0.0
    started_cpu: float = 0.0


class Driver:
    """A spawned LSP server on pipes and a blocking reader of its frames."""

    def __init__(self, command: Sequence[str], env: dict[str, str], stderr: int | None) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self._in = self.process.stdin
        self._out = self.process.stdout.fileno()
        self._buffer = b""

    def send(self, message: Json) -> None:
        body = json.dumps(message).encode()
        self._in.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self._in.flush()

    def request(self, msg_id: int, method: str, params: Json) -> Json:
        """Send a request; return its answer, answering the server's own requests meanwhile."""
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        while True:
            message = self._receive()
            if message.get("id") == msg_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method} failed: {message['error']}")
                return message["result"]
            if "method" in message and "id" in message:
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def _receive(self) -> Json:
        while True:
            end = self._buffer.find(b"\r\n\r\n")
            if end >= 0:
                header = self._buffer[:end].decode("ascii")
                length = int(header.lower().split("content-length:")[1].split("\r\n")[0])
                start = end + 4
                if len(self._buffer) >= start + length:
                    body = self._buffer[start : start + length]
                    self._buffer = self._buffer[start + length :]
                    return json.loads(body)
            readable, _, _ = select.select([self._out], [], [], 30)
            if not readable:
                raise TimeoutError("the server did not answer within 30 s")
            data = os.read(self._out, 1 << 16)
            if not data:
                raise EOFError("the server closed its output")
            self._buffer += data

    def cpu(self) -> float:
        """CPU seconds of every thread of the process so far (``schedstat``, nanoseconds)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):
                continue  # a thread that ended meanwhile
        return total / 1e9

    def stop(self) -> None:
        try:
            self.request(99, "shutdown", None)
            self.send({"jsonrpc": "2.0", "method": "exit"})
            self._in.close()
            self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


def initialize_params(workspace: Path) -> Json:
    return {
        "processId": os.getpid(),
        "rootUri": workspace.as_uri(),
        "workspaceFolders": [{"uri": workspace.as_uri(), "name": "w"}],
        "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "window": {"workDoneProgress": True},
            "experimental": {"dsh": {"version": 1, "sessionUpdates": True, "permissions": True}},
        },
    }


def run_server(
    command: Sequence[str],
    env: dict[str, str],
    workspace: Path,
    *,
    session: bool,
    stderr: int | None = subprocess.DEVNULL,
) -> Run:
    driver = Driver(command, env, stderr)
    try:
        driver.request(1, "initialize", initialize_params(workspace))
        initialized = time.perf_counter() - driver.started
        initialize_cpu = driver.cpu()
        ready = None
        started = started_cpu = 0.0
        cpu = driver.cpu()
        if session:
            driver.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            driver.request(2, "dsh/session/new", {})
            ready = time.perf_counter() - driver.started
            cpu = driver.cpu()
            driver.request(3, "dsh/status", {})
            started = time.perf_counter() - driver.started
            started_cpu = driver.cpu()
    finally:
        driver.stop()
    return Run(
        initialize=initialized,
        ready=ready,
        cpu=cpu,
        initialize_cpu=initialize_cpu,
        started=started,
        started_cpu=started_cpu,
    )


def run_pass() -> Run:
    started = time.perf_counter()
    process = subprocess.Popen(PASS)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return Run(time.perf_counter() - started, None, usage.ru_utime + usage.ru_stime)


def environment(root: Path) -> dict[str, str]:
    return dict(
        os.environ,
        DEEPSEEK_BASE_URL="http://127.0.0.1:9",  # never reached: no prompt is sent
        DEEPSEEK_API_KEY="bench-key",
        XDG_STATE_HOME=str(root / "state"),
    )


def imports_before_answer(env: dict[str, str], workspace: Path) -> list[str]:
    """Top-level packages (and every ``dsh_lsp`` module) imported before the answer."""
    command = (sys.executable, "-X", "importtime", "-m", "dsh_lsp", "--log-level", "debug")
    with tempfile.TemporaryFile() as log:
        run_server(command, env, workspace, session=False, stderr=log.fileno())
        log.seek(0)
        lines = log.read().decode(errors="replace").splitlines()
    return modules_before(lines)


def modules_before(lines: Sequence[str]) -> list[str]:
    """From ``-X importtime`` stderr: the modules reported before the ``ANSWERED`` log line,
    ``dsh_lsp`` ones in full, third-party ones as their top-level package, stdlib left out."""
    seen: dict[str, None] = {}
    stdlib = sys.stdlib_module_names
    for text in lines:
        if ANSWERED in text:
            break
        if not text.startswith("import time:") or "|" not in text or "imported package" in text:
            continue
        name = text.rsplit("|", 1)[1].strip()
        top = name.split(".")[0]
        if top == "dsh_lsp":
            seen[name] = None
        elif top not in stdlib and not top.startswith("_"):
            seen[top] = None
    return sorted(seen)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.0f} ms"


def show(label: str, ours: float, base: float, base_label: str) -> None:
    print(f"  {label:<38} {ms(ours)}   {base_label:<22} {ms(base)}   ratio {ours / base:5.2f}x")


def main(rounds: int, imports: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-startup-") as tmp:
        root = Path(tmp)
        workspace = root / "workspace"
        workspace.mkdir()
        env = environment(root)
        ours: list[Run] = []
        bare: list[Run] = []
        interpreter: list[Run] = []
        for _ in range(rounds):  # interleaved: a busy moment slows every kind alike
            ours.append(run_server(OURS, env, workspace, session=True))
            bare.append(run_server(BARE, env, workspace, session=False))
            interpreter.append(run_pass())
        init = min(r.initialize for r in ours)
        ready = min(r.ready or 0.0 for r in ours)
        cpu = min(r.cpu for r in ours)
        bare_best = min(r.initialize for r in bare)
        bare_cpu = min(r.cpu for r in bare)
        py = min(r.initialize for r in interpreter)
        py_cpu = min(r.cpu for r in interpreter)
        init_cpu = min(r.initialize_cpu for r in ours)
        bare_init_cpu = min(r.initialize_cpu for r in bare)
        print(f"start-up of python -m dsh_lsp, best of {rounds} (interleaved with baselines)")
        show("spawn → initialize answered", init, bare_best, "bare pygls")
        show("spawn → initialize answered", init, py, "python -c pass")
        show("CPU to the initialize answer", init_cpu, bare_init_cpu, "bare pygls CPU")
        started = min(r.started for r in ours)
        started_cpu = min(r.started_cpu for r in ours)
        show("spawn → session/new answered (ready)", ready, bare_best, "bare pygls initialize")
        show("CPU to the session/new answer", cpu, bare_cpu, "bare pygls CPU")
        show("CPU to the session/new answer", cpu, py_cpu, "python -c pass CPU")
        show("spawn → started (dsh/status answered)", started, bare_best, "bare pygls initialize")
        show("CPU of the whole start-up", started_cpu, bare_cpu, "bare pygls CPU")
        if imports:
            names = imports_before_answer(env, workspace)
            print(f"modules imported before the initialize answer ({len(names)}):")
            for name in names:
                print(f"  {name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="repetitions of each kind")
    parser.add_argument("--imports", action="store_true", help="also list the imports")
    arguments = parser.parse_args()
    main(arguments.rounds, arguments.imports)
