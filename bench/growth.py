"""Benchmark: the cost of a turn as its session grows, and the server's memory at the end.

One real ``python -m dsh_lsp`` (``bench/server.py``'s pygls client, scripted model server and
timestamping proxy) grows one session to ``--turns`` turns of a 200-chunk answer, and a second
session to 10. Then the two take turns, 20 times each, interleaved (short, long, long, short,
...), so both are measured in the same minutes of the same process: on a shared host whose
speed drifts over a run, a window of early turns against a window of late ones compares two
moments as much as two session lengths. For each measured turn: the harness's share (prompt →
answer minus the model's time as the proxy saw it) and the server's CPU (all threads,
``/proc``). Figures: the medians of the short session (10 to 29 prior turns while it is
measured) and of the long one (``--turns`` and 19 more) and their ratio (target: at most 1.2x),
also as first seen while the long session grew (turns 11-20 against its last ten), and the
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

from server import OURS, Lsp, Proxy, model_server, model_time, ms, rss, running, text_answer
from stream import cpu

SHORT = 10
"""Prior turns of the short session."""
PAIRS = 20
"""Measured turns of each session."""


async def turn(lsp: Lsp, proxy: Proxy, session: str) -> tuple[float, float]:
    """One turn of ``session``: (the harness's share, the server's CPU), in seconds."""
    mark = len(proxy.request_starts)
    before = cpu(lsp.pid)
    sent, done, result = await lsp.prompt(session)
    assert result["stopReason"] == "end_turn", result
    return done - sent - model_time(proxy, mark, 1), cpu(lsp.pid) - before


def report(label: str, short: list[float], long: list[float], turns: int) -> None:
    first, last = statistics.median(short), statistics.median(long)
    print(
        f"  {label:<34} {SHORT} prior {ms(first, 2):>9}   {turns} prior {ms(last, 2):>9}"
        f"   ratio {last / first:5.2f}x"
    )


async def main(turns: int) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-growth-") as tmp:
        root = Path(tmp)
        print(f"one session grown to {turns} turns of 200 chunks, one to {SHORT}")
        served = model_server([text_answer(200)], root)
        async with served as proxy, running(OURS, root, proxy) as lsp:
            long, short = await lsp.new_session(), await lsp.new_session()
            await lsp.started()
            idle = rss(lsp.pid)
            grown = [await turn(lsp, proxy, long) for _ in range(turns)]
            for _ in range(SHORT):
                await turn(lsp, proxy, short)
            measured: dict[str, list[tuple[float, float]]] = {short: [], long: []}
            for index in range(PAIRS):
                order = (short, long) if index % 2 == 0 else (long, short)
                for session in order:
                    measured[session].append(await turn(lsp, proxy, session))
            end = rss(lsp.pid)
    print(f"interleaved, {PAIRS} turns each:")
    for label, index in (("harness share of a turn", 0), ("server CPU per turn", 1)):
        report(
            label, [m[index] for m in measured[short]], [m[index] for m in measured[long]], turns
        )
    print("while the long session grew (turns 11-20 against the last ten):")
    report(
        "harness share of a turn",
        [g[0] for g in grown[10:20]],
        [g[0] for g in grown[-10:]],
        turns - 10,
    )
    print(f"  RSS idle {idle[0]:.0f} MiB (peak {idle[1]:.0f}); after the last turn")
    print(f"  {end[0]:.0f} MiB (peak {end[1]:.0f})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=510, help="turns of the long session")
    arguments = parser.parse_args()
    anyio.run(main, arguments.turns, backend="asyncio")
