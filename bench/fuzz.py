"""Benchmark: a storm of hostile JSON-RPC against one live server (issue 16).

``python -m dsh_lsp`` over stdio gets ``--messages`` frames from
``dsh_lsp.testing.fuzz.hostile_frames`` (seeded): bad params, broken envelopes, nested
messages, cancels of server ids, stray answers, bad headers, non-JSON, deep nesting, bodies
over the size limit and, 1 % of the time, a prompt to a real session whose scripted model
echoes the API key (in an in-stream error, a chunk that is not JSON, an HTTP error body, a
plain answer). A liveness probe goes out every 500 frames. Printed: messages sent, crashes,
hangs (answers slower than 5 s), unanswered requests, invalid JSON frames out, secrets seen
(the marker key in traffic, the log and the session files), RSS idle / after the storm /
after 30 rejected 10 MB requests / peak. Exit status 1 when any of the zero figures is not
zero or an after-storm RSS exceeds 2x idle.

    .venv/bin/python bench/fuzz.py --messages 20000 [--seed 16] [--write-doc]

``--write-doc`` rewrites the figures table in ``docs/reliability.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

from dsh_lsp.testing import (
    ErrorResponse,
    Event,
    ScriptedServer,
    StreamResponse,
    completion,
    delta_payload,
)
from dsh_lsp.testing.fuzz import (
    MARKER_KEY,
    FuzzReport,
    FuzzRun,
    big_rejected_requests,
    hostile_frames,
    storm,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "reliability.md"
BEGIN, END = "<!-- fuzz:begin -->", "<!-- fuzz:end -->"
MAX_MESSAGE_BYTES = 11 << 20
"""The server's limit in the storm: the 10 MB requests fit and are refused after parsing."""


def model_faults() -> list[StreamResponse | ErrorResponse]:
    """Answers that echo the key in every way a provider could."""
    half = Event(data=delta_payload({"content": "partial "}))
    in_stream = json.dumps({"error": {"message": f"bad key {MARKER_KEY}", "code": 500}})
    body = json.dumps({"error": {"message": f"invalid key Bearer {MARKER_KEY}"}})
    return [
        StreamResponse(steps=(half, Event(data=in_stream))),
        StreamResponse(steps=(half, Event(data=f'{{"not json {MARKER_KEY}'))),
        ErrorResponse(status=400, body=body),
        completion(text=f"the key is {MARKER_KEY}"),
    ]


def run(messages: int, seed: int) -> tuple[FuzzReport, int | None]:
    """One storm; the report and the server's exit code."""
    with (
        tempfile.TemporaryDirectory(prefix="dsh-fuzz-") as temp,
        ScriptedServer(model_faults(), cycle=True) as model,
    ):
        root = Path(temp)
        workspace = root / "ws"
        workspace.mkdir()
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
            "DEEPSEEK_BASE_URL": model.base_url,
            "DEEPSEEK_API_KEY": MARKER_KEY,
            "XDG_STATE_HOME": str(root / "state"),
            "XDG_DATA_HOME": str(root / "data"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        args = ["--log-level", "info", "--max-message-bytes", str(MAX_MESSAGE_BYTES)]
        with FuzzRun(root, env, args) as server:
            session = server.initialize(workspace, root / "sessions")
            time.sleep(1.0)  # let start-up settle before the idle figure (not a synchronization)
            frames = hostile_frames(
                random.Random(seed), messages, session=session, max_message_bytes=MAX_MESSAGE_BYTES
            )
            report = storm(server, frames)
            time.sleep(2.0)  # the after-storm figure is taken once the server is idle again
            report.after_rss_kib = server.rss_kib()
            if not big_rejected_requests(server):
                report.unanswered += 1
            time.sleep(1.0)  # idle again before the figure
            report.after_big_rss_kib = server.rss_kib()
            report.peak_rss_kib = server.peak_rss_kib()
            code = server.shutdown()
            report.secrets_seen = server.secrets_in_traffic + server.secrets_on_disk()
    return report, code


def table(report: FuzzReport, code: int | None, command: str) -> str:
    """The Markdown figures table."""
    lines = ["| Figure | Value |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in report.rows()]
    lines.append(f"| exit code after shutdown + exit | {code} |")
    return f"Measured with `{command}`:\n\n" + "\n".join(lines)


def write_doc(text: str) -> None:
    """Put ``text`` between the markers of ``docs/reliability.md``."""
    current = DOC.read_text(encoding="utf-8")
    head, _, rest = current.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--write-doc", action="store_true", help="update docs/reliability.md")
    args = parser.parse_args()
    report, code = run(args.messages, args.seed)
    command = f"bench/fuzz.py --messages {args.messages} --seed {args.seed}"
    text = table(report, code, command)
    sys.stdout.write(text + "\n")
    if report.unanswered_ids:
        sys.stdout.write(f"unanswered: {report.unanswered_ids[:20]}\n")
    if args.write_doc:
        write_doc(text)
    bad = (report.crashes, report.hangs, report.unanswered, report.invalid_frames)
    rss_ok = max(report.after_rss_kib, report.after_big_rss_kib) <= 2 * report.idle_rss_kib
    return 0 if not any(bad) and report.secrets_seen == 0 and rss_ok and code == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
