"""The scripted server: scripts, recording, errors, disconnects, and the subprocess entry."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from dsh_lsp.testing import (
    DONE,
    Delay,
    Disconnect,
    ErrorResponse,
    Event,
    Raw,
    ScriptedResponse,
    ScriptedServer,
    Stall,
    StreamResponse,
    ToolCallSpec,
    completion,
    error,
    script_from_json,
    script_to_json,
    wire_usage,
)
from dsh_lsp.testing.scripted_server import REASONING_PASSBACK_400, deepseek_thinking


def test_script_json_round_trip() -> None:
    script = (
        StreamResponse(
            steps=(
                Event(data="{}"),
                Raw(text=": ping\n\n"),
                Delay(seconds=0.5),
                Stall(seconds=None),
                Stall(seconds=2.0),
                Disconnect(),
            ),
            headers={"X-A": "1"},
        ),
        ErrorResponse(status=429, body="{}", headers={"Retry-After": "3"}),
    )
    assert script_from_json(json.loads(json.dumps(script_to_json(script)))) == script


def test_unknown_script_shapes_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown script step"):
        script_from_json({"responses": [{"stream": [{"wait": 1}]}]})
    with pytest.raises(ValueError, match="unknown scripted response"):
        script_from_json({"responses": [{"nothing": True}]})


def test_streams_and_errors_in_order_with_recorded_requests() -> None:
    answer = completion(
        reasoning="hm",
        text="ok",
        tool_calls=[ToolCallSpec(id="c", name="f", arguments='{"a":1}')],
        usage=wire_usage(prompt=3, completion=2, cached=1),
    )
    with ScriptedServer([answer, error(429, "slow", retry_after="2")]) as server:
        with httpx.Client(base_url=server.base_url) as client:
            first = client.post("/chat/completions", json={"n": 1}, headers={"X-Test": "yes"})
            second = client.post("/chat/completions", json={"n": 2})
            third = client.post("/chat/completions", json={"n": 3})
        requests = server.requests
    assert first.status_code == 200
    assert first.headers["content-type"] == "text/event-stream"
    assert first.text.endswith("data: [DONE]\n\n")
    assert first.text.count("data: ") == len(answer.steps)
    assert (second.status_code, second.headers["retry-after"]) == (429, "2")
    assert second.json()["error"]["message"] == "slow"
    assert third.status_code == 500
    assert "exhausted" in third.text
    assert [r.json() for r in requests] == [{"n": 1}, {"n": 2}, {"n": 3}]
    assert requests[0].headers["x-test"] == "yes"
    assert requests[0].path == "/chat/completions"


def test_cycle_repeats_the_script() -> None:
    with (
        ScriptedServer([StreamResponse(steps=(DONE,))], cycle=True) as server,
        httpx.Client(base_url=server.base_url) as client,
    ):
        bodies = [client.post("/x", content=b"").text for _ in range(3)]
    assert bodies == ["data: [DONE]\n\n"] * 3


def test_server_initiated_disconnect_breaks_the_body() -> None:
    script = [StreamResponse(steps=(Event(data="{}"), Disconnect()))]
    with ScriptedServer(script) as server, httpx.Client(base_url=server.base_url) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            client.post("/x", content=b"")
        assert server.disconnects == 0


def test_a_client_leaving_during_a_stall_is_observed() -> None:
    script = [StreamResponse(steps=(Event(data="{}"), Stall()))]
    with ScriptedServer(script) as server, httpx.Client(base_url=server.base_url) as client:
        with client.stream("POST", "/x", content=b"") as response:
            assert next(response.iter_raw()) == b"data: {}\n\n"
        assert server.wait_for_disconnect(10.0)
        assert server.disconnects == 1


def test_close_releases_a_stall_without_a_client_leaving() -> None:
    server = ScriptedServer([StreamResponse(steps=(Stall(),))]).start()
    with (
        httpx.Client(base_url=server.base_url, timeout=10.0) as client,
        client.stream("POST", "/x", content=b"") as response,
    ):
        server.close()
        assert response.read() == b""


def test_runs_as_a_separate_process(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(script_to_json([completion(text="from afar")])))
    port_file, record = tmp_path / "port", tmp_path / "requests.jsonl"
    command = [
        sys.executable,
        "-m",
        "dsh_lsp.testing.scripted_server",
        "--script",
        str(script),
        "--port-file",
        str(port_file),
        "--record",
        str(record),
    ]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        try:
            assert process.stderr is not None
            banner = process.stderr.readline().decode()
            port = int(banner.rsplit(" ", 1)[1])
            assert port_file.read_text() == str(port)
            response = httpx.post(
                f"http://127.0.0.1:{port}/v1/chat/completions",
                json={"model": "m"},
                headers={"Authorization": "Bearer sk-must-not-be-recorded"},
            )
            assert "from afar" not in response.text  # split into pieces
            assert response.text.endswith("data: [DONE]\n\n")
        finally:
            process.terminate()
            stdout, _ = process.communicate(timeout=10)
    assert process.returncode == 0
    assert stdout == b"", "stdout is reserved; the server must not write to it"
    (line,) = record.read_text().splitlines()
    recorded = json.loads(line)
    assert recorded["body"] == {"model": "m"}
    assert recorded["client"][0] == "127.0.0.1"
    assert recorded["path"] == "/v1/chat/completions"
    assert "sk-must-not-be-recorded" not in line


@pytest.mark.parametrize("coalesce", [False, True])
def test_coalescing_changes_writes_not_bytes(coalesce: bool) -> None:
    answer = completion(text="same bytes either way", piece_size=2)
    expected = "".join(f"data: {step.data}\n\n" for step in answer.steps if isinstance(step, Event))
    with (
        ScriptedServer([answer], coalesce=coalesce) as server,
        httpx.Client(base_url=server.base_url) as client,
    ):
        assert client.post("/x", content=b"").text == expected


def test_requests_over_one_kept_alive_connection_are_recorded_with_its_client() -> None:
    answer = completion(text="kept alive", piece_size=3)
    script: list[ScriptedResponse] = [answer, error(429, "slow"), answer, StreamResponse(steps=())]
    with ScriptedServer(script) as server, httpx.Client(base_url=server.base_url) as client:
        responses = [client.post("/x", json={"n": n}) for n in range(4)]
        with client.stream("POST", "/x", content=b"{}") as exhausted:
            assert exhausted.read().startswith(b'{"error"')
        requests = server.requests
    assert [r.status_code for r in responses] == [200, 429, 200, 200]
    assert responses[0].text == responses[2].text
    assert responses[0].text.endswith("data: [DONE]\n\n")
    assert responses[3].text == ""
    assert "content-length" in responses[1].headers
    assert [r.json() for r in requests[:4]] == [{"n": n} for n in range(4)]
    assert len({r.client for r in requests}) == 1
    host, port = requests[0].client
    assert host == "127.0.0.1"
    assert port > 0


def test_a_chunked_request_body_keeps_the_connection_in_step() -> None:
    parts = [b'{"model":', b' "m", ', b'"n": 1}']
    script = [StreamResponse(steps=(DONE,))] * 2
    with ScriptedServer(script) as server, httpx.Client(base_url=server.base_url) as client:
        first = client.post("/x", content=iter(parts))
        second = client.post("/x", json={"n": 2})
        requests = server.requests
    assert first.request.headers["transfer-encoding"] == "chunked"
    assert (first.text, second.text) == ("data: [DONE]\n\n",) * 2
    assert [r.json() for r in requests] == [{"model": "m", "n": 1}, {"n": 2}]
    assert requests[0].client == requests[1].client


def test_small_writes_on_a_reused_connection_do_not_wait_for_delayed_acks() -> None:
    # With Nagle's algorithm on, each response after the first waits ~40 ms for the client's
    # delayed ACK before its second write; the median would be far above the bound.
    with (
        ScriptedServer([completion(text="quick")], cycle=True) as server,
        httpx.Client(base_url=server.base_url) as client,
    ):
        client.post("/x", content=b"")
        durations = []
        for _ in range(9):
            start = time.perf_counter()
            client.post("/x", content=b"")
            durations.append(time.perf_counter() - start)
        assert len({r.client for r in server.requests}) == 1
    assert statistics.median(durations) < 0.025


def test_close_ends_kept_alive_connections() -> None:
    server = ScriptedServer([completion(text="once")], cycle=True).start()
    limits = httpx.Limits(keepalive_expiry=60.0)  # the pooled connection outlives close()
    with httpx.Client(base_url=server.base_url, timeout=10.0, limits=limits) as client:
        assert client.post("/x", content=b"").status_code == 200
        server.close()
        # Not answered: refused, or cut if the client tried the pooled connection first.
        with pytest.raises((httpx.ConnectError, httpx.RemoteProtocolError)):
            client.post("/x", content=b"")
    assert len(server.requests) == 1


def test_a_check_answers_instead_of_the_script_without_consuming_it() -> None:
    bad = {
        "model": "deepseek-v4-pro",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]},
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ],
    }
    good = {**bad, "thinking": {"type": "disabled"}}
    with (
        ScriptedServer([completion(text="ok")], check=deepseek_thinking) as server,
        httpx.Client(base_url=server.base_url) as client,
    ):
        rejected = client.post("/v1/chat/completions", json=bad)
        accepted = client.post("/v1/chat/completions", json=good)
    assert rejected.status_code == 400
    assert rejected.text == REASONING_PASSBACK_400.body
    assert accepted.status_code == 200
    assert server.rejected == 1
    assert len(server.requests) == 2
