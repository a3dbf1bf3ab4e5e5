"""EditorMethods: which ``dsh/editor/*`` requests the client answers (server layer).

Read once from the ``initialize`` capabilities: ``capabilities.experimental.dsh.editor``
(with ``dsh.version`` 1) lists each method the client answers with ``true``. A method not
listed is never sent and the tool built on it is not offered to the model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from lsprotocol import types

from dsh_lsp.server.wire import DSH_VERSION

EditorMethod = Literal["diagnostics", "definition", "references", "symbols", "hover"]
"""The ``dsh/editor/<method>`` requests."""

METHODS: tuple[EditorMethod, ...] = ("diagnostics", "definition", "references", "symbols", "hover")
"""Every method, in the order the tools are registered."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EditorMethods:
    """The ``dsh/editor/*`` methods the client answers."""

    methods: frozenset[EditorMethod] = frozenset()

    def __contains__(self, method: object) -> bool:
        return method in self.methods

    def __bool__(self) -> bool:
        return bool(self.methods)


def editor_methods(capabilities: types.ClientCapabilities) -> EditorMethods:
    """The methods ``capabilities.experimental.dsh.editor`` lists as ``true``; none when the
    client does not speak dsh version 1. Never raises."""
    experimental = capabilities.experimental
    dsh = experimental.get("dsh") if isinstance(experimental, Mapping) else None
    if not isinstance(dsh, Mapping) or dsh.get("version") != DSH_VERSION:
        return EditorMethods()
    editor = dsh.get("editor")
    if not isinstance(editor, Mapping):
        return EditorMethods()
    return EditorMethods(methods=frozenset(m for m in METHODS if editor.get(m) is True))
