"""Benchmark: the cost of a turn as its session grows, and the server's memory at the end.

One real ``python -m dsh_lsp`` (``bench/server.py``'s pygls client, scripted model server and
timestamping proxy) runs ``--turns`` turns of a 200-chunk answer in one session. For each
turn: the harness's share (prompt → answer minus the model's time as the proxy saw it) and
the server's CPU (all threads, ``/proc``). Figures: the median of turns 11 to 20 (10 prior
turns) and of the last ten (about 500 prior), their ratio (target: at most 1.2x), and the
server's RSS and peak RSS (``VmHWM``) after the last turn, next to an idle started server.

    .venv/bin/python bench/growth.py [--turns 510]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import OURS, model_server, model_time, ms, rss, running, text_answer
from stream import cpu


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-growth-") as tmp:
        root = Path(tmp)
        print(f"{turns} turns of 200 chunks in one session")
        served = model_server([text_answer(200)], root)
        async with served as proxy, running(OURS, root, proxy) as lsp:
            session = await lsp.new_session()
            await lsp.started()
            idle = rss(lsp.pid)
            overheads, cpus = [], []
            for _ in range(turns):
                mark = len(proxy.request_starts)
                before = cpu(lsp.pid)
                sent, done, result = await lsp.prompt(session)
                assert result["stopReason"] == "end_turn", result
                cpus.append(cpu(lsp.pid) - before)
                overheads.append(done - sent - model_time(proxy, mark, 1))
            end = rss(lsp.pid)
    early, late = slice(10, 20), slice(turns - 10, turns)
    for label, values in (("harness share of a turn", overheads), ("server CPU per turn", cpus)):
        first = statistics.median(values[early])
        last = statistics.median(values[late])
        print(
            f"  {label:<26} 10 prior {ms(first, 2):>10}   {turns - 10} prior {ms(last, 2):>10}"
            f"   ratio {last / first:5.2f}x"
        )
    print(f"  RSS idle {idle[0]:.0f} MiB (peak {idle[1]:.0f}); after the last turn")
    print(f"  {end[0]:.0f} MiB (peak {end[1]:.0f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=510, help="turns in the session")
    arguments = parser.parse_args()
    anyio.run(main, arguments.turns, backend="asyncio")
