"""UpdateSink: chunk coalescing keeps order and text exactly; other updates pass through."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server import ClientFeatures, UpdateSink


@dataclass
class Channel:
    features: ClientFeatures = field(default_factory=lambda: ClientFeatures(session_updates=True))
    sent: list[JsonObject] = field(default_factory=list)

    def notify(self, method: str, params: JsonObject) -> None:
        assert method == "dsh/session/update"
        self.sent.append(params)

    async def request(self, method: str, params: JsonObject) -> JsonValue:
        raise AssertionError("the sink never sends requests")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def updates(channel: Channel, session: str = "s") -> list[JsonObject]:
    return [p["update"] for p in channel.sent if p["sessionId"] == session]  # type: ignore[misc]  # test helper over JSON


event = st.one_of(
    st.tuples(st.sampled_from(["agent_message_chunk", "agent_thought_chunk"]), st.text(max_size=5)),
    st.tuples(st.just("tool_call"), st.just("")),
)


@given(st.lists(st.tuples(event, st.floats(0, 0.01)), max_size=40))
def test_coalesced_chunks_keep_order_and_exact_text(
    steps: list[tuple[tuple[str, str], float]],
) -> None:
    channel, clock = Channel(), Clock()
    sink = UpdateSink(channel, window=0.002, clock=clock)
    expected: list[tuple[str, str]] = []
    for (kind, text), advance in steps:
        clock.now += advance
        if kind == "tool_call":
            sink.send("s", {"kind": "tool_call", "toolCall": {"toolCallId": "x"}})
            expected.append(("tool_call", ""))
        else:
            sink.send("s", {"kind": kind, "text": text})
            if text:
                if expected and expected[-1][0] == kind:
                    expected[-1] = (kind, expected[-1][1] + text)
                else:
                    expected.append((kind, text))
    sink.flush()
    got: list[tuple[str, str]] = []
    for update in updates(channel):
        kind = str(update["kind"])
        text = str(update.get("text", ""))
        if got and got[-1][0] == kind and kind != "tool_call":
            got[-1] = (kind, got[-1][1] + text)
        else:
            got.append((kind, text))
    assert got == expected


def test_the_first_chunk_goes_out_at_once_and_a_burst_is_merged() -> None:
    channel, clock = Channel(), Clock()
    sink = UpdateSink(channel, window=0.002, clock=clock)
    sink.send("s", {"kind": "agent_message_chunk", "text": "a"})
    assert updates(channel) == [{"kind": "agent_message_chunk", "text": "a"}]
    for piece in "bcd":
        sink.send("s", {"kind": "agent_message_chunk", "text": piece})
    assert len(updates(channel)) == 1
    sink.flush("s")
    assert updates(channel)[-1] == {"kind": "agent_message_chunk", "text": "bcd"}


def test_sessions_are_coalesced_separately() -> None:
    channel, clock = Channel(), Clock()
    sink = UpdateSink(channel, window=0.002, clock=clock)
    for session in ("a", "b", "a", "b"):
        sink.send(session, {"kind": "agent_message_chunk", "text": session})
    sink.flush()
    assert [u["text"] for u in updates(channel, "a")] == ["a", "a"]
    assert [u["text"] for u in updates(channel, "b")] == ["b", "b"]


def test_nothing_is_sent_to_a_client_without_session_updates() -> None:
    channel = Channel(features=ClientFeatures())
    sink = UpdateSink(channel)
    sink.send("s", {"kind": "agent_message_chunk", "text": "x"})
    sink.send("s", {"kind": "state_update", "state": "idle"})
    sink.flush()
    assert channel.sent == []


class Counting(Channel):
    def __init__(self, want: int) -> None:
        super().__init__()
        self.want = want
        self.arrived = anyio.Event()

    def notify(self, method: str, params: JsonObject) -> None:
        super().notify(method, params)
        if len(self.sent) >= self.want:
            self.arrived.set()


async def test_the_flusher_sends_a_buffered_chunk_after_the_window() -> None:
    channel = Counting(want=2)
    sink = UpdateSink(channel, window=0.001)
    async with anyio.create_task_group() as group:
        group.start_soon(sink.run)
        sink.send("s", {"kind": "agent_message_chunk", "text": "a"})
        sink.send("s", {"kind": "agent_message_chunk", "text": "b"})
        with anyio.fail_after(5):
            await channel.arrived.wait()
        group.cancel_scope.cancel()
    assert [u["text"] for u in updates(channel)] == ["a", "b"]
