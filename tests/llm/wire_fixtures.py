"""Recorded and reconstructed provider bodies (``tests/llm/fixtures/wire``) as scripted answers.

``load(id)`` reads one fixture; ``response(fixture)`` turns its body into what the scripted
server sends: an event stream written one HTTP chunk per SSE event (the server writes each
step on its own) for a 200 ``text/event-stream``, else one whole body with the recorded
status and content type.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dsh_lsp.testing import ErrorResponse, Raw, ScriptedResponse, StreamResponse

ROOT = Path(__file__).parent / "fixtures" / "wire"


@dataclass(frozen=True, slots=True)
class Fixture:
    id: str
    meta: dict[str, Any]  # Any: the fixture's JSON metadata, read by key in tests
    body: bytes

    @property
    def expected(self) -> dict[str, Any]:  # Any: see ``meta``
        expected = self.meta.get("expected")
        assert isinstance(expected, dict), f"{self.id} has no expected reading"
        return expected

    @property
    def model(self) -> str:
        return str(self.meta.get("model") or "local-model")


def ids() -> list[str]:
    """Every fixture folder name, sorted."""
    return sorted(p.name for p in ROOT.iterdir() if (p / "meta.json").is_file())


def load(fixture_id: str) -> Fixture:
    """One fixture; its body must match the recorded hash."""
    folder = ROOT / fixture_id
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    body = (folder / "body").read_bytes()
    assert hashlib.sha256(body).hexdigest() == meta["body_sha256"], fixture_id
    return Fixture(id=fixture_id, meta=meta, body=body)


def events(body: bytes) -> list[str]:
    """The body cut after every blank line: each piece is one SSE event with its framing."""
    text = body.decode("utf-8")
    pieces: list[str] = []
    while text:
        end = text.find("\n\n")
        cut = len(text) if end < 0 else end + 2
        pieces.append(text[:cut])
        text = text[cut:]
    return pieces


def response(fixture: Fixture) -> ScriptedResponse:
    """The scripted answer replaying ``fixture`` with its status and content type."""
    status = int(fixture.meta["status"])
    content_type = str(fixture.meta["content_type"])
    if status == 200 and content_type.startswith("text/event-stream"):
        return StreamResponse(steps=tuple(Raw(text=piece) for piece in events(fixture.body)))
    return ErrorResponse(
        status=status, body=fixture.body.decode("utf-8"), content_type=content_type
    )
