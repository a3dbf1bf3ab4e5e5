"""Confinement under a race (issue 16): a thread swaps a symlink in the workspace while the
agent reads and writes through it. The threat model: another process can write the workspace
while a tool runs. No read returns outside content without a permission question, no file
lands outside the workspace, and a file whose identity changed between check and open is
refused."""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest

from dsh_lsp.fs_tools import FsError
from dsh_lsp.fs_tools.local.atomic import atomic_write
from dsh_lsp.fs_tools.local.disk import read_regular
from tests.fs_tools.support import FsHarness, fs_kernel, text_of

ROUNDS = 64


@contextmanager
def swapping(link: Path, inside: Path, outside: Path) -> Iterator[None]:
    """A thread that points ``link`` at ``inside`` and ``outside`` in turn, as fast as it
    can, until the block ends."""
    stop = threading.Event()
    spare = link.with_name(link.name + ".next")

    def swap() -> None:
        targets = (inside, outside)
        turn = 0
        while not stop.is_set():
            turn ^= 1
            os.symlink(targets[turn], spare)
            os.replace(spare, link)

    os.symlink(inside, link)
    worker = threading.Thread(target=swap, daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join()


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, Path]:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "real").mkdir(parents=True)
    outside.mkdir()
    (workspace / "real" / "f.txt").write_text("inside\n")
    (outside / "f.txt").write_text("SECRET\n")
    return workspace, workspace / "real", outside


@asynccontextmanager
async def racing(world: tuple[Path, Path, Path]) -> AsyncIterator[FsHarness]:
    """A file-tools kernel over the workspace of ``world`` while its ``link`` swaps between
    the folder inside and the one outside, for as long as the block runs."""
    workspace, inside, outside = world
    async with fs_kernel(workspace) as h:
        with swapping(workspace / "link", inside, outside):
            yield h


async def test_reads_through_a_swapping_link_never_return_outside_content_unasked(
    world: tuple[Path, Path, Path],
) -> None:
    async with racing(world) as h:
        results = [
            await h.call("read", {"file_path": "link/f.txt"}, h.session()) for _ in range(ROUNDS)
        ]
    texts = [text_of(result) for result in results]
    assert not [text for text in texts if "SECRET" in text]
    assert any("inside" in text for text in texts)


async def test_writes_through_a_swapping_link_never_land_outside(
    world: tuple[Path, Path, Path],
) -> None:
    _, inside, outside = world
    async with racing(world) as h:
        for round_ in range(ROUNDS):
            args = {"file_path": f"link/new{round_}.txt", "content": "x\n"}
            await h.call("write", args, h.session())
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]
    assert list(inside.glob("new*.txt"))


def test_a_read_refuses_a_file_that_is_not_the_checked_real_path(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "f.txt").write_text("a\n")
    (tmp_path / "b" / "f.txt").write_text("b\n")
    os.symlink(tmp_path / "b", tmp_path / "now")
    checked = str(tmp_path / "a" / "f.txt")
    with pytest.raises(FsError) as caught:  # the path as opened leads to b/, not the check
        read_regular(
            str(tmp_path / "now" / "f.txt"), "f.txt", max_bytes=10, verb="r", expect=checked
        )
    assert caught.value.code == "FS_IO_ERROR"
    assert read_regular(checked, "f.txt", max_bytes=10, verb="r", expect=checked).data == b"a\n"


def test_a_write_refuses_a_directory_swapped_after_the_check(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    os.symlink(tmp_path / "b", tmp_path / "a")  # "a" was a real directory when checked
    with pytest.raises(FsError) as caught:
        atomic_write(
            str(tmp_path / "a" / "x.txt"), b"x", mode=None, display_path="x", expect_dir=True
        )
    assert caught.value.code == "FS_IO_ERROR"
    assert list((tmp_path / "b").iterdir()) == []
