"""The scripted OpenAI-compatible streaming server (testing kit); see ``server``.

``server`` is the public face, ``handler`` the HTTP/1.1 connection, ``state`` what the
connections share.
"""

from __future__ import annotations

from .server import ScriptedServer as ScriptedServer
from .state import RecordedRequest as RecordedRequest

__all__ = ("RecordedRequest", "ScriptedServer")
