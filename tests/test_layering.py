"""The import contracts hold, and breaking any of them fails the check CI runs."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dsh_lsp"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_kernel_imports_only_stdlib_and_anyio() -> None:
    """A stricter check than the forbidden list: any third-party import but anyio fails."""
    allowed = set(sys.stdlib_module_names) | {"anyio", "dsh_lsp"}
    offenders: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "kernel").rglob("*.py")):
        foreign = _imported_top_levels(path) - allowed
        if foreign:
            offenders[str(path.relative_to(ROOT))] = foreign
    assert offenders == {}
    for path in sorted((PACKAGE / "kernel").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                assert not node.module.startswith("dsh_lsp.") or node.module.startswith(
                    "dsh_lsp.kernel"
                ), f"{path}: kernel imports {node.module}"


def _lint(tree_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree_root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree_root / "pyproject.toml"), "--no-cache"],
        cwd=tree_root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_repository_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "statement", "contract"),
    [
        ("kernel", "import pydantic", "kernel imports nothing of ours"),
        ("kernel", "import dsh_lsp.llm", "kernel imports nothing of ours"),
        ("llm", "import pygls", "only the server package imports pygls"),
        ("fs_tools", "import lsprotocol", "only the server package imports pygls"),
        ("server", "import dsh_lsp.agent_loop", "nothing but the composition root"),
        ("llm", "import dsh_lsp.session", "layers import downward only"),
        ("agent", "import dsh_lsp.fs_tools", "layers import downward only"),
        ("tools", "import dsh_lsp.testing", "the shipped test kit"),
        ("server/wire", "import dsh_lsp.server.sessions", "the server's rooms import downward"),
        ("server/plain", "import dsh_lsp.server.editor_fs", "the server's rooms import downward"),
        ("server/buffers", "import dsh_lsp.server.boot", "the server's rooms import downward"),
        ("server", "import dsh_lsp.fs_tools.text", "another package is imported through its face"),
        ("agent_loop", "import dsh_lsp.session.events", "another package is imported through"),
        ("app.py", "import dsh_lsp.llm.deepseek.adapter", "another package is imported through"),
        ("server/plain", "import dsh_lsp.server.sessions.bridge", "another package is imported"),
        ("fs_tools", "import dsh_lsp.server._lazy", "another package is imported through"),
        ("cli", "import dsh_lsp.testing", "the shipped test kit"),
        ("cli", "import dsh_lsp.agent_loop", "the command line reaches the agent loop only"),
        ("server", "import dsh_lsp.cli", "layers import downward only"),
    ],
)
def test_breaking_a_contract_fails_the_check(
    tmp_path: Path, module: str, statement: str, contract: str
) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(PACKAGE, tmp_path / "dsh_lsp", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "import_contracts.py", tmp_path / "scripts")
    target = tmp_path / "dsh_lsp" / module
    if target.suffix == ".py":  # a top-level module takes the violation itself
        text = target.read_text(encoding="utf-8")
        target.write_text(f"{text}\n{statement}  # deliberate violation\n", encoding="utf-8")
    else:
        (target / "_contract_breaker.py").write_text(
            f'"""Deliberate violation for the contract test."""\n\n{statement}\n', encoding="utf-8"
        )
    result = _lint(tmp_path)
    assert result.returncode != 0, result.stdout
    broken = [line for line in result.stdout.splitlines() if " BROKEN" in line]
    assert any(line.startswith(contract) for line in broken), result.stdout
