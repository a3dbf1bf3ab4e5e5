"""Lazy faces: each name written once, loaded on first use, a bad face refused at import."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import dsh_lsp.server

FACE = '''"""A face for the test."""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
{block}

__all__ = _lazy_face(globals())
'''


def _package(root: Path, name: str, block: str) -> None:
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text(FACE.format(block=block), encoding="utf-8")
    (package / "heavy.py").write_text("LOADED = True\ndef make() -> int:\n    return 1\n")
    (package / "same.py").write_text("def same() -> str:\n    return 'function'\n")


def test_names_load_on_first_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = "    from .heavy import make as make\n    from .same import same as same"
    _package(tmp_path, "lazy_probe", block)
    monkeypatch.syspath_prepend(str(tmp_path))
    face = importlib.import_module("lazy_probe")
    try:
        assert face.__all__ == ("make", "same")
        assert "lazy_probe.heavy" not in sys.modules
        # A name spelled like its module is bound at once, so the module cannot hide it.
        assert face.same() == "function"
        assert face.make() == 1
        assert "lazy_probe.heavy" in sys.modules
        assert dir(face) == ["make", "same"]
        with pytest.raises(AttributeError, match="no attribute 'missing'"):
            _ = face.missing
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "lazy_probe"]:
            del sys.modules[name]


@pytest.mark.parametrize(
    "block",
    ["    from .heavy import make", "    import lazy_probe_bad.heavy", "    make = 1"],
)
def test_a_face_that_is_not_re_exports_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: str
) -> None:
    _package(tmp_path, "lazy_probe_bad", block)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(TypeError, match="lazy_probe_bad"):
            importlib.import_module("lazy_probe_bad")
    finally:
        sys.modules.pop("lazy_probe_bad", None)


def test_the_server_face_is_small_and_loads_no_layer_below() -> None:
    assert len(dsh_lsp.server.__all__) <= 10
    probe = (
        "import sys, dsh_lsp.server\n"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('dsh_lsp.')}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["['kernel',", "'server']"]
