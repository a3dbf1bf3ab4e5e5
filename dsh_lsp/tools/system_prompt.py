"""SystemPrompt: the ``SYSTEM_PROMPT`` service collecting sections and tool providers (tools layer).

Plugins contribute named, ordered ``PromptSection``s and tool providers (callables returning
``ToolSchema``s; the tool registry is one). ``assemble()`` builds one ``PromptAssembly`` per
model step: sections sorted by order (ties keep registration order) and the providers' schemas
concatenated with their parameters deep-copied (a provider registered ``fresh`` copies them
itself, as the registry does), then hands it through the
``system-prompt/assemble`` waterfall, whose result is authoritative.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from dsh_lsp.kernel import Context, Disposer, ServiceKey
from dsh_lsp.llm import ToolSchema

from .errors import DUPLICATE_SECTION, ToolError
from .events import SYSTEM_PROMPT_ASSEMBLE, SYSTEM_PROMPT_CHANGE
from .prompt import PromptAssembly, PromptSection
from .schema import copy_schema

E = TypeVar("E")

ToolProvider = Callable[[], Sequence[ToolSchema]]
"""Returns the tool schemas to offer in the next assembly."""


@dataclass(frozen=True, slots=True, eq=False)
class _Provider:
    """One registration of a tool provider (removed by identity)."""

    provider: ToolProvider
    fresh: bool


class SystemPrompt:
    """Registered prompt sections and tool providers, and the per-step assembly.

    Constructed by ``ToolsPlugin`` with its context; that context dispatches the events and
    owns registrations made without an explicit ``ctx``.
    """

    __slots__ = ("_ctx", "_providers", "_sections")

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._sections: list[PromptSection] = []
        self._providers: list[_Provider] = []

    def section(self, section: PromptSection, *, ctx: Context | None = None) -> Disposer:
        """Add a section as an effect of ``ctx`` (default: the service's own plugin).

        Emits ``SYSTEM_PROMPT_CHANGE`` (contained) on registration and removal. Raises
        ``ToolError`` (``DUPLICATE_SECTION``) when a section of that name is registered;
        ``KernelClosedError`` when ``ctx`` is closed.
        """
        owner = ctx if ctx is not None else self._ctx

        def body() -> partial[None]:
            if any(existing.name == section.name for existing in self._sections):
                raise ToolError(
                    f"prompt section {section.name!r} is already registered",
                    code=DUPLICATE_SECTION,
                )
            self._sections.append(section)
            self._changed()
            return partial(self._remove, self._sections, section)

        return owner.effect(body)

    def tools(
        self, provider: ToolProvider, *, ctx: Context | None = None, fresh: bool = False
    ) -> Disposer:
        """Add a tool provider as an effect of ``ctx`` (default: the service's own plugin).
        ``fresh``: the provider returns schemas whose parameters are new copies nobody else
        holds (the registry's ``schemas``), which the assembly takes without copying again.

        Emits ``SYSTEM_PROMPT_CHANGE`` (contained) on registration and removal. Raises
        ``KernelClosedError`` when ``ctx`` is closed.
        """
        owner = ctx if ctx is not None else self._ctx
        entry = _Provider(provider=provider, fresh=fresh)

        def body() -> partial[None]:
            self._providers.append(entry)
            self._changed()
            return partial(self._remove, self._providers, entry)

        return owner.effect(body)

    def sections(self) -> tuple[PromptSection, ...]:
        """The registered sections, sorted by order (ties in registration order)."""
        return tuple(sorted(self._sections, key=lambda section: section.order))

    async def assemble(self) -> PromptAssembly:
        """The assembly for one model step, after the ``system-prompt/assemble`` waterfall.

        Lazy section text is left for ``render_prompt``. Raises whatever a tool provider or a
        listener raises, and ``ToolError`` (``INVALID_SCHEMA``) for non-JSON parameters.
        """
        tools = tuple(
            schema
            if entry.fresh
            else ToolSchema(
                name=schema.name,
                description=schema.description,
                parameters=copy_schema(schema.parameters),
            )
            for entry in tuple(self._providers)
            for schema in entry.provider()
        )
        assembly = PromptAssembly(sections=self.sections(), tools=tools)

        async def unchanged() -> PromptAssembly:
            return assembly

        return await self._ctx.waterfall(SYSTEM_PROMPT_ASSEMBLE, assembly, unchanged)

    def _remove(self, entries: list[E], entry: E) -> None:
        for index, existing in enumerate(entries):
            if existing is entry:
                del entries[index]
                self._changed()
                return

    def _changed(self) -> None:
        self._ctx.emit_contained(SYSTEM_PROMPT_CHANGE, None)


SYSTEM_PROMPT: ServiceKey[SystemPrompt] = ServiceKey("system-prompt")
"""The prompt assembly service, provided by ``ToolsPlugin``."""
