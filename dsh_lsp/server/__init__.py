"""The language server: agent turns over ``dsh/*`` LSP methods (server layer).

The only package that imports pygls and lsprotocol. ``serve(load_plugins)`` runs one
connection (stdio, or one TCP client, ``TcpAddress``) inside one kernel; the composition root
passes the function that loads every other plugin (``LoadPlugins``) and the ``FileSystem``
provider choice (``load_file_system``); the runner configures logging (``configure_logging``,
``LogLevel``), validates settings (``DshSettings``, ``parse_settings``,
``SettingsError``) and presents errors like the server (``user_message``). That is the whole
face (``dsh-lsp demo`` uses the ``demo`` room's own face); each part has its own room,
imports pointing down:

- top level: the process entry (``serve``), the LSP handlers (``handlers``), the start-up of
  one connection (``boot``), logging (``logs``), and the two leaves everything may use, the
  ``dsh`` settings (``settings``) and the server errors (``errors``);
- ``plain/``: the front end for editors without a dsh plugin (commands, code actions,
  progress);
- ``editor_fs/``: the editor-backed ``FileSystem`` (edits as ``workspace/applyEdit``);
- ``sessions/``: the kernel-side bridge that drives agents and renders their session logs;
- ``buffers/``: the mirror of the editor's open documents and LSP positions;
- ``wire/``: transport, framing, the read loop, the protocol, the client channel, params;
- ``demo/``: the offline demo's LSP client, beside the server (nothing imports it).

Every face loads lazily (``_lazy``): a process that serves LSP answers ``initialize`` before
it imports the agent, session and tool layers (start-up imports them after
``initialized``). The protocol is documented in ``docs/protocol.md``; the map is in
``docs/architecture.md``.
"""

import typing as _typing

from ._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .boot import LoadPlugins as LoadPlugins
    from .editor_fs import load_file_system as load_file_system
    from .errors import user_message as user_message
    from .logs import LogLevel as LogLevel
    from .logs import configure_logging as configure_logging
    from .serve import TcpAddress as TcpAddress
    from .serve import serve as serve
    from .settings import DshSettings as DshSettings
    from .settings import SettingsError as SettingsError
    from .settings import parse_settings as parse_settings

__all__ = _lazy_face(globals())
