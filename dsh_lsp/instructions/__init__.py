"""Instructions: the project's instruction files (AGENTS.md and kin) in the prompt."""

from __future__ import annotations

from .plugin import DEFAULT_FILES as DEFAULT_FILES
from .plugin import INSTRUCTIONS_LOADED as INSTRUCTIONS_LOADED
from .plugin import InstructionsConfig as InstructionsConfig
from .plugin import InstructionsLoadedPayload as InstructionsLoadedPayload
from .plugin import InstructionsPlugin as InstructionsPlugin
from .sources import Source as Source
from .sources import find_sources as find_sources
from .sources import folders as folders
from .sources import render as render

__all__ = (
    "DEFAULT_FILES",
    "INSTRUCTIONS_LOADED",
    "InstructionsConfig",
    "InstructionsLoadedPayload",
    "InstructionsPlugin",
    "Source",
    "find_sources",
    "folders",
    "render",
)
