"""Overlays: agent edits the editor holds but does not mirror to the server (server layer).

An edit of a file that is not open goes to the editor all the same; the editor loads the file
into a buffer, applies the edit and keeps it unsaved, usually without telling the server
(no didOpen for a buffer the user never opened). So that the agent still reads its own edit,
the provider remembers the text it expects the editor to hold, with the disk version it was
computed from. The overlay answers reads only while the disk is unchanged: once the file is
saved (or changed in any other way) the disk is the truth again, and once the editor opens
the document the mirror is. Tokens are ``editor:<n>``, unlike any buffer or disk version.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class Overlay:
    """The text the editor holds for a file, and the disk state it shadows."""

    text: str
    """The buffer text (line endings as in the buffer, no byte-order mark)."""
    disk_version: str | None
    """The disk version when the edit was made (None: the file did not exist)."""
    token: str


class Overlays:
    """Overlays by target key; see the module docstring."""

    __slots__ = ("_counter", "_entries")

    def __init__(self) -> None:
        self._entries: dict[str, Overlay] = {}
        self._counter = itertools.count(1)

    def current(self, key: str, disk_version: str | None) -> Overlay | None:
        """The overlay of ``key`` if it still shadows ``disk_version`` (else it is dropped)."""
        overlay = self._entries.get(key)
        if overlay is None:
            return None
        if overlay.disk_version != disk_version:
            del self._entries[key]
            return None
        return overlay

    def put(self, key: str, text: str, disk_version: str | None) -> Overlay:
        """Remember that the editor holds ``text`` for ``key`` over ``disk_version``."""
        overlay = Overlay(
            text=text, disk_version=disk_version, token=f"editor:{next(self._counter)}"
        )
        self._entries[key] = overlay
        return overlay

    def drop(self, key: str) -> None:
        """Forget ``key`` (the editor opened it, or it is on disk now)."""
        self._entries.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def keys(self) -> tuple[str, ...]:
        """Keys with an overlay (possibly stale until the next look-up)."""
        return tuple(self._entries)
