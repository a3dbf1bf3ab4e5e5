"""Argument validation at the model boundary, with exact, path-qualified messages (tools layer).

``validate_args(schema, value)`` checks a call's arguments against the tool's JSON Schema and
returns every violation in declaration order (empty when valid); ``check_args`` raises them as
one ``ToolArgsError``. The semantics, deliberately narrow:

- the top level must be a JSON object (``"arguments" must be an object`` otherwise); text
  ``parse_arguments`` could not decode reads ``not valid JSON (<decoder message>)`` instead;
- only keys listed in ``required`` are required; extra keys are allowed; defaults are never
  applied; a key is missing only when it is absent (an explicit ``null`` is present);
- ``bool`` is neither a number nor an integer; ``integer`` also accepts integral floats
  (JSON ``1.0``); NaN and infinities are not numbers;
- ``enum`` membership is checked after the type check, with JSON equality (``true != 1``);
- messages read ``"a.b[0]" must be a string`` and ``missing required property "a.x"``.

The supported keywords are ``type`` (a name or a list of names), ``properties``,
``required``, ``items`` and ``enum``; anything else is ignored. ``parse_arguments`` turns the
raw argument text a model streamed into the value to validate: its JSON value, or the text as
``UnparsedArguments`` (a ``str`` that also carries why decoding failed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Self, TypeGuard, cast

from dsh_lsp.llm import JsonObject, JsonValue, dumps_compact, loads_strict

from .errors import ToolArgsError

_NAMES = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "object": "an object",
    "array": "an array",
    "null": "null",
}


class UnparsedArguments(str):
    """Argument text that is not strict JSON, as ``parse_arguments`` returns it.

    It equals the raw text (it is that string) and adds ``reason``, the decoder's message, so
    validation can tell it from a JSON string value and report why the text did not decode.
    """

    reason: str

    def __new__(cls, text: str, reason: str) -> Self:
        """The raw ``text`` marked as undecodable for ``reason``."""
        self = super().__new__(cls, text)
        self.reason = reason
        return self


def parse_arguments(raw: str) -> JsonValue | str:
    """The JSON value of a tool call's raw argument text.

    Blank text means ``{}``. Text that is not strict JSON (``NaN`` and ``Infinity`` included)
    comes back as ``UnparsedArguments`` (equal to the text), so validation then reports
    ``not valid JSON (<decoder message>)``. Never raises.
    """
    if not raw.strip():
        return {}
    try:
        # loads_strict returns what json.loads returns: a JSON value.
        return cast(JsonValue, loads_strict(raw))
    except ValueError as exc:
        return UnparsedArguments(raw, str(exc))
    except RecursionError:
        return UnparsedArguments(raw, "nested too deeply")


def validate_args(schema: JsonObject, value: object) -> list[str]:
    """Every way ``value`` violates ``schema``, in declaration order; empty when it conforms.

    ``value`` may be anything; the function never raises for a value it cannot accept.
    """
    if isinstance(value, UnparsedArguments):
        return [f"not valid JSON ({value.reason})"]
    if not _is_object(value):
        return ['"arguments" must be an object']
    problems: list[str] = []
    _check_members(schema, value, "", problems)
    return problems


def check_args(schema: JsonObject, value: object) -> JsonObject:
    """``value`` as a JSON object when it conforms to ``schema``.

    Raises ``ToolArgsError`` (``INVALID_ARGS``) listing every violation.
    """
    problems = validate_args(schema, value)
    if problems:
        raise ToolArgsError(problems)
    return cast(JsonObject, value)


def _check(schema: object, value: object, path: str, problems: list[str]) -> None:
    if not isinstance(schema, Mapping):
        return
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else declared
    if _is_list(types) and types:
        names = [name for name in types if isinstance(name, str)]
        if names and not any(_has_type(value, name) for name in names):
            wanted = " or ".join(_NAMES.get(name, name) for name in names)
            problems.append(f"{_quote(path)} must be {wanted}")
            return
    allowed = schema.get("enum")
    if _is_list(allowed) and not any(_json_equal(value, member) for member in allowed):
        listed = ", ".join(_show(member) for member in allowed)
        problems.append(f"{_quote(path)} must be one of {listed}")
        return
    if _is_object(value):
        _check_members(schema, value, path, problems)
    elif _is_list(value) and "items" in schema:
        for index, item in enumerate(value):
            _check(schema["items"], item, f"{path}[{index}]", problems)


def _check_members(
    schema: Mapping[str, object], value: Mapping[str, object], path: str, problems: list[str]
) -> None:
    properties = schema.get("properties")
    required = schema.get("required")
    needed = [key for key in required if isinstance(key, str)] if _is_list(required) else []
    declared = properties if isinstance(properties, Mapping) else {}
    for key, sub in declared.items():
        child = f"{path}.{key}" if path else str(key)
        if key in value:
            _check(sub, value[key], child, problems)
        elif key in needed:
            problems.append(f"missing required property {_quote(child)}")
    for key in needed:
        if key not in declared and key not in value:
            child = f"{path}.{key}" if path else key
            problems.append(f"missing required property {_quote(child)}")


def _has_type(value: object, name: str) -> bool:
    match name:
        case "string":
            return isinstance(value, str)
        case "number":
            return _is_number(value)
        case "integer":
            if isinstance(value, int) and not isinstance(value, bool):
                return True
            return isinstance(value, float) and math.isfinite(value) and value.is_integer()
        case "boolean":
            return isinstance(value, bool)
        case "null":
            return value is None
        case "object":
            return _is_object(value)
        case "array":
            return _is_list(value)
        case _:
            return True


def _is_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int)


def _is_object(value: object) -> TypeGuard[Mapping[str, object]]:
    # JSON objects have string keys; only string keys are ever looked up in one.
    return isinstance(value, Mapping)


def _is_list(value: object) -> TypeGuard[Sequence[object]]:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def _json_equal(left: object, right: object) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if left is None or right is None:
        return left is None and right is None
    if _is_list(left) and _is_list(right):
        return len(left) == len(right) and all(map(_json_equal, left, right))
    if _is_object(left) and _is_object(right):
        return left.keys() == right.keys() and all(_json_equal(left[k], right[k]) for k in left)
    return False


def _show(member: object) -> str:
    try:
        return dumps_compact(member)
    except (TypeError, ValueError):
        return repr(member)


def _quote(path: str) -> str:
    return f'"{path}"'
