"""The typed payload of the ``todo/write`` session event (todo layer).

``TodoPlugin`` registers ``TodoWritePayload`` with ``EVENT_PAYLOADS`` for as long as it is
loaded (the server does too, since it renders plans), and ``todo_write`` logs it typed.
Decoding is lenient, as a display's should be: entries that are not objects are dropped,
missing fields defaulted; it never raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final, Self

from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.session import ExtensionPayload

TODO_WRITE: Final = "todo/write"
"""The session event type of an accepted plan."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlanEntry:
    """One entry of a ``todo/write`` plan; ``priority`` None: not given (shown as medium)."""

    content: str
    status: str = "pending"
    priority: str | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The entry as logged (``priority`` only when given)."""
        record: dict[str, JsonValue] = {"content": self.content, "status": self.status}
        if self.priority is not None:
            record["priority"] = self.priority
        return record

    def shown(self) -> dict[str, JsonValue]:
        """The entry as a ``plan_update`` shows it (every field)."""
        return {
            "content": self.content,
            "status": self.status,
            "priority": self.priority or "medium",
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class TodoWritePayload(ExtensionPayload):
    """``todo/write {todos: [{content, status?, priority?}]}``: the whole plan."""

    kind: ClassVar[str] = TODO_WRITE
    entries: tuple[PlanEntry, ...]

    def to_json(self) -> dict[str, JsonValue]:
        """``{todos: [...]}``."""
        return {"todos": [entry.to_json() for entry in self.entries]}

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """The plan in ``data["todos"]`` (none when it is not an array); never raises."""
        todos = data.get("todos")
        return cls(
            entries=tuple(
                PlanEntry(
                    content=str(todo.get("content", "")),
                    status=str(todo.get("status", "pending")),
                    priority=None if todo.get("priority") is None else str(todo.get("priority")),
                )
                for todo in (todos if isinstance(todos, list) else ())
                if isinstance(todo, dict)
            )
        )
