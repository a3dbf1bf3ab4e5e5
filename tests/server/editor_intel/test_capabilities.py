"""Which ``dsh/editor/*`` methods a client lends: only those it lists as ``true`` under
``experimental.dsh.editor``, and none unless it speaks dsh version 1."""

from __future__ import annotations

import pytest
from lsprotocol import types

from dsh_lsp.server.editor_intel import METHODS, editor_methods
from tests.server.editor_model import Json


def _caps(experimental: Json) -> types.ClientCapabilities:
    return types.ClientCapabilities(experimental=experimental)


def test_every_method_listed_true_is_lent() -> None:
    caps = _caps({"dsh": {"version": 1, "editor": dict.fromkeys(METHODS, True)}})
    assert editor_methods(caps).methods == frozenset(METHODS)


def test_only_true_counts() -> None:
    editor = {"diagnostics": True, "definition": "yes", "hover": 1, "symbols": False}
    found = editor_methods(_caps({"dsh": {"version": 1, "editor": editor}}))
    assert found.methods == frozenset({"diagnostics"})
    assert "diagnostics" in found
    assert "hover" not in found


@pytest.mark.parametrize(
    "experimental",
    [
        None,
        {},
        {"dsh": {"version": 2, "editor": {"diagnostics": True}}},
        {"dsh": {"editor": {"diagnostics": True}}},
        {"dsh": {"version": 1, "editor": ["diagnostics"]}},
        {"dsh": {"version": 1}},
        {"editor": {"diagnostics": True}},
    ],
)
def test_anything_else_lends_nothing(experimental: Json) -> None:
    assert not editor_methods(_caps(experimental))
