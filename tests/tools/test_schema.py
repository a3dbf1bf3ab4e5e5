"""The Prop DSL compiles to JSON Schema; malformed specs fail at definition time."""

from __future__ import annotations

import pytest

from dsh_lsp.llm import JsonObject, TextBlock
from dsh_lsp.tools import (
    INVALID_SCHEMA,
    Prop,
    ToolError,
    ToolExecution,
    ToolOutput,
    copy_schema,
    define_tool,
    spec_to_schema,
)


def test_required_is_omitted_when_nothing_is_required() -> None:
    schema = spec_to_schema({"path": Prop(type="string")})
    assert schema == {"type": "object", "properties": {"path": {"type": "string"}}}


def test_required_lists_required_keys_in_declaration_order() -> None:
    schema = spec_to_schema(
        {
            "b": Prop(type="integer", required=True),
            "a": Prop(type="boolean"),
            "c": Prop(type="number", required=True),
        }
    )
    assert schema["required"] == ["b", "c"]
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == ["b", "a", "c"]


def test_annotations_enum_and_default_are_carried() -> None:
    schema = spec_to_schema(
        {
            "mode": Prop(type="string", description="How", enum=("fast", "full"), default="fast"),
            "limit": Prop(type="integer", default=None),
        }
    )
    assert schema["properties"] == {
        "mode": {
            "type": "string",
            "description": "How",
            "enum": ["fast", "full"],
            "default": "fast",
        },
        "limit": {"type": "integer", "default": None},
    }


def test_nested_objects_and_arrays_recurse() -> None:
    schema = spec_to_schema(
        {
            "edits": Prop(
                type="array",
                required=True,
                items=Prop(
                    type="object",
                    properties={
                        "old": Prop(type="string", required=True),
                        "new": Prop(type="string"),
                    },
                ),
            ),
            "opts": Prop(type="object", properties={"x": Prop(type="boolean")}),
            "any": Prop(type="object"),
            "list": Prop(type="array"),
        }
    )
    assert schema == {
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
                    "required": ["old"],
                },
            },
            "opts": {"type": "object", "properties": {"x": {"type": "boolean"}}},
            "any": {"type": "object"},
            "list": {"type": "array"},
        },
        "required": ["edits"],
    }


@pytest.mark.parametrize(
    ("prop", "problem"),
    [
        (Prop(type="string", properties={}), "properties are allowed only on an object"),
        (Prop(type="object", items=Prop(type="string")), "items are allowed only on an array"),
        (Prop(type="array", enum=("a",)), "enum is allowed only on a scalar type"),
        (Prop(type="string", enum=()), "enum must list at least one value"),
        (Prop(type="string", enum=("a", 1)), "enum member 1 is not of type string"),
        (Prop(type="integer", enum=(True,)), "enum member True is not of type integer"),
        (Prop(type="number", enum=(False,)), "enum member False is not of type number"),
        (Prop(type="string", default=float("nan")), "non-finite number"),
        (Prop(type="tuple"), "unsupported type 'tuple'"),  # type: ignore[arg-type]
    ],
)
def test_malformed_specs_are_rejected_with_the_path(prop: Prop, problem: str) -> None:
    with pytest.raises(ToolError) as caught:
        spec_to_schema({"outer": Prop(type="object", properties={"p": prop})})
    assert caught.value.code == INVALID_SCHEMA
    assert caught.value.message.startswith("parameters.outer.p")
    assert problem in caught.value.message


def test_define_tool_compiles_the_spec() -> None:
    async def execute(args: JsonObject, execution: ToolExecution) -> ToolOutput:
        return [TextBlock(text="x")]

    tool = define_tool(
        "t", "a tool", {"q": Prop(type="string", required=True)}, execute, read_only=True
    )
    assert tool.parameters == spec_to_schema({"q": Prop(type="string", required=True)})
    assert tool.read_only
    assert tool.execute is execute


def test_copy_schema_is_deep_and_plain() -> None:
    inner = {"type": "string"}
    source: JsonObject = {"type": "object", "properties": {"a": inner}, "required": ("a",)}
    copied = copy_schema(source)
    assert copied == {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    assert copied["properties"] is not source["properties"]
    inner["type"] = "number"
    assert copied["properties"] == {"a": {"type": "string"}}


def test_copy_schema_rejects_values_json_cannot_hold() -> None:
    with pytest.raises(ToolError) as caught:
        copy_schema({"type": "object", "x": {1, 2}})  # type: ignore[dict-item]
    assert caught.value.code == INVALID_SCHEMA
