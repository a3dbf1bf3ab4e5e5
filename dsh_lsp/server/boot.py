"""ServerState: settings, client features and the kernel start-up of one connection (server).

``initialize`` validates ``initializationOptions`` (a bad value fails ``initialize`` with
-32602 naming the field) and records the client's features and workspace folders; the
response goes out at once, before the layers below the server are even imported: start-up
(``boot``) imports them and runs in the kernel after ``initialized``:
it fetches the ``dsh`` section of ``workspace/configuration`` when the client offers it,
merges it over the initialization options (a bad section is reported with
``window/showMessage`` and ignored), loads the plugins through ``load_plugins`` (the
composition root's function), then the ``ServerBridgePlugin`` and the ``PlainClientPlugin``
(the standard-LSP front end). ``dsh/*`` handlers wait for that (``bridge``); when start-up
failed they raise its error, so every request explains it. Before the plugins load, the
connection provides ``EDITOR`` (the editor as the file system sees it: the document mirror,
the client's edit capabilities, the live edit settings), from which ``load_file_system``
picks the ``FS`` provider.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

import anyio
from lsprotocol import types
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.uris import to_fs_path

from dsh_lsp.kernel import Context, DshError, PluginFailedError
from dsh_lsp.llm import JsonValue, SessionId

from .buffers import OpenDocuments
from .editor_fs import EditCapabilities, edit_capabilities
from .editor_intel import EditorMethods, editor_methods
from .errors import ServerError
from .settings import (
    SECTION,
    DshSettings,
    ModelSettings,
    SettingsError,
    merge_settings,
    parse_settings,
)
from .wire import ClientChannel, ClientFeatures, ClientRequestError, client_features

if TYPE_CHECKING:  # loaded by start-up, after ``initialize`` was answered
    from dsh_lsp.agent import AgentOptions

    from .early import EarlySession
    from .plain import PlainClient
    from .sessions import SessionBridge

_log = logging.getLogger(__name__)

CONFIGURATION_TIMEOUT: Final = 5.0
"""Seconds to wait for the client's ``workspace/configuration`` answer."""


class LoadPlugins(Protocol):
    """The composition root's loader: everything but the bridge, for these settings and
    workspace roots. Raises PluginFailedError / PluginConfigError."""

    async def __call__(self, ctx: Context, settings: DshSettings, roots: tuple[str, ...]) -> None:
        """Load the plugins into the kernel behind ``ctx``."""
        ...


class ServerState:
    """See the module docstring. One per connection; created by the language server."""

    def __init__(
        self, ctx: Context, load_plugins: LoadPlugins, *, documents: OpenDocuments | None = None
    ) -> None:
        self._ctx = ctx
        self._load_plugins = load_plugins
        self.documents = documents if documents is not None else OpenDocuments()
        """The mirror of the client's open documents (fed by the protocol)."""
        self._edits: EditCapabilities | None = None
        self._editor_methods = EditorMethods()
        self._progress = False
        self._plain: PlainClient | None = None
        self.init_options: JsonValue = None
        self.settings = DshSettings()
        self.features = ClientFeatures()
        self.roots: tuple[str, ...] = ()
        self.channel: ClientChannel | None = None
        self._ready = anyio.Event()
        self._booting = False
        self._bridge: SessionBridge | None = None
        self._failure: DshError | None = None
        self._loaded: ModelSettings | None = None
        self.early_sessions: tuple[EarlySession, ...] = ()
        """Sessions ``early.answer_sessions`` answered; reserved as they are at start-up."""

    def initialize(
        self, params: types.InitializeParams, channel: Callable[[ClientFeatures], ClientChannel]
    ) -> None:
        """Record what ``initialize`` says. Raises SettingsError for bad initialization
        options."""
        options = params.initialization_options
        self.settings = parse_settings(options)
        self.init_options = options if isinstance(options, dict) else None
        self.features = client_features(params.capabilities)
        self.channel = channel(self.features)
        self.roots = workspace_roots(params)
        encoding = ServerCapabilitiesBuilder.choose_position_encoding(params.capabilities)
        client_name = None if params.client_info is None else params.client_info.name
        self._edits = edit_capabilities(params.capabilities, encoding, client_name=client_name)
        self._editor_methods = editor_methods(params.capabilities)
        self.documents.encoding = self._edits.position_encoding
        window = params.capabilities.window
        self._progress = bool(window is not None and window.work_done_progress)

    def agent_options(self) -> AgentOptions:
        """Options for a new agent from the current settings."""
        return self.settings.agent_options()

    def default_cwd(self) -> str | None:
        """The first workspace folder."""
        return self.roots[0] if self.roots else None

    def start(self) -> None:
        """Start the kernel start-up once (``initialized``, or the first ``dsh/*`` request)."""
        if not self._booting:
            self._booting = True
            self._ctx.start_soon(self._boot, name="dsh-lsp start-up")

    async def started(self) -> None:
        """Wait until start-up finished (or failed); never raises."""
        await self._ready.wait()

    async def bridge(self) -> SessionBridge:
        """The bridge, once start-up finished. Raises the start-up failure (a DshError)."""
        self.start()
        await self._ready.wait()
        if self._bridge is None:
            raise self._failure or ServerError("dsh-lsp did not start")
        return self._bridge

    async def status(self) -> dict[str, str | bool]:
        """``dsh/status``: the model and endpoint the plugins loaded with (a changed endpoint
        applies only after a restart), once start-up finished; see ``ModelSettings.status``.
        Raises the start-up failure (a DshError) like ``bridge``."""
        await self.bridge()
        assert self._loaded is not None
        return self._loaded.status(os.environ)

    async def plain_client(self) -> PlainClient:
        """The standard-LSP front end, once start-up finished. Raises like ``bridge``."""
        await self.bridge()
        assert self._plain is not None
        return self._plain

    async def _boot(self) -> None:
        # The layers below the server load here (``import_start_up``), after ``initialize``
        # was answered.
        from .editor_fs import EDITOR, ChannelEditor, EditorSetup
        from .editor_intel import EditorIntel, EditorIntelPlugin
        from .plain import PLAIN_CLIENT, PlainClientPlugin
        from .sessions import BRIDGE, ServerBridgePlugin, ShellAllowList, shell_allow_path

        try:
            if self.features.configuration:
                await self._apply_section(await self._fetch_section(), startup=True)
            assert self.channel is not None
            if self._edits is not None:
                editor = EditorSetup(
                    connection=ChannelEditor(self.channel, self.documents, self._edits),
                    # A dsh client already showed the diff and got the user's answer in
                    # dsh/requestPermission; a second preview would ask twice.
                    confirm_edits=lambda: (
                        self.settings.permissions.edit == "ask" and not self.features.permissions
                    ),
                    save_after_turn=lambda: self.settings.edits.save_after_turn,
                )
                self._ctx.provide(EDITOR, editor)
            self._loaded = self.settings.model
            await self._load_plugins(self._ctx, self.settings, self.roots)
            if self._editor_methods:
                await self._ctx.plugin(
                    EditorIntelPlugin(
                        EditorIntel(self.channel, self._editor_methods),
                        self.documents,
                        request_seconds=lambda: self.settings.editor.request_timeout_ms / 1000,
                        after_edit=lambda: self.settings.editor.diagnostics_after_edit,
                        timeout_ms=lambda: self.settings.editor.diagnostics_timeout_ms,
                    )
                )
            await self._ctx.plugin(
                ServerBridgePlugin(
                    self.channel,
                    options=self.agent_options,
                    permissions=lambda: self.settings.permissions,
                    default_cwd=self.default_cwd,
                    shell_rules=ShellAllowList(shell_allow_path(self.settings.session_dir)),
                )
            )
            await self._ctx.plugin(
                PlainClientPlugin(
                    self.channel, progress=self._progress, default_cwd=self.default_cwd
                )
            )
            self._plain = self._ctx.require(PLAIN_CLIENT)
            bridge = self._ctx.require(BRIDGE)
            for early in self.early_sessions:
                await bridge.new_session(
                    early.cwd,
                    session_id=SessionId(early.session_id),
                    created_at=early.created_at,
                )
            self._bridge = bridge
        except PluginFailedError as exc:
            cause = exc.__cause__
            self._failure = cause if isinstance(cause, DshError) else exc
            _log.error("dsh-lsp could not start: %s", self._failure)
            self.show(types.MessageType.Error, f"dsh-lsp could not start: {self._failure}")
        except DshError as exc:
            self._failure = exc
            _log.error("dsh-lsp could not start: %s", exc)
            self.show(types.MessageType.Error, f"dsh-lsp could not start: {exc}")
        finally:
            self._ready.set()

    async def refresh(self) -> None:
        """Re-read the ``dsh`` section after ``workspace/didChangeConfiguration``: the
        permission policy and the options of new sessions follow at once; the model
        endpoint and session directory need a restart."""
        if self.features.configuration:
            await self._apply_section(await self._fetch_section(), startup=False)

    async def _fetch_section(self) -> JsonValue:
        assert self.channel is not None
        params = {"items": [{"section": SECTION}]}
        with anyio.move_on_after(CONFIGURATION_TIMEOUT):
            try:
                answer = await self.channel.request("workspace/configuration", params)
            except ClientRequestError as exc:
                _log.warning("workspace/configuration failed: %s", exc)
                return None
            return answer[0] if isinstance(answer, list) and answer else None
        _log.warning("the client did not answer workspace/configuration in time")
        return None

    async def _apply_section(self, section: JsonValue, *, startup: bool) -> None:
        try:
            settings = parse_settings(merge_settings(self.init_options, section))
        except SettingsError as exc:
            self.show(types.MessageType.Error, f"dsh-lsp ignored the workspace settings: {exc}")
            return
        restart = self.settings.needs_restart(settings)
        self.settings = settings
        if restart and not startup:
            self.show(
                types.MessageType.Info,
                "dsh-lsp: restart the server to apply model, sessionDir, shell, instructions"
                " or compaction changes",
            )

    def show(self, kind: int, message: str) -> None:
        """``window/showMessage`` (``kind``: 1 error … 4 log)."""
        if self.channel is not None:
            self.channel.notify(types.WINDOW_SHOW_MESSAGE, {"type": kind, "message": message})

    async def aclose(self) -> None:
        """Close the bridge (turns cancelled, logs flushed) if start-up got that far."""
        if self._bridge is not None:
            await self._bridge.aclose()


def import_start_up() -> None:
    """Import the modules ``ServerState`` start-up loads (``serve`` does it in a worker
    thread while the early answers go out). Raises ImportError."""
    from .editor_fs import EDITOR, ChannelEditor, EditorSetup  # noqa: F401
    from .plain import PLAIN_CLIENT, PlainClientPlugin  # noqa: F401
    from .sessions import BRIDGE, ServerBridgePlugin, ShellAllowList, shell_allow_path  # noqa: F401


def workspace_roots(params: types.InitializeParams) -> tuple[str, ...]:
    """The workspace folders as existing directories (the root URI or path when there are
    none; the process's working directory as the last resort)."""
    uris = [folder.uri for folder in params.workspace_folders or ()]
    if not uris and params.root_uri:
        uris = [params.root_uri]
    paths = [to_fs_path(uri) for uri in uris if uri.startswith("file:")]
    if not paths and params.root_path:
        paths = [params.root_path]
    roots = tuple(dict.fromkeys(p for p in paths if p and os.path.isdir(p)))
    return roots or (os.getcwd(),)
