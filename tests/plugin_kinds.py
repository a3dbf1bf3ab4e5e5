"""Plugin kinds for the open-vocabulary tests, their JSON written once.

A test that adds a kind to an open vocabulary (a block, finish reason, source, trigger,
turn-end reason or event payload) declares a frozen dataclass of string fields deriving from
``StringFields`` and the vocabulary's ``Extension…`` base; ``StringFields`` supplies
``to_json`` / ``from_json`` (each field under its own name), so the test shows only what it
is about: the kind and its fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Self

from dsh_lsp.llm import JsonObject, JsonValue


class StringFields:
    """``to_json`` / ``from_json`` for a dataclass whose fields are all strings (none: ``{}``).

    List it before the ``Extension…`` base, which leaves the two methods abstract.
    """

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def to_json(self) -> dict[str, JsonValue]:
        """Each field under its own name."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Rebuild from ``to_json`` output; raises ``ValueError`` when a field is not a
        string (the vocabulary reports it as a malformed record)."""
        values: dict[str, str] = {}
        for field in dataclasses.fields(cls):
            value = data.get(field.name)
            if not isinstance(value, str):
                raise ValueError(f"{field.name} must be a string")
            values[field.name] = value
        return cls(**values)
