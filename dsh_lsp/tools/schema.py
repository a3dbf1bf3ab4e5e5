"""The schema DSL: a small typed property spec compiled to JSON Schema (tools layer).

A tool declares its parameters as a mapping from property name to ``Prop``::

    params = {
        "path": Prop(type="string", required=True, description="File to read"),
        "lines": Prop(type="array", items=Prop(type="integer")),
        "mode": Prop(type="string", enum=("fast", "full"), default="fast"),
    }

``spec_to_schema`` turns it into an object schema: ``{"type": "object", "properties": …,
"required": […]}`` with ``required`` omitted when no property is required; nested objects and
arrays recurse the same way. ``default`` is an annotation for the model and is never applied.
``copy_schema`` is the deep, function-free copy every schema export goes through.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, NoReturn

from dsh_lsp.llm import JsonObject, JsonValue

from .errors import INVALID_SCHEMA, ToolError

JsonType = Literal["string", "number", "integer", "boolean", "object", "array"]
"""The value types a ``Prop`` may declare."""

EnumValue = str | int | float | bool | None
"""One allowed value of an ``enum``."""


class _Unset(enum.Enum):
    TOKEN = "unset"


@dataclass(frozen=True, slots=True, kw_only=True)
class Prop:
    """One property of a parameter spec.

    ``required`` marks the key as required in the enclosing object. ``properties`` is allowed
    only with type ``object`` and ``items`` only with type ``array``; ``enum`` only with scalar
    types, every member of the declared type. ``default`` (any JSON value) is shown to the model
    and never filled in. Misuse raises ``ToolError`` (``INVALID_SCHEMA``) from
    ``spec_to_schema``.
    """

    type: JsonType
    required: bool = False
    description: str | None = None
    enum: tuple[EnumValue, ...] | None = None
    default: JsonValue | _Unset = _Unset.TOKEN
    properties: Mapping[str, Prop] | None = None
    items: Prop | None = None


def spec_to_schema(spec: Mapping[str, Prop]) -> dict[str, JsonValue]:
    """Compile a parameter spec into an object JSON Schema (a fresh dict the caller owns).

    Raises ``ToolError`` (code ``INVALID_SCHEMA``) naming the offending property path.
    """
    return _object_schema(spec, "parameters")


def copy_schema(schema: JsonObject) -> dict[str, JsonValue]:
    """A deep copy of a JSON object built from plain dicts and lists only.

    Raises ``ToolError`` (``INVALID_SCHEMA``) when the schema holds a non-JSON value.
    Every model step copies every tool's schema, so ``_copy_json`` tests exact types first
    and spells the path of a value only when it refuses one.
    """
    copied = _copy_json(schema, ("parameters",))
    assert isinstance(copied, dict)
    return copied


_SCALARS: Final = frozenset({str, int, bool, type(None)})


def _object_schema(spec: Mapping[str, Prop], path: str) -> dict[str, JsonValue]:
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    for name, prop in spec.items():
        if not isinstance(name, str) or not isinstance(prop, Prop):
            _fail(path, f"{name!r} must be a str key mapped to a Prop")
        properties[name] = _prop_schema(prop, f"{path}.{name}")
        if prop.required:
            required.append(name)
    schema: dict[str, JsonValue] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _prop_schema(prop: Prop, path: str) -> dict[str, JsonValue]:
    _check_prop(prop, path)
    node: dict[str, JsonValue] = {"type": prop.type}
    if prop.description is not None:
        node["description"] = prop.description
    if prop.enum is not None:
        node["enum"] = list(prop.enum)
    if not isinstance(prop.default, _Unset):
        node["default"] = _copy_json(prop.default, (f"{path}.default",))
    if prop.type == "object" and prop.properties is not None:
        nested = _object_schema(prop.properties, path)
        node["properties"] = nested["properties"]
        if "required" in nested:
            node["required"] = nested["required"]
    if prop.type == "array" and prop.items is not None:
        node["items"] = _prop_schema(prop.items, f"{path}.items")
    return node


def _check_prop(prop: Prop, path: str) -> None:
    if prop.type not in ("string", "number", "integer", "boolean", "object", "array"):
        _fail(path, f"unsupported type {prop.type!r}")
    if prop.properties is not None and prop.type != "object":
        _fail(path, "properties are allowed only on an object")
    if prop.items is not None and prop.type != "array":
        _fail(path, "items are allowed only on an array")
    if prop.enum is not None:
        if prop.type in ("object", "array"):
            _fail(path, "enum is allowed only on a scalar type")
        if not prop.enum:
            _fail(path, "enum must list at least one value")
        for member in prop.enum:
            if not _scalar_has_type(member, prop.type):
                _fail(path, f"enum member {member!r} is not of type {prop.type}")


def _scalar_has_type(value: EnumValue, type_: str) -> bool:
    match type_:
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
        case _:
            return isinstance(value, int) and not isinstance(value, bool)


def _copy_json(value: object, where: tuple[str | int, ...]) -> JsonValue:
    """``value`` copied; ``where`` is its path (a root name, then keys and indices), spelled
    by ``_path`` only for a refusal."""
    kind = type(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return _copy_object(value, where)  # type: ignore[arg-type]  # a mapping
    if kind is list or (
        isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)
    ):
        return _copy_array(value, where)  # type: ignore[arg-type]  # a sequence
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            _fail(_path(where), "holds a non-finite number")
        return value
    _fail(_path(where), f"holds a {kind.__name__}, which is not JSON")


def _copy_object(value: Mapping[Any, Any], where: tuple[str | int, ...]) -> JsonValue:
    copied: dict[str, JsonValue] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            _fail(_path(where), f"has a non-string key {key!r}")
        copied[key] = item if type(item) in _SCALARS else _copy_json(item, (*where, key))
    return copied


def _copy_array(value: Sequence[Any], where: tuple[str | int, ...]) -> JsonValue:
    return [
        item if type(item) in _SCALARS else _copy_json(item, (*where, index))
        for index, item in enumerate(value)
    ]


def _path(where: tuple[str | int, ...]) -> str:
    """``parameters.outer.p[2]``: where a refused value sits."""
    root, *parts = where
    return f"{root}" + "".join(
        f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts
    )


def _fail(path: str, problem: str) -> NoReturn:
    raise ToolError(f"{path}: {problem}", code=INVALID_SCHEMA)
