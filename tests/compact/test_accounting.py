"""context_usage reads only the surface's tail, and counts as a full scan of the surface does."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh_lsp.compact import context_usage
from dsh_lsp.compact.accounting import EVENT_OVERHEAD, SUMMARY_SOURCE, ContextUsage, is_summary
from dsh_lsp.llm import PluginSource, SessionId, TextBlock, TokenUsage, UserSource
from dsh_lsp.session import (
    ASSISTANT_MESSAGE,
    CONTEXT_MESSAGE,
    USER_MESSAGE,
    AssistantMessagePayload,
    Session,
    SessionHeader,
    SurfaceReplace,
    assistant_message_data,
    context_message_data,
    user_message_data,
)


def full_scan(session: Session, window: int, system_prompt: str, per: float) -> ContextUsage:
    """The accounting as the module docstring states it, over the whole surface."""
    surface = [session.events[seq] for seq in session.surface_seqs()]

    def estimate(index: int) -> int:
        record = surface[index].payload.to_json()
        text = json.dumps(record.get("content", record), ensure_ascii=False)
        return int(len(text) / per) + EVENT_OVERHEAD

    newest_summary = max((e.seq for e in surface if is_summary(e)), default=-1)
    for index in range(len(surface) - 1, -1, -1):
        payload = surface[index].payload
        if isinstance(payload, AssistantMessagePayload) and surface[index].seq > newest_summary:
            usage = payload.usage
            if usage is not None:
                total = usage.input_tokens + (usage.cache_read_tokens or 0) + usage.output_tokens
                if total:
                    extra = sum(estimate(i) for i in range(index + 1, len(surface)))
                    return ContextUsage(used=total + extra, window=window, estimated=False)
    base = int(len(system_prompt) / per)
    used = base + sum(estimate(i) for i in range(len(surface)))
    return ContextUsage(used=used, window=window, estimated=True)


_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.text(alphabet="ab", max_size=4)),
        st.tuples(st.just("assistant"), st.none() | st.integers(0, 500)),
        st.tuples(st.just("context"), st.booleans()),  # True: a summary's source
        st.tuples(
            st.just("replace"), st.integers(0, 40), st.integers(0, 40), st.booleans()
        ),  # True: a compaction summary replaces the run
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(_OPS, st.text(alphabet="s", max_size=9))
def test_the_tail_read_counts_as_a_full_scan(ops: list[tuple[object, ...]], system: str) -> None:
    session = Session(SessionHeader(id=SessionId("s"), created_at=0))
    for op in ops:
        match op:
            case ("user", str(text)):
                data = user_message_data([TextBlock(text=text or "-")], UserSource())
                session.append(USER_MESSAGE, data, surface_op="append")
            case ("assistant", None):
                data = assistant_message_data(1, 1, [TextBlock(text="a")])
                session.append(ASSISTANT_MESSAGE, data, surface_op="append")
            case ("assistant", int(tokens)):
                usage = TokenUsage(input_tokens=tokens, output_tokens=1)
                data = assistant_message_data(1, 1, [TextBlock(text="a")], usage)
                session.append(ASSISTANT_MESSAGE, data, surface_op="append")
            case ("context", bool(summary)):
                source = SUMMARY_SOURCE if summary else PluginSource(plugin="p")
                data = context_message_data([TextBlock(text="c")], source)
                session.append(CONTEXT_MESSAGE, data, surface_op="append")
            case ("replace", int(a), int(b), bool(summary)):
                live = session.surface_seqs()
                if not live:
                    continue
                first, last = sorted((a % len(live), b % len(live)))
                summary_text = [TextBlock(text="summary")]
                data = user_message_data(summary_text, SUMMARY_SOURCE if summary else UserSource())
                replace = SurfaceReplace(start=live[first], end=live[last])
                session.append(USER_MESSAGE, data, surface_op=replace)
        expected = full_scan(session, 1000, system, 4.0)
        assert context_usage(session, window=1000, system_prompt=system) == expected
        surface = [session.events[seq] for seq in session.surface_seqs()]
        given_nodes = context_usage(session, window=1000, system_prompt=system, nodes=surface)
        assert given_nodes == expected
