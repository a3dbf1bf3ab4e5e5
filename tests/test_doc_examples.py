"""Doc examples name things that exist: every ``dsh_lsp`` name a code block of the docs (README,
AGENTS.md, ``docs/*.md``) or of a module docstring (a ``::`` block) refers to resolves, and
every event name such an example declares is one the code declares."""

from __future__ import annotations

import ast
import builtins
import importlib
import pkgutil
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import dsh_lsp
from dsh_lsp.kernel import (
    EmitEvent,
    ParallelEvent,
    SerialEvent,
    StreamWaterfallEvent,
    WaterfallEvent,
)

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "AGENTS.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
DOTTED = re.compile(r"\bdsh_lsp(?:\.[A-Za-z_]\w*)+")
EVENT_DECLARATION = re.compile(r"\b\w*Event\(\s*\"([^\"]+)\"")
EVENT_CLASSES = (EmitEvent, WaterfallEvent, StreamWaterfallEvent, SerialEvent, ParallelEvent)
MODULES = sorted(info.name for info in pkgutil.walk_packages(dsh_lsp.__path__, prefix="dsh_lsp."))


def _docstring_blocks(source: str) -> Iterator[str]:
    """The ``::`` literal blocks of every docstring in ``source``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node, clean=True)
        if doc is None:
            continue
        for match in re.finditer(r"::\n\n((?:[ \t]+\S[^\n]*\n?|[ \t]*\n)+)", doc + "\n"):
            yield textwrap.dedent(match.group(1))


def _blocks() -> Iterator[tuple[str, str]]:
    for path in DOCS:
        for match in FENCE.finditer(path.read_text(encoding="utf-8")):
            yield path.name, match.group(1)
    for path in sorted((ROOT / "dsh_lsp").rglob("*.py")):
        for block in _docstring_blocks(path.read_text(encoding="utf-8")):
            yield str(path.relative_to(ROOT)), block


BLOCKS = list(_blocks())


def _public_names() -> set[str]:
    names: set[str] = set()
    for name in ["dsh_lsp", *MODULES]:
        module = importlib.import_module(name)
        names.update(getattr(module, "__all__", ()))
        names.update(attr for attr in vars(module) if not attr.startswith("_"))
    return names


def _declared_events() -> set[str]:
    found: set[str] = set()
    for name in MODULES:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, EVENT_CLASSES):
                found.add(value.name)
    return found


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(value, attr):
                return False
            value = getattr(value, attr)
        return True
    return False


def test_there_are_examples_to_check() -> None:
    assert len(BLOCKS) > 10


@pytest.mark.parametrize(("where", "block"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_dotted_names_and_imports_resolve(where: str, block: str) -> None:
    missing = [name for name in DOTTED.findall(block) if not _resolves(name)]
    for line in block.splitlines():
        imported = re.match(r"\s*from (dsh_lsp[\w.]*) import \(?([\w, ]+)", line)
        if imported:
            module, names = imported.groups()
            for name in (n.strip().split(" as ")[0] for n in names.split(",") if n.strip()):
                if not _resolves(f"{module}.{name}"):
                    missing.append(f"{module}.{name}")
    assert missing == [], f"{where} names what does not exist"


def test_python_examples_name_only_real_constants_and_classes() -> None:
    """In Python examples (``::`` blocks, python fences), a CONSTANT or CamelCase name is
    defined by the example, a builtin, or something ``dsh_lsp`` defines."""
    known = _public_names() | set(dir(builtins))
    problems: list[str] = []
    for where, block in BLOCKS:
        try:
            tree = ast.parse(block)
        except SyntaxError:
            continue  # not Python (JSON, shell, Lua…)
        defined = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        } | {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Name) or node.id in defined | known:
                continue
            shaped = (node.id.isupper() and len(node.id) > 2) or re.match(r"[A-Z][a-z]", node.id)
            if shaped:
                problems.append(f"{where}: {node.id}")
    assert problems == []


def test_event_names_in_examples_are_declared() -> None:
    declared = _declared_events()
    problems = [
        f"{where}: {name}"
        for where, block in BLOCKS
        for name in EVENT_DECLARATION.findall(block)
        if name not in declared
    ]
    assert problems == []
