"""The surface and derive_messages: mapping, envelopes, replace shadowing, incrementality."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm import (
    CallId,
    Message,
    PluginSource,
    ReasoningBlock,
    SessionId,
    TextBlock,
    ToolResultBlock,
    UserSource,
    loads_strict,
)
from dsh_lsp.session import (
    ASSISTANT_MESSAGE,
    CONTEXT_MESSAGE,
    STEERING_MESSAGE,
    TOOL_RESULT,
    USER_MESSAGE,
    Session,
    SessionHeader,
    SurfaceReplace,
    assistant_message_data,
    context_message_data,
    encode_event,
    event_from_json,
    steering_message_data,
    tool_result_data,
    user_message_data,
)

from .scenarios import complete_turn, new_session, open_turn_with_calls


def _text(value: str) -> TextBlock:
    return TextBlock(text=value)


def test_each_surface_type_becomes_its_message() -> None:
    session = new_session()
    session.append(USER_MESSAGE, user_message_data([_text("q")], UserSource()), surface_op="append")
    session.append(
        ASSISTANT_MESSAGE,
        assistant_message_data(1, 1, [ReasoningBlock(text="think"), _text("a")]),
        surface_op="append",
    )
    session.append(
        TOOL_RESULT,
        tool_result_data(1, 1, CallId("c1"), [_text("boom")], is_error=True),
        surface_op="append",
    )
    assert session.derive_messages() == (
        Message(role="user", content=(_text("q"),)),
        Message(role="assistant", content=(ReasoningBlock(text="think"), _text("a"))),
        Message(
            role="user",
            content=(
                ToolResultBlock(tool_call_id=CallId("c1"), content=(_text("boom"),), is_error=True),
            ),
        ),
    )


def test_empty_assistant_messages_are_skipped_but_stay_on_the_surface() -> None:
    session = new_session()
    empty = session.append(ASSISTANT_MESSAGE, assistant_message_data(1, 1, []), surface_op="append")
    assert session.derive_messages() == ()
    assert session.surface_seqs() == (empty.seq,)


def test_context_and_steering_render_as_tagged_envelopes() -> None:
    session = new_session()
    session.append(
        CONTEXT_MESSAGE,
        context_message_data([_text("a"), _text("b")], PluginSource(plugin='we"ird')),
        surface_op="append",
    )
    session.append(
        STEERING_MESSAGE,
        steering_message_data(1, [_text("stop that")], UserSource()),
        surface_op="append",
    )
    context, steering = session.derive_messages()
    assert context == Message(
        role="user",
        content=(
            _text('<context source="plugin" plugin="we\\"ird">'),
            _text("a"),
            _text("b"),
            _text("</context>"),
        ),
    )
    assert steering == Message(
        role="user",
        content=(_text('<steering source="user">'), _text("stop that"), _text("</steering>")),
    )


def test_consecutive_user_side_events_are_not_merged() -> None:
    session = new_session()
    for word in ("one", "two"):
        session.append(
            USER_MESSAGE, user_message_data([_text(word)], UserSource()), surface_op="append"
        )
    assert len(session.derive_messages()) == 2


def test_replace_shadows_a_range_and_keeps_the_log() -> None:
    session = new_session()
    seqs = [
        session.append(
            USER_MESSAGE, user_message_data([_text(str(n))], UserSource()), surface_op="append"
        ).seq
        for n in range(4)
    ]
    before = session.derive_messages()
    summary = session.append(
        CONTEXT_MESSAGE,
        context_message_data([_text("summary of 1-2")], PluginSource(plugin="compaction")),
        surface_op=SurfaceReplace(start=seqs[1], end=seqs[2]),
    )
    after = session.derive_messages()
    assert session.surface_seqs() == (seqs[0], summary.seq, seqs[3])
    assert after[0] == before[0]
    assert after[1].content[1] == _text("summary of 1-2")
    assert after[2] == before[3]
    assert len(session.events) == 5
    # A shadowed node is no longer live: it cannot bound a replace again.
    session.append(
        USER_MESSAGE,
        user_message_data([_text("all")], UserSource()),
        surface_op=SurfaceReplace(start=seqs[0], end=seqs[3]),
    )
    assert [m.content for m in session.derive_messages()] == [(_text("all"),)]


def test_model_visible_history_is_rebuilt_from_the_log_alone() -> None:
    session = new_session()
    complete_turn(session)
    open_turn_with_calls(session)
    lines = [encode_event(event) for event in session.events]
    rebuilt = Session(
        SessionHeader(id=SessionId("again"), created_at=0),
        seed=[event_from_json(loads_strict(line)) for line in lines],
    )
    assert rebuilt.derive_messages() == session.derive_messages()


def test_derive_returns_the_cached_tuple_until_the_surface_changes() -> None:
    session = new_session()
    complete_turn(session)
    first = session.derive_messages()
    session.append("note/x", {})
    assert session.derive_messages() is first


_WORDS = st.text(alphabet="abc", min_size=1, max_size=3)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), _WORDS),
        st.tuples(st.just("assistant"), st.text(alphabet="ab", max_size=2)),
        st.tuples(st.just("context"), _WORDS),
        st.tuples(st.just("note"), _WORDS),
        st.tuples(st.just("derive"), st.just("")),
        st.tuples(st.just("replace"), st.tuples(st.integers(0, 50), st.integers(0, 50))),
    ),
    max_size=40,
)


@given(_OPS)
def test_incremental_derivation_equals_derivation_from_scratch(
    ops: list[tuple[str, object]],
) -> None:
    session = new_session()
    for kind, arg in ops:
        if kind == "user":
            data = user_message_data([_text(str(arg))], UserSource())
            session.append(USER_MESSAGE, data, surface_op="append")
        elif kind == "assistant":
            blocks = [_text(str(arg))] if arg else []
            session.append(
                ASSISTANT_MESSAGE, assistant_message_data(1, 1, blocks), surface_op="append"
            )
        elif kind == "context":
            data = context_message_data([_text(str(arg))], PluginSource(plugin="p"))
            session.append(CONTEXT_MESSAGE, data, surface_op="append")
        elif kind == "note":
            session.append("note/x", {"w": str(arg)})
        elif kind == "derive":
            session.derive_messages()
        else:
            live = session.surface_seqs()
            if not live:
                continue
            assert isinstance(arg, tuple)
            i, j = sorted((arg[0] % len(live), arg[1] % len(live)))
            data = user_message_data([_text(f"r{i}-{j}")], UserSource())
            session.append(
                USER_MESSAGE, data, surface_op=SurfaceReplace(start=live[i], end=live[j])
            )
    scratch = Session(session.header, seed=session.events)
    assert session.derive_messages() == scratch.derive_messages()
    assert session.surface_seqs() == scratch.surface_seqs()
