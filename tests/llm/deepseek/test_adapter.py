"""DeepSeekAdapter over a real socket to the scripted server."""

from __future__ import annotations

import json
import logging
import socket

import anyio
import anyio.to_thread
import httpx
import pytest

import dsh_lsp
from dsh_lsp.llm import (
    BlockAssembler,
    BlockEnd,
    BlockStart,
    CallId,
    FinishChunk,
    FinishStop,
    FinishToolCalls,
    LlmCode,
    LlmError,
    LlmRequest,
    RetryPolicy,
    StreamChunk,
    TextBlock,
    TextDelta,
    TokenUsage,
    ToolCallBlock,
    ToolSchema,
    UsageChunk,
    merge_deltas,
)
from dsh_lsp.llm.deepseek import DeepSeekAdapter
from dsh_lsp.testing import (
    Delay,
    Disconnect,
    ErrorResponse,
    Event,
    Raw,
    ScriptedServer,
    Stall,
    StreamResponse,
    ToolCallSpec,
    completion,
    delta_payload,
    error,
    wire_usage,
)
from tests.llm.deepseek.fakes import API_KEY, REQUEST, FakeClock, MakeAdapter, collect
from tests.llm.reference_streams import (
    TEXT_CHUNKS,
    TEXT_PAYLOADS,
    TOOL_CALL_CHUNKS,
    TOOL_CALL_PAYLOADS,
)


def text_of(steps: tuple[object, ...]) -> str:
    """The answer text the scripted events among ``steps`` carry."""
    return "".join(
        json.loads(step.data)["choices"][0]["delta"].get("content") or ""
        for step in steps
        if isinstance(step, Event) and step.data != "[DONE]"
    )


def stream_of(payloads: list[str]) -> StreamResponse:
    return StreamResponse(steps=tuple(Event(data=p) for p in payloads))


async def test_request_body_and_headers(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.enqueue(completion(text="ok"))
    tool = ToolSchema(name="read", description="Read", parameters={"type": "object"})
    request = LlmRequest(
        model="deepseek-v4-pro",
        messages=REQUEST.messages,
        system="sys",
        tools=(tool,),
        temperature=0.3,
        max_tokens=100,
        stop=("###",),
    )
    await collect(make_adapter(thinking="enabled", reasoning_effort="high"), request)
    (recorded,) = server.requests
    assert (recorded.method, recorded.path) == ("POST", "/v1/chat/completions")
    assert recorded.headers["authorization"] == f"Bearer {API_KEY}"
    assert recorded.headers["content-type"] == "application/json"
    assert recorded.headers["accept"] == "text/event-stream"
    assert recorded.headers["user-agent"] == f"dsh-lsp/{dsh_lsp.__version__}"
    assert recorded.body == json.dumps(recorded.json(), separators=(",", ":")).encode()
    assert recorded.json() == {
        "model": "deepseek-v4-pro",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "thinking": {"type": "enabled"},
        "reasoning_effort": "high",
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read",
                    "description": "Read",
                    "parameters": {"type": "object"},
                },
            }
        ],
        "max_tokens": 100,
        "stop": ["###"],
    }, "DeepSeek ignores temperature in thinking mode, so it is not sent"


async def test_base_url_path_prefix_is_kept(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    server.enqueue(completion(text="ok"))
    await collect(make_adapter(base_url=server.base_url + "/v1/"))
    assert server.requests[0].path == "/v1/chat/completions"


@pytest.mark.parametrize(
    ("payloads", "expected"),
    [(TOOL_CALL_PAYLOADS, TOOL_CALL_CHUNKS), (TEXT_PAYLOADS, TEXT_CHUNKS)],
    ids=["thinking-tool-call", "thinking-text"],
)
async def test_reference_streams(
    server: ScriptedServer,
    make_adapter: MakeAdapter,
    payloads: list[str],
    expected: list[StreamChunk],
) -> None:
    """The chunks as expected, up to where deltas are cut: the deltas of one network read
    are merged (``merge_deltas``), and how the events fall into reads is the network's."""
    server.enqueue(stream_of(payloads))
    assert merge_deltas(await collect(make_adapter())) == merge_deltas(expected)


async def test_arguments_split_across_many_fragments_and_writes(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    arguments = json.dumps({"path": "src/ünïcode.py", "lines": list(range(30))})
    call = ToolCallSpec(id="call_a", name="read", arguments=arguments)
    server.enqueue(completion(tool_calls=[call], fragment_size=1, chunk_delay=0.001))
    assembler = BlockAssembler()
    for chunk in await collect(make_adapter()):
        assembler.feed(chunk)
    assert assembler.content() == (
        ToolCallBlock(id=CallId("call_a"), name="read", arguments=arguments),
    )


async def test_parallel_tool_calls(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    calls = [
        ToolCallSpec(id="c0", name="read", arguments='{"file_path":"a.txt"}'),
        ToolCallSpec(id="c1", name="read", arguments='{"file_path":"b.txt"}'),
        ToolCallSpec(id="c2", name="ls", arguments="{}"),
    ]
    server.enqueue(completion(reasoning="plan", tool_calls=calls, interleave_tool_calls=True))
    chunks = await collect(make_adapter())
    ends = [c.block for c in chunks if isinstance(c, BlockEnd)]
    assert ends[1:] == [
        ToolCallBlock(id=CallId(c.id), name=c.name, arguments=c.arguments) for c in calls
    ]
    assert chunks[-1] == FinishChunk(reason=FinishToolCalls())


async def test_usage_mapping_subtracts_cache_hits(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    usage = wire_usage(prompt=1000, completion=50, cached=900, reasoning=20)
    server.enqueue(completion(text="x", usage=usage, usage_in_trailing_chunk=True))
    chunks = await collect(make_adapter())
    assert chunks[-2] == UsageChunk(
        usage=TokenUsage(
            input_tokens=100, output_tokens=50, cache_read_tokens=900, reasoning_tokens=20
        )
    )


async def test_keep_alive_comments_and_crlf_framing(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    payload = delta_payload({"content": "hi"})
    server.enqueue(
        StreamResponse(
            steps=(
                Raw(text=": keep-alive\r\n\r\n"),
                Raw(text=f"data: {payload}\r"),
                Delay(seconds=0),
                Raw(text="\n\r\ndata: [DONE]\r\n\r\n"),
            )
        )
    )
    chunks = await collect(make_adapter())
    assert chunks[-2:] == [
        BlockEnd(index=0, block=TextBlock(text="hi")),
        FinishChunk(reason=FinishStop()),
    ]


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        (400, "bad field", LlmCode.INVALID_REQUEST),
        (
            400,
            "This model's maximum context length is 65536 tokens",
            LlmCode.CONTEXT_WINDOW_EXCEEDED,
        ),
        (401, "Authentication Fails", LlmCode.AUTH),
        (402, "Insufficient Balance", LlmCode.QUOTA_EXCEEDED),
        (404, "no such model", "HTTP_404"),
        (422, "Invalid Parameters", LlmCode.INVALID_REQUEST),
        (429, "Rate Limit Reached", LlmCode.RATE_LIMIT),
        (500, "Server Error", LlmCode.SERVER),
        (503, "Server Overloaded", LlmCode.SERVER),
    ],
)
async def test_http_status_maps_to_code_with_provider_message(
    server: ScriptedServer, make_adapter: MakeAdapter, status: int, message: str, code: str
) -> None:
    server.enqueue(error(status, message))
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter(retry=RetryPolicy(max_retries=0)))
    assert (caught.value.code, caught.value.status) == (code, status)
    assert caught.value.provider_message == message
    assert message in str(caught.value)


async def test_non_json_error_body(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.enqueue(
        ErrorResponse(status=502, body="<html>Bad Gateway</html>", content_type="text/html")
    )
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter(retry=RetryPolicy(max_retries=0)))
    assert caught.value.code == LlmCode.SERVER
    assert str(caught.value) == "model API error (HTTP 502): <html>Bad Gateway</html>"


async def test_mid_stream_disconnect_fails_without_retry(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    partial = completion(text="partial answer", done=False)
    server.enqueue(StreamResponse(steps=(*partial.steps[:2], Disconnect())))
    received: list[StreamChunk] = []

    async def consume() -> None:
        async for chunk in make_adapter().stream(REQUEST):
            received.append(chunk)

    with pytest.raises(LlmError) as caught:
        await consume()
    assert caught.value.code == LlmCode.TRANSPORT
    # block start + the two text deltas were delivered (in one delta when read together)
    assert merge_deltas(received) == [
        BlockStart(index=0, block_type="text"),
        TextDelta(index=0, text=text_of(partial.steps[:2])),
    ]
    assert (len(server.requests), clock.sleeps) == (1, [])


async def test_missing_done_is_stream_closed_and_not_retried(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(completion(text="no sentinel", done=False))
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter())
    assert caught.value.code == LlmCode.STREAM_CLOSED
    assert (len(server.requests), clock.sleeps) == (1, [])


async def test_malformed_event_payload(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.enqueue(stream_of(["{not json", "[DONE]"]))
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter())
    assert caught.value.code == LlmCode.MALFORMED_RESPONSE


async def test_retry_before_first_chunk_honours_retry_after(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(
        error(429, "slow down", retry_after="7"),
        error(503, "overloaded"),
        StreamResponse(steps=()),  # an empty 200 body
        completion(text="finally"),
    )
    chunks = await collect(make_adapter(retry=RetryPolicy(max_retries=3, initial_delay=0.5)))
    assert BlockEnd(index=0, block=TextBlock(text="finally")) in chunks
    assert clock.sleeps == [7.0, 1.0, 2.0]
    bodies = {r.body for r in server.requests}
    assert (len(server.requests), len(bodies)) == (4, 1)


async def test_retry_after_http_date_uses_the_injected_clock(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    date = "Fri, 15 Jan 2027 08:00:12 GMT"
    clock.now = 1_800_000_000.0  # 2027-01-15 08:00:00 UTC
    server.enqueue(error(429, "later", retry_after=date), completion(text="ok"))
    await collect(make_adapter())
    assert clock.sleeps == [12.0]


async def test_retries_give_up_after_the_budget(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(*(error(500, f"fail {n}") for n in range(3)))
    with pytest.raises(LlmError, match="fail 2") as caught:
        await collect(make_adapter(retry=RetryPolicy(max_retries=2, initial_delay=0.25)))
    assert caught.value.code == LlmCode.SERVER
    assert clock.sleeps == [0.25, 0.5]


async def test_retry_after_beyond_the_cap_fails_at_once(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    server.enqueue(error(429, "come back tomorrow", retry_after="86400"), completion(text="x"))
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter())
    assert (caught.value.code, caught.value.retry_after, clock.sleeps) == (
        LlmCode.RATE_LIMIT,
        86400.0,
        [],
    )


async def test_disconnect_before_any_chunk_is_retried(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    opener = delta_payload({"role": "assistant", "content": None, "reasoning_content": ""})
    server.enqueue(
        StreamResponse(steps=(Event(data=opener), Disconnect())), completion(text="second try")
    )
    chunks = await collect(make_adapter())
    assert BlockEnd(index=0, block=TextBlock(text="second try")) in chunks
    assert len(clock.sleeps) == 1


async def test_read_idle_timeout_after_chunks_is_not_retried(
    server: ScriptedServer, make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    answer = completion(text="stalling")
    server.enqueue(StreamResponse(steps=(*answer.steps[:1], Stall(seconds=5))))
    async with httpx.AsyncClient(timeout=httpx.Timeout(0.3, connect=5.0)) as client:
        adapter = DeepSeekAdapter(
            client, base_url=server.base_url, api_key=API_KEY, sleep=clock.sleep
        )
        with pytest.raises(LlmError) as caught:
            await collect(adapter)
    assert caught.value.code == LlmCode.TIMEOUT
    assert (len(server.requests), clock.sleeps) == (1, [])


async def test_read_idle_timeout_before_first_chunk_is_retried(
    server: ScriptedServer, clock: FakeClock
) -> None:
    server.enqueue(StreamResponse(steps=(Stall(seconds=5),)), completion(text="ok"))
    async with httpx.AsyncClient(timeout=httpx.Timeout(0.3, connect=5.0)) as client:
        adapter = DeepSeekAdapter(
            client,
            base_url=server.base_url,
            api_key=API_KEY,
            sleep=clock.sleep,
            random=clock.random,
        )
        chunks = await collect(adapter)
    assert BlockEnd(index=0, block=TextBlock(text="ok")) in chunks
    assert clock.sleeps == [0.5]


async def test_connection_refused_is_transport_and_retried(
    make_adapter: MakeAdapter, clock: FakeClock
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = make_adapter(base_url=f"http://127.0.0.1:{port}", retry=RetryPolicy(max_retries=2))
    with pytest.raises(LlmError) as caught:
        await collect(adapter)
    assert caught.value.code == LlmCode.TRANSPORT
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(clock.sleeps) == 2


async def test_in_stream_error_object(server: ScriptedServer, make_adapter: MakeAdapter) -> None:
    server.enqueue(stream_of(['{"error":{"message":"upstream died"}}']))
    with pytest.raises(LlmError) as caught:
        await collect(make_adapter(retry=RetryPolicy(max_retries=0)))
    assert (caught.value.code, caught.value.provider_message) == (LlmCode.SERVER, "upstream died")


async def test_cancellation_mid_stream_closes_the_connection(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    answer = completion(text="a long answer that never ends")
    server.enqueue(StreamResponse(steps=(*answer.steps[:2], Stall())))
    sent = text_of(answer.steps[:2])
    received: list[StreamChunk] = []
    with anyio.CancelScope() as scope:
        async for chunk in make_adapter().stream(REQUEST):
            received.append(chunk)
            if "".join(c.text for c in received if isinstance(c, TextDelta)) == sent:
                scope.cancel()
    assert scope.cancelled_caught
    assert await anyio.to_thread.run_sync(server.wait_for_disconnect, 10.0)


async def test_closing_the_iterator_early_closes_the_connection(
    server: ScriptedServer, make_adapter: MakeAdapter
) -> None:
    answer = completion(text="more text than anyone reads")
    server.enqueue(StreamResponse(steps=(*answer.steps[:2], Stall())))
    stream = make_adapter().stream(REQUEST)
    first = await anext(stream)
    assert first.kind == "block-start"
    await stream.aclose()
    assert await anyio.to_thread.run_sync(server.wait_for_disconnect, 10.0)


async def test_api_key_never_leaks_into_errors_reprs_or_logs(
    server: ScriptedServer,
    make_adapter: MakeAdapter,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    server.enqueue(
        error(401, f"Authentication Fails, your api key: {API_KEY} is invalid"),
        ErrorResponse(status=500, body=f"proxy saw Authorization: Bearer {API_KEY}"),
        error(503, "busy"),
        completion(text="fine"),
    )
    adapter = make_adapter(retry=RetryPolicy(max_retries=0))
    failures: list[LlmError] = []
    for _ in range(2):
        with pytest.raises(LlmError) as caught:
            await collect(adapter)
        failures.append(caught.value)
    await collect(make_adapter(retry=RetryPolicy(max_retries=1)))
    texts = [str(f) for f in failures] + [repr(f) for f in failures]
    texts += [f.provider_message or "" for f in failures]
    texts += [repr(adapter), caplog.text]
    texts += [record.getMessage() for record in caplog.records]
    assert failures[0].code == LlmCode.AUTH
    assert "***" in str(failures[0])
    assert caplog.records, "the retry must have been logged"
    for text in texts:
        assert API_KEY not in text
