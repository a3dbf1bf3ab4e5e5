"""Benchmark: the grep tool over a large synthetic tree, and the edit tool on a 100,000-line file.

Part 1 generates a tree (default 50,000 files, 500 MB of Python-like text in 2,500
directories, a ``.gitignore`` and one needle line every 1,000 files), then times the ``grep``
tool end to end through the registry (kernel, policy, read gate, ``LocalFileSearch``) for three
patterns: a literal identifier, a regex with a literal part, and a regex with none. Next to
each it times ``grep -rn`` on the same tree in the same run (and ``rg -n`` when installed).
Every command runs ``--repeat`` times after one warm-up (page cache hot); the best run counts.
Target: the grep tool within 3x of ``grep -rn`` (identifier searches).

Part 2 writes a 100,000-line file and times the ``edit`` tool end to end (intent waterfall,
per-target lock, version check, literal replace, atomic write with fsync, diff hunks), the
provider's ``edit_text`` alone, and a plain Python read-modify-write (``read_text``,
``str.replace``, ``write_text``; no fsync). Target: the edit tool under 50 ms.

Run: ``.venv/bin/python bench/fs.py [--files 50000] [--total-mb 500] [--lines 100000]
[--repeat 3] [--dir DIR]``. The tree lives in a temporary directory (or ``--dir``) and is
deleted afterwards; smaller ``--files``/``--total-mb`` make a quick run.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from dsh_lsp.fs_tools import FS, FsPolicyPlugin, FsToolsPlugin, LiteralEdit
from dsh_lsp.fs_tools.local import LocalFileSystemPlugin, LocalSearchPlugin
from dsh_lsp.kernel import Kernel
from dsh_lsp.llm import CallId, JsonValue, SessionId, TextBlock
from dsh_lsp.session import Session, SessionHeader
from dsh_lsp.tools import TOOLS, ToolExecution, ToolRegistry, ToolsPlugin

NEEDLE = "needle_marker_xyz"
PATTERNS = (
    ("literal identifier", NEEDLE),
    ("regex with a literal", r"needle_\w+_xyz\b"),
    ("regex, no literal", r"[A-Z]{3}\d{4}"),
)
WORDS = (
    "alpha", "beta", "gamma", "delta", "return", "self", "value", "import", "def", "class",
    "for", "in", "if", "else", "print", "data", "index", "result", "items", "config",
    "request", "response", "handler", "error", "logger", "session", "buffer",
)  # fmt: skip


def generate_tree(root: Path, files: int, total_bytes: int) -> None:
    """Write ``files`` files of about ``total_bytes`` in total under ``root``."""
    rnd = random.Random(7)
    pool = [
        "    " * rnd.randint(0, 3)
        + " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 10)))
        + f"  # {i}\n"
        for i in range(4000)
    ]
    per_file = max(1, total_bytes // files)
    (root / ".gitignore").write_text("*.pyc\n__pycache__/\nbuild/\n")
    for index in range(files):
        directory = root / f"pkg{index % 50:02d}" / f"mod{(index // 50) % 50:02d}"
        if index < 2500:
            directory.mkdir(parents=True, exist_ok=True)
        parts: list[str] = []
        size = 0
        while size < per_file:
            line = pool[rnd.randrange(len(pool))]
            parts.append(line)
            size += len(line)
        if index % 1000 == 0:
            parts.insert(len(parts) // 2, f"    {NEEDLE} = lookup(HANDLER)\n")
        (directory / f"file{index}.py").write_text("".join(parts))


def time_command(argv: list[str], repeat: int) -> float:
    """Best wall time of ``argv`` (output discarded) over ``repeat`` runs after a warm-up."""
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=False)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=False)
        best = min(best, time.perf_counter() - start)
    return best


async def time_async(action: Callable[[], Awaitable[object]], repeat: int) -> float:
    """Best wall time of ``action`` over ``repeat`` runs after a warm-up."""
    await action()
    times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        await action()
        times.append(time.perf_counter() - start)
    return min(times)


def call(registry: ToolRegistry, session: Session, name: str, args: JsonValue) -> Awaitable[str]:
    """Run one tool call; its text (raises on an error result, so a broken bench is loud)."""

    async def run() -> str:
        execution = ToolExecution(
            call_id=CallId("bench"), name=name, arguments=args, session=session
        )
        result = (await registry.execute(execution)).result
        block = result.content[0]
        assert isinstance(block, TextBlock)
        if result.is_error:
            raise RuntimeError(block.text)
        return block.text

    return run()


async def bench(args: argparse.Namespace, base: Path) -> None:
    tree = base / "tree"
    tree.mkdir()
    started = time.perf_counter()
    generate_tree(tree, args.files, args.total_mb << 20)
    size = sum(entry.stat().st_size for entry in tree.rglob("*.py"))
    print(
        f"tree: {args.files} files, {size / 1e6:.0f} MB, generated in "
        f"{time.perf_counter() - started:.1f} s"
    )
    big = base / "big.py"
    big.write_text("".join(f"value_{i} = compute({i})  # line {i}\n" for i in range(args.lines)))

    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(ToolsPlugin)
        await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(base)]})
        await ctx.plugin(LocalSearchPlugin)
        await ctx.plugin(FsPolicyPlugin)
        await ctx.plugin(FsToolsPlugin)
        registry = ctx.require(TOOLS)
        session = Session(SessionHeader(id=SessionId("bench"), created_at=0, cwd=str(base)))

        print("\n== grep (best of", args.repeat, "after a warm-up)")
        rg = shutil.which("rg")
        for label, pattern in PATTERNS:
            grep_args: JsonValue = {"pattern": pattern, "path": "tree"}

            async def grep_tool(grep_args: JsonValue = grep_args) -> str:
                return await call(registry, session, "grep", grep_args)

            ours = await time_async(grep_tool, args.repeat)
            found = (await grep_tool()).rsplit("\n", 1)[-1]
            gnu = time_command(["grep", "-rn", "-E", _posix(pattern), str(tree)], args.repeat)
            line = (
                f"{label:22s} grep tool {ours:6.2f} s   grep -rn {gnu:6.2f} s   "
                f"ratio {ours / gnu:4.1f}x"
            )
            if rg:
                ripgrep = time_command([rg, "-n", pattern, str(tree)], args.repeat)
                line += f"   rg -n {ripgrep:6.2f} s"
            print(line + f"   {found}")

        print(f"\n== edit of a {args.lines:,}-line file ({big.stat().st_size / 1e6:.1f} MB)")
        await call(registry, session, "read", {"file_path": "big.py", "limit": 1})
        state = {"old": "compute(50000)", "new": "compute(-1)"}

        async def tool_edit() -> str:
            edit: JsonValue = {
                "file_path": "big.py",
                "old_string": state["old"],
                "new_string": state["new"],
            }
            text = await call(registry, session, "edit", edit)
            state["old"], state["new"] = state["new"], state["old"]
            return text

        fs = ctx.require(FS)
        target = await fs.resolve(str(big))

        async def provider_edit() -> object:
            outcome = await fs.edit_text(
                target, [LiteralEdit(old_string=state["old"], new_string=state["new"])]
            )
            state["old"], state["new"] = state["new"], state["old"]
            return outcome

        def plain_rmw() -> None:
            text = big.read_text(encoding="utf-8")
            big.write_text(text.replace(state["old"], state["new"], 1), encoding="utf-8")
            state["old"], state["new"] = state["new"], state["old"]

        edit_times = [await time_async(tool_edit, 1) for _ in range(args.repeat)]
        provider = await time_async(provider_edit, args.repeat)
        baseline = await time_async(lambda: anyio.to_thread.run_sync(plain_rmw), args.repeat)
        print(
            f"edit tool       {min(edit_times) * 1000:7.1f} ms best, "
            f"{statistics.median(edit_times) * 1000:7.1f} ms median (target < 50 ms)"
        )
        print(f"provider edit   {provider * 1000:7.1f} ms (lock, version check, atomic write)")
        print(f"plain Python    {baseline * 1000:7.1f} ms (read_text, replace, write_text)")


def _posix(pattern: str) -> str:
    """The pattern in POSIX ERE spelling for GNU grep (``\\w`` and ``\\b`` are GNU extensions;
    ``\\d`` is not)."""
    return pattern.replace(r"\d", "[0-9]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--total-mb", type=int, default=500)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None, help="parent of the temporary tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dsh-fs-bench-", dir=args.dir) as base:
        anyio.run(bench, args, Path(os.path.realpath(base)))


if __name__ == "__main__":
    main()
