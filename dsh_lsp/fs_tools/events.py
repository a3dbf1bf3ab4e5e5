"""The fs/* events: where policy decides guards and learns what a session has seen (fs_tools).

The file tools ask before every write and edit and report after every read, write and edit;
policies (``FsPolicyPlugin``) listen. ``owner`` is the session of the tool call (None for a
call without a session); a policy keys its memory by it.

- ``fs/write-intent`` (waterfall, result ``WriteGuard | None``): the guard for a write. The
  inner default is ``None`` (unconditional). A deciding listener returns its guard without
  calling ``next``, so the first decider wins (one slot); raising refuses the write.
- ``fs/edit-intent`` (waterfall, result ``ExpectVersion | None``): the version an edit must
  find. Same single-slot rule; the inner default is ``None`` (no check).
- ``fs/observed`` (emit): ``owner`` has seen ``target`` at ``version`` (after a read, or the
  version a write or edit produced). Deliberately not contained: a failing recorder fails
  the tool call rather than silently forgetting an observation.
"""

from __future__ import annotations

from dataclasses import dataclass

from dsh_lsp.kernel import EmitEvent, WaterfallEvent

from .guards import ExpectVersion, WriteGuard
from .target import FsTarget


@dataclass(frozen=True, slots=True, kw_only=True)
class FsIntent:
    """A tool is about to write or edit ``target`` on behalf of ``owner``."""

    target: FsTarget
    owner: object | None
    """The calling session (compared by identity), or None for a call without one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class FsObservation:
    """``owner`` has seen ``target`` at ``version``."""

    target: FsTarget
    version: str
    owner: object | None


FS_WRITE_INTENT: WaterfallEvent[FsIntent, WriteGuard | None] = WaterfallEvent("fs/write-intent")
FS_EDIT_INTENT: WaterfallEvent[FsIntent, ExpectVersion | None] = WaterfallEvent("fs/edit-intent")
FS_OBSERVED: EmitEvent[FsObservation] = EmitEvent("fs/observed")
