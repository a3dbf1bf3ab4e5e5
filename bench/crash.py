"""Benchmark: kill -9 the language server at random points and count what the client lost.

Runs the crash kit (``tests/server/crash_kit.py``) ``--kills`` times on one backend: a real
``dsh-lsp`` over stdio runs two scripted multi-step prompts (write, read and edit a file,
each change asked for and granted, streamed text) and is SIGKILLed right after the client
received a message drawn by a seeded RNG; a checker server on the same session directory
then lists, resumes and prompts the session. Printed: kills, sessions the client saw,
sessions lost, client-visible events seen (user messages, tool calls shown completed or
failed, prompt answers) and lost, invalid transcripts (an open turn or tool call in the
replay, or a next prompt that fails or sends an invalid transcript), temporary files left,
and the time. Every "lost", "invalid" and "left" figure must be 0; the exit code is 1
otherwise.

By default the trial servers are forked from a zygote that imported dsh-lsp once (same
code, no per-trial import cost); ``--exec`` starts each as a fresh ``python -m dsh_lsp``.

Run: ``.venv/bin/python bench/crash.py --kills 200 [--backend jsonl|sqlite] [--seed N]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server.crash_kit import Figures, Store, run  # needs the path above


def report(store: Store, figures: Figures, launcher: str) -> None:
    print(f"kill -9 crash suite, backend {store}, servers {launcher}")
    print(f"kills                       {figures.kills}")
    print(f"sessions the client saw     {figures.sessions_seen}")
    print(f"sessions lost               {figures.sessions_lost}")
    print(f"client-visible events seen  {figures.events_seen}")
    print(f"client-visible events lost  {figures.events_lost}")
    print(f"invalid transcripts         {figures.invalid_transcripts}")
    print(f"temporary files left        {figures.stray_files}")
    print(f"time                        {figures.seconds:.1f} s")
    for problem in figures.problems[:20]:
        print(f"  {problem}")
    print("verdict                     " + ("ok" if figures.clean else "FAILED"))


async def main(kills: int, store: Store, seed: int, fork: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="dsh-crash-") as tmp:
        figures = await run(Path(tmp), store, kills, seed, fork=fork)
    report(store, figures, "forked from a zygote" if fork else "python -m dsh_lsp each")
    return 0 if figures.clean else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--backend", choices=("jsonl", "sqlite"), default="jsonl")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exec", action="store_true", help="a fresh process per trial")
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.kills, args.backend, args.seed, not args.exec))
