"""Local-provider specifics beyond the contract: limits, config, locks, cleanup, search."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from dsh_lsp.fs_tools import FS, FS_SEARCH, FsError, GrepQuery, LiteralEdit, TreeQuery
from dsh_lsp.fs_tools.local import (
    LocalFileSearch,
    LocalFileSystem,
    LocalFileSystemPlugin,
    LocalLimits,
    LocalSearchPlugin,
    SearchLimits,
    WorkspacePaths,
)
from dsh_lsp.fs_tools.local.locks import KeyedLocks
from dsh_lsp.fs_tools.local.walker import walk
from dsh_lsp.kernel import Kernel, PluginConfigError, PluginFailedError, ServiceConflictError


def _put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _provider(root: Path, limits: LocalLimits | None = None) -> LocalFileSystem:
    return LocalFileSystem(WorkspacePaths([str(root)]), limits)


async def test_size_limits_fail_clearly(tmp_path: Path) -> None:
    _put(tmp_path / "big.txt", b"x\n" * 3000)
    fs = _provider(tmp_path, LocalLimits(max_read_bytes=4096, max_write_bytes=4096))
    target = await fs.resolve("big.txt")
    with pytest.raises(
        FsError, match=r"big.txt is 6000 bytes; reading a whole file is limited to 4096"
    ):
        await fs.read_text(target)
    with pytest.raises(FsError) as edit:
        await fs.edit_text(target, [LiteralEdit(old_string="x", new_string="y", replace_all=True)])
    assert edit.value.code == "FS_TOO_LARGE"
    with pytest.raises(FsError) as write:
        await fs.write_text(await fs.resolve("new.txt"), "y" * 5000)
    assert write.value.code == "FS_TOO_LARGE"
    chunks = [chunk async for chunk in fs.stream_text(target)]
    assert "".join(chunks) == "x\n" * 3000, "streaming has no size limit"
    assert not (tmp_path / "new.txt").exists()


async def test_a_failed_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores directory permissions")
    locked = tmp_path / "locked"
    locked.mkdir()
    _put(locked / "a.txt", b"a")
    locked.chmod(0o500)
    try:
        fs = _provider(tmp_path)
        with pytest.raises(FsError) as caught:
            await fs.write_text(await fs.resolve("locked/a.txt"), "b")
        assert caught.value.code == "FS_PERMISSION_DENIED"
        assert sorted(os.listdir(locked)) == ["a.txt"]
    finally:
        locked.chmod(0o700)


async def test_an_unchanged_edit_result_writes_nothing(tmp_path: Path) -> None:
    _put(tmp_path / "a.txt", b"ab")
    fs = _provider(tmp_path)
    target = await fs.resolve("a.txt")
    before = os.stat(tmp_path / "a.txt").st_ino
    edits = [
        LiteralEdit(old_string="a", new_string="x"),
        LiteralEdit(old_string="x", new_string="a"),
    ]
    outcome = await fs.edit_text(target, edits)
    assert outcome.after == "ab"
    assert os.stat(tmp_path / "a.txt").st_ino == before


def test_workspace_paths_reject_bad_roots(tmp_path: Path) -> None:
    with pytest.raises(FsError, match="at least one workspace root"):
        WorkspacePaths([])
    with pytest.raises(FsError, match="is not a directory"):
        WorkspacePaths([str(tmp_path / "missing")])


async def test_plugin_config_is_validated(tmp_path: Path) -> None:
    async with Kernel() as kernel:
        with pytest.raises(PluginConfigError, match="roots"):
            await kernel.context.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path / "x")]})
        with pytest.raises(PluginConfigError, match="max_read_bytes"):
            await kernel.context.plugin(LocalFileSystemPlugin, {"max_read_bytes": 0})


async def test_plugins_provide_their_services_once(tmp_path: Path) -> None:
    async with Kernel() as kernel:
        ctx = kernel.context
        search = await ctx.plugin(LocalSearchPlugin)
        assert ctx.get(FS_SEARCH) is None, "search waits for a FileSystem"
        fs = await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path)]})
        await kernel.wait_settled()
        provided_fs = ctx.get(FS)
        provided_search = ctx.get(FS_SEARCH)
        assert isinstance(provided_fs, LocalFileSystem)
        assert isinstance(provided_search, LocalFileSearch)
        with pytest.raises(PluginFailedError) as caught:
            await ctx.plugin(LocalFileSystemPlugin, {"roots": [str(tmp_path)]})
        assert isinstance(caught.value.__cause__, ServiceConflictError)
        await fs.dispose()
        assert ctx.get(FS_SEARCH) is None, "search leaves with the FileSystem it used"
        await search.dispose()


async def test_keyed_locks_serialize_one_key_and_forget_idle_keys() -> None:
    locks = KeyedLocks()
    order: list[str] = []
    entered = anyio.Event()
    release = anyio.Event()

    async def first() -> None:
        async with locks.hold("k"):
            order.append("first in")
            entered.set()
            await release.wait()
            order.append("first out")

    async def second() -> None:
        await entered.wait()
        async with locks.hold("k"):
            order.append("second in")

    async with anyio.create_task_group() as group:
        group.start_soon(first)
        group.start_soon(second)
        await entered.wait()
        async with locks.hold("other"):
            order.append("other key")
        release.set()
    assert order == ["first in", "other key", "first out", "second in"]
    assert len(locks) == 0


def test_walks_never_follow_symlinks_or_enter_vcs_dirs(tmp_path: Path) -> None:
    _put(tmp_path / "outside" / "secret.txt", b"s")
    root = tmp_path / "ws"
    _put(root / "a.txt", b"a")
    _put(root / ".git" / "HEAD", b"ref")
    _put(root / ".hg" / "store", b"x")
    _put(root / ".github" / "ci.yml", b"x")
    os.symlink(tmp_path / "outside", root / "link")
    items = [(item.rel, item.kind, item.depth) for item in walk(str(root))]
    assert items == [
        (".github", "directory", 1),
        (".github/ci.yml", "file", 2),
        ("a.txt", "file", 1),
        ("link", "symlink", 1),
    ]


async def test_grep_stops_early_and_skips_large_files(tmp_path: Path) -> None:
    for index in range(40):
        _put(tmp_path / f"f{index:02d}.txt", b"hit\n" * 5)
    _put(tmp_path / "huge.txt", b"hit\n" * 2000)
    fs = _provider(tmp_path)
    search = LocalFileSearch(fs, SearchLimits(batch_files=4, workers=3, max_file_bytes=4096))
    report = await search.grep(GrepQuery(pattern="hit", path=".", max_matches=12))
    assert report.truncated
    assert report.matches == 12
    assert [file.path for file in report.files] == [
        str(tmp_path / "f00.txt"),
        str(tmp_path / "f01.txt"),
        str(tmp_path / "f02.txt"),
    ]
    everything = await search.grep(GrepQuery(pattern="hit", path="huge.txt", max_matches=10))
    assert everything.files == (), "files over the size limit are skipped"


async def test_grep_reports_a_multiline_match_once_on_its_first_line(tmp_path: Path) -> None:
    _put(tmp_path / "m.txt", b"alpha\nbeta\ngamma\nalpha\n")
    search = LocalFileSearch(_provider(tmp_path))
    report = await search.grep(GrepQuery(pattern=r"alpha\nbeta|gamma", path=".", max_matches=10))
    assert [(line.number, line.text) for line in report.files[0].lines] == [
        (1, "alpha"),
        (3, "gamma"),
    ]


async def test_tree_requires_a_directory(tmp_path: Path) -> None:
    _put(tmp_path / "a.txt", b"a")
    search = LocalFileSearch(_provider(tmp_path))
    with pytest.raises(FsError) as caught:
        await search.tree(TreeQuery(path="a.txt", depth=1, max_entries=10))
    assert caught.value.code == "FS_NOT_DIRECTORY"
