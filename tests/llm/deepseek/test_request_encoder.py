"""RequestEncoder: each body is byte for byte `serialize_request`'s, whatever came before."""

from __future__ import annotations

import copy
import itertools
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.llm import (
    CallId,
    ContentBlock,
    LlmCode,
    LlmError,
    LlmRequest,
    Message,
    PluginSource,
    ReasoningBlock,
    SessionId,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSchema,
    UserSource,
    loads_strict,
)
from dsh_lsp.llm.deepseek import (
    ReasoningEffort,
    RequestEncoder,
    Thinking,
    WireRules,
    serialize,
    serialize_request,
)
from dsh_lsp.session import (
    ASSISTANT_MESSAGE,
    CONTEXT_MESSAGE,
    TOOL_RESULT,
    USER_MESSAGE,
    Session,
    SessionHeader,
    SurfaceReplace,
    assistant_message_data,
    context_message_data,
    encode_event,
    event_from_json,
    tool_result_data,
    user_message_data,
)

texts = st.text(st.characters(codec="utf-8"), max_size=6)
"""Text UTF-8 can hold (an unpaired surrogate fails both encoders alike, tested below)."""
leaf_blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    st.builds(TextBlock, text=texts),
    st.builds(ReasoningBlock, text=texts),
    st.builds(ToolCallBlock, id=texts.map(CallId), name=texts, arguments=texts),
)
blocks: st.SearchStrategy[ContentBlock] = st.one_of(
    leaf_blocks,
    st.builds(
        ToolResultBlock,
        tool_call_id=texts.map(CallId),
        content=st.lists(leaf_blocks, max_size=2).map(tuple),
        is_error=st.booleans(),
    ),
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "user", "assistant", "assistant"]),
    content=st.lists(blocks, max_size=3).map(tuple),
)
rules = st.builds(
    WireRules,
    reasoning_field=st.sampled_from([None, "reasoning_content", "reasoning"]),
    deepseek_thinking=st.booleans(),
)

# What happens to the history between two requests of a session.
steps = st.one_of(
    st.tuples(st.just("append"), st.lists(messages, min_size=1, max_size=3)),
    # compaction: a run of messages becomes one summary message
    st.tuples(st.just("replace"), st.integers(0, 30), st.integers(0, 30), messages),
    # a reload from disk: equal messages, new objects
    st.tuples(st.just("reload")),
    # a one-off request of the same session in between (a compaction's summary call)
    st.tuples(st.just("aside"), st.lists(messages, max_size=2)),
    # another session's request
    st.tuples(st.just("other"), st.lists(messages, max_size=3)),
    # a listener replaced the request: a message put in front, the rest kept
    st.tuples(st.just("prepend"), messages),
    st.tuples(st.just("rules"), rules),
)


def reloaded(message: Message) -> Message:
    """An equal message made of new objects, as decoding the log again gives."""
    return Message(role=message.role, content=tuple(copy.copy(b) for b in message.content))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(steps, max_size=14),
    rules,
    st.none() | texts,
    st.sampled_from([None, "enabled", "disabled"]),
    st.sampled_from([None, "high"]),
)
def test_every_body_equals_a_fresh_serialization(
    script: list[tuple[object, ...]],
    first_rules: WireRules,
    system: str | None,
    thinking: Thinking | None,
    effort: ReasoningEffort | None,
) -> None:
    encoder = RequestEncoder(sessions=2)
    history: list[Message] = []
    wire_rules: WireRules | None = first_rules
    tool = ToolSchema(name="read", description="Read", parameters={"type": "object"})

    def check(session: str, sent: list[Message]) -> None:
        request = LlmRequest(
            model="deepseek-v4-flash",
            messages=tuple(sent),
            system=system,
            tools=(tool,),
            temperature=0.5,
            session_id=SessionId(session),
        )
        expected = serialize_request(
            request, rules=wire_rules, thinking=thinking, reasoning_effort=effort
        )
        got = b"".join(
            encoder.encode(request, rules=wire_rules, thinking=thinking, reasoning_effort=effort)
        )
        assert got == expected

    check("s", history)
    for step in script:
        match step:
            case ("append", list(new)):
                history.extend(new)
            case ("replace", int(a), int(b), Message() as summary) if history:
                first, last = sorted((a % len(history), b % len(history)))
                history[first : last + 1] = [summary]
            case ("reload",):
                history = [reloaded(m) for m in history]
            case ("aside", list(new)):
                check("s", new)
            case ("other", list(new)):
                check("other", history[:1] + new)
                check("third", new)
            case ("prepend", Message() as front):
                check("s", [front, *history])
            case ("rules", WireRules() as changed):
                wire_rules = changed
        check("s", history)


def counting(monkeypatch: pytest.MonkeyPatch) -> list[Message]:
    """The messages the encoder encodes from now on (not taken from what it kept)."""
    encoded: list[Message] = []
    original = serialize._encode_message

    def spy(message: Message, rules: WireRules) -> object:
        encoded.append(message)
        return original(message, rules)

    monkeypatch.setattr(serialize, "_encode_message", spy)
    return encoded


def test_a_turn_encodes_only_its_new_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = RequestEncoder()
    history: list[Message] = []
    call = ToolCallBlock(id=CallId("c"), name="read", arguments="{}")
    result = ToolResultBlock(tool_call_id=CallId("c"), content=(TextBlock(text="x"),))
    for turn in range(20):  # a long session before the counted turn
        history.append(Message(role="user", content=(TextBlock(text=f"q{turn}"),)))
        history.append(Message(role="assistant", content=(ReasoningBlock(text="r"), call)))
        history.append(Message(role="user", content=(result,)))
        history.append(Message(role="assistant", content=(TextBlock(text="a"),)))
    thinking = WireRules(deepseek_thinking=True)
    encoder.encode(LlmRequest(model="m", messages=tuple(history), session_id=None), rules=thinking)
    encoded = counting(monkeypatch)
    # one more turn, two steps: the second request reuses the open stretch of the first
    new = [
        Message(role="user", content=(TextBlock(text="again"),)),
        Message(role="assistant", content=(ReasoningBlock(text="r"), call)),
        Message(role="user", content=(result,)),
    ]
    for step in (new[:1], new[1:]):
        history.extend(step)
        request = LlmRequest(model="m", messages=tuple(history), session_id=None)
        body = b"".join(encoder.encode(request, rules=thinking))
        assert body == serialize_request(request, rules=thinking)
    assert encoded == new


def test_the_newest_sessions_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = RequestEncoder(sessions=2)
    first = Message(role="user", content=(TextBlock(text="1"),))
    for name in ("a", "b", "c"):
        encoder.encode(LlmRequest(model="m", messages=(first,), session_id=SessionId(name)))
    encoded = counting(monkeypatch)
    for name in ("c", "b", "a"):
        encoder.encode(LlmRequest(model="m", messages=(first,), session_id=SessionId(name)))
    assert encoded == [first]  # only "a" had been dropped


def test_a_body_that_cannot_be_json_fails_alike_and_leaves_the_cache_usable() -> None:
    encoder = RequestEncoder()
    good = Message(role="user", content=(TextBlock(text="hi"),))
    bad_tool = ToolSchema(name="t", description="", parameters={"x": math.nan})
    request = LlmRequest(model="m", messages=(good,), tools=(bad_tool,), session_id=None)
    with pytest.raises(LlmError) as expected:
        serialize_request(request)
    with pytest.raises(LlmError) as got:
        encoder.encode(request)
    assert got.value.code == expected.value.code == LlmCode.INVALID_REQUEST
    surrogate = Message(role="user", content=(TextBlock(text="\ud800"),))
    with pytest.raises(LlmError) as got:
        encoder.encode(LlmRequest(model="m", messages=(good, surrogate)))
    assert got.value.code == LlmCode.INVALID_REQUEST
    fine = LlmRequest(model="m", messages=(good,))
    assert b"".join(encoder.encode(fine)) == serialize_request(fine)


# Schema values that are equal in Python but not in JSON (1, 1.0, True), and options.
_SCHEMA_VALUES = st.sampled_from([1, 1.0, True, 0, 0.0, False, -0.0, "1", None])
_OPTIONS_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "parameters": st.dictionaries(st.sampled_from(["a", "b"]), _SCHEMA_VALUES, max_size=2),
    "description": st.sampled_from(["", "Read", "Lire ✓"]),
    "temperature": st.sampled_from([None, 0.5, 1, 1.0]),
    "max_tokens": st.sampled_from([None, 1, 100]),
    "stop": st.sampled_from([None, (), ("x",), ("x", "y")]),
    "thinking": st.sampled_from([None, "enabled", "disabled"]),
    "effort": st.sampled_from([None, "high"]),
    "tools": st.integers(0, 2),
}
_OPTIONS = st.fixed_dictionaries(_OPTIONS_FIELDS)


@settings(max_examples=200, deadline=None)
@given(
    _OPTIONS,
    st.lists(st.tuples(st.sampled_from(sorted(_OPTIONS_FIELDS)), st.data()), max_size=8),
    rules,
)
def test_the_fields_after_the_messages_follow_every_change_of_the_request(
    first: dict[str, Any],
    changes: list[tuple[str, st.DataObject]],
    wire_rules: WireRules,
) -> None:
    """The kept options JSON is reused only for the very same values: a schema value or a
    temperature that changes from 1 to 1.0 or True (equal in Python) is encoded again."""
    encoder = RequestEncoder()
    message = Message(role="user", content=(TextBlock(text="hi"),))
    options = dict(first)

    def check() -> None:
        tool = ToolSchema(
            name="read", description=options["description"], parameters=options["parameters"]
        )
        request = LlmRequest(
            model="deepseek-v4-flash",
            messages=(message,),
            tools=(tool,) * options["tools"],
            temperature=options["temperature"],
            max_tokens=options["max_tokens"],
            stop=options["stop"],
        )
        kwargs: dict[str, Any] = {"rules": wire_rules, "thinking": options["thinking"]}
        expected = serialize_request(request, reasoning_effort=options["effort"], **kwargs)
        body = encoder.encode(request, reasoning_effort=options["effort"], **kwargs)
        assert b"".join(body) == expected

    check()
    for field, data in changes:  # one field at a time, so near-equal neighbours meet
        options[field] = data.draw(_OPTIONS_FIELDS[field])
        check()


_WORDS = st.text(alphabet="ab✓", min_size=1, max_size=3)
_SESSION_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), _WORDS),
        st.tuples(st.just("assistant"), _WORDS, st.text(alphabet="r", max_size=2), st.booleans()),
        st.tuples(st.just("result"), _WORDS, st.booleans()),
        st.tuples(st.just("context"), _WORDS),
        st.tuples(st.just("replace"), st.integers(0, 50), st.integers(0, 50)),
        st.tuples(st.just("reload")),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(_SESSION_OPS, rules)
def test_a_logged_session_encodes_as_a_fresh_serialization_after_every_event(
    ops: list[tuple[object, ...]], wire_rules: WireRules
) -> None:
    """Derived from a real log: tool calls, reasoning, compaction's replace, a reload."""
    session = Session(SessionHeader(id=SessionId("s"), created_at=0))
    encoder = RequestEncoder()
    calls = 0
    for op in ops:
        match op:
            case ("user", str(text)):
                data = user_message_data([TextBlock(text=text)], UserSource())
                session.append(USER_MESSAGE, data, surface_op="append")
            case ("assistant", str(text), str(thought), bool(call)):
                content: list[ContentBlock] = [ReasoningBlock(text=thought), TextBlock(text=text)]
                if call:
                    calls += 1
                    content.append(ToolCallBlock(id=CallId(f"c{calls}"), name="read", arguments=""))
                data = assistant_message_data(1, 1, content)
                session.append(ASSISTANT_MESSAGE, data, surface_op="append")
            case ("result", str(text), bool(failed)):
                data = tool_result_data(
                    1, 1, CallId(f"c{calls}"), [TextBlock(text=text)], is_error=failed
                )
                session.append(TOOL_RESULT, data, surface_op="append")
            case ("context", str(text)):
                data = context_message_data([TextBlock(text=text)], PluginSource(plugin="p"))
                session.append(CONTEXT_MESSAGE, data, surface_op="append")
            case ("replace", int(a), int(b)):
                live = session.surface_seqs()
                if not live:
                    continue
                first, last = sorted((a % len(live), b % len(live)))
                summary = [TextBlock(text=f"<compacted-summary>{first}-{last}</compacted-summary>")]
                data = user_message_data(summary, PluginSource(plugin="compaction"))
                replace = SurfaceReplace(start=live[first], end=live[last])
                session.append(USER_MESSAGE, data, surface_op=replace)
            case ("reload",):
                lines = [encode_event(event) for event in session.events]
                session = Session(
                    session.header, seed=[event_from_json(loads_strict(line)) for line in lines]
                )
        request = LlmRequest(
            model="deepseek-v4-flash",
            messages=session.derive_messages(),
            system="sys",
            session_id=session.id,
        )
        expected = serialize_request(request, rules=wire_rules)
        assert b"".join(encoder.encode(request, rules=wire_rules)) == expected


@settings(max_examples=200)
@given(st.lists(st.integers(min_value=1, max_value=3000), min_size=1, max_size=600))
def test_closed_history_stays_in_logarithmically_many_chunks(sizes: list[int]) -> None:
    chunks: tuple[bytes, ...] = ()
    added: list[bytes] = []
    for index, size in enumerate(sizes):
        chunk = bytes([97 + index % 26]) * size
        added.append(chunk)
        chunks = serialize._appended(chunks, chunk)
        assert b",".join(chunks) == b",".join(added)
        # Each chunk is under half the one before it.
        assert all(2 * len(b) < len(a) for a, b in itertools.pairwise(chunks))
        assert len(chunks) <= math.log2(sum(len(c) for c in added)) + 2
