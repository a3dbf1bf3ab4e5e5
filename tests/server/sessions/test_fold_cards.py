"""fold_cards: a delivery's tool_call upserts folded per card leave a client where the
unfolded updates would, with each card where it first appeared."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.server.sessions.updates import fold_cards, tool_call_update

Json = Any  # Any: decoded update payloads

_FIELDS: st.SearchStrategy[Json] = st.fixed_dictionaries(
    {"toolCallId": st.sampled_from(["a", "b", "c"])},
    optional={
        "status": st.sampled_from(["pending", "in_progress", "completed", "cancelled"]),
        "title": st.sampled_from(["read", "Read x"]),
        "content": st.lists(st.just({"type": "text", "text": "t"}), max_size=1),
    },
)
updates = st.lists(
    st.one_of(
        _FIELDS.map(tool_call_update),
        st.sampled_from(
            [
                {"kind": "agent_message_chunk", "text": "x"},
                {"kind": "usage_update", "used": 1},
                {"kind": "tool_call", "toolCall": "not a card"},
            ]
        ),
    ),
    max_size=12,
)


def client_view(sent: list[Json]) -> tuple[dict[str, Json], list[Json], list[str]]:
    """What a client holds: each card after its upserts, the other updates in order, and
    the order in which cards first appeared among them."""
    cards: dict[str, Json] = {}
    others: list[Json] = []
    order: list[str] = []
    for update in sent:
        card = update.get("toolCall")
        if update["kind"] == "tool_call" and isinstance(card, dict):
            call_id = card["toolCallId"]
            if call_id not in cards:
                order.append(f"card {call_id} after {len(others)} others")
            cards[call_id] = {**cards.get(call_id, {}), **card}
        else:
            others.append(update)
    return cards, others, order


@given(updates)
def test_folding_leaves_the_client_with_the_same_cards_in_the_same_places(sent: list[Json]) -> None:
    before = [dict(u) for u in sent]
    folded: list[Json] = fold_cards(sent)
    assert client_view(folded) == client_view(sent)
    assert sent == before  # the updates given are not changed
    ids = [u["toolCall"]["toolCallId"] for u in folded if isinstance(u.get("toolCall"), dict)]
    assert len(ids) == len(set(ids))  # one update per card


def test_a_fast_calls_three_states_released_together_are_one_update() -> None:
    pending = tool_call_update({"toolCallId": "r1", "name": "read", "status": "pending"})
    running = tool_call_update(
        {"toolCallId": "r1", "name": "read", "title": "Read f", "status": "in_progress"}
    )
    usage: Json = {"kind": "usage_update", "used": 3}
    done = tool_call_update({"toolCallId": "r1", "status": "completed", "content": []})
    assert fold_cards([pending, usage, running, done]) == [
        tool_call_update(
            {
                "toolCallId": "r1",
                "name": "read",
                "status": "completed",
                "title": "Read f",
                "content": [],
            }
        ),
        usage,
    ]
