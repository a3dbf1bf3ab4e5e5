"""The surface: which logged events the model sees, in order, kept up to date (session layer).

Surface events enter with ``surface_op``: ``"append"`` adds a node at the end;
``SurfaceReplace(start, end)`` swaps the run of live nodes from seq ``start`` to seq ``end``
(inclusive, in surface order) for the new event, which is how compaction shadows history
with one summary while the log keeps every original event. The message of each node is
rendered once, when it is folded; ``messages()`` reuses earlier results and only appends the
new ones, rebuilding after a replace.
"""

from __future__ import annotations

from dsh_lsp.llm import Message

from .event import SessionEvent, SurfaceReplace
from .render import render_event


class Surface:
    """The live surface nodes of one log; ``fold`` every surface event in log order."""

    __slots__ = ("_derived", "_derived_nodes", "_messages", "_order")

    def __init__(self) -> None:
        self._order: list[int] = []
        """Seqs of the live nodes, in surface order."""
        self._messages: dict[int, Message | None] = {}
        self._derived: tuple[Message, ...] = ()
        self._derived_nodes = 0
        """How many leading nodes of ``_order`` ``_derived`` covers; -1 after a replace."""

    def fold(self, event: SessionEvent) -> None:
        """Add ``event`` (which carries a ``surface_op``) to the surface.

        Raises ``ValueError`` (a replace range that does not name live nodes in order) or the
        rendering error (``LlmError``/``ValueError``) for data the type cannot render; the
        surface is unchanged then.
        """
        op = event.surface_op
        span: tuple[int, int] | None = None
        if isinstance(op, SurfaceReplace):
            span = self._span(op)
        elif op != "append":
            raise ValueError("a surface event needs a surface_op")
        message = render_event(event)
        if span is None:
            self._order.append(event.seq)
        else:
            first, last = span
            for seq in self._order[first : last + 1]:
                del self._messages[seq]
            self._order[first : last + 1] = [event.seq]
            self._derived_nodes = -1
        self._messages[event.seq] = message

    def check(self, op: SurfaceReplace) -> None:
        """Raise ``ValueError`` unless ``op`` names live nodes, ``start`` before ``end``."""
        self._span(op)

    def seqs(self) -> tuple[int, ...]:
        """The seqs of the live nodes, in surface order."""
        return tuple(self._order)

    def messages(self) -> tuple[Message, ...]:
        """The model history: the live nodes' messages (nodes without one are skipped)."""
        done = self._derived_nodes
        if done == len(self._order):
            return self._derived
        if done < 0:
            done, self._derived = 0, ()
        messages = self._messages
        fresh = [m for seq in self._order[done:] if (m := messages[seq]) is not None]
        self._derived = self._derived + tuple(fresh)
        self._derived_nodes = len(self._order)
        return self._derived

    def _span(self, op: SurfaceReplace) -> tuple[int, int]:
        if op.start not in self._messages or op.end not in self._messages:
            raise ValueError(f"replace range {op.start}..{op.end} does not name live surface nodes")
        first, last = self._order.index(op.start), self._order.index(op.end)
        if first > last:
            raise ValueError(f"replace range {op.start}..{op.end} runs backwards on the surface")
        return first, last
