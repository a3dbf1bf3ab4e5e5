"""Typed service keys and the kernel's service store (kernel layer).

A service is any object one plugin provides under a ``ServiceKey`` for others to look up.
Keys are declared once, next to the package that owns the service, as module constants::

    LLM: ServiceKey[LlmService] = ServiceKey("llm")

Two keys with the same name address the same slot. The store holds at most one provider per
name; withdrawing an entry is a two-step affair (``withdrawing`` first, removal after the
dependents unloaded) driven by the runtime.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from .errors import ServiceConflictError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ServiceKey(Generic[T]):
    """The typed name of a service slot; ``T`` is the type ``ctx.get``/``ctx.require`` return."""

    name: str


@dataclass(slots=True, kw_only=True, eq=False)
class ServiceEntry:
    """One provided service: its value, who provides it, and whether it is being withdrawn."""

    value: object
    owner: str
    withdrawing: bool = field(default=False)


class ServiceStore:
    """Service name → entry; one provider per name."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, ServiceEntry] = {}

    def add(self, name: str, value: object, *, owner: str) -> ServiceEntry:
        """Store ``value`` under ``name``.

        Raises ServiceConflictError (naming both owners) when the name already has a provider,
        including one that is being withdrawn.
        """
        existing = self._entries.get(name)
        if existing is not None:
            raise ServiceConflictError(name, existing=existing.owner, incoming=owner)
        entry = ServiceEntry(value=value, owner=owner)
        self._entries[name] = entry
        return entry

    def remove(self, name: str, entry: ServiceEntry) -> None:
        """Drop ``entry`` if it is still the one stored under ``name``."""
        if self._entries.get(name) is entry:
            del self._entries[name]

    def lookup(self, name: str) -> ServiceEntry | None:
        """The entry under ``name`` (withdrawing or not), or None."""
        return self._entries.get(name)

    def available(self, name: str) -> bool:
        """True when ``name`` has a provider that is not being withdrawn."""
        entry = self._entries.get(name)
        return entry is not None and not entry.withdrawing

    def names(self) -> frozenset[str]:
        """The names that currently have a provider."""
        return frozenset(self._entries)
