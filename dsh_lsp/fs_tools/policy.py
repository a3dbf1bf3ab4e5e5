"""FsPolicyPlugin: read-before-edit and compare-and-swap per session (fs_tools layer).

Listens to the ``fs/*`` events and keeps, per owner (the calling session, held weakly so a
dropped session takes its memory along), the version of every target it has seen. It does no
I/O: freshness is the provider's compare-and-swap inside its per-target lock.

- ``fs/write-intent``: ``ReplaceIfVersion(observed)`` when the owner has seen the target, else
  ``CreateIfAbsent`` (so an existing file cannot be overwritten blind).
- ``fs/edit-intent``: ``ExpectVersion(observed)``, or ``FS_NOT_OBSERVED`` when the owner never
  read the file (or there is no owner).
- ``fs/observed``: records the version (reads, and the result of every write and edit, so
  create → edit and edit → edit need no re-read).

The memory is provided as ``FS_OBSERVATIONS`` so that whatever changes files behind the
tools' back (a shell command) can make the files it changed unread again (``forget``).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import ClassVar

from dsh_lsp.kernel import Context, Plugin, ServiceKey

from .errors import FsError
from .events import FS_EDIT_INTENT, FS_OBSERVED, FS_WRITE_INTENT, FsIntent, FsObservation
from .guards import CreateIfAbsent, ExpectVersion, ReplaceIfVersion, WriteGuard


class ObservedVersions:
    """Per-owner memory of seen versions; owners must be weak-referenceable (sessions are)."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: weakref.WeakKeyDictionary[object, dict[str, str]] = weakref.WeakKeyDictionary()

    def record(self, owner: object, key: str, version: str) -> None:
        """Remember that ``owner`` has seen target ``key`` at ``version``."""
        self._seen.setdefault(owner, {})[key] = version

    def version(self, owner: object | None, key: str) -> str | None:
        """The last version ``owner`` saw of ``key``; None if never (or no owner)."""
        if owner is None:
            return None
        seen = self._seen.get(owner)
        return None if seen is None else seen.get(key)

    def seen(self, owner: object | None) -> tuple[tuple[str, str], ...]:
        """Every (target key, version) ``owner`` has seen."""
        if owner is None:
            return ()
        return tuple((self._seen.get(owner) or {}).items())

    def forget(self, owner: object, key: str) -> None:
        """Make ``key`` unread for ``owner`` (its next edit needs a read first)."""
        seen = self._seen.get(owner)
        if seen is not None:
            seen.pop(key, None)

    def owners(self) -> int:
        """How many live owners have observations (diagnostics and tests)."""
        return len(self._seen)


FS_OBSERVATIONS: ServiceKey[ObservedVersions] = ServiceKey("fs-observations")
"""The policy's memory of what each session has read (provided by ``FsPolicyPlugin``)."""


class FsPolicyPlugin(Plugin[None]):
    """Registers the three ``fs/*`` listeners over one ``ObservedVersions``; no config."""

    name: ClassVar[str] = "fs-policy"

    def __init__(self) -> None:
        self.observed = ObservedVersions()

    async def apply(self, ctx: Context, config: None) -> None:
        """Register the listeners (they leave with the plugin)."""
        observed = self.observed

        async def write_intent(
            intent: FsIntent, _next: Callable[[], Awaitable[WriteGuard | None]]
        ) -> WriteGuard | None:
            version = observed.version(intent.owner, intent.target.key)
            if version is None:
                return CreateIfAbsent()
            return ReplaceIfVersion(version=version)

        async def edit_intent(
            intent: FsIntent, _next: Callable[[], Awaitable[ExpectVersion | None]]
        ) -> ExpectVersion | None:
            version = observed.version(intent.owner, intent.target.key)
            if version is None:
                raise FsError(
                    "FS_NOT_OBSERVED",
                    f"you must read {intent.target.display_path} before editing it; read it "
                    "with the read tool, then retry the edit",
                )
            return ExpectVersion(version=version)

        def record(observation: FsObservation) -> None:
            if observation.owner is not None:
                observed.record(observation.owner, observation.target.key, observation.version)

        ctx.on(FS_WRITE_INTENT, write_intent)
        ctx.on(FS_EDIT_INTENT, edit_intent)
        ctx.on(FS_OBSERVED, record)
        ctx.provide(FS_OBSERVATIONS, observed)
