"""The plain front end: agent turns for LSP editors without a dsh plugin (server layer).

Helix, Emacs, Sublime LSP, Zed and any other client reach the agent through standard LSP
only: ``workspace/executeCommand`` (``commands``) and ``textDocument/codeAction``
(``code_actions``) call the ``PlainClient`` service (``plain_client``), which drives the
same ``SessionBridge`` as the dsh protocol and shows a turn as cancellable work-done
progress (``progress``) and ``window/showMessage``.
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .code_actions import register_code_actions as register_code_actions
    from .commands import COMMANDS as COMMANDS
    from .commands import register_commands as register_commands
    from .plain_client import PLAIN_CLIENT as PLAIN_CLIENT
    from .plain_client import PlainClient as PlainClient
    from .plain_client import PlainClientPlugin as PlainClientPlugin

__all__ = _lazy_face(globals())
