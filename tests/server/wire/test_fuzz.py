"""The fuzz suite's quick profile (issue 16): hostile frames against one live server, from a
seeded generator and from hypothesis. Every request with a usable id is answered, nothing
the server writes is invalid JSON, no answer is slower than the hang limit, the process
lives, and it still shuts down cleanly. ``bench/fuzz.py`` runs the full storm."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh_lsp.testing.fuzz import MARKER_KEY, FuzzRun, frame, hostile_frames, storm

QUICK = 400
"""Frames of the seeded quick profile."""


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzRun]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "ws").mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(root),
        "DEEPSEEK_BASE_URL": "http://127.0.0.1:9/v1",  # nothing listens: no model is called
        "DEEPSEEK_API_KEY": MARKER_KEY,
        "XDG_STATE_HOME": str(root / "state"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    with FuzzRun(root, env, ["--max-message-bytes", str(1 << 16)]) as run:
        run.initialize(root / "ws", root / "sessions")
        yield run


def test_a_seeded_storm_is_answered_in_full(fuzzed: FuzzRun) -> None:
    frames = hostile_frames(random.Random(16), QUICK, max_message_bytes=1 << 16)
    report = storm(fuzzed, frames, probe_every=100, drain_seconds=30)
    assert (report.crashes, report.hangs, report.invalid_frames) == (0, 0, 0)
    assert report.unanswered_ids == []
    assert fuzzed.secrets_in_traffic == 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(["dsh/session/list", "dsh/prompt", "textDocument/hover", "x/y"])
    | st.text(max_size=12),
    params=json_values,
    garbage=st.binary(max_size=64),
)
def test_any_request_after_any_garbage_is_answered(
    fuzzed: FuzzRun, method: str, params: object, garbage: bytes
) -> None:
    fuzzed.send(garbage)
    fuzzed.send(b"\r\n\r\n")  # end whatever header the garbage started
    msg_id = f"h-{fuzzed.sent}"
    message = {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}
    fuzzed.send(frame(json.dumps(message).encode()), msg_id)
    probe = f"p-{fuzzed.sent}"
    answer = fuzzed.request("dsh/session/list", {}, probe, timeout=10)
    assert "result" in answer
    assert fuzzed.alive()
    assert fuzzed.invalid_frames == 0


def test_the_fuzzed_server_still_shuts_down_cleanly(fuzzed: FuzzRun) -> None:
    assert fuzzed.shutdown() == 0
    assert fuzzed.secrets_on_disk() == 0
