"""``python -m dsh_lsp.testing.scripted_server``: serve a JSON script from another process.

The bound port is written to stderr (``scripted server listening on port N``) and, with
``--port-file``, atomically to a file; stdout stays untouched. Runs until SIGINT or SIGTERM.
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


def main(argv: Sequence[str] | None = None) -> int:
    """Serve a JSON script until SIGINT/SIGTERM; the port goes to stderr and ``--port-file``."""
    parser = argparse.ArgumentParser(prog="python -m dsh_lsp.testing.scripted_server")
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
