"""The scripted OpenAI-compatible streaming server (testing kit); see ``server``.

``server`` is the public face, ``handler`` the HTTP/1.1 connection, ``state`` what the
connections share, ``rules`` the provider checks a server can enforce.
"""

from __future__ import annotations

from .rules import REASONING_PASSBACK_400 as REASONING_PASSBACK_400
from .rules import RequestCheck as RequestCheck
from .rules import deepseek_thinking as deepseek_thinking
from .rules import thinking_history_violation as thinking_history_violation
from .server import ScriptedServer as ScriptedServer
from .state import RecordedRequest as RecordedRequest

__all__ = (
    "REASONING_PASSBACK_400",
    "RecordedRequest",
    "RequestCheck",
    "ScriptedServer",
    "deepseek_thinking",
    "thinking_history_violation",
)
