""".gitignore rules: the parser in isolation, and the walker against real git's verdicts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_lsp.fs_tools import parse_gitignore
from dsh_lsp.fs_tools.local.walker import walk

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


@pytest.mark.parametrize(
    ("rules", "path", "is_dir", "verdict"),
    [
        ("*.log", "a.log", False, True),
        ("*.log", "deep/er/a.log", False, True),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("/top.txt", "top.txt", False, True),
        ("/top.txt", "sub/top.txt", False, None),
        ("build/", "build", True, True),
        ("build/", "build", False, None),
        ("docs/*.md", "docs/a.md", False, True),
        ("docs/*.md", "x/docs/a.md", False, None),
        ("**/cache", "a/b/cache", True, True),
        ("a/**/z", "a/z", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("logs/**", "logs/x/y", False, True),
        ("# comment\n\n  \n", "anything", False, None),
        ("\\#hash", "#hash", False, True),
        ("\\!bang", "!bang", False, True),
        ("trailing   ", "trailing", False, True),
        ("escaped\\ ", "escaped ", False, True),
        ("[ab].txt", "b.txt", False, True),
        ("[!ab].txt", "c.txt", False, True),
        ("?.txt", "xy.txt", False, None),
        ("{a,b}.txt", "{a,b}.txt", False, True),
    ],
)
def test_rules(rules: str, path: str, is_dir: bool, verdict: bool | None) -> None:
    assert parse_gitignore(rules).decide(path, is_dir=is_dir) is verdict


def _git(repo: Path, *args: str) -> str:
    assert GIT is not None
    return subprocess.run(
        [GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _make_repo(root: Path, ignores: dict[str, str], files: list[str]) -> None:
    _git(root, "init", "-q")
    for rel, text in ignores.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")


def _git_visible(root: Path) -> list[str]:
    return sorted(_git(root, "ls-files", "--others", "--exclude-standard").splitlines())


def _walked(root: Path, start: Path | None = None) -> list[str]:
    base = start or root
    prefix = "" if base == root else str(base.relative_to(root)) + "/"
    return sorted(prefix + item.rel for item in walk(str(base)) if item.kind == "file")


FILES = [
    "a.log",
    "keep.log",
    "src/app.py",
    "src/app.pyc",
    "src/build/out.js",
    "build/out.js",
    "docs/guide.md",
    "docs/draft.tmp",
    "docs/sub/deep.tmp",
    "node_modules/pkg/index.js",
    "sub/node_modules/x.js",
    "sub/local.txt",
    "sub/only-here.txt",
    "sub/keep/inner.log",
    "vendor/lib/a.c",
    "vendor/lib/keep.c",
]


@needs_git
def test_nested_rules_agree_with_git(tmp_path: Path) -> None:
    ignores = {
        ".gitignore": "*.log\n!keep.log\n/build/\nnode_modules\n*.pyc\ndocs/*.tmp\n",
        "sub/.gitignore": "local.txt\n!*.log\n",
        "vendor/.gitignore": "lib/*\n!lib/keep.c\n",
    }
    _make_repo(tmp_path, ignores, FILES)
    (tmp_path / ".git" / "info" / "exclude").write_text("only-here.txt\n")
    assert _walked(tmp_path) == _git_visible(tmp_path)


@needs_git
def test_ancestor_rules_apply_to_a_subdirectory_walk(tmp_path: Path) -> None:
    _make_repo(tmp_path, {".gitignore": "*.tmp\nsrc/build/\n"}, FILES)
    expected = [path for path in _git_visible(tmp_path) if path.startswith("docs/")]
    assert _walked(tmp_path, tmp_path / "docs") == expected
    assert "src/build/out.js" not in _walked(tmp_path, tmp_path / "src")


RULES = st.lists(
    st.sampled_from(
        [
            "*.log",
            "!keep.log",
            "build/",
            "/build",
            "src/**/*.js",
            "**/node_modules",
            "docs/*",
            "!docs/guide.md",
            "*.tmp",
            "!deep.tmp",
            "sub/",
            "vendor/lib/*",
            "!vendor/lib/keep.c",
            "a?log",
            "[kv]*",
            "**/out.js",
            "lib",
            "!lib",
        ]
    ),
    max_size=6,
)


@needs_git
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(top=RULES, nested=RULES)
def test_random_rule_sets_agree_with_git(
    tmp_path_factory: pytest.TempPathFactory, top: list[str], nested: list[str]
) -> None:
    root = tmp_path_factory.mktemp("repo")
    _make_repo(root, {".gitignore": "\n".join(top), "docs/.gitignore": "\n".join(nested)}, FILES)
    assert _walked(root) == _git_visible(root)
