"""write, edit and multi_edit through the registry: the policy, races, results and presenters."""

from __future__ import annotations

import gc
from pathlib import Path

from dsh_lsp.llm import JsonValue

from .support import error_code, fs_kernel, ok_text, text_of


def _write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _read(path: Path) -> bytes:
    return path.read_bytes()


async def test_create_then_edit_needs_no_read(tmp_path: Path) -> None:
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        created = await h.call("write", {"file_path": "pkg/mod.py", "content": "a = 1\n"}, s)
        edited = await h.call(
            "edit", {"file_path": "pkg/mod.py", "old_string": "a = 1", "new_string": "a = 2"}, s
        )
        again = await h.call(
            "edit", {"file_path": "pkg/mod.py", "old_string": "a = 2", "new_string": "a = 3"}, s
        )
    assert ok_text(created) == f"Created {tmp_path / 'pkg' / 'mod.py'} (1 line)."
    assert ok_text(edited) == (
        f"Edited {tmp_path / 'pkg' / 'mod.py'}: replaced 1 occurrence. Updated lines:\n1: a = 2"
    )
    assert not again.is_error
    assert _read(tmp_path / "pkg" / "mod.py") == b"a = 3\n"


async def test_overwrite_and_edit_need_a_read_first(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "old\n")
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        blind_write = await h.call("write", {"file_path": "a.txt", "content": "new\n"}, s)
        blind_edit = await h.call(
            "edit", {"file_path": "a.txt", "old_string": "old", "new_string": "new"}, s
        )
        assert _read(tmp_path / "a.txt") == b"old\n"
        await h.call("read", {"file_path": "a.txt"}, s)
        written = await h.call("write", {"file_path": "a.txt", "content": "new\n"}, s)
    assert error_code(blind_write) == "FS_NOT_OBSERVED"
    assert error_code(blind_edit) == "FS_NOT_OBSERVED"
    assert text_of(blind_edit) == (
        f"Error: you must read {tmp_path / 'a.txt'} before editing it; read it with the read "
        "tool, then retry the edit"
    )
    assert ok_text(written) == f"Updated {tmp_path / 'a.txt'} (1 line)."
    assert written.meta == {
        "operation": "update",
        "path": str(tmp_path / "a.txt"),
        "hunks": [
            {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-old", "+new"]}
        ],
    }


async def test_a_file_changed_after_the_read_is_stale(tmp_path: Path) -> None:
    _write(tmp_path / "a.py", "x = 1\ny = 2\n")
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        await h.call("read", {"file_path": "a.py"}, s)
        _write(tmp_path / "a.py", "x = 1\ny = 2\nz = 3  # the user typed this\n")
        stale = await h.call(
            "edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 5"}, s
        )
        overwrite = await h.call("write", {"file_path": "a.py", "content": "gone\n"}, s)
        await h.call("read", {"file_path": "a.py"}, s)
        fresh = await h.call(
            "edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 5"}, s
        )
    assert error_code(stale) == "FS_STALE_VERSION"
    assert "changed since you last read it" in text_of(stale)
    assert error_code(overwrite) == "FS_STALE_VERSION"
    assert not fresh.is_error
    assert _read(tmp_path / "a.py") == b"x = 1\ny = 5\nz = 3  # the user typed this\n"


async def test_observations_belong_to_one_session(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "a\n")
    async with fs_kernel(tmp_path) as h:
        reader, other = h.session(), h.session()
        await h.call("read", {"file_path": "a.txt"}, reader)
        refused = await h.call(
            "edit", {"file_path": "a.txt", "old_string": "a", "new_string": "b"}, other
        )
        assert h.policy is not None
        assert h.policy.observed.owners() == 1
        del reader
        gc.collect()
        assert h.policy.observed.owners() == 0, "a dropped session takes its memory along"
    assert error_code(refused) == "FS_NOT_OBSERVED"


async def test_without_a_session_reads_work_writes_create_only_edits_fail(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "a\n")
    async with fs_kernel(tmp_path) as h:
        read = await h.call("read", {"file_path": "a.txt"})
        create = await h.call("write", {"file_path": "b.txt", "content": "b\n"})
        overwrite = await h.call("write", {"file_path": "a.txt", "content": "x\n"})
        edit = await h.call("edit", {"file_path": "b.txt", "old_string": "b", "new_string": "c"})
    assert not read.is_error
    assert not create.is_error
    assert error_code(overwrite) == "FS_NOT_OBSERVED"
    assert error_code(edit) == "FS_NOT_OBSERVED"


async def test_without_the_policy_plugin_writes_are_unguarded(tmp_path: Path) -> None:
    _write(tmp_path / "a.txt", "a\n")
    async with fs_kernel(tmp_path, policy=False) as h:
        edit = await h.call("edit", {"file_path": "a.txt", "old_string": "a", "new_string": "b"})
        write = await h.call("write", {"file_path": "a.txt", "content": "c\n"})
    assert not edit.is_error
    assert not write.is_error
    assert _read(tmp_path / "a.txt") == b"c\n"


async def test_edit_results_quote_updated_lines_and_carry_hunks(tmp_path: Path) -> None:
    lines = "".join(f"line {i}\n" for i in range(1, 21))
    _write(tmp_path / "f.txt", lines)
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        await h.call("read", {"file_path": "f.txt"}, s)
        args: dict[str, JsonValue] = {
            "file_path": "f.txt",
            "old_string": "line 1\n",
            "new_string": "LINE\n",
            "replace_all": True,
        }
        result = await h.call("edit", args, s)
        view = h.registry.present_result("edit", args, result)
        call = h.registry.present_call("edit", args)
    assert ok_text(result) == (
        f"Edited {tmp_path / 'f.txt'}: replaced 1 occurrence. Updated lines:\n1: LINE"
    )
    assert result.meta is not None
    assert result.meta["hunks"] == [
        {
            "oldStart": 1,
            "oldLines": 4,
            "newStart": 1,
            "newLines": 4,
            "lines": ["-line 1", "+LINE", " line 2", " line 3", " line 4"],
        }
    ]
    assert view.kind == "edit"
    assert [(loc.path, loc.line) for loc in view.locations] == [(str(tmp_path / "f.txt"), 1)]
    assert [(d.old_text, d.new_text) for d in view.diffs] == [
        ("line 1\nline 2\nline 3\nline 4\n", "LINE\nline 2\nline 3\nline 4\n")
    ]
    assert call.title == "Edit f.txt"
    assert [(d.old_text, d.new_text) for d in call.diffs] == [("line 1\n", "LINE\n")]


async def test_replace_all_and_ambiguity(tmp_path: Path) -> None:
    _write(tmp_path / "r.py", "foo()\nbar()\nfoo()\n")
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        await h.call("read", {"file_path": "r.py"}, s)
        ambiguous = await h.call(
            "edit", {"file_path": "r.py", "old_string": "foo", "new_string": "baz"}, s
        )
        everywhere = await h.call(
            "edit",
            {"file_path": "r.py", "old_string": "foo", "new_string": "baz", "replace_all": True},
            s,
        )
    assert error_code(ambiguous) == "FS_AMBIGUOUS_EDIT"
    assert text_of(ambiguous) == (
        f"Error: old_string matched 2 times in {tmp_path / 'r.py'}; include more surrounding "
        "lines to make it unique, or set replace_all to true."
    )
    assert ok_text(everywhere).startswith(
        f"Edited {tmp_path / 'r.py'}: replaced all 2 occurrences."
    )
    assert _read(tmp_path / "r.py") == b"baz()\nbar()\nbaz()\n"


async def test_multi_edit_is_atomic(tmp_path: Path) -> None:
    _write(tmp_path / "m.py", b"a = 1\r\nb = 2\r\n")
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        await h.call("read", {"file_path": "m.py"}, s)
        failing = await h.call(
            "multi_edit",
            {
                "file_path": "m.py",
                "edits": [
                    {"old_string": "a = 1", "new_string": "a = 10"},
                    {"old_string": "c = 3", "new_string": "c = 30"},
                ],
            },
            s,
        )
        assert _read(tmp_path / "m.py") == b"a = 1\r\nb = 2\r\n"
        applied = await h.call(
            "multi_edit",
            {
                "file_path": "m.py",
                "edits": [
                    {"old_string": "a = 1\nb = 2", "new_string": "a = 10\nb = 20"},
                    {"old_string": "a = 10", "new_string": "a = 100"},
                ],
            },
            s,
        )
    assert error_code(failing) == "FS_EDIT_NOT_FOUND"
    assert text_of(failing).startswith("Error: edits[1]: old_string was not found")
    assert ok_text(applied) == (
        f"Edited {tmp_path / 'm.py'}: applied 2 edits (2 replacements). Updated lines:\n"
        "1: a = 100\n2: b = 20"
    )
    assert _read(tmp_path / "m.py") == b"a = 100\r\nb = 20\r\n"


async def test_long_edits_quote_a_bounded_number_of_lines(tmp_path: Path) -> None:
    _write(tmp_path / "big.txt", "start\n")
    async with fs_kernel(tmp_path, tools_config={"edit_echo_lines": 3}) as h:
        s = h.session()
        await h.call("read", {"file_path": "big.txt"}, s)
        new = "".join(f"n{i}\n" for i in range(10))
        result = await h.call(
            "edit", {"file_path": "big.txt", "old_string": "start\n", "new_string": new}, s
        )
    assert ok_text(result).endswith(
        "1: n0\n2: n1\n3: n2\n(7 more updated lines not shown; read the file to see them)"
    )


async def test_validation_errors(tmp_path: Path) -> None:
    async with fs_kernel(tmp_path) as h:
        cases: dict[str, tuple[str, JsonValue]] = {
            "edit-missing": ("edit", {"file_path": "a"}),
            "edit-empty-old": ("edit", {"file_path": "a", "old_string": "", "new_string": "x"}),
            "edit-same": ("edit", {"file_path": "a", "old_string": "x", "new_string": "x"}),
            "edit-flag": (
                "edit",
                {"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "yes"},
            ),
            "write-missing": ("write", {"file_path": "a"}),
            "write-type": ("write", {"file_path": "a", "content": 3}),
            "multi-empty": ("multi_edit", {"file_path": "a", "edits": []}),
            "multi-item": (
                "multi_edit",
                {
                    "file_path": "a",
                    "edits": [
                        {"old_string": "a", "new_string": "b"},
                        {"old_string": "", "new_string": "b"},
                    ],
                },
            ),
            "multi-shape": ("multi_edit", {"file_path": "a", "edits": [{"old_string": "a"}]}),
        }
        texts = {key: text_of(await h.call(tool, args)) for key, (tool, args) in cases.items()}
    prefix = "Error: invalid arguments: "
    assert texts == {
        "edit-missing": prefix
        + 'missing required property "old_string"; missing required property "new_string"',
        "edit-empty-old": prefix + '"old_string" must not be empty',
        "edit-same": prefix + '"new_string" must differ from "old_string"',
        "edit-flag": prefix + '"replace_all" must be a boolean',
        "write-missing": prefix + 'missing required property "content"',
        "write-type": prefix + '"content" must be a string',
        "multi-empty": prefix + '"edits" must hold at least one edit',
        "multi-item": prefix + '"edits[1].old_string" must not be empty',
        "multi-shape": prefix + 'missing required property "edits[0].new_string"',
    }


async def test_writes_outside_the_workspace_and_into_git_are_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    _write(workspace / ".git" / "config", "[core]\n")
    async with fs_kernel(workspace) as h:
        s = h.session()
        outside = await h.call("write", {"file_path": "../evil.txt", "content": "x"}, s)
        git = await h.call("write", {"file_path": ".git/hooks/pre-commit", "content": "x"}, s)
    assert error_code(outside) == "FS_OUTSIDE_WORKSPACE"
    assert error_code(git) == "FS_PROTECTED_PATH"
    assert not (tmp_path / "evil.txt").exists()


async def test_write_presenters(tmp_path: Path) -> None:
    async with fs_kernel(tmp_path) as h:
        args: dict[str, JsonValue] = {"file_path": "n.txt", "content": "one\ntwo\n"}
        call = h.registry.present_call("write", args)
        result = await h.call("write", args, h.session())
        done = h.registry.present_result("write", args, result)
    assert call.title == "Write n.txt"
    assert [(d.old_text, d.new_text) for d in call.diffs] == [(None, "one\ntwo\n")]
    assert [(d.path, d.old_text, d.new_text) for d in done.diffs] == [
        (str(tmp_path / "n.txt"), None, "one\ntwo\n")
    ]
