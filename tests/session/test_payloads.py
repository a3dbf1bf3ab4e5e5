"""Typed payloads: every event type round-trips through the log's JSON, unknown plugin types
stay opaque byte for byte, and a registered plugin payload decodes to its class."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

import dsh_lsp
from dsh_lsp.llm import (
    BlockEnd,
    CallId,
    FinishChunk,
    FinishError,
    LlmCode,
    LlmError,
    PluginSource,
    SessionId,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    UserSource,
    loads_strict,
)
from dsh_lsp.session import (
    EVENT_PAYLOADS,
    AssistantChunkPayload,
    AssistantMessagePayload,
    ContextMessagePayload,
    EventPayload,
    ExtensionPayload,
    InjectionTrigger,
    MessageTrigger,
    PromptBlockedPayload,
    RawPayload,
    ResultError,
    Session,
    SessionHeader,
    SteeringMessagePayload,
    StepEndPayload,
    StepStartPayload,
    SurfaceOp,
    ToolCallPayload,
    ToolResultPayload,
    TurnAborted,
    TurnEndPayload,
    TurnFailed,
    TurnStartPayload,
    UserMessagePayload,
    decode_payload,
    encode_event,
    event_from_json,
)
from tests.plugin_kinds import StringFields

HELLO = (TextBlock(text="hello"),)
CALL = ToolCallBlock(id=CallId("c1"), name="read", arguments='{"path":"a"}')

PAYLOADS: tuple[tuple[EventPayload, SurfaceOp | None], ...] = (
    (TurnStartPayload(turn=1, trigger=MessageTrigger(source=UserSource())), None),
    (UserMessagePayload(content=HELLO, source=UserSource()), "append"),
    (PromptBlockedPayload(content=HELLO, source=PluginSource(plugin="p"), reason="no"), None),
    (StepStartPayload(turn=1, step=1), None),
    (AssistantChunkPayload(turn=1, step=1, chunk=TextDelta(index=0, text="hi")), None),
    (AssistantChunkPayload(turn=1, step=1, chunk=BlockEnd(index=1, block=CALL)), None),
    (
        AssistantChunkPayload(turn=1, step=1, chunk=FinishChunk(reason=FinishError(message="m"))),
        None,
    ),
    (
        AssistantMessagePayload(
            turn=1, step=1, content=(CALL,), usage=TokenUsage(input_tokens=3, output_tokens=2)
        ),
        "append",
    ),
    (ToolCallPayload(turn=1, step=1, call_id=CALL.id, name="read", arguments="{}"), None),
    (
        ToolResultPayload(
            turn=1,
            step=1,
            call_id=CALL.id,
            content=HELLO,
            is_error=True,
            error=ResultError(name="E", code="X"),
            meta={"k": [1, None]},
        ),
        "append",
    ),
    (StepEndPayload(turn=1, step=1), None),
    (SteeringMessagePayload(turn=1, content=HELLO, source=UserSource()), "append"),
    (ContextMessagePayload(content=HELLO, source=PluginSource(plugin="hooks")), "append"),
    (TurnEndPayload(turn=1, reason=TurnFailed(step=1, message="boom", code="SERVER")), None),
    (TurnStartPayload(turn=2, trigger=InjectionTrigger()), None),
    (RawPayload(kind="x/note", record={"b": 1, "a": {"deep": [True]}}), None),
    (TurnEndPayload(turn=2, reason=TurnAborted(reason="user")), None),
)


def logged() -> Session:
    session = Session(SessionHeader(id=SessionId("p"), created_at=0), clock=lambda: 7)
    for payload, op in PAYLOADS:
        session.write(payload, surface_op=op)
    return session


def test_every_event_type_round_trips_through_its_json_record() -> None:
    session = logged()
    for event, (payload, _) in zip(session.events, PAYLOADS, strict=True):
        assert event.payload == payload
        assert event.type == payload.kind
        assert decode_payload(event.type, event.data) == payload
        text = encode_event(event)
        reread = event_from_json(loads_strict(text))
        assert reread == event
        assert reread.payload == payload, "decoded from JSON alone"
        assert encode_event(reread) == text


def test_json_appends_and_typed_writes_log_the_same_events() -> None:
    typed = logged()
    raw = Session(SessionHeader(id=SessionId("p"), created_at=0), clock=lambda: 7)
    for event in typed.events:
        again = raw.append(event.type, event.data, surface_op=event.surface_op)
        assert again == event
        assert again.payload == event.payload
    assert raw.derive_messages() == typed.derive_messages()


def test_an_unknown_plugin_type_stays_opaque_and_keeps_its_bytes() -> None:
    text = '{"type":"x/note","seq":0,"time":1,"data":{"z":1,"a":{"é":[1.5,null]}}}'
    event = event_from_json(loads_strict(text))
    assert event.payload == RawPayload(kind="x/note", record={"z": 1, "a": {"é": [1.5, None]}})
    assert encode_event(event) == text


@dataclass(frozen=True, slots=True, kw_only=True)
class NotePayload(StringFields, ExtensionPayload):
    kind: ClassVar[str] = "x/note"
    text: str


def test_a_registered_plugin_payload_decodes_to_its_class_until_unregistered() -> None:
    unregister = EVENT_PAYLOADS.register(NotePayload)
    try:
        session = Session(SessionHeader(id=SessionId("p"), created_at=0))
        event = session.append("x/note", {"text": "hi"})
        assert event.payload == NotePayload(text="hi")
        written = session.write(NotePayload(text="typed"))
        assert written.data == {"text": "typed"}
        with pytest.raises(LlmError) as caught:
            decode_payload("x/note", {"text": 5})
        assert caught.value.code == LlmCode.MALFORMED_RECORD
    finally:
        unregister()
    assert decode_payload("x/note", {"text": "hi"}) == RawPayload(
        kind="x/note", record={"text": "hi"}
    )


def test_core_event_types_cannot_be_claimed_by_a_plugin() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class FakeTurnStart(StringFields, ExtensionPayload):
        kind: ClassVar[str] = "turn/start"

    with pytest.raises(LlmError, match="core vocabulary") as caught:
        EVENT_PAYLOADS.register(FakeTurnStart)
    assert caught.value.code == LlmCode.DUPLICATE_KIND


def test_no_reader_outside_the_log_boundary_reads_an_events_json() -> None:
    """Readers match on ``event.payload``; only the session's admission, copy and encoding
    code touches ``event.data`` (the decoders get the JSON as an argument)."""
    root = Path(dsh_lsp.__file__).parent
    boundary = {
        "session/event.py",
        "session/batch.py",
        "session/admission.py",
        "session/session.py",
        "session/payloads.py",
    }
    pattern = re.compile(r"\b(?:event|notice\.event|e)\.data\b|\.data\.get\(")
    offenders = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted(root.rglob("*.py"))
        if path.relative_to(root).as_posix() not in boundary
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line) and not line.lstrip().startswith(("#", '"', "``"))
    ]
    assert offenders == []
