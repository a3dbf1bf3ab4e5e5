"""``dsh-lsp demo``: a whole agent turn over LSP, offline, with this process as the editor.

Beside the server, not part of it: the demo is an LSP *client* (``client``) that plays an
editor holding one buffer (``editor``) and drives a real ``python -m dsh_lsp`` against the
scripted model server (``run``). Nothing in the server imports it.
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .run import SCRIPTED_PORT_LINE as SCRIPTED_PORT_LINE
    from .run import DemoPlan as DemoPlan
    from .run import announced_port as announced_port
    from .run import run_demo as run_demo

__all__ = _lazy_face(globals())
