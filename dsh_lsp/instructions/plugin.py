"""InstructionsPlugin: project instruction files in every request's system prompt
(instructions layer).

It needs no service: it reads instruction files from the session's workspace root and from
the folders of files the session touched (``fs/observed``), renders them as one
bounded section appended to the step's system prompt (an ``agent/request`` listener), and
the first time a source is used in a session logs ``instructions/loaded`` with the paths,
so the user sees once which files steer the agent (live and on resume).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import ClassVar, Final, Self

from pydantic import BaseModel, ConfigDict, Field

from dsh_lsp.agent import AGENT_REQUEST, RequestPayload
from dsh_lsp.fs_tools import FS_OBSERVED, FsObservation
from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm import JsonObject, JsonValue, LlmRequest
from dsh_lsp.session import EVENT_PAYLOADS, ExtensionPayload

from .sources import folders, render, sources_in

INSTRUCTIONS_LOADED: Final = "instructions/loaded"
"""The session event naming instruction files the first time they are used."""

DEFAULT_FILES: Final = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md")


@dataclass(frozen=True, slots=True, kw_only=True)
class InstructionsLoadedPayload(ExtensionPayload):
    """``instructions/loaded {sources: [path, ...]}``: instruction files used for the first
    time in a session. Registered with ``EVENT_PAYLOADS`` by ``InstructionsPlugin`` (and the
    server, which renders it); decoding is lenient and never raises."""

    kind: ClassVar[str] = INSTRUCTIONS_LOADED
    sources: tuple[str, ...]

    def to_json(self) -> dict[str, JsonValue]:
        """``{sources: [...]}``."""
        return {"sources": list(self.sources)}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """The paths in ``data["sources"]`` (none when it is not an array)."""
        sources = data.get("sources")
        return cls(sources=tuple(map(str, sources if isinstance(sources, list) else ())))


class InstructionsConfig(BaseModel):
    """``files``: the names looked for in each folder, in order; ``max_file_bytes`` /
    ``max_total_bytes``: how much of one file and of all of them the prompt carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: tuple[str, ...] = DEFAULT_FILES
    max_file_bytes: int = Field(default=16 * 1024, ge=256)
    max_total_bytes: int = Field(default=32 * 1024, ge=1024)


class _SessionState:
    __slots__ = ("searched", "shown", "touched")

    def __init__(self) -> None:
        self.touched: set[str] = set()
        self.shown: set[str] = set()
        self.searched: tuple[str, int, list[str]] | None = None
        """The folders searched for (root, touched count): resolved once, not per request."""

    def folders(self, root: str) -> list[str]:
        """The folders to search (``sources.folders``), kept until a new one is touched."""
        kept = self.searched
        if kept is None or kept[0] != root or kept[1] != len(self.touched):
            kept = self.searched = (root, len(self.touched), folders(root, self.touched))
        return kept[2]


class InstructionsPlugin(Plugin[InstructionsConfig]):
    """See the module docstring."""

    name: ClassVar[str] = "instructions"
    config_model = InstructionsConfig

    async def apply(self, ctx: Context, config: InstructionsConfig) -> None:
        """Register the two listeners and the payload class (they leave with the plugin)."""
        ctx.effect(lambda: EVENT_PAYLOADS.register(InstructionsLoadedPayload))
        states: weakref.WeakKeyDictionary[object, _SessionState] = weakref.WeakKeyDictionary()

        def observed(observation: FsObservation) -> None:
            owner = observation.owner
            if owner is None:
                return
            try:
                state = states.setdefault(owner, _SessionState())
            except TypeError:
                return
            state.touched.add(os.path.dirname(observation.target.display_path))

        async def on_request(
            payload: RequestPayload, proceed: Callable[[], Awaitable[LlmRequest]]
        ) -> LlmRequest:
            request = await proceed()
            session = payload.agent.session
            root = session.header.cwd
            if not root:
                return request
            state = states.setdefault(session, _SessionState())
            # On the event loop: a few stats and small reads cost less than the hand-off to a
            # worker thread, and this runs before every model request.
            sources = sources_in(state.folders(root), config.files, config.max_file_bytes)
            text, included = render(sources, config.max_total_bytes)
            if not text:
                return request
            new = [path for path in included if path not in state.shown]
            if new:
                state.shown.update(new)
                session.write(InstructionsLoadedPayload(sources=tuple(new)))
            system = f"{request.system}\n\n{text}" if request.system else text
            return replace(request, system=system)

        ctx.on(FS_OBSERVED, observed)
        ctx.on(AGENT_REQUEST, on_request)
