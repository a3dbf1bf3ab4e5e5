"""Benchmark: the latency diagnostics-after-edit adds to an edit through the editor.

An ``edit`` tool call of a 2,000-line open buffer runs through the registry and the
editor-backed file system, with the ``editor-intel`` plugin loaded; edits alternate between
``dsh.editor.diagnosticsAfterEdit`` on and off in the same run (the setting is read at each
call), so both columns see the same machine state. The editor is the in-process scripted
editor of the tests; the client side of ``dsh/editor/diagnostics`` is a language server
model: it "analyses" each document version it is sent (the didChange) for ``--delay`` ms,
then answers any request for that version (a request without a version is answered at once
with what it has), its params and answers passing through ``json`` as on the wire. Reported:
each column's median and p95 per edit, and what diagnostics add (the differences). Target:
under 100 ms added when the language server answers in its normal time (0 and 30 ms here).

Run: ``.venv/bin/python bench/editor_diagnostics.py [--repeat 40] [--delays 0,30]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.editor_intel import METHODS
from dsh_lsp.server.wire import ClientFeatures
from tests.server.editor_intel.tool_registry import editor_tools
from tests.server.scripted_editor import VSCODE, ScriptedEditor

LINES = 2000
TARGET_MS = 100.0


@dataclass(slots=True)
class LanguageServer:
    """When each version of the buffer was sent to the language server (the didChange)."""

    editor: ScriptedEditor
    delay: float
    seen: dict[int, float] = field(default_factory=dict)

    def diagnostics(self, uri: str) -> list[JsonValue]:
        text = self.editor.text(uri)
        found: list[JsonValue] = []
        for number, line in enumerate(text.split("\n")):
            column = line.find("bogus")
            if column >= 0:
                found.append(
                    {
                        "range": {
                            "start": {"line": number, "character": column},
                            "end": {"line": number, "character": column + 5},
                        },
                        "severity": 1,
                        "code": "F821",
                        "source": "Ruff",
                        "message": "Undefined name `bogus`",
                    }
                )
        return found


class LanguageServerChannel:
    """A ``ClientChannel`` answering ``dsh/editor/diagnostics`` like a plugin whose language
    server needs ``delay`` seconds per version."""

    features = ClientFeatures()

    def __init__(self, server: LanguageServer) -> None:
        self._server = server

    def notify(self, method: str, params: JsonObject) -> None:
        """Drop notifications."""

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        """Answer ``dsh/editor/diagnostics`` (params and answer pass through ``json``)."""
        sent = json.loads(json.dumps(params))
        uri = sent["uri"]
        buffer = self._server.editor.model.buffers[uri]
        version = sent.get("version")
        if version is not None:
            arrived = self._server.seen.setdefault(version, time.perf_counter())
            ready = arrived + self._server.delay
            wait = ready - time.perf_counter()
            if wait > 0:
                await anyio.sleep(wait)
        answer = {
            "items": [
                {
                    "uri": uri,
                    "version": buffer.version,
                    "complete": True,
                    "diagnostics": self._server.diagnostics(uri),
                }
            ]
        }
        decoded: JsonValue = json.loads(json.dumps(answer))
        return decoded


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def run(base: Path, delay_ms: float, repeat: int) -> tuple[list[float], list[float]]:
    """Per-edit wall times (ms) with diagnostics off and on."""
    path = base / "app.py"
    path.write_text("".join(f"value_{n} = compute({n})\n" for n in range(LINES)))
    editor = ScriptedEditor(VSCODE)
    uri = editor.open(path)
    server = LanguageServer(editor=editor, delay=delay_ms / 1000)
    on = {"value": False}
    times: dict[bool, list[float]] = {False: [], True: []}
    async with editor_tools(
        base,
        editor,
        LanguageServerChannel(server),
        frozenset(METHODS),
        after_edit=lambda: on["value"],
        timeout_ms=1500,
    ) as call:
        await call("read", {"file_path": "app.py", "limit": 1})
        for index in range(2 * (repeat + 1)):
            diagnostics = index % 2 == 1
            on["value"] = diagnostics
            line = 1000 + index % 50
            old, new = f"compute({line})", f"compute({line} + bogus)"
            if f"compute({line} + bogus)" in editor.text(uri):
                old, new = new, old
            start = time.perf_counter()
            text = await call("edit", {"file_path": "app.py", "old_string": old, "new_string": new})
            elapsed = (time.perf_counter() - start) * 1000
            if diagnostics:
                assert "problems" in text.lower(), text
            if index >= 2:  # the first pair warms up
                times[diagnostics].append(elapsed)
    return times[False], times[True]


async def main_async(args: argparse.Namespace) -> None:
    print(
        f"edit of a {LINES}-line open buffer, {args.repeat} edits per column, "
        "diagnostics off vs on in the same run"
    )
    worst = 0.0
    for delay in args.delays:
        with tempfile.TemporaryDirectory(prefix="dsh-bench-diag-") as base:
            off, on = await run(Path(base), delay, args.repeat)
        off_med, on_med = statistics.median(off), statistics.median(on)
        off_p95, on_p95 = _percentile(off, 0.95), _percentile(on, 0.95)
        added_med, added_p95 = on_med - off_med, on_p95 - off_p95
        worst = max(worst, added_p95)
        print(
            f"language server answers {delay:>4g} ms after the version: "
            f"off median {off_med:6.2f} ms p95 {off_p95:6.2f} ms | "
            f"on median {on_med:6.2f} ms p95 {on_p95:6.2f} ms | "
            f"added median {added_med:6.2f} ms p95 {added_p95:6.2f} ms"
        )
    verdict = "OK" if worst < TARGET_MS else "OVER"
    print(f"target: under {TARGET_MS:g} ms added (p95) — {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument(
        "--delays",
        type=lambda text: [float(part) for part in text.split(",")],
        default=[0.0, 30.0],
        help="comma-separated language-server delays in ms (default 0,30)",
    )
    anyio.run(main_async, parser.parse_args())


if __name__ == "__main__":
    main()
