"""Property tests: the generated index is a deterministic, order-free function of the tree."""

from __future__ import annotations

import datetime as dt
import tempfile
from collections.abc import Sequence
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rfc_index import render_index
from rfc_walker import CLASSES, LIFECYCLES, RfcTree, walk

from .rfc_fixtures import rfc_text, write

Spec = tuple[str, str, str, str, str]  # lifecycle, class, date, topic, title

_TOPIC = st.from_regex(r"[a-z0-9]{1,6}(-[a-z0-9]{1,6}){0,2}", fullmatch=True)
_DATE = st.dates(min_value=dt.date(2024, 1, 1), max_value=dt.date(2028, 12, 31)).map(
    dt.date.isoformat
)
_TITLE = (
    st.text(alphabet="abcXYZ 09|`\u2014-[]().:", min_size=1, max_size=24)
    .map(str.strip)
    .filter(bool)
)
_SPECS = st.lists(
    st.tuples(st.sampled_from(LIFECYCLES), st.sampled_from(CLASSES), _DATE, _TOPIC, _TITLE),
    max_size=14,
    unique_by=lambda spec: (spec[0], spec[1], spec[2], spec[3]),
)


def _build(specs: Sequence[Spec]) -> RfcTree:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "docs/rfc").mkdir(parents=True)
        for lifecycle, rfc_class, date, topic, title in specs:
            rel = f"docs/rfc/{lifecycle}/{rfc_class}/{date}-{topic}.md"
            write(root, rel, rfc_text(lifecycle, title))
        return walk(root)


def _sort_key(spec: Spec) -> tuple[int, int, str, str]:
    lifecycle, rfc_class, date, topic, _ = spec
    return (LIFECYCLES.index(lifecycle), CLASSES.index(rfc_class), date, f"{date}-{topic}.md")


@settings(max_examples=60, deadline=None)
@given(specs=_SPECS, data=st.data())
def test_index_ignores_creation_and_input_order(specs: list[Spec], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(specs))
    tree = _build(specs)
    assert tree.violations == ()
    text = render_index(tree.rfcs)
    assert render_index(_build(shuffled).rfcs) == text
    assert render_index(data.draw(st.permutations(tree.rfcs))) == text
    assert render_index(tree.rfcs) == text


@settings(max_examples=60, deadline=None)
@given(specs=_SPECS)
def test_every_rfc_is_one_row_in_lifecycle_class_date_name_order(specs: list[Spec]) -> None:
    text = render_index(_build(specs).rfcs)
    rows = [line for line in text.split("\n") if line.startswith("| [")]
    expected = [
        f"| [{title.replace('|', chr(92) + '|')}]({lc}/{cls}/{date}-{topic}.md) | {date} |"
        for lc, cls, date, topic, title in sorted(specs, key=_sort_key)
    ]
    assert rows == expected
    for lifecycle in LIFECYCLES:
        assert text.count(f"\n## {lifecycle.capitalize()}\n") == 1
    classes_present = {(lc, cls) for lc, cls, *_ in specs}
    assert text.count("\n### ") == len(classes_present)
    assert text.endswith("\n")
    assert not text.endswith("\n\n")
