"""Hypothesis strategies: JSON values, Prop specs, and values that conform to a spec."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import strategies as st

from dsh_lsp.llm import JsonValue
from dsh_lsp.tools import Prop

json_scalars: st.SearchStrategy[JsonValue] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)

json_values: st.SearchStrategy[JsonValue] = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)

keys = st.text(alphabet="abcxyz_", min_size=1, max_size=4)

scalar_props: st.SearchStrategy[Prop] = st.one_of(
    st.builds(Prop, type=st.just("string"), required=st.booleans()),
    st.builds(Prop, type=st.just("number"), required=st.booleans()),
    st.builds(Prop, type=st.just("integer"), required=st.booleans()),
    st.builds(Prop, type=st.just("boolean"), required=st.booleans()),
    st.builds(
        Prop,
        type=st.just("string"),
        required=st.booleans(),
        enum=st.lists(st.text(max_size=3), min_size=1, max_size=3, unique=True).map(tuple),
    ),
)


def _nested(inner: st.SearchStrategy[Prop]) -> st.SearchStrategy[Prop]:
    return st.one_of(
        st.builds(
            Prop,
            type=st.just("object"),
            required=st.booleans(),
            properties=st.dictionaries(keys, inner, max_size=3),
        ),
        st.builds(Prop, type=st.just("array"), required=st.booleans(), items=inner),
    )


props: st.SearchStrategy[Prop] = st.recursive(scalar_props, _nested, max_leaves=8)
specs: st.SearchStrategy[dict[str, Prop]] = st.dictionaries(keys, props, max_size=4)


def conforming(prop: Prop) -> st.SearchStrategy[JsonValue]:
    """Values that satisfy ``prop`` (extra object keys included now and then)."""
    if prop.enum is not None:
        return st.sampled_from(prop.enum)
    match prop.type:
        case "string":
            return st.text(max_size=5)
        case "number":
            return st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False))
        case "integer":
            return st.integers()
        case "boolean":
            return st.booleans()
        case "array":
            items = json_values if prop.items is None else conforming(prop.items)
            return st.lists(items, max_size=3)
        case "object":
            return conforming_object(prop.properties or {})


def conforming_object(spec: Mapping[str, Prop]) -> st.SearchStrategy[JsonValue]:
    """Objects holding every required key of ``spec``, some optional ones, and extras."""

    @st.composite
    def build(draw: st.DrawFn) -> JsonValue:
        value: dict[str, JsonValue] = {}
        for key, prop in spec.items():
            if prop.required or draw(st.booleans()):
                value[key] = draw(conforming(prop))
        extra = draw(st.dictionaries(st.text(alphabet="EFG", min_size=1), json_values, max_size=2))
        value.update(extra)
        return value

    return build()
