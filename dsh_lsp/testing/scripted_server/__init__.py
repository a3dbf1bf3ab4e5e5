"""The scripted OpenAI-compatible streaming server (testing kit); see ``server``."""

from __future__ import annotations

from .server import RecordedRequest as RecordedRequest
from .server import ScriptedServer as ScriptedServer

__all__ = ("RecordedRequest", "ScriptedServer")
