"""The read tool: windows, footers, truncation, directories, errors, presenters, outside reads."""

from __future__ import annotations

import os
from pathlib import Path

from dsh_lsp.llm import JsonValue
from dsh_lsp.tools import PERMISSIONS, PermissionOutcome, ToolCallView, ToolExecution, ToolResult

from .support import FsHarness, error_code, fs_kernel, ok_text, text_of


def _file(path: Path, body: str, total: int, footer: str | None = None) -> str:
    end = footer or f"(End of file - total {total} lines)"
    return f"<path>{path}</path>\n<type>file</type>\n<content>\n{body}\n{end}\n</content>"


async def test_reads_a_whole_small_file_with_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("import os\n\nprint(os.sep)\n")
    async with fs_kernel(tmp_path) as h:
        result = await h.call("read", {"file_path": "app.py"}, h.session())
    expected = _file(tmp_path / "app.py", "1: import os\n2: \n3: print(os.sep)\n", 3)
    assert ok_text(result) == expected
    assert result.meta == {
        "path": str(tmp_path / "app.py"),
        "type": "file",
        "startLine": 1,
        "endLine": 3,
        "totalLines": 3,
    }


async def test_offset_and_limit_window_and_the_continue_footer(tmp_path: Path) -> None:
    (tmp_path / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    async with fs_kernel(tmp_path) as h:
        middle = await h.call("read", {"file_path": "n.txt", "offset": 4, "limit": 3})
        tail = await h.call("read", {"file_path": "n.txt", "offset": 9})
        past = await h.call("read", {"file_path": "n.txt", "offset": 11})
    footer = "(Showing lines 4-6 of 10. Use offset=7 to continue.)"
    body = "4: line 4\n5: line 5\n6: line 6\n"
    assert ok_text(middle) == _file(tmp_path / "n.txt", body, 10, footer)
    assert ok_text(tail).endswith(
        "9: line 9\n10: line 10\n\n(End of file - total 10 lines)\n</content>"
    )
    assert error_code(past) == "FS_NOT_FOUND"
    assert "offset 11 is past the end" in text_of(past)


async def test_crlf_bom_empty_and_long_lines(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "long.txt").write_text("x" * 2500 + "\n")
    async with fs_kernel(tmp_path) as h:
        crlf = ok_text(await h.call("read", {"file_path": "crlf.txt"}))
        empty = ok_text(await h.call("read", {"file_path": "empty.txt"}))
        long = ok_text(await h.call("read", {"file_path": "long.txt"}))
    assert "1: a\n2: b\n" in crlf
    assert "\r" not in crlf
    assert "\ufeff" not in crlf
    assert empty == _file(tmp_path / "empty.txt", "", 0)
    assert f"1: {'x' * 2000}... (line truncated to 2000 chars)\n" in long


async def test_the_byte_cap_stops_the_window(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text("".join(f"{i:04d}" + "y" * 995 + "\n" for i in range(100)))
    async with fs_kernel(tmp_path, tools_config={"read_max_bytes": 4096}) as h:
        text = ok_text(await h.call("read", {"file_path": "wide.txt"}))
    assert "4: 0003" in text
    assert "5: 0004" not in text
    assert "(Output capped at the byte limit. Showing lines 1-4. Use offset=5 to continue.)" in text


async def test_large_files_are_streamed_with_the_same_window(tmp_path: Path) -> None:
    content = "".join(f"row {i} \u00e9\n" for i in range(1, 5001))
    (tmp_path / "big.log").write_text(content)
    async with fs_kernel(tmp_path, tools_config={"read_stream_min_bytes": 1024}) as h:
        head = ok_text(await h.call("read", {"file_path": "big.log", "limit": 2}))
        deep = ok_text(await h.call("read", {"file_path": "big.log", "offset": 4999}))
    assert (
        "1: row 1 \u00e9\n2: row 2 \u00e9\n\n(Showing lines 1-2. Use offset=3 to continue.)" in head
    )
    assert deep.endswith("5000: row 5000 \u00e9\n\n(End of file - total 5000 lines)\n</content>")


async def test_a_directory_gets_a_listing(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.py").write_text("")
    (tmp_path / "src" / "a").mkdir()
    async with fs_kernel(tmp_path) as h:
        result = await h.call("read", {"file_path": "src"})
        second = await h.call("read", {"file_path": "src", "offset": 2, "limit": 1})
    assert ok_text(result) == (
        f"<path>{tmp_path / 'src'}</path>\n<type>directory</type>\n<entries>\n"
        "a/\nb.py\n(2 entries)\n</entries>"
    )
    assert "b.py\n(2 entries)" in ok_text(second)
    assert result.meta == {"path": str(tmp_path / "src"), "type": "directory", "entries": 2}


async def test_errors_the_model_can_act_on(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("a: 1\n")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\0\0")
    async with fs_kernel(tmp_path) as h:
        missing = await h.call("read", {"file_path": "config.yml"})
        binary = await h.call("read", {"file_path": "image.png"})
    assert error_code(missing) == "FS_NOT_FOUND"
    assert text_of(missing) == (
        f"Error: {tmp_path / 'config.yml'} does not exist; did you mean {tmp_path / 'config.yaml'}?"
    )
    assert error_code(binary) == "FS_NOT_TEXT"


async def test_argument_validation(tmp_path: Path) -> None:
    async with fs_kernel(tmp_path) as h:
        results = {
            "missing": await h.call("read", {}),
            "offset0": await h.call("read", {"file_path": "x", "offset": 0}),
            "limit": await h.call("read", {"file_path": "x", "limit": 2001}),
            "type": await h.call("read", {"file_path": "x", "offset": "3"}),
            "nul": await h.call("read", {"file_path": "a\0b"}),
            "empty": await h.call("read", {"file_path": ""}),
        }
    texts = {name: text_of(result) for name, result in results.items()}
    assert texts["missing"] == 'Error: invalid arguments: missing required property "file_path"'
    assert texts["offset0"] == 'Error: invalid arguments: "offset" must be at least 1'
    assert texts["limit"] == 'Error: invalid arguments: "limit" must be between 1 and 2000'
    assert texts["type"] == 'Error: invalid arguments: "offset" must be an integer'
    assert error_code(results["nul"]) == "FS_INVALID_PATH"
    assert error_code(results["empty"]) == "FS_INVALID_PATH"


async def test_presenters(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("".join(f"{i}\n" for i in range(300)))
    async with fs_kernel(tmp_path) as h:
        args: dict[str, JsonValue] = {"file_path": "src/app.py", "limit": 120}
        call = h.registry.present_call("read", args)
        result = await h.call("read", args)
        done = h.registry.present_result("read", args, result)
        plain = h.registry.present_call("read", {"file_path": "src/app.py"})
        tail_args: dict[str, JsonValue] = {"file_path": "src/app.py", "offset": 295}
        tail_call = h.registry.present_call("read", tail_args)
        tail_done = h.registry.present_result("read", tail_args, await h.call("read", tail_args))
    assert call.title == "Read src/app.py (1\u2013120)"
    assert call.kind == "read"
    assert done.title == "Read src/app.py (1\u2013120)"
    assert done.locations[0].path == str(tmp_path / "src" / "app.py")
    assert done.locations[0].line == 1
    assert plain.title == "Read src/app.py"
    assert tail_call.title == "Read src/app.py (from line 295)", "no end past the file's"
    assert tail_done.title == "Read src/app.py (295\u2013300)"


class _Answer:
    def __init__(self, outcome: PermissionOutcome) -> None:
        self.outcome: PermissionOutcome = outcome
        self.reasons: list[str | None] = []

    async def request(
        self, exec: ToolExecution, view: ToolCallView, reason: str | None
    ) -> PermissionOutcome:
        self.reasons.append(reason)
        return self.outcome


async def _outside_read(h: FsHarness, path: str) -> ToolResult:
    return await h.call("read", {"file_path": path}, h.session())


async def test_reads_outside_the_workspace_ask_first(tmp_path: Path) -> None:
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret\n")
    os.symlink(outside / "secret.txt", workspace / "link.txt")
    async with fs_kernel(workspace) as h:
        nobody = await _outside_read(h, str(outside / "secret.txt"))
        via_link = await _outside_read(h, "link.txt")
        assert error_code(nobody) == "PERMISSION_UNAVAILABLE"
        assert "outside the workspace" in text_of(nobody)
        assert error_code(via_link) == "PERMISSION_UNAVAILABLE"
        yes = _Answer("allow_once")
        dispose = h.ctx.provide(PERMISSIONS, yes)
        allowed = await _outside_read(h, "../outside/secret.txt")
        await dispose()
        no = _Answer("reject_once")
        dispose = h.ctx.provide(PERMISSIONS, no)
        refused = await _outside_read(h, "../outside/secret.txt")
        await dispose()
        inside = await h.call("read", {"file_path": "../ws/../ws/link.txt"}, h.session())
    assert "s3cret" in ok_text(allowed)
    assert yes.reasons == [f"read would read {outside / 'secret.txt'}, outside the workspace"]
    assert error_code(refused) == "TOOL_DENIED"
    assert error_code(inside) == "PERMISSION_UNAVAILABLE", "the symlink target decides"
