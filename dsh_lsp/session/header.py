"""SessionHeader: the facts about a session that live outside its event log (session layer).

The header is written once, when the log is first stored (the JSONL first line, the SQLite
``sessions`` row), and never changes. Its record is tagged ``"type": "session"`` and uses
camelCase keys with absent optionals omitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.llm import JsonValue, SessionId

from .errors import CORRUPT, UNSUPPORTED_VERSION, SessionError

FORMAT_VERSION = 0
"""The only header version this build reads and writes."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionHeader:
    """Identity and origin of one session; kept out of the event log."""

    id: SessionId
    created_at: int
    """Creation time, milliseconds since the Unix epoch."""
    cwd: str | None = None
    """The working directory tools resolve relative paths against."""
    parent_session: SessionId | None = None
    """The session this one was forked from."""
    seed_length: int | None = None
    """How many leading events were copied from the parent at fork time."""
    title: str | None = None
    version: int = FORMAT_VERSION


def header_to_json(header: SessionHeader) -> dict[str, JsonValue]:
    """The header's record: ``{"type": "session", "version", "id", "createdAt", ...}``."""
    record: dict[str, JsonValue] = {
        "type": "session",
        "version": header.version,
        "id": header.id,
        "createdAt": header.created_at,
    }
    if header.cwd is not None:
        record["cwd"] = header.cwd
    if header.parent_session is not None:
        record["parentSession"] = header.parent_session
    if header.seed_length is not None:
        record["seedLength"] = header.seed_length
    if header.title is not None:
        record["title"] = header.title
    return record


def header_from_json(value: object) -> SessionHeader:
    """Decode a header record.

    Raises ``SessionError``: ``SESSION_UNSUPPORTED_VERSION`` when the version is not
    ``FORMAT_VERSION``, ``SESSION_CORRUPT`` for any other shape problem.
    """
    if type(value) is not dict or value.get("type") != "session":
        raise SessionError("not a session header record", code=CORRUPT)
    version = value.get("version")
    if type(version) is not int:
        raise SessionError("session header 'version' is not an integer", code=CORRUPT)
    if version != FORMAT_VERSION:
        raise SessionError(
            f"session format version {version} is not supported (this build reads version"
            f" {FORMAT_VERSION})",
            code=UNSUPPORTED_VERSION,
        )
    session_id = _field(value, "id", str, required=True)
    created_at = _field(value, "createdAt", int, required=True)
    assert isinstance(session_id, str)
    assert isinstance(created_at, int)
    parent = _field(value, "parentSession", str)
    seed_length = _field(value, "seedLength", int)
    cwd = _field(value, "cwd", str)
    title = _field(value, "title", str)
    return SessionHeader(
        id=SessionId(session_id),
        created_at=created_at,
        cwd=cwd if isinstance(cwd, str) else None,
        parent_session=SessionId(parent) if isinstance(parent, str) else None,
        seed_length=seed_length if isinstance(seed_length, int) else None,
        title=title if isinstance(title, str) else None,
        version=version,
    )


def _field(
    record: dict[str, object], key: str, kind: type[str] | type[int], *, required: bool = False
) -> str | int | None:
    value = record.get(key)
    if value is None and not required:
        return None
    if type(value) is not kind:
        raise SessionError(
            f"session header {key!r} is not {'a string' if kind is str else 'an integer'}",
            code=CORRUPT,
        )
    assert isinstance(value, str | int)
    return value
