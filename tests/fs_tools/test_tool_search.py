"""list, glob and grep through the registry: output shape, .gitignore, bounds and errors."""

from __future__ import annotations

import os
from pathlib import Path

from dsh_lsp.llm import JsonValue

from .support import error_code, fs_kernel, ok_text, text_of


def _tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)


def _touch(path: Path, seconds: int) -> None:
    os.utime(path, (seconds, seconds))


PROJECT: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "README.md": "# Demo\nTODO: write docs\n",
    "src/app.py": "import os\n\n\ndef main():\n    # TODO: parse args\n    return os.sep\n",
    "src/util/helpers.py": "def helper():\n    return 'todo'\n",
    "src/util/data.bin": b"TODO\0binary",
    "build/out.py": "TODO: generated\n",
    "debug.log": "TODO: noise\n",
    "keep.log": "TODO: kept\n",
}


async def test_list_prints_a_gitignore_aware_tree(tmp_path: Path) -> None:
    _tree(tmp_path, PROJECT)
    os.symlink("src", tmp_path / "alias")
    async with fs_kernel(tmp_path) as h:
        result = await h.call("list", {}, h.session())
        shallow = await h.call("list", {"path": "src", "depth": 1}, h.session())
    assert (
        ok_text(result)
        == (
            "./\n"
            "  .gitignore\n"
            "  README.md\n"
            "  alias (symlink)\n"
            "  keep.log\n"
            "  src/\n"
            "    app.py\n"
            "    util/\n"
        )[:-1]
    )
    assert ok_text(shallow) == "src/\n  app.py\n  util/"
    assert result.meta == {"path": str(tmp_path)}


async def test_list_bounds_and_errors(tmp_path: Path) -> None:
    _tree(tmp_path, {f"d/f{i:02d}.txt": "" for i in range(30)})
    async with fs_kernel(tmp_path, tools_config={"list_max_entries": 5}) as h:
        capped = await h.call("list", {"path": "d"})
        file = await h.call("list", {"path": "d/f00.txt"})
        missing = await h.call("list", {"path": "nope"})
        deep = await h.call("list", {"depth": 9})
    assert ok_text(capped).endswith(
        "  f04.txt\n(Showing the first 5 entries. List a subdirectory or lower depth to see "
        "the rest.)"
    )
    assert error_code(file) == "FS_NOT_DIRECTORY"
    assert error_code(missing) == "FS_NOT_FOUND"
    assert text_of(deep) == 'Error: invalid arguments: "depth" must be between 1 and 8'


async def test_glob_sorts_by_modification_time(tmp_path: Path) -> None:
    _tree(tmp_path, PROJECT)
    _touch(tmp_path / "src" / "app.py", 1_000)
    _touch(tmp_path / "src" / "util" / "helpers.py", 2_000)
    _touch(tmp_path / "build" / "out.py", 3_000)
    async with fs_kernel(tmp_path) as h:
        every = await h.call("glob", {"pattern": "**/*.py"}, h.session())
        top = await h.call("glob", {"pattern": "*.py"}, h.session())
        scoped = await h.call("glob", {"pattern": "*.py", "path": "src/util"}, h.session())
        braces = await h.call("glob", {"pattern": "*.{md,log}"}, h.session())
    assert ok_text(every) == "src/util/helpers.py\nsrc/app.py"
    assert ok_text(top) == "No files match *.py under .."
    assert ok_text(scoped) == "src/util/helpers.py"
    assert sorted(ok_text(braces).split("\n")) == ["README.md", "keep.log"]


async def test_glob_bounds_and_errors(tmp_path: Path) -> None:
    _tree(tmp_path, {f"f{i}.txt": "" for i in range(5)})
    for i in range(5):
        _touch(tmp_path / f"f{i}.txt", 100 + i)
    async with fs_kernel(tmp_path, tools_config={"glob_max_results": 2}) as h:
        capped = await h.call("glob", {"pattern": "*.txt"}, h.session())
        bad = await h.call("glob", {"pattern": "[abc"})
        absolute = await h.call("glob", {"pattern": "/etc/*"})
        missing = await h.call("glob", {})
    assert ok_text(capped) == (
        "f4.txt\nf3.txt\n(Showing 2 of 5 matches, most recently modified first. Use a more "
        "specific pattern or path to see others.)"
    )
    assert error_code(bad) == "FS_INVALID_PATTERN"
    assert error_code(absolute) == "FS_INVALID_PATTERN"
    assert text_of(missing) == 'Error: invalid arguments: missing required property "pattern"'


async def test_grep_prints_path_line_text(tmp_path: Path) -> None:
    _tree(tmp_path, PROJECT)
    async with fs_kernel(tmp_path) as h:
        result = await h.call("grep", {"pattern": "TODO"}, h.session())
    assert ok_text(result) == (
        "README.md:2:TODO: write docs\n"
        "keep.log:1:TODO: kept\n"
        "src/app.py:5:    # TODO: parse args\n"
        "(3 matches in 3 files)"
    )
    assert result.meta == {
        "path": str(tmp_path),
        "matches": 3,
        "locations": [
            {"path": str(tmp_path / "README.md"), "line": 2},
            {"path": str(tmp_path / "keep.log"), "line": 1},
            {"path": str(tmp_path / "src" / "app.py"), "line": 5},
        ],
    }


async def test_grep_options(tmp_path: Path) -> None:
    _tree(tmp_path, PROJECT)
    async with fs_kernel(tmp_path) as h:
        s = h.session()
        folded = await h.call("grep", {"pattern": "todo", "ignore_case": True, "glob": "*.py"}, s)
        context = await h.call("grep", {"pattern": "TODO", "path": "src", "context": 1}, s)
        one_file = await h.call("grep", {"pattern": r"def \w+", "path": "src/app.py"}, s)
        nothing = await h.call("grep", {"pattern": "zebra"}, s)
    assert ok_text(folded) == (
        "src/app.py:5:    # TODO: parse args\n"
        "src/util/helpers.py:2:    return 'todo'\n"
        "(2 matches in 2 files)"
    )
    assert ok_text(context) == (
        "src/app.py-4-def main():\n"
        "src/app.py:5:    # TODO: parse args\n"
        "src/app.py-6-    return os.sep\n"
        "(1 match in 1 file)"
    )
    assert ok_text(one_file) == "src/app.py:4:def main():\n(1 match in 1 file)"
    assert ok_text(nothing) == "No matches for 'zebra' in . (6 files searched)."


async def test_grep_separates_context_groups_and_truncates(tmp_path: Path) -> None:
    _tree(
        tmp_path, {"a.txt": "".join(f"{'hit' if i % 5 == 0 else 'miss'} {i}\n" for i in range(40))}
    )
    async with fs_kernel(tmp_path, tools_config={"grep_max_matches": 3}) as h:
        result = await h.call("grep", {"pattern": "^hit", "context": 1}, h.session())
    assert ok_text(result) == (
        "a.txt:1:hit 0\n"
        "a.txt-2-miss 1\n"
        "--\n"
        "a.txt-5-miss 4\n"
        "a.txt:6:hit 5\n"
        "a.txt-7-miss 6\n"
        "--\n"
        "a.txt-10-miss 9\n"
        "a.txt:11:hit 10\n"
        "a.txt-12-miss 11\n"
        "(Showing the first 3 matches; there are more. Narrow the pattern, path or glob to see "
        "the rest.)"
    )


async def test_grep_errors(tmp_path: Path) -> None:
    async with fs_kernel(tmp_path) as h:
        cases: dict[str, JsonValue] = {
            "regex": {"pattern": "("},
            "glob": {"pattern": "x", "glob": "{a"},
            "context": {"pattern": "x", "context": 11},
            "missing": {"pattern": "x", "path": "nope"},
            "type": {"pattern": 3},
        }
        results = {key: await h.call("grep", args) for key, args in cases.items()}
    assert error_code(results["regex"]) == "FS_INVALID_PATTERN"
    assert text_of(results["regex"]).startswith("Error: invalid regular expression '(': ")
    assert error_code(results["glob"]) == "FS_INVALID_PATTERN"
    assert text_of(results["context"]) == (
        'Error: invalid arguments: "context" must be between 0 and 10'
    )
    assert error_code(results["missing"]) == "FS_NOT_FOUND"
    assert text_of(results["type"]) == 'Error: invalid arguments: "pattern" must be a string'


async def test_search_presenters(tmp_path: Path) -> None:
    _tree(tmp_path, PROJECT)
    async with fs_kernel(tmp_path) as h:
        args: dict[str, JsonValue] = {"pattern": "TODO", "path": "src"}
        result = await h.call("grep", args, h.session())
        grep_view = h.registry.present_result("grep", args, result)
        glob_call = h.registry.present_call("glob", {"pattern": "*.py", "path": "src"})
        list_call = h.registry.present_call("list", {})
    assert grep_view.title == "Grep 'TODO' in src"
    assert grep_view.kind == "search"
    assert [(loc.path, loc.line) for loc in grep_view.locations] == [
        (str(tmp_path / "src" / "app.py"), 5)
    ]
    assert glob_call.title == "Glob *.py in src"
    assert list_call.title == "List ."
