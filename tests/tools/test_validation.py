"""validate_args: exact messages in declaration order; parse_arguments: strict JSON."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.tools import (
    Prop,
    ToolArgsError,
    check_args,
    parse_arguments,
    spec_to_schema,
    validate_args,
)

from .strategies import conforming_object, json_values, specs

SCHEMA = spec_to_schema(
    {
        "path": Prop(type="string", required=True),
        "count": Prop(type="integer"),
        "ratio": Prop(type="number"),
        "flag": Prop(type="boolean"),
        "mode": Prop(type="string", enum=("fast", "full")),
        "a": Prop(
            type="object",
            properties={
                "b": Prop(type="array", items=Prop(type="string")),
                "c": Prop(type="object", properties={"d": Prop(type="number", required=True)}),
            },
        ),
    }
)


@pytest.mark.parametrize(
    ("value", "problems"),
    [
        ({"path": "x"}, []),
        ({"path": "x", "extra": [1, {"y": None}]}, []),
        ({"path": "x", "count": 3, "ratio": 0.5, "flag": False, "mode": "full"}, []),
        ({"path": "x", "count": 2.0}, []),
        ({"path": "x", "ratio": 7}, []),
        ({"path": "x", "a": {"b": [], "c": {"d": -1e300}}}, []),
        ({}, ['missing required property "path"']),
        ({"path": None}, ['"path" must be a string']),
        ({"path": 1}, ['"path" must be a string']),
        ({"path": "x", "count": True}, ['"count" must be an integer']),
        ({"path": "x", "count": 1.5}, ['"count" must be an integer']),
        ({"path": "x", "ratio": False}, ['"ratio" must be a number']),
        ({"path": "x", "ratio": "1"}, ['"ratio" must be a number']),
        ({"path": "x", "ratio": math.nan}, ['"ratio" must be a number']),
        ({"path": "x", "ratio": math.inf}, ['"ratio" must be a number']),
        ({"path": "x", "flag": 0}, ['"flag" must be a boolean']),
        ({"path": "x", "mode": "slow"}, ['"mode" must be one of "fast", "full"']),
        ({"path": "x", "mode": 3}, ['"mode" must be a string']),
        ({"path": "x", "a": []}, ['"a" must be an object']),
        ({"path": "x", "a": {"b": "s"}}, ['"a.b" must be an array']),
        (
            {"path": "x", "a": {"b": ["s", 2, None]}},
            ['"a.b[1]" must be a string', '"a.b[2]" must be a string'],
        ),
        ({"path": "x", "a": {"c": {}}}, ['missing required property "a.c.d"']),
        ({"path": "x", "a": {"c": {"d": True}}}, ['"a.c.d" must be a number']),
        (
            {"flag": "no", "count": "1", "a": {"b": [0]}},
            [
                'missing required property "path"',
                '"count" must be an integer',
                '"flag" must be a boolean',
                '"a.b[0]" must be a string',
            ],
        ),
    ],
)
def test_validation_table(value: object, problems: list[str]) -> None:
    assert validate_args(SCHEMA, value) == problems


@pytest.mark.parametrize("value", [None, [], ["path"], "x", 3, True, '{"path": "x"}'])
def test_the_top_level_must_be_an_object(value: object) -> None:
    assert validate_args(SCHEMA, value) == ['"arguments" must be an object']


def test_defaults_are_never_applied() -> None:
    schema = spec_to_schema({"n": Prop(type="integer", default=5)})
    args: dict[str, JsonValue] = {}
    assert check_args(schema, args) == {}
    assert args == {}


def test_hand_written_keywords_type_lists_and_required_outside_properties() -> None:
    schema: JsonObject = {
        "type": "object",
        "properties": {"n": {"type": ["integer", "null"]}, "e": {"enum": [1, "1", None]}},
        "required": ["n", "ghost"],
        "additionalProperties": False,
    }
    assert validate_args(schema, {"n": None, "e": None, "more": 1}) == [
        'missing required property "ghost"'
    ]
    assert validate_args(schema, {"n": "1", "e": True, "ghost": 0}) == [
        '"n" must be an integer or null',
        '"e" must be one of 1, "1", null',
    ]


def test_check_args_raises_one_error_listing_every_violation() -> None:
    with pytest.raises(ToolArgsError) as caught:
        check_args(SCHEMA, {"count": "x"})
    error = caught.value
    assert error.code == "INVALID_ARGS"
    assert str(error) == (
        'invalid arguments: missing required property "path"; "count" must be an integer'
    )
    assert error.violations == ('missing required property "path"', '"count" must be an integer')


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("", {}),
        ("  \n", {}),
        ('{"a": [1, 2.5, null]}', {"a": [1, 2.5, None]}),
        ("[1]", [1]),
        ('{"a": NaN}', '{"a": NaN}'),
        ('{"a": Infinity}', '{"a": Infinity}'),
        ("[-Infinity]", "[-Infinity]"),
        ('{"a": 1', '{"a": 1'),
        ("[" * 100_000, "[" * 100_000),
    ],
)
def test_parse_arguments(raw: str, parsed: JsonValue) -> None:
    assert parse_arguments(raw) == parsed


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ('{"path": "x"', "not valid JSON (Expecting ',' delimiter: line 1 column 13 (char 12))"),
        ('{"path": NaN}', "not valid JSON (NaN is not valid JSON)"),
        ("[-Infinity]", "not valid JSON (-Infinity is not valid JSON)"),
        ("read a.py", "not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        ("[" * 100_000, "not valid JSON (nested too deeply)"),
    ],
)
def test_unparseable_arguments_are_reported_as_invalid_json(raw: str, problem: str) -> None:
    assert validate_args(SCHEMA, parse_arguments(raw)) == [problem]
    with pytest.raises(ToolArgsError, match=r"^invalid arguments: not valid JSON \("):
        check_args(SCHEMA, parse_arguments(raw))


def test_valid_json_that_is_not_an_object_is_reported_as_such() -> None:
    for raw in ('"read a.py"', "[1]", "3", "null"):
        assert validate_args(SCHEMA, parse_arguments(raw)) == ['"arguments" must be an object']


@given(specs, json_values)
def test_any_json_value_yields_messages_or_passes(spec: dict[str, Prop], value: JsonValue) -> None:
    problems = validate_args(spec_to_schema(spec), value)
    assert all(isinstance(problem, str) and problem for problem in problems)


@given(specs.flatmap(lambda spec: st.tuples(st.just(spec), conforming_object(spec))))
def test_conforming_values_pass(case: tuple[dict[str, Prop], JsonValue]) -> None:
    spec, value = case
    assert validate_args(spec_to_schema(spec), value) == []


@given(st.booleans(), st.sampled_from(["number", "integer"]))
def test_bool_is_never_a_number(flag: bool, kind: str) -> None:
    schema: JsonObject = {"type": "object", "properties": {"n": {"type": kind}}}
    assert validate_args(schema, {"n": flag}) != []


@given(json_values)
def test_parse_arguments_round_trips_json_text(value: JsonValue) -> None:
    text = json.dumps(value)
    assert parse_arguments(text) == value


@given(st.text())
def test_parse_arguments_never_raises(raw: str) -> None:
    parsed = parse_arguments(raw)
    assert parsed == raw or not isinstance(parsed, str) or raw.strip().startswith('"')
