"""Every subpackage declares its public surface: ``__all__`` is a complete, resolvable tuple."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import dsh_lsp

SUBPACKAGES = sorted(
    info.name for info in pkgutil.walk_packages(dsh_lsp.__path__, prefix="dsh_lsp.") if info.ispkg
)


def test_the_layers_exist() -> None:
    expected = {
        "dsh_lsp.kernel",
        "dsh_lsp.llm",
        "dsh_lsp.session",
        "dsh_lsp.tools",
        "dsh_lsp.agent",
        "dsh_lsp.agent_loop",
        "dsh_lsp.fs_tools",
        "dsh_lsp.server",
        "dsh_lsp.testing",
    }
    assert expected <= set(SUBPACKAGES)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_all_is_complete_and_resolvable(name: str) -> None:
    module = importlib.import_module(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and not isinstance(value, types.ModuleType)
        and attr != "annotations"
    }
    exported = getattr(module, "__all__", ())
    assert isinstance(exported, tuple), f"{name}.__all__ must be a tuple"
    assert sorted(set(exported)) == sorted(exported), f"{name}.__all__ has duplicates"
    missing = [attr for attr in exported if not hasattr(module, attr)]
    assert missing == [], f"{name}.__all__ names missing attributes"
    assert public <= set(exported), f"{name} exposes names outside __all__"


def test_the_installed_version_is_the_package_version() -> None:
    from importlib.metadata import version

    import dsh_lsp

    assert version("dsh-lsp") == dsh_lsp.__version__
