"""Branded identifiers of the model layer (llm): nominal string types at zero runtime cost.

``NewType`` keeps a tool-call id from being passed where a session id is expected, while the
runtime value stays a plain ``str`` that serializes to JSON unchanged.
"""

from __future__ import annotations

from typing import NewType

CallId = NewType("CallId", str)
"""The model-assigned id of one tool call; a tool result answers it by this id."""

SessionId = NewType("SessionId", str)
"""The id of one agent session; requests carry it so wrappers can key per-session state."""
