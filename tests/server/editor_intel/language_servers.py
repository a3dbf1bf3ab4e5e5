"""A test client that lends the agent "the editor's language servers": it advertises
``experimental.dsh.editor`` and answers ``dsh/editor/*`` from its own buffers, like a plugin
asking the language servers attached to a buffer. Its one linter flags every ``bogus`` as an
undefined name; definitions, references, symbols and hovers are scripted per test."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

import anyio

from tests.server.editor_model import Json, position_of
from tests.server.support import RICH, DshClient, make_client

EDITOR_CAPS = {
    "dsh": {
        **RICH["dsh"],
        "editor": {
            "diagnostics": True,
            "definition": True,
            "references": True,
            "symbols": True,
            "hover": True,
        },
    }
}
"""The ``experimental`` capability of a client that answers every ``dsh/editor/*`` method."""

Mode = Literal["fresh", "stale", "silent", "malformed"]


@dataclass
class LanguageServers:
    """How the client answers: ``mode`` for diagnostics (the current version, the version
    before it, never, or garbage), scripted answers for the rest, and what it was asked."""

    client: DshClient
    mode: Mode = "fresh"
    answers: dict[str, Json] = field(default_factory=dict)
    asked: list[tuple[str, Json]] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)
    """Methods asked while ``mode`` was ``silent``."""
    withdrawn: list[str] = field(default_factory=list)
    """Methods whose request the server withdrew (``$/cancelRequest``) while unanswered."""

    def lint(self, uri: str) -> list[Json]:
        """The diagnostics of the buffer at ``uri`` now."""
        buffer = self.client.editor.buffers[uri]
        encoding = self.client.editor.behaviour.encoding
        found: list[Json] = []
        start = buffer.text.find("bogus")
        while start >= 0:
            found.append(
                {
                    "range": {
                        "start": position_of(buffer.text, start, encoding),
                        "end": position_of(buffer.text, start + 5, encoding),
                    },
                    "severity": 1,
                    "code": "F821",
                    "source": "Ruff",
                    "message": "Undefined name `bogus`",
                }
            )
            start = buffer.text.find("bogus", start + 1)
        return found

    async def answer(self, method: str, params: Json) -> Json:
        """The answer to ``dsh/editor/<method>``."""
        self.asked.append((method, params))
        self.client.touched()
        if self.mode == "silent":
            self.withheld.append(method)
            try:
                await anyio.sleep_forever()
            except anyio.get_cancelled_exc_class():
                self.withdrawn.append(method)
                self.client.touched()
                raise
        if self.mode == "malformed":
            return {"items": "nope"} if method == "diagnostics" else {"locations": [{"x": 1}]}
        if method != "diagnostics":
            return self.answers[method]
        uris = [params["uri"]] if "uri" in params else list(self.client.editor.buffers)
        items = []
        for uri in uris:
            buffer = self.client.editor.buffers.get(uri)
            if buffer is None:
                continue
            version = buffer.version
            if self.mode == "stale" and "version" in params:
                version = params["version"] - 1
            items.append(
                {"uri": uri, "version": version, "complete": True, "diagnostics": self.lint(uri)}
            )
        return {"items": items}


def editor_client() -> tuple[DshClient, LanguageServers]:
    """A ``make_client`` client that also answers ``dsh/editor/*``."""
    client = make_client()
    servers = LanguageServers(client)

    def register(method: str) -> None:
        async def handler(ls: DshClient, params: Json) -> Json:
            return await servers.answer(method, params)

        client.feature(f"dsh/editor/{method}")(handler)

    for method in ("diagnostics", "definition", "references", "symbols", "hover"):
        register(method)
    return client, servers


Answer = Callable[[str, Json], Awaitable[Json]]
