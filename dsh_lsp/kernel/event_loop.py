"""The event loop a dsh-lsp process runs on: uvloop where it is installed (kernel layer).

uvloop implements the asyncio loop API in C over libuv; pygls, anyio and everything below
them run on it unchanged, and the per-step work of an agent turn (socket and pipe I/O,
callbacks, thread hand-offs) costs less on it than on the pure-Python selector loop (see the
RFC ``2026-12-06-uvloop-event-loop.md``). It is a dependency on every platform dsh-lsp
supports; a system without it (a packager that left it out) runs on asyncio's own loop, with
the same behaviour. The kernel only names the package to anyio, which imports it: nothing here
imports a third-party module.
"""

from __future__ import annotations

import importlib.util
from typing import Final

UVLOOP: Final = "uvloop"


def loop_options() -> dict[str, object]:
    """The ``backend_options`` of ``anyio.run`` for the asyncio backend: uvloop's loop
    when the package is importable, else the default loop. Never raises."""
    return {"use_uvloop": importlib.util.find_spec(UVLOOP) is not None}
