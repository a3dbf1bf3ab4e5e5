"""What the real-editor tiers' tests share beside the fixtures in ``conftest.py``: the
scripted model's answers they build, what they read back of its requests, and the
environment their editor script starts ``dsh-lsp`` with."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from dsh_lsp.testing import (
    Event,
    RecordedRequest,
    Stall,
    StreamResponse,
    ToolCallSpec,
    completion,
    delta_payload,
)


def tool_call(call_id: str, name: str, **args: object) -> StreamResponse:
    """An answer that calls the tool ``name`` with ``args`` (as JSON)."""
    return completion(tool_calls=[ToolCallSpec(id=call_id, name=name, arguments=json.dumps(args))])


def hanging(*texts: str) -> StreamResponse:
    """An answer that streams ``texts`` (the first delta names the assistant role) and then
    stalls until the client goes away: a turn still running when the test cancels it."""
    deltas = [{"content": text} for text in texts]
    deltas[0] = {"role": "assistant", **deltas[0]}
    events = tuple(Event(data=delta_payload(delta)) for delta in deltas)
    return StreamResponse(steps=(*events, Stall(seconds=None)))


def tool_messages(request: RecordedRequest) -> list[str]:
    """The text of every ``role: tool`` message the model was sent."""
    body: dict[str, Any] = request.json()  # Any: the OpenAI-shaped request body
    return [
        str(message.get("content"))
        for message in body.get("messages", [])
        if message.get("role") == "tool"
    ]


def server_env(tmp_path: Path, workspace: Path, model_url: str) -> dict[str, str]:
    """The variables an editor script reads to start ``dsh-lsp`` on ``workspace`` against the
    scripted model at ``model_url``: its command (debug log in ``tmp_path / "server.log"``), the
    model's URL and a scripted key, and the session folder ``tmp_path / "sessions"``."""
    log = tmp_path / "server.log"
    server_cmd = [sys.executable, "-m", "dsh_lsp", "--log-file", str(log), "--log-level", "debug"]
    return {
        "DSH_SERVER_CMD": json.dumps(server_cmd),
        "DSH_MODEL_URL": model_url,
        "DSH_WS": str(workspace),
        "DSH_SESSION_DIR": str(tmp_path / "sessions"),
        "DEEPSEEK_API_KEY": "scripted-key",
    }
