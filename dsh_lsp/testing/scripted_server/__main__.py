"""``python -m dsh_lsp.testing.scripted_server``: serve a JSON script from another process.

The bound port is written to stderr (``scripted server listening on port N``) and, with
``--port-file``, atomically to a file; stdout stays untouched. Runs until SIGINT or SIGTERM.
``--help`` describes the script format (``SCRIPT_FORMAT``).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from dsh_lsp.testing.script import script_from_json

from .rules import CHECKS
from .server import ScriptedServer

SCRIPT_FORMAT = """\
The script is a JSON file answering one incoming request per response, in order:

  {"responses": [
     {"stream": [{"data": "<SSE payload: a chat.completion.chunk as JSON text, or [DONE]>"},
                 {"raw": "<text written to the body verbatim>"},
                 {"delay": 0.1},          pause, after flushing what was written
                 {"stall": 5.0},          stop writing for 5 s ({"stall": null}: forever)
                 {"disconnect": true}],   drop the connection
      "headers": {"X-Extra": "1"}},       a 200 text/event-stream answer
     {"status": 429, "body": "<text>", "headers": {"Retry-After": "3"},
      "contentType": "application/json"}  an error answer
  ]}

A request past the end gets HTTP 500 (unless --cycle starts the script over). Build scripts
in Python with dsh_lsp.testing (completion(), error(), script_to_json()); point the server
under test at it with DEEPSEEK_BASE_URL=http://127.0.0.1:PORT and any DEEPSEEK_API_KEY.
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a JSON script until SIGINT/SIGTERM; the port goes to stderr and ``--port-file``."""
    parser = argparse.ArgumentParser(
        prog="python -m dsh_lsp.testing.scripted_server",
        description="A scripted OpenAI-compatible chat-completions server on 127.0.0.1.",
        epilog=SCRIPT_FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--script", type=Path, required=True, help="JSON script file")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: random)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here")
    parser.add_argument("--cycle", action="store_true", help="repeat the script forever")
    parser.add_argument(
        "--coalesce", action="store_true", help="gather consecutive steps into 64 KiB writes"
    )
    parser.add_argument(
        "--record", type=Path, help="append each request here as JSONL (no Authorization)"
    )
    parser.add_argument(
        "--check", choices=sorted(CHECKS), help="validate requests as that provider does"
    )
    args = parser.parse_args(argv)
    responses = script_from_json(json.loads(args.script.read_text(encoding="utf-8")))
    server = ScriptedServer(
        responses,
        cycle=args.cycle,
        port=args.port,
        record_to=args.record,
        coalesce=args.coalesce,
        check=None if args.check is None else CHECKS[args.check],
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with server:
        if args.port_file is not None:
            temp = args.port_file.with_suffix(".tmp")
            temp.write_text(str(server.port), encoding="utf-8")
            temp.replace(args.port_file)
        sys.stderr.write(f"scripted server listening on port {server.port}\n")
        sys.stderr.flush()
        stop.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
