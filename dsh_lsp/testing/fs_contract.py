"""The FileSystem provider contract: reusable checks on real directories (testing kit).

Every ``FS`` provider (the local one, and the editor-backed one of the language server) must
pass every case of ``FS_CONTRACT``. A case seeds files in an ``FsWorld`` — a workspace root
and a sibling directory outside it — runs against a provider built by the caller's factory,
and then "verifies the world": the runner re-reads both trees from disk and fails when any
file, directory, symlink or permission changed that the case did not declare (``world.changes``)
or when stray files (temporary files of an atomic write) are left behind::

    @pytest.mark.parametrize("case", FS_CONTRACT, ids=lambda case: case.name)
    async def test_contract(case: ContractCase, tmp_path: Path) -> None:
        await run_contract_case(case, local_factory, tmp_path)

The factory receives the world and returns an async context manager yielding the provider,
which must treat ``world.workspace`` as its only workspace root (and default cwd).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from dsh_lsp.fs_tools import (
    CreateIfAbsent,
    ExpectVersion,
    FileSystem,
    FsCode,
    FsError,
    FsTarget,
    LiteralEdit,
    ReplaceIfVersion,
)

BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class FsWorld:
    """The directories a case works in, and the changes it declares."""

    base: Path
    workspace: Path
    outside: Path
    changes: set[str] = field(default_factory=set)
    """Paths (relative to ``base``) the case may change, create or delete, with everything
    below them."""

    @classmethod
    def create(cls, base: Path) -> FsWorld:
        """Make ``base/ws`` (the workspace) and ``base/outside``."""
        workspace, outside = base / "ws", base / "outside"
        workspace.mkdir(parents=True)
        outside.mkdir()
        return cls(base=base, workspace=workspace, outside=outside)

    def ws(self, rel: str) -> Path:
        """A path inside the workspace."""
        return self.workspace / rel

    def put(self, rel: str, data: bytes | str, *, where: Path | None = None) -> Path:
        """Create a file (and its parents) under the workspace (or ``where``)."""
        path = (where or self.workspace) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return path

    def expect_change(self, *paths: Path) -> None:
        """Declare that the case changes these paths (and anything below them)."""
        self.changes.update(str(path.relative_to(self.base)) for path in paths)

    def snapshot(self) -> dict[str, tuple[str, bytes | str, int]]:
        """Every entry under ``base``: kind, content (or link target) and permission bits."""
        entries: dict[str, tuple[str, bytes | str, int]] = {}
        for root, dirs, files in os.walk(self.base, followlinks=False):
            for name in dirs + files:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, self.base)
                st = os.lstat(path)
                mode = stat.S_IMODE(st.st_mode)
                if stat.S_ISLNK(st.st_mode):
                    entries[rel] = ("link", os.readlink(path), 0)
                elif stat.S_ISDIR(st.st_mode):
                    entries[rel] = ("dir", b"", mode)
                else:
                    entries[rel] = ("file", Path(path).read_bytes(), mode)
        return entries

    def declared(self, rel: str) -> bool:
        """Whether ``rel`` lies at or below a declared change."""
        return any(rel == change or rel.startswith(change + os.sep) for change in self.changes)


ProviderFactory = Callable[[FsWorld], AbstractAsyncContextManager[FileSystem]]
"""Builds the provider under test for a world (workspace root = ``world.workspace``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ContractCase:
    """One contract check: ``setup`` seeds the world, ``run`` exercises the provider."""

    name: str
    run: Callable[[FileSystem, FsWorld], Awaitable[None]]
    setup: Callable[[FsWorld], None] = lambda world: None


async def run_contract_case(case: ContractCase, factory: ProviderFactory, base: Path) -> None:
    """Run ``case`` in a fresh world under ``base`` and verify the world afterwards.

    Raises AssertionError for a failed check or an undeclared change on disk.
    """
    world = FsWorld.create(base)
    case.setup(world)
    before = world.snapshot()
    async with factory(world) as fs:
        await case.run(fs, world)
    after = world.snapshot()
    for rel in sorted(set(before) | set(after)):
        if not world.declared(rel):
            assert before.get(rel) == after.get(rel), f"{rel} changed but the case did not say so"


async def check_filesystem(factory: ProviderFactory, base: Path) -> None:
    """Run every case of ``FS_CONTRACT``, each in its own subdirectory of ``base``."""
    for case in FS_CONTRACT:
        await run_contract_case(case, factory, base / case.name)


async def expect_error(code: FsCode, action: Awaitable[object]) -> FsError:
    """Await ``action`` and assert it raises ``FsError`` with ``code``; returns the error."""
    try:
        await action
    except FsError as exc:
        error = exc
    else:
        raise AssertionError(f"expected FsError {code}, nothing was raised")
    assert error.code == code, f"expected {code}, got {error.code}: {error}"
    return error


async def _target(fs: FileSystem, path: Path | str) -> FsTarget:
    return await fs.resolve(str(path))


async def _version(fs: FileSystem, target: FsTarget) -> str:
    info = await fs.stat(target)
    assert info is not None, f"{target.display_path} should exist"
    return info.version


# -- resolve ----------------------------------------------------------------------------------


async def _resolve_spellings(fs: FileSystem, world: FsWorld) -> None:
    plain = await fs.resolve("a.txt", cwd=str(world.workspace))
    assert plain.display_path == str(world.ws("a.txt"))
    assert plain.in_workspace
    for spelling in (str(world.ws("a.txt")), "./sub/../a.txt", "sub//../a.txt"):
        other = await fs.resolve(spelling, cwd=str(world.workspace))
        assert other.key == plain.key, spelling
    default = await fs.resolve("a.txt")
    assert default.key == plain.key, "relative paths default to the first workspace root"
    via_link = await fs.resolve("link.txt", cwd=str(world.workspace))
    assert via_link.key == plain.key, "a symlink has the identity of its target"
    missing = await fs.resolve("linkdir/new.txt", cwd=str(world.workspace))
    direct = await fs.resolve("sub/new.txt", cwd=str(world.workspace))
    assert missing.key == direct.key, "missing files resolve through symlinked parents"
    assert missing.display_path == str(world.ws("linkdir/new.txt"))


def _seed_spellings(world: FsWorld) -> None:
    world.put("a.txt", "a\n")
    world.put("sub/b.txt", "b\n")
    os.symlink("a.txt", world.ws("link.txt"))
    os.symlink("sub", world.ws("linkdir"))


async def _resolve_invalid(fs: FileSystem, world: FsWorld) -> None:
    await expect_error("FS_INVALID_PATH", fs.resolve(""))
    await expect_error("FS_INVALID_PATH", fs.resolve("a\0b.txt"))


async def _resolve_workspace_membership(fs: FileSystem, world: FsWorld) -> None:
    assert (await fs.resolve(str(world.ws("x.txt")))).in_workspace
    assert not (await fs.resolve(str(world.outside / "x.txt"))).in_workspace
    assert not (await fs.resolve("../outside/x.txt")).in_workspace
    assert not (await fs.resolve("escape/secret.txt")).in_workspace, "symlinked dir escapes"
    assert not (await fs.resolve("secret-link.txt")).in_workspace, "symlinked file escapes"


def _seed_escapes(world: FsWorld) -> None:
    world.put("secret.txt", "outside secret\n", where=world.outside)
    os.symlink(world.outside, world.ws("escape"))
    os.symlink(world.outside / "secret.txt", world.ws("secret-link.txt"))
    world.put("inside.txt", "inside\n")


# -- stat, read, stream, list ---------------------------------------------------------------


async def _stat_facts(fs: FileSystem, world: FsWorld) -> None:
    assert await fs.stat(await _target(fs, world.ws("missing.txt"))) is None
    file_info = await fs.stat(await _target(fs, world.ws("a.txt")))
    assert file_info is not None
    assert file_info.type == "file"
    assert file_info.size == 6
    dir_info = await fs.stat(await _target(fs, world.ws("sub")))
    assert dir_info is not None
    assert dir_info.type == "directory"
    target = await _target(fs, world.ws("a.txt"))
    first = await _version(fs, target)
    assert await _version(fs, target) == first, "an unchanged file keeps its version"
    world.ws("a.txt").write_bytes(b"changed, longer\n")
    world.expect_change(world.ws("a.txt"))
    assert await _version(fs, target) != first, "a changed file gets a new version"


def _seed_basic(world: FsWorld) -> None:
    world.put("a.txt", "hello\n")
    world.put("sub/b.txt", "b\n")


async def _read_rules(fs: FileSystem, world: FsWorld) -> None:
    async def read(rel: str) -> str:
        return await fs.read_text(await _target(fs, world.ws(rel)))

    assert await read("utf8.txt") == "h\u00e9llo \u4e16\u754c\n"
    assert await read("crlf.txt") == "one\r\ntwo\r\n", "read returns line endings as stored"
    assert await read("bom.txt") == "with bom\n", "a leading BOM is hidden"
    assert await read("empty.txt") == ""
    assert await read("late-nul.txt") == "x" * 9000 + "\0", "only the first 8192 bytes sniff"
    await expect_error("FS_NOT_TEXT", read("binary.bin"))
    await expect_error("FS_NOT_TEXT", read("latin1.txt"))
    await expect_error("FS_NOT_REGULAR_FILE", read("sub"))
    await expect_error("FS_NOT_FOUND", read("missing.txt"))


def _seed_texts(world: FsWorld) -> None:
    world.put("utf8.txt", "h\u00e9llo \u4e16\u754c\n")
    world.put("crlf.txt", b"one\r\ntwo\r\n")
    world.put("bom.txt", BOM + b"with bom\n")
    world.put("empty.txt", b"")
    world.put("late-nul.txt", b"x" * 9000 + b"\0")
    world.put("binary.bin", b"PNG\0\x01\x02")
    world.put("latin1.txt", "caf\u00e9\n".encode("latin-1"))
    world.put("sub/b.txt", "b\n")


async def _stream_rules(fs: FileSystem, world: FsWorld) -> None:
    async def stream(rel: str) -> str:
        parts: list[str] = []
        async for chunk in fs.stream_text(await _target(fs, world.ws(rel))):
            parts.append(chunk)
        return "".join(parts)

    big = world.ws("big.txt").read_bytes()
    assert await stream("big.txt") == big.decode("utf-8")[1:], "BOM hidden, chunks seamless"
    assert await stream("empty.txt") == ""
    await expect_error("FS_NOT_TEXT", stream("binary.bin"))
    await expect_error("FS_NOT_TEXT", stream("latin1.txt"))
    await expect_error("FS_NOT_REGULAR_FILE", stream("sub"))


def _seed_stream(world: FsWorld) -> None:
    _seed_texts(world)
    line = "\u00e9\u4e16 multi-byte characters straddle every chunk boundary\n"
    world.put("big.txt", BOM + (line * 60_000).encode("utf-8"))


async def _list_rules(fs: FileSystem, world: FsWorld) -> None:
    entries = await fs.list_dir(await _target(fs, world.workspace))
    assert [entry.name for entry in entries] == sorted(entry.name for entry in entries)
    kinds = {entry.name: entry.type for entry in entries}
    assert kinds == {
        "~": "file",
        "a.txt": "file",
        "dangling": "other",
        "dirlink": "directory",
        "sub": "directory",
    }, kinds
    by_name = {entry.name: entry for entry in entries}
    assert by_name["a.txt"].size == 6
    assert by_name["dirlink"].target.key == (await _target(fs, world.ws("sub"))).key
    assert by_name["~"].target.display_path == str(world.ws("~")), "entry names are literal"
    await expect_error("FS_NOT_DIRECTORY", fs.list_dir(await _target(fs, world.ws("a.txt"))))
    await expect_error("FS_NOT_FOUND", fs.list_dir(await _target(fs, world.ws("nope"))))


def _seed_listing(world: FsWorld) -> None:
    _seed_basic(world)
    world.put("~", "a file named like the home directory")
    os.symlink("sub", world.ws("dirlink"))
    os.symlink("nowhere", world.ws("dangling"))


# -- write ------------------------------------------------------------------------------------


async def _write_create(fs: FileSystem, world: FsWorld) -> None:
    path = world.ws("new/deep/file.txt")
    world.expect_change(world.ws("new"))
    target = await _target(fs, path)
    outcome = await fs.write_text(target, "line 1\r\nline 2\n", guard=CreateIfAbsent())
    assert outcome.operation == "create"
    assert outcome.before is None
    assert outcome.after == "line 1\nline 2\n"
    assert path.read_bytes() == b"line 1\r\nline 2\n", "new files are written as given"
    assert outcome.version == await _version(fs, target)


async def _write_update(fs: FileSystem, world: FsWorld) -> None:
    path = world.ws("a.txt")
    path.chmod(0o640)
    world.expect_change(path)
    target = await _target(fs, path)
    outcome = await fs.write_text(target, "new\n")
    assert outcome.operation == "update"
    assert outcome.before == "hello\n"
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640, "permission bits are preserved"
    assert outcome.version == await _version(fs, target)


async def _write_guards(fs: FileSystem, world: FsWorld) -> None:
    target = await _target(fs, world.ws("a.txt"))
    version = await _version(fs, target)
    await expect_error("FS_NOT_OBSERVED", fs.write_text(target, "x", guard=CreateIfAbsent()))
    world.ws("a.txt").write_bytes(b"someone else\n")
    world.expect_change(world.ws("a.txt"))
    stale = ReplaceIfVersion(version=version)
    await expect_error("FS_STALE_VERSION", fs.write_text(target, "x", guard=stale))
    assert world.ws("a.txt").read_bytes() == b"someone else\n"
    fresh = ReplaceIfVersion(version=await _version(fs, target))
    await fs.write_text(target, "mine\n", guard=fresh)
    assert world.ws("a.txt").read_bytes() == b"mine\n"
    gone = await _target(fs, world.ws("gone.txt"))
    await expect_error("FS_STALE_VERSION", fs.write_text(gone, "x", guard=stale))


async def _write_keeps_style(fs: FileSystem, world: FsWorld) -> None:
    world.expect_change(world.ws("bom.txt"), world.ws("crlf.txt"))
    await fs.write_text(await _target(fs, world.ws("bom.txt")), "replaced\n")
    assert world.ws("bom.txt").read_bytes() == BOM + b"replaced\n", "a BOM file keeps its BOM"
    await fs.write_text(await _target(fs, world.ws("crlf.txt")), "a\nb\n")
    assert world.ws("crlf.txt").read_bytes() == b"a\r\nb\r\n", "a CRLF file stays CRLF"


async def _write_refusals(fs: FileSystem, world: FsWorld) -> None:
    escapes = (
        str(world.outside / "abs.txt"),
        "../outside/rel.txt",
        "escape/via-dir.txt",
        "escape/secret.txt",
        "secret-link.txt",
    )
    for path in escapes:
        target = await fs.resolve(path)
        await expect_error("FS_OUTSIDE_WORKSPACE", fs.write_text(target, "pwned\n"))
        edit = LiteralEdit(old_string="outside", new_string="pwned")
        await expect_error("FS_OUTSIDE_WORKSPACE", fs.edit_text(target, [edit]))
    for path in (".git/config", "sub/.git/HEAD", ".git/hooks/new-hook"):
        target = await fs.resolve(path)
        await expect_error("FS_PROTECTED_PATH", fs.write_text(target, "x"))
    git_config = await fs.resolve(".git/config")
    edit = LiteralEdit(old_string="core", new_string="x")
    await expect_error("FS_PROTECTED_PATH", fs.edit_text(git_config, [edit]))
    await expect_error("FS_NOT_REGULAR_FILE", fs.write_text(await fs.resolve("sub"), "x"))
    under_file = await fs.resolve("inside.txt/nested.txt")
    await expect_error("FS_NOT_DIRECTORY", fs.write_text(under_file, "x"))


def _seed_refusals(world: FsWorld) -> None:
    _seed_escapes(world)
    world.put(".git/config", "[core]\n")
    world.put("sub/.git/HEAD", "ref\n")


# -- edit -------------------------------------------------------------------------------------


async def _edit_basics(fs: FileSystem, world: FsWorld) -> None:
    path = world.ws("code.py")
    world.expect_change(path)
    target = await _target(fs, path)
    edit = LiteralEdit(old_string="return 1", new_string="return 2")
    outcome = await fs.edit_text(target, [edit])
    assert path.read_bytes() == b"def f():\n    return 2\n\nx = 1\n"
    assert outcome.before == "def f():\n    return 1\n\nx = 1\n"
    assert outcome.after == "def f():\n    return 2\n\nx = 1\n"
    assert outcome.replacements == (1,)
    assert outcome.version == await _version(fs, target)
    both = LiteralEdit(old_string="2", new_string="3", replace_all=True)
    again = await fs.edit_text(target, [both], expected=ExpectVersion(version=outcome.version))
    assert again.replacements == (1,)


def _seed_code(world: FsWorld) -> None:
    world.put("code.py", "def f():\n    return 1\n\nx = 1\n")


async def _edit_failures(fs: FileSystem, world: FsWorld) -> None:
    target = await _target(fs, world.ws("code.py"))
    one = LiteralEdit(old_string="1", new_string="9")
    exc = await expect_error("FS_AMBIGUOUS_EDIT", fs.edit_text(target, [one]))
    assert "2 times" in str(exc)
    absent = LiteralEdit(old_string="return 7", new_string="x")
    await expect_error("FS_EDIT_NOT_FOUND", fs.edit_text(target, [absent]))
    empty = LiteralEdit(old_string="", new_string="x")
    await expect_error("FS_EDIT_NOT_FOUND", fs.edit_text(target, [empty]))
    good = LiteralEdit(old_string="x = 1", new_string="x = 2")
    exc = await expect_error("FS_EDIT_NOT_FOUND", fs.edit_text(target, [good, absent]))
    assert "edits[1]" in str(exc)
    for rel in ("binary.bin", "latin1.txt"):
        other = await _target(fs, world.ws(rel))
        await expect_error("FS_NOT_TEXT", fs.edit_text(other, [good]))
    missing = await _target(fs, world.ws("no.py"))
    await expect_error("FS_NOT_FOUND", fs.edit_text(missing, [good]))
    directory = await _target(fs, world.ws("sub"))
    await expect_error("FS_NOT_REGULAR_FILE", fs.edit_text(directory, [good]))


def _seed_failures(world: FsWorld) -> None:
    _seed_code(world)
    _seed_texts(world)


async def _edit_version_first(fs: FileSystem, world: FsWorld) -> None:
    target = await _target(fs, world.ws("code.py"))
    seen = await _version(fs, target)
    world.ws("code.py").write_bytes(b"def f():\n    return 1\n\nx = 1\n# user typed\n")
    world.expect_change(world.ws("code.py"))
    nowhere = LiteralEdit(old_string="not in the file", new_string="x")
    await expect_error(
        "FS_STALE_VERSION", fs.edit_text(target, [nowhere], expected=ExpectVersion(version=seen))
    )
    world.ws("code.py").unlink()
    await expect_error(
        "FS_STALE_VERSION", fs.edit_text(target, [nowhere], expected=ExpectVersion(version=seen))
    )


async def _edit_keeps_style(fs: FileSystem, world: FsWorld) -> None:
    world.expect_change(world.ws("crlf.txt"), world.ws("bom.txt"), world.ws("both.txt"))
    crlf = await _target(fs, world.ws("crlf.txt"))
    outcome = await fs.edit_text(crlf, [LiteralEdit(old_string="one\ntwo", new_string="1\n2")])
    assert world.ws("crlf.txt").read_bytes() == b"1\r\n2\r\n", "CRLF restored"
    assert outcome.before == "one\ntwo\n"
    assert outcome.after == "1\n2\n"
    bom = await _target(fs, world.ws("bom.txt"))
    await fs.edit_text(bom, [LiteralEdit(old_string="with", new_string="kept")])
    assert world.ws("bom.txt").read_bytes() == BOM + b"kept bom\n", "BOM preserved"
    both = await _target(fs, world.ws("both.txt"))
    first = LiteralEdit(old_string="start", new_string="begin")
    await fs.edit_text(both, [first], expected=ExpectVersion(version=await _version(fs, both)))
    assert world.ws("both.txt").read_bytes() == BOM + b"begin\r\nend\r\n"


def _seed_styles(world: FsWorld) -> None:
    _seed_texts(world)
    world.put("both.txt", BOM + b"start\r\nend\r\n")


async def _edit_atomic_batch(fs: FileSystem, world: FsWorld) -> None:
    path = world.ws("code.py")
    world.expect_change(path)
    target = await _target(fs, path)
    edits = [
        LiteralEdit(old_string="def f", new_string="def g"),
        LiteralEdit(old_string="def g():\n    return 1", new_string="def g():\n    return 0"),
        LiteralEdit(old_string="1", new_string="one", replace_all=True),
    ]
    outcome = await fs.edit_text(target, edits)
    assert outcome.replacements == (1, 1, 1)
    assert path.read_bytes() == b"def g():\n    return 0\n\nx = one\n"


async def _edit_races(fs: FileSystem, world: FsWorld) -> None:
    path = world.ws("code.py")
    world.expect_change(path)
    target = await _target(fs, path)
    seen = ExpectVersion(version=await _version(fs, target))
    results: list[str] = []

    async def attempt(new: str) -> None:
        try:
            edit = LiteralEdit(old_string="x = 1", new_string=new)
            await fs.edit_text(target, [edit], expected=seen)
            results.append("ok")
        except FsError as exc:
            results.append(exc.code)

    async with anyio.create_task_group() as group:
        for value in ("x = 2", "x = 3", "x = 4"):
            group.start_soon(attempt, value)
    assert sorted(results) == ["FS_STALE_VERSION", "FS_STALE_VERSION", "ok"], results
    assert path.read_bytes().count(b"x = ") == 1


FS_CONTRACT: Sequence[ContractCase] = (
    ContractCase(name="resolve-spellings", run=_resolve_spellings, setup=_seed_spellings),
    ContractCase(name="resolve-invalid", run=_resolve_invalid),
    ContractCase(name="resolve-membership", run=_resolve_workspace_membership, setup=_seed_escapes),
    ContractCase(name="stat", run=_stat_facts, setup=_seed_basic),
    ContractCase(name="read", run=_read_rules, setup=_seed_texts),
    ContractCase(name="stream", run=_stream_rules, setup=_seed_stream),
    ContractCase(name="list", run=_list_rules, setup=_seed_listing),
    ContractCase(name="write-create", run=_write_create),
    ContractCase(name="write-update", run=_write_update, setup=_seed_basic),
    ContractCase(name="write-guards", run=_write_guards, setup=_seed_basic),
    ContractCase(name="write-style", run=_write_keeps_style, setup=_seed_texts),
    ContractCase(name="write-refusals", run=_write_refusals, setup=_seed_refusals),
    ContractCase(name="edit-basics", run=_edit_basics, setup=_seed_code),
    ContractCase(name="edit-failures", run=_edit_failures, setup=_seed_failures),
    ContractCase(name="edit-version-first", run=_edit_version_first, setup=_seed_code),
    ContractCase(name="edit-style", run=_edit_keeps_style, setup=_seed_styles),
    ContractCase(name="edit-batch", run=_edit_atomic_batch, setup=_seed_code),
    ContractCase(name="edit-races", run=_edit_races, setup=_seed_code),
)
"""Every contract case, in a stable order."""
