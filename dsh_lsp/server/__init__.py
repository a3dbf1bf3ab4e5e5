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
one verified ``workspace/applyEdit`` of minimal hunks (``fs_tools.diff_texts``, ``buffer_view``,
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

# These share their module's name, which a lazy import would leave bound to the module.
from .code_actions import code_actions as code_actions
from .edit_capabilities import edit_capabilities as edit_capabilities
from .serve import serve as serve

if typing.TYPE_CHECKING:
    from .boot import LoadPlugins as LoadPlugins
    from .boot import ServerState as ServerState
    from .bridge import SessionBridge as SessionBridge
    from .buffer_view import BufferView as BufferView
    from .channel import ClientChannel as ClientChannel
    from .channel import ClientFeatures as ClientFeatures
    from .channel import ClientRequestError as ClientRequestError
    from .channel import client_features as client_features
    from .commands import COMMANDS as COMMANDS
    from .converter import dict_params_converter as dict_params_converter
    from .demo import DemoPlan as DemoPlan
    from .demo import run_demo as run_demo
    from .disk_policy import DiskSync as DiskSync
    from .document_sync import DocumentSyncProtocol as DocumentSyncProtocol
    from .documents import ContentChange as ContentChange
    from .documents import DocumentEvent as DocumentEvent
    from .documents import OpenDocument as OpenDocument
    from .documents import OpenDocuments as OpenDocuments
    from .edit_capabilities import EditCapabilities as EditCapabilities
    from .edit_delivery import Delivery as Delivery
    from .edit_delivery import deliver as deliver
    from .edit_labels import current_label as current_label
    from .edit_labels import label_listeners as label_listeners
    from .editor_connection import ApplyOutcome as ApplyOutcome
    from .editor_connection import ChannelEditor as ChannelEditor
    from .editor_connection import EditorConnection as EditorConnection
    from .editor_fs import EditorFileSystem as EditorFileSystem
    from .editor_plugin import EDITOR as EDITOR
    from .editor_plugin import EditorFileSystemPlugin as EditorFileSystemPlugin
    from .editor_plugin import EditorSetup as EditorSetup
    from .editor_plugin import load_file_system as load_file_system
    from .errors import ServerError as ServerError
    from .errors import TurnFailedError as TurnFailedError
    from .errors import TurnRunningError as TurnRunningError
    from .errors import UnknownSessionError as UnknownSessionError
    from .errors import to_jsonrpc as to_jsonrpc
    from .framing import FrameDecoder as FrameDecoder
    from .framing import encode_frame as encode_frame
    from .logs import LogLevel as LogLevel
    from .logs import configure_logging as configure_logging
    from .outcome import PendingPrompt as PendingPrompt
    from .outcome import PromptResult as PromptResult
    from .outcome import StopReason as StopReason
    from .outcome import stop_reason as stop_reason
    from .plain_client import PLAIN_CLIENT as PLAIN_CLIENT
    from .plain_client import PlainClient as PlainClient
    from .plain_client import PlainClientPlugin as PlainClientPlugin
    from .plugin import BRIDGE as BRIDGE
    from .plugin import ServerBridgePlugin as ServerBridgePlugin
    from .positions import Position as Position
    from .positions import PositionEncoding as PositionEncoding
    from .positions import positions_at as positions_at
    from .protocol import DshProtocol as DshProtocol
    from .serve import TcpAddress as TcpAddress
    from .server import SERVER_CAPABILITIES as SERVER_CAPABILITIES
    from .server import DshLanguageServer as DshLanguageServer
    from .server import build_server as build_server
    from .settings import DshSettings as DshSettings
    from .settings import EditSettings as EditSettings
    from .settings import ModelSettings as ModelSettings
    from .settings import PermissionSettings as PermissionSettings
    from .settings import SettingsError as SettingsError
    from .settings import merge_settings as merge_settings
    from .settings import parse_settings as parse_settings
    from .sink import UpdateSink as UpdateSink
    from .updates import UpdateTranslator as UpdateTranslator
    from .workspace_edits import EditLabel as EditLabel

_MODULES: dict[str, tuple[str, ...]] = {
    "boot": ("LoadPlugins", "ServerState"),
    "bridge": ("SessionBridge",),
    "buffer_view": ("BufferView",),
    "channel": ("ClientChannel", "ClientFeatures", "ClientRequestError", "client_features"),
    "commands": ("COMMANDS",),
    "converter": ("dict_params_converter",),
    "demo": ("DemoPlan", "run_demo"),
    "disk_policy": ("DiskSync",),
    "document_sync": ("DocumentSyncProtocol",),
    "documents": ("ContentChange", "DocumentEvent", "OpenDocument", "OpenDocuments"),
    "edit_capabilities": ("EditCapabilities",),
    "edit_delivery": ("Delivery", "deliver"),
    "edit_labels": ("current_label", "label_listeners"),
    "editor_connection": ("ApplyOutcome", "ChannelEditor", "EditorConnection"),
    "editor_fs": ("EditorFileSystem",),
    "editor_plugin": ("EDITOR", "EditorFileSystemPlugin", "EditorSetup", "load_file_system"),
    "errors": (
        "ServerError",
        "TurnFailedError",
        "TurnRunningError",
        "UnknownSessionError",
        "to_jsonrpc",
    ),
    "framing": ("FrameDecoder", "encode_frame"),
    "logs": ("LogLevel", "configure_logging"),
    "outcome": ("PendingPrompt", "PromptResult", "StopReason", "stop_reason"),
    "plain_client": ("PLAIN_CLIENT", "PlainClient", "PlainClientPlugin"),
    "plugin": ("BRIDGE", "ServerBridgePlugin"),
    "positions": ("Position", "PositionEncoding", "positions_at"),
    "protocol": ("DshProtocol",),
    "serve": ("TcpAddress",),
    "server": ("SERVER_CAPABILITIES", "DshLanguageServer", "build_server"),
    "settings": (
        "DshSettings",
        "EditSettings",
        "ModelSettings",
        "PermissionSettings",
        "SettingsError",
        "merge_settings",
        "parse_settings",
    ),
    "sink": ("UpdateSink",),
    "updates": ("UpdateTranslator",),
    "workspace_edits": ("EditLabel",),
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
    "TurnFailedError",
    "TurnRunningError",
    "UnknownSessionError",
    "UpdateSink",
    "UpdateTranslator",
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
    "parse_settings",
    "positions_at",
    "run_demo",
    "serve",
    "stop_reason",
    "to_jsonrpc",
)
