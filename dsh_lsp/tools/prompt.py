"""Prompt assembly values: sections, the assembly, and how it renders to text (tools layer).

A ``PromptAssembly`` is everything the model is told up front for one step: the ordered text
sections of the system prompt and the tool schemas it may call. Both come from plugins
through the ``SystemPrompt`` service, and one ``system-prompt/assemble`` waterfall can rewrite
both (so hiding a tool is an assembly rewrite, like editing a section). ``render_prompt``
turns the sections into the system prompt text; the tools travel in the request's own field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dsh_lsp.llm import ToolSchema


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptSection:
    """One named piece of the system prompt.

    Sections render in ascending ``order`` (ties keep registration order). ``text`` may be a
    zero-argument callable, evaluated each time the prompt renders.
    """

    name: str
    order: int
    text: str | Callable[[], str]


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptAssembly:
    """The sections (already sorted) and tool schemas for one model request."""

    sections: tuple[PromptSection, ...]
    tools: tuple[ToolSchema, ...]


def section_text(section: PromptSection) -> str:
    """The section's text, calling it when it is lazy. Raises whatever the callable raises."""
    return section.text if isinstance(section.text, str) else section.text()


def render_prompt(assembly: PromptAssembly) -> str:
    """The system prompt: each section's text in order, empty ones dropped, joined by a
    blank line. Raises whatever a lazy section raises."""
    texts = (section_text(section) for section in assembly.sections)
    return "\n\n".join(text for text in texts if text)
