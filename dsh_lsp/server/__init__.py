"""The language server: agent turns over ``dsh/*`` LSP methods (server layer).

The only package that imports pygls and lsprotocol. ``serve(load_plugins)`` runs one
connection (stdio, or one TCP client) inside one kernel; the composition root passes the
function that loads every other plugin. Inside: ``DshProtocol`` (the LSP lifecycle and error
answers pygls leaves open), ``pump`` (framing and JSON decoding), the handlers
(``server``), start-up and settings (``boot``, ``settings``), and the kernel-side
``ServerBridgePlugin``: the ``SessionBridge`` that drives agents and renders their session
events (``updates``, ``sink``), the prompt settlement (``outcome``), the permission
service (``permissions``) and the ``dsh.permissions`` policy (``policy``). Edits go through
the editor: ``DocumentSyncProtocol`` mirrors the open documents (``documents``),
``load_file_system`` picks the ``FS`` provider, and ``EditorFileSystem`` sends each change as
one verified ``workspace/applyEdit`` of minimal hunks (``hunks``, ``buffer_view``,
``positions``, ``edit_delivery``, ``closed_files``, ``disk_policy``). Editors without a dsh
plugin use ``commands``, ``code_actions`` and ``PlainClient``. The protocol is documented in
``docs/protocol.md``.

The package imports its modules lazily: ``dsh_lsp.server.X`` loads the module that defines
``X`` on first use, so a process that serves LSP answers ``initialize`` before it loads the
agent, session and tool layers (start-up loads them after ``initialized``).
"""

from __future__ import annotations

import importlib
import typing

from .editor_fs.edit_capabilities import edit_capabilities as edit_capabilities

# These share their module's name, which a lazy import would leave bound to the module.
from .plain.code_actions import code_actions as code_actions
from .serve import serve as serve

if typing.TYPE_CHECKING:
    from .boot import LoadPlugins as LoadPlugins
    from .boot import ServerState as ServerState
    from .buffers.document_sync import DocumentSyncProtocol as DocumentSyncProtocol
    from .buffers.documents import ContentChange as ContentChange
    from .buffers.documents import DocumentEvent as DocumentEvent
    from .buffers.documents import OpenDocument as OpenDocument
    from .buffers.documents import OpenDocuments as OpenDocuments
    from .buffers.positions import Position as Position
    from .buffers.positions import PositionEncoding as PositionEncoding
    from .buffers.positions import positions_at as positions_at
    from .demo.run import DemoPlan as DemoPlan
    from .demo.run import run_demo as run_demo
    from .editor_fs.buffer_view import BufferView as BufferView
    from .editor_fs.disk_policy import DiskSync as DiskSync
    from .editor_fs.edit_capabilities import EditCapabilities as EditCapabilities
    from .editor_fs.edit_delivery import Delivery as Delivery
    from .editor_fs.edit_delivery import deliver as deliver
    from .editor_fs.edit_labels import current_label as current_label
    from .editor_fs.edit_labels import label_listeners as label_listeners
    from .editor_fs.editor_connection import ApplyOutcome as ApplyOutcome
    from .editor_fs.editor_connection import ChannelEditor as ChannelEditor
    from .editor_fs.editor_connection import EditorConnection as EditorConnection
    from .editor_fs.file_system import EditorFileSystem as EditorFileSystem
    from .editor_fs.hunks import TextHunk as TextHunk
    from .editor_fs.hunks import apply_hunks as apply_hunks
    from .editor_fs.hunks import minimal_hunks as minimal_hunks
    from .editor_fs.plugin import EDITOR as EDITOR
    from .editor_fs.plugin import EditorFileSystemPlugin as EditorFileSystemPlugin
    from .editor_fs.plugin import EditorSetup as EditorSetup
    from .editor_fs.plugin import load_file_system as load_file_system
    from .editor_fs.workspace_edits import EditLabel as EditLabel
    from .errors import ServerError as ServerError
    from .errors import TurnFailedError as TurnFailedError
    from .errors import TurnRunningError as TurnRunningError
    from .errors import UnknownSessionError as UnknownSessionError
    from .errors import to_jsonrpc as to_jsonrpc
    from .handlers import SERVER_CAPABILITIES as SERVER_CAPABILITIES
    from .handlers import DshLanguageServer as DshLanguageServer
    from .handlers import build_server as build_server
    from .logs import LogLevel as LogLevel
    from .logs import configure_logging as configure_logging
    from .plain.commands import COMMANDS as COMMANDS
    from .plain.plain_client import PLAIN_CLIENT as PLAIN_CLIENT
    from .plain.plain_client import PlainClient as PlainClient
    from .plain.plain_client import PlainClientPlugin as PlainClientPlugin
    from .serve import TcpAddress as TcpAddress
    from .sessions.bridge import SessionBridge as SessionBridge
    from .sessions.outcome import PendingPrompt as PendingPrompt
    from .sessions.outcome import PromptResult as PromptResult
    from .sessions.outcome import StopReason as StopReason
    from .sessions.outcome import stop_reason as stop_reason
    from .sessions.plugin import BRIDGE as BRIDGE
    from .sessions.plugin import ServerBridgePlugin as ServerBridgePlugin
    from .sessions.sink import UpdateSink as UpdateSink
    from .sessions.updates import UpdateTranslator as UpdateTranslator
    from .settings import DshSettings as DshSettings
    from .settings import EditSettings as EditSettings
    from .settings import ModelSettings as ModelSettings
    from .settings import PermissionSettings as PermissionSettings
    from .settings import SettingsError as SettingsError
    from .settings import merge_settings as merge_settings
    from .settings import parse_settings as parse_settings
    from .wire.channel import ClientChannel as ClientChannel
    from .wire.channel import ClientFeatures as ClientFeatures
    from .wire.channel import ClientRequestError as ClientRequestError
    from .wire.channel import client_features as client_features
    from .wire.converter import dict_params_converter as dict_params_converter
    from .wire.framing import FrameDecoder as FrameDecoder
    from .wire.framing import encode_frame as encode_frame
    from .wire.protocol import DshProtocol as DshProtocol

_MODULES: dict[str, tuple[str, ...]] = {
    "boot": ("LoadPlugins", "ServerState"),
    "sessions.bridge": ("SessionBridge",),
    "editor_fs.buffer_view": ("BufferView",),
    "wire.channel": ("ClientChannel", "ClientFeatures", "ClientRequestError", "client_features"),
    "plain.commands": ("COMMANDS",),
    "wire.converter": ("dict_params_converter",),
    "demo.run": ("DemoPlan", "run_demo"),
    "editor_fs.disk_policy": ("DiskSync",),
    "buffers.document_sync": ("DocumentSyncProtocol",),
    "buffers.documents": ("ContentChange", "DocumentEvent", "OpenDocument", "OpenDocuments"),
    "editor_fs.edit_capabilities": ("EditCapabilities",),
    "editor_fs.edit_delivery": ("Delivery", "deliver"),
    "editor_fs.edit_labels": ("current_label", "label_listeners"),
    "editor_fs.editor_connection": ("ApplyOutcome", "ChannelEditor", "EditorConnection"),
    "editor_fs.file_system": ("EditorFileSystem",),
    "editor_fs.plugin": ("EDITOR", "EditorFileSystemPlugin", "EditorSetup", "load_file_system"),
    "errors": (
        "ServerError",
        "TurnFailedError",
        "TurnRunningError",
        "UnknownSessionError",
        "to_jsonrpc",
    ),
    "wire.framing": ("FrameDecoder", "encode_frame"),
    "editor_fs.hunks": ("TextHunk", "apply_hunks", "minimal_hunks"),
    "logs": ("LogLevel", "configure_logging"),
    "sessions.outcome": ("PendingPrompt", "PromptResult", "StopReason", "stop_reason"),
    "plain.plain_client": ("PLAIN_CLIENT", "PlainClient", "PlainClientPlugin"),
    "sessions.plugin": ("BRIDGE", "ServerBridgePlugin"),
    "buffers.positions": ("Position", "PositionEncoding", "positions_at"),
    "wire.protocol": ("DshProtocol",),
    "serve": ("TcpAddress",),
    "handlers": ("SERVER_CAPABILITIES", "DshLanguageServer", "build_server"),
    "settings": (
        "DshSettings",
        "EditSettings",
        "ModelSettings",
        "PermissionSettings",
        "SettingsError",
        "merge_settings",
        "parse_settings",
    ),
    "sessions.sink": ("UpdateSink",),
    "sessions.updates": ("UpdateTranslator",),
    "editor_fs.workspace_edits": ("EditLabel",),
}
"""Which module defines each public name."""
_HOME = {name: module for module, names in _MODULES.items() for name in names}


def __getattr__(name: str) -> object:
    """Load the module that defines ``name`` and return it (PEP 562). Raises
    AttributeError for names the package does not export."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value: object = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = (
    "BRIDGE",
    "COMMANDS",
    "EDITOR",
    "PLAIN_CLIENT",
    "SERVER_CAPABILITIES",
    "ApplyOutcome",
    "BufferView",
    "ChannelEditor",
    "ClientChannel",
    "ClientFeatures",
    "ClientRequestError",
    "ContentChange",
    "Delivery",
    "DemoPlan",
    "DiskSync",
    "DocumentEvent",
    "DocumentSyncProtocol",
    "DshLanguageServer",
    "DshProtocol",
    "DshSettings",
    "EditCapabilities",
    "EditLabel",
    "EditSettings",
    "EditorConnection",
    "EditorFileSystem",
    "EditorFileSystemPlugin",
    "EditorSetup",
    "FrameDecoder",
    "LoadPlugins",
    "LogLevel",
    "ModelSettings",
    "OpenDocument",
    "OpenDocuments",
    "PendingPrompt",
    "PermissionSettings",
    "PlainClient",
    "PlainClientPlugin",
    "Position",
    "PositionEncoding",
    "PromptResult",
    "ServerBridgePlugin",
    "ServerError",
    "ServerState",
    "SessionBridge",
    "SettingsError",
    "StopReason",
    "TcpAddress",
    "TextHunk",
    "TurnFailedError",
    "TurnRunningError",
    "UnknownSessionError",
    "UpdateSink",
    "UpdateTranslator",
    "apply_hunks",
    "build_server",
    "client_features",
    "code_actions",
    "configure_logging",
    "current_label",
    "deliver",
    "dict_params_converter",
    "edit_capabilities",
    "encode_frame",
    "label_listeners",
    "load_file_system",
    "merge_settings",
    "minimal_hunks",
    "parse_settings",
    "positions_at",
    "run_demo",
    "serve",
    "stop_reason",
    "to_jsonrpc",
)
