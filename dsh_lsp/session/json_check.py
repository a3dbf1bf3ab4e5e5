"""Lossless JSON: the only data a session event may carry, checked and copied in one walk.

A value is *lossless JSON* when encoding it as JSON text and decoding the text gives back an
equal value of exactly the same types: ``None``, ``bool``, ``int``, finite ``float``, ``str``
(valid Unicode, so it encodes as UTF-8), ``list`` and ``dict`` with ``str`` keys, nested at most
``MAX_DEPTH`` levels, without cycles. Tuples, subclasses (``IntEnum``, ``OrderedDict``), NaN,
infinities, lone surrogates and non-string keys are all refused: each would come back from
disk as something else, and the log must replay exactly what the live session saw.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Final, TypeVar

from dsh_lsp.llm import JsonValue, storable_text

MAX_DEPTH: Final = 256
"""Deepest nesting accepted; deeper data is refused rather than risking recursion limits."""

T = TypeVar("T")

_BIG_INT_BITS: Final = 13_000
"""Above this many bits an int may exceed Python's int-to-text digit limit (checked then)."""


class NotJsonError(ValueError):
    """A value is not lossless JSON; the message gives the JSON path and the reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path: list[str | int] = []

    def __str__(self) -> str:
        where = "$" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in reversed(self.path)
        )
        return f"at {where}: {self.reason}"


def clone_json(value: object) -> JsonValue:
    """A deep copy of ``value`` if it is lossless JSON (see the module docstring).

    Raises ``NotJsonError`` naming the first offending path. The copy shares no container
    with ``value``; strings and numbers are immutable and shared.
    """
    return _clone(value, set(), 0)


def is_lossless_json(value: object) -> bool:
    """True when ``value`` is lossless JSON."""
    try:
        _clone(value, set(), 0)
    except NotJsonError:
        return False
    return True


def _clone(value: object, active: set[int], depth: int) -> JsonValue:
    kind = type(value)
    if kind is str:
        assert isinstance(value, str)
        if not value.isascii():
            _check_text(value)
        return value
    if value is None or kind is bool:
        return value  # type: ignore[return-value]  # narrowed by the identity/type checks
    if kind is int:
        assert isinstance(value, int)
        if value.bit_length() > _BIG_INT_BITS:
            _check_big_int(value)
        return value
    if kind is float:
        assert isinstance(value, float)
        if value - value != 0.0:  # NaN and ±inf: inf - inf is NaN, NaN != 0
            raise NotJsonError(f"float {value!r} is not JSON")
        return value
    if kind is dict or kind is list:
        if depth >= MAX_DEPTH:
            raise NotJsonError(f"nested deeper than {MAX_DEPTH} levels")
        marker = id(value)
        if marker in active:
            raise NotJsonError("cycle: a container contains itself")
        active.add(marker)
        try:
            if isinstance(value, dict):
                return _clone_dict(value, active, depth + 1)
            assert isinstance(value, list)
            return _clone_list(value, active, depth + 1)
        finally:
            active.discard(marker)
    raise NotJsonError(f"{kind.__name__} is not a JSON type")


def _clone_dict(value: dict[object, object], active: set[int], depth: int) -> JsonValue:
    out: dict[str, JsonValue] = {}
    for key, item in value.items():
        if type(key) is not str:
            raise NotJsonError(f"object key {key!r} is not a string")
        if not key.isascii():
            _check_text(key)
        # The common leaves (ASCII text, None, bools) are shared without a call each.
        kind = type(item)
        if (kind is str and item.isascii()) or item is None or kind is bool:  # type: ignore[attr-defined]
            out[key] = item  # type: ignore[assignment]  # narrowed by the checks above
            continue
        try:
            out[key] = _clone(item, active, depth)
        except NotJsonError as exc:
            exc.path.append(key)
            raise
    return out


def _clone_list(value: list[object], active: set[int], depth: int) -> JsonValue:
    out: list[JsonValue] = []
    for index, item in enumerate(value):
        try:
            out.append(_clone(item, active, depth))
        except NotJsonError as exc:
            exc.path.append(index)
            raise
    return out


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotJsonError("string holds a lone surrogate (not valid Unicode)") from exc


def _check_big_int(value: int) -> None:
    try:
        str(value)
    except ValueError as exc:
        limit = sys.get_int_max_str_digits()
        raise NotJsonError(f"integer longer than {limit} digits") from exc


def storable(value: T) -> T:
    """``value`` with every string made storable: a surrogate pair is joined into the one
    character it encodes and every unpaired surrogate becomes U+FFFD.

    Walks ``str``, ``list``, ``tuple``, ``dict`` (keys too) and dataclass instances (rebuilt
    with ``dataclasses.replace`` where a field changed); anything else is returned as is. A
    value with nothing to change is returned itself, so callers can compare with ``is``.
    Never raises for the types it walks.
    """
    return _storable(value, 0)  # type: ignore[return-value]  # same shape as the input


_SCALARS: Final = frozenset((int, float, bool, type(None)))
"""Types ``storable`` returns at once (most values of a result's ``meta``)."""


def _storable(value: object, depth: int) -> object:
    if type(value) in _SCALARS:
        return value
    if type(value) is str:
        assert isinstance(value, str)
        return storable_text(value)
    if depth >= MAX_DEPTH:
        return value
    if isinstance(value, list | tuple):
        items = [_storable(item, depth + 1) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items if type(value) is list else type(value)(items)
    if isinstance(value, dict):
        pairs = [(_storable(k, depth + 1), _storable(v, depth + 1)) for k, v in value.items()]
        if all(k is ok and v is ov for (k, v), (ok, ov) in zip(pairs, value.items(), strict=True)):
            return value
        return dict(pairs)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for item in dataclasses.fields(value):
            old = getattr(value, item.name)
            new = _storable(old, depth + 1)
            if new is not old:
                changes[item.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    return value
