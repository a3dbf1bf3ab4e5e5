"""A plugin extends all four stringly vocabularies, end to end: logged by the real loop and by
the plugin itself, derived into the model history, rendered as the client's session updates,
and read back from disk after a restart (typed with the plugin loaded, byte-identical opaque
values without it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from dsh_lsp.kernel import Context, Kernel, Plugin
from dsh_lsp.llm import (
    FINISH_REASONS,
    MESSAGE_SOURCES,
    ExtensionFinish,
    ExtensionSource,
    FinishChunk,
    Message,
    OpaqueFinish,
    OpaqueSource,
    TextBlock,
)
from dsh_lsp.server.sessions import UpdateTranslator
from dsh_lsp.session import (
    SESSION_FLUSH,
    SESSIONS,
    TURN_END_REASONS,
    TURN_TRIGGERS,
    AssistantChunkPayload,
    ContextMessagePayload,
    ExtensionTrigger,
    ExtensionTurnEnd,
    JsonlPersistencePlugin,
    MessageTrigger,
    OpaqueTrigger,
    OpaqueTurnEnd,
    Session,
    SessionPlugin,
    TurnCompleted,
    TurnEndPayload,
    TurnStartPayload,
    UserMessagePayload,
    encode_event,
)
from dsh_lsp.testing.scripted_model import text_reply
from tests.agent_loop.harness import loop_harness
from tests.plugin_kinds import StringFields


@dataclass(frozen=True, slots=True, kw_only=True)
class PausedFinish(StringFields, ExtensionFinish):
    kind: ClassVar[str] = "test-paused"
    until: str


@dataclass(frozen=True, slots=True, kw_only=True)
class RobotSource(StringFields, ExtensionSource):
    kind: ClassVar[str] = "test-robot"
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ScheduleTrigger(StringFields, ExtensionTrigger):
    kind: ClassVar[str] = "test-schedule"
    cron: str


@dataclass(frozen=True, slots=True, kw_only=True)
class HandoffEnd(StringFields, ExtensionTurnEnd):
    kind: ClassVar[str] = "test-handoff"
    to: str


class VocabularyPlugin(Plugin[None]):
    """Registers the four kinds; each registration is an effect that leaves with the plugin."""

    name: ClassVar[str] = "test-vocabulary"

    async def apply(self, ctx: Context, config: None) -> None:
        ctx.effect(lambda: FINISH_REASONS.register(PausedFinish))
        ctx.effect(lambda: MESSAGE_SOURCES.register(RobotSource))
        ctx.effect(lambda: TURN_TRIGGERS.register(ScheduleTrigger))
        ctx.effect(lambda: TURN_END_REASONS.register(HandoffEnd))


ROBOT = RobotSource(name="r2")
PAUSED = PausedFinish(until="later")
SCHEDULE = ScheduleTrigger(cron="@hourly")
HANDOFF = HandoffEnd(to="human")


def scheduled_turn(session: Session) -> None:
    """A turn the plugin drives itself: its trigger, its context, its end reason."""
    turn = session.last_turn() + 1
    session.write(TurnStartPayload(turn=turn, trigger=SCHEDULE))
    tick = ContextMessagePayload(content=(TextBlock(text="tick"),), source=ROBOT)
    session.write(tick, surface_op="append")
    session.write(TurnEndPayload(turn=turn, reason=HANDOFF))


def updates(session: Session) -> list[Any]:
    # Any: updates are JSON the test indexes into.
    translator = UpdateTranslator(None, None)
    return [update for event in session.events for update in translator.translate(event)]


async def test_plugin_kinds_are_logged_derived_rendered_and_survive_a_reload(
    tmp_path: Path,
) -> None:
    reply = text_reply("Paused.")
    paused = type(reply)(chunks=(*reply.chunks[:-1], FinishChunk(reason=PAUSED)))
    async with loop_harness(
        paused, directory=tmp_path, models=((VocabularyPlugin(), None),)
    ) as harness:
        agent, _ = await harness.create()
        agent.send("hello from a robot", source=ROBOT)
        await agent.when_idle()
        session = agent.session
        scheduled_turn(session)
        await harness.ctx.parallel(SESSION_FLUSH, session)

        # logged: typed on the way in, tagged JSON on the way out
        payloads = [event.payload for event in session.events]
        finish = [p.chunk for p in payloads if isinstance(p, AssistantChunkPayload)][-1]
        assert finish == FinishChunk(reason=PAUSED)
        starts = [p for p in payloads if isinstance(p, TurnStartPayload)]
        assert [s.trigger for s in starts] == [MessageTrigger(source=ROBOT), SCHEDULE]
        ends = [p.reason for p in payloads if isinstance(p, TurnEndPayload)]
        assert ends == [TurnCompleted(), HANDOFF], "a plugin finish ends the step like stop"
        assert session.events[-1].data == {
            "turn": 2,
            "reason": {"to": "human", "kind": "test-handoff"},
        }

        # derived: the model history holds the robot's words, in their envelopes
        assert session.derive_messages()[0] == Message(
            role="user", content=(TextBlock(text="hello from a robot"),)
        )
        assert session.derive_messages()[-1] == Message(
            role="user",
            content=(
                TextBlock(text='<context source="test-robot">'),
                TextBlock(text="tick"),
                TextBlock(text="</context>"),
            ),
        )
        assert (session.last_turn(), session.open_turn()) == (2, None)

        # rendered: the client sees the message, and an idle state for the plugin's end
        shown = updates(session)
        assert {
            "kind": "user_message",
            "content": [{"type": "text", "text": "hello from a robot"}],
        } in shown
        assert shown[-1] == {"kind": "state_update", "state": "idle", "stopReason": "end_turn"}
        original = [encode_event(event) for event in session.events]
        expected_messages = session.derive_messages()
        session_id = session.id

    # reloaded with the plugin: the same typed values
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(VocabularyPlugin)
        await ctx.plugin(SessionPlugin)
        await ctx.plugin(JsonlPersistencePlugin, {"directory": str(tmp_path)})
        resumed = await ctx.require(SESSIONS).resume(session_id)
        assert [event.payload for event in resumed.events] == payloads
        assert resumed.derive_messages() == expected_messages
        assert updates(resumed) == shown

    # reloaded without it: opaque values that keep every byte
    async with Kernel() as kernel:
        ctx = kernel.context
        await ctx.plugin(SessionPlugin)
        await ctx.plugin(JsonlPersistencePlugin, {"directory": str(tmp_path)})
        bare = await ctx.require(SESSIONS).resume(session_id)
        assert [encode_event(event) for event in bare.events] == original
        kinds = [event.payload for event in bare.events]
        user = next(p for p in kinds if isinstance(p, UserMessagePayload))
        assert user.source == OpaqueSource(
            kind="test-robot", record={"name": "r2", "kind": "test-robot"}
        )
        chunk = [p.chunk for p in kinds if isinstance(p, AssistantChunkPayload)][-1]
        assert isinstance(chunk, FinishChunk)
        assert isinstance(chunk.reason, OpaqueFinish)
        triggers = [p.trigger for p in kinds if isinstance(p, TurnStartPayload)]
        assert isinstance(triggers[-1], OpaqueTrigger)
        last = kinds[-1]
        assert isinstance(last, TurnEndPayload)
        assert isinstance(last.reason, OpaqueTurnEnd)
        assert updates(bare) == shown, "the documented defaults render unknown kinds the same"


async def test_registrations_unwind_when_the_plugin_unloads() -> None:
    async with Kernel() as kernel:
        fiber = await kernel.context.plugin(VocabularyPlugin)
        assert TURN_TRIGGERS.lookup("test-schedule") is ScheduleTrigger
        assert FINISH_REASONS.lookup("test-paused") is PausedFinish
        await fiber.dispose()
        for vocabulary, kind in (
            (FINISH_REASONS, "test-paused"),
            (MESSAGE_SOURCES, "test-robot"),
            (TURN_TRIGGERS, "test-schedule"),
            (TURN_END_REASONS, "test-handoff"),
        ):
            assert vocabulary.lookup(kind) is None
