"""Typed reads of fields from decoded JSON objects, for the record codecs (llm layer).

Each reader raises ``LlmError`` with code ``MALFORMED_RECORD`` naming the record kind and the
field, so a corrupt log line says exactly what is wrong. Booleans never count as integers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NoReturn

from .errors import LlmCode, LlmError
from .json_value import JsonObject, JsonValue


def malformed(what: str, detail: str, cause: BaseException | None = None) -> NoReturn:
    """Raise the ``MALFORMED_RECORD`` error for record kind ``what``."""
    raise LlmError(f"malformed {what} record: {detail}", code=LlmCode.MALFORMED_RECORD, cause=cause)


def as_object(value: object, what: str) -> JsonObject:
    """``value`` as a JSON object with string keys, else ``MALFORMED_RECORD``.

    A plain ``dict`` is taken as it is (the fast path every decoded record takes): JSON
    decoding and ``clone_json`` only make string keys, and a stray key of another type could
    never be read by a field reader anyway.
    """
    if type(value) is dict:
        return value
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        malformed(what, f"expected a JSON object, got {type(value).__name__}")
    return value


def tag(obj: JsonObject, what: str) -> str:
    """The record's ``type`` tag."""
    return read_str(obj, "type", what)


def read_str(obj: JsonObject, key: str, what: str) -> str:
    """Required string field ``key``."""
    value = obj.get(key)
    if not isinstance(value, str):
        malformed(what, f"field {key!r} must be a string")
    return value


def read_opt_str(obj: JsonObject, key: str, what: str) -> str | None:
    """Optional string field ``key`` (absent or null → ``None``)."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        malformed(what, f"field {key!r} must be a string")
    return value


def read_int(obj: JsonObject, key: str, what: str) -> int:
    """Required integer field ``key`` (booleans rejected)."""
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        malformed(what, f"field {key!r} must be an integer")
    return value


def read_opt_int(obj: JsonObject, key: str, what: str) -> int | None:
    """Optional integer field ``key`` (absent or null → ``None``)."""
    if obj.get(key) is None:
        return None
    return read_int(obj, key, what)


def read_bool(obj: JsonObject, key: str, what: str, *, default: bool) -> bool:
    """Optional boolean field ``key``."""
    value = obj.get(key, default)
    if not isinstance(value, bool):
        malformed(what, f"field {key!r} must be a boolean")
    return value


def read_list(obj: JsonObject, key: str, what: str) -> Sequence[JsonValue]:
    """Required array field ``key``."""
    value = obj.get(key)
    if not isinstance(value, list):
        malformed(what, f"field {key!r} must be an array")
    return value
