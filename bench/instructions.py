"""Benchmark: instructions per warm 10-step turn (callgrind), next to bare httpx in the same run.

On a shared host whose speed drifts by up to 2x over minutes, wall-clock and CPU-time A/B
runs of a few milliseconds per step cannot tell a 5 % change from the drift. Instruction
counts can: ``valgrind --tool=callgrind`` counts the instructions a process executes,
whatever the rest of the machine does. They are not time (a C loop and a Python loop of the
same count do not take the same time), so use them to compare two versions of the same
code path, and the wall-clock benchmarks (``server.py``, ``stream.py``) for the targets.

One real ``python -m dsh_lsp`` runs under callgrind with instrumentation off, so its
start-up runs at near full speed; after two turns ``callgrind_control`` switches counting
on for ``--turns`` warm turns of ``bench/server.py``'s 10-step read turn (nine
``read`` steps, then text; each in a new session, as the side-by-side driver does) and off
again. The baseline, also under callgrind: a Python process that reads the same ten scripted
responses per turn with bare httpx (``server.raw_stream``: the HTTP work alone, no tools, no
log, no LSP). Figures: instructions per turn of both (all threads) and their ratio.

    .venv/bin/python bench/instructions.py [--turns 5]

Needs ``valgrind`` (Debian's package) on ``PATH``; about 2 minutes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import OURS, STEPS, model_server, read_turn, running

BENCH = Path(__file__).resolve().parent
WARM = 2
"""Uncounted turns before counting starts (the first prompt of a process loads lazily)."""

BARE = """
import sys, anyio
sys.path.insert(0, {bench!r})
from server import raw_stream
anyio.run(raw_stream, {url!r}, {count}, backend="asyncio")
"""


def callgrind(out: Path, command: tuple[str, ...], *, at_start: bool) -> tuple[str, ...]:
    """``command`` under callgrind, writing its counts to ``out``."""
    return (
        "valgrind",
        "--tool=callgrind",
        f"--instr-atstart={'yes' if at_start else 'no'}",
        f"--callgrind-out-file={out}",
        *command,
    )


def total(out: Path) -> int:
    """The instructions counted in the files callgrind wrote for ``out`` (one per dump, each
    holding what was counted since the one before)."""
    counted = 0
    for part in out.parent.glob(out.name + "*"):
        for line in part.read_text(errors="replace").splitlines():
            if line.startswith("totals:"):
                counted += int(line.split()[1])
    return counted


def control(flag: str, pid: int) -> None:
    subprocess.run(["callgrind_control", flag, str(pid)], check=True, capture_output=True)


async def server_turns(root: Path, turns: int) -> int:
    """Instructions of the server over ``turns`` warm 10-step turns."""
    out = root / "server.callgrind"
    async with model_server(read_turn(), root) as proxy:
        command = callgrind(out, OURS, at_start=False)
        async with running(command, root, proxy) as lsp:
            await lsp.started()
            for _ in range(WARM):
                result = (await lsp.prompt(await lsp.new_session()))[2]
                assert result["stopReason"] == "end_turn", result
            control("--instr=on", lsp.pid)
            for _ in range(turns):
                await lsp.prompt(await lsp.new_session())
            control("--instr=off", lsp.pid)
    return total(out)


async def bare_turns(root: Path, turns: int) -> int:
    """Instructions of a bare httpx reader of ``turns`` x 10 scripted responses, minus the
    same process reading none (the interpreter, imports and the client's set-up)."""
    counts = []
    async with model_server(read_turn(), root) as proxy:
        url = f"http://127.0.0.1:{proxy.port}"
        for count in (0, turns * STEPS):
            out = root / f"bare-{count}.callgrind"
            code = BARE.format(bench=str(BENCH), url=url, count=count)
            command = callgrind(out, (sys.executable, "-c", code), at_start=True)
            await anyio.run_process(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            counts.append(total(out))
    return counts[1] - counts[0]


async def main(turns: int) -> None:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench/instructions.py needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="dsh-instructions-") as tmp:
        root = Path(tmp)
        ours = await server_turns(root, turns) / turns
        bare = await bare_turns(root, turns) / turns
    print(f"{STEPS}-step read-tool turn, {turns} warm turns under callgrind (all threads)")
    print(f"  dsh-lsp server        {ours / 1e6:8.2f} M instructions per turn")
    print(f"  bare httpx reader     {bare / 1e6:8.2f} M instructions per turn ({ours / bare:.1f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=5, help="counted warm turns")
    anyio.run(main, parser.parse_args().turns, backend="asyncio")
