"""Scripts for the scripted OpenAI-compatible server: what to answer, step by step (testing kit).

A script is a sequence of responses, one per incoming request, in order. A ``StreamResponse``
writes a 200 ``text/event-stream`` body made of steps; an ``ErrorResponse`` writes one status
with a body. Scripts round-trip through JSON (``script_to_json`` / ``script_from_json``) so a
server in another process can run them; the JSON shape is::

    {"responses": [
        {"stream": [{"data": "<payload>"}, {"raw": "<text>"}, {"delay": 0.1},
                    {"stall": 5.0}, {"stall": null}, {"disconnect": true}],
         "headers": {"X-Extra": "1"}},
        {"status": 429, "body": "<text>", "headers": {"Retry-After": "3"},
         "contentType": "application/json"}
    ]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One SSE event: ``data: <data>`` and a blank line (``data`` is JSON text or ``[DONE]``)."""

    data: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Raw:
    """Text written to the body verbatim (comments, CRLF framing, half an event…)."""

    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Delay:
    """Flush what was written, then pause ``seconds`` before the next step."""

    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Stall:
    """Flush, then send nothing for ``seconds`` (``None``: until the client disconnects)."""

    seconds: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Disconnect:
    """Flush, then drop the connection without finishing the body."""


# Any: a script's JSON form is decoded JSON; each reader below checks the fields it uses.
ScriptJson = dict[str, Any]
ScriptJsonView = Mapping[str, Any]
"""The JSON object form of a script or one of its parts."""

Step = Event | Raw | Delay | Stall | Disconnect
"""One step of a streamed body."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamResponse:
    """A 200 event stream; when the steps run out the body ends cleanly."""

    steps: tuple[Step, ...]
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ErrorResponse:
    """A complete non-streamed response, usually an error status with its body."""

    status: int
    body: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


ScriptedResponse = StreamResponse | ErrorResponse
"""The answer to one request."""


def _step_to_json(step: Step) -> ScriptJson:
    match step:
        case Event(data=data):
            return {"data": data}
        case Raw(text=text):
            return {"raw": text}
        case Delay(seconds=seconds):
            return {"delay": seconds}
        case Stall(seconds=seconds):
            return {"stall": seconds}
        case Disconnect():
            return {"disconnect": True}
        case _:
            assert_never(step)


def _step_from_json(obj: ScriptJsonView) -> Step:
    if "data" in obj:
        return Event(data=str(obj["data"]))
    if "raw" in obj:
        return Raw(text=str(obj["raw"]))
    if "delay" in obj:
        return Delay(seconds=float(obj["delay"]))
    if "stall" in obj:
        seconds = obj["stall"]
        return Stall(seconds=None if seconds is None else float(seconds))
    if obj.get("disconnect") is True:
        return Disconnect()
    raise ValueError(f"unknown script step: {dict(obj)!r}")


def script_to_json(responses: Sequence[ScriptedResponse]) -> ScriptJson:
    """The JSON form of a script (see the module docstring)."""
    out: list[ScriptJson] = []
    for response in responses:
        match response:
            case StreamResponse(steps=steps, headers=headers):
                out.append({"stream": [_step_to_json(s) for s in steps], "headers": dict(headers)})
            case ErrorResponse():
                out.append(
                    {
                        "status": response.status,
                        "body": response.body,
                        "headers": dict(response.headers),
                        "contentType": response.content_type,
                    }
                )
            case _:
                assert_never(response)
    return {"responses": out}


def script_from_json(obj: ScriptJsonView) -> tuple[ScriptedResponse, ...]:
    """Parse the JSON form of a script; raises ``ValueError`` for unknown shapes."""
    responses: list[ScriptedResponse] = []
    for item in obj["responses"]:
        headers = {str(k): str(v) for k, v in item.get("headers", {}).items()}
        if "stream" in item:
            steps = tuple(_step_from_json(step) for step in item["stream"])
            responses.append(StreamResponse(steps=steps, headers=headers))
        elif "status" in item:
            responses.append(
                ErrorResponse(
                    status=int(item["status"]),
                    body=str(item.get("body", "")),
                    headers=headers,
                    content_type=str(item.get("contentType", "application/json")),
                )
            )
        else:
            raise ValueError(f"unknown scripted response: {item!r}")
    return tuple(responses)
