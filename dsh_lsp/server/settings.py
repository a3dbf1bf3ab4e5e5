"""Deployment settings: the ``dsh`` configuration section, validated at the trust boundary (server).

The one settings model of a running dsh-lsp: the language server validates it from
``initializationOptions`` and the ``workspace/configuration`` section ``dsh`` (the second is
merged over the first key by key, ``merge_settings``); ``dsh-lsp run`` validates the same
model from its flags; the composition root (``dsh_lsp.app``) loads the plugins from it and
``DshSettings.agent_options`` gives every new agent its options. Every field has a producer:
an LSP setting (all of them) and, for the ones a terminal run needs, a ``dsh-lsp run`` flag
(``model.*``, ``maxStepsPerTurn``, ``sessionDir``; permissions and edits are the editor's).
Importing this module loads pydantic and the DeepSeek vocabulary only, never httpx or the
layers below the server: ``initialize`` is answered before they load.
``parse_settings`` validates the result and raises ``SettingsError`` whose message names every
bad field by its JSON path (``dsh.permissions.edit: …``) without ever echoing a value, so a
misplaced secret cannot leak through an error. The API key itself is never a setting: the
``model.apiKeyEnv`` variable names the environment variable that holds it
(``DEEPSEEK_API_KEY`` by default); ``DEEPSEEK_BASE_URL`` is the environment default of
``model.baseUrl``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from dsh_lsp.kernel import DshError
from dsh_lsp.llm.deepseek import (
    DEFAULT_MODELS,
    DeepSeekConfig,
    ModelTimeouts,
    display_url,
    key_required,
)
from dsh_lsp.llm.deepseek import ReasoningEffort as ReasoningEffort  # a settings field's type
from dsh_lsp.llm.deepseek import Thinking as Thinking  # the settings model's type, named here

if TYPE_CHECKING:  # the agent layer loads after ``initialize`` was answered
    from dsh_lsp.agent import AgentOptions

SECTION = "dsh"
"""The ``workspace/configuration`` section (and the prefix of every error path)."""

DEFAULT_MODEL: Final = DEFAULT_MODELS[0]
"""The model used when the settings name none."""

EditPolicy = Literal["allow", "ask"]
ShellPolicy = Literal["ask", "allow", "deny"]
ReadOutsidePolicy = Literal["ask", "allow", "deny"]

_CONFIG = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)


class SettingsError(DshError):
    """The ``dsh`` settings are invalid; the message lists each bad field's path."""

    code: ClassVar[str] = "INVALID_SETTINGS"


class ModelSettings(BaseModel):
    """Which model answers and where it lives."""

    model_config = _CONFIG

    name: str = Field(default=DEFAULT_MODEL, min_length=1)
    """The model name sent with every request."""
    base_url: str | None = Field(default=None, min_length=1)
    """The OpenAI-compatible API root; ``None``: ``$DEEPSEEK_BASE_URL``, else DeepSeek's."""
    api_key_env: str = Field(default="DEEPSEEK_API_KEY", min_length=1, pattern=r"^[A-Za-z_]\w*$")
    """The environment variable holding the API key (the key is never a setting)."""
    thinking: Thinking | None = None
    """Thinking mode on or off; ``None`` leaves the provider default."""
    reasoning_effort: ReasoningEffort | None = None
    """How hard the model thinks in thinking mode; ``None`` leaves the provider default."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature of every request; ``None`` leaves the provider default."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Output budget of every request; ``None`` leaves the provider default."""
    stop: tuple[str, ...] | None = Field(default=None, min_length=1, max_length=16)
    """Sequences that end generation when the model produces them; ``None``: none."""
    timeouts: ModelTimeouts = Field(default_factory=ModelTimeouts)
    """``connect``, ``firstByte``, ``readIdle`` and ``retryBudget``, in seconds."""
    context_window: int | None = Field(default=None, ge=1024, le=100_000_000)
    """The model's context window in tokens (the meter's scale, compaction's limit);
    ``None``: known for the shipped models, else 128000."""

    def endpoint(self) -> tuple[object, ...]:
        """The fields fixed when the plugins load (a change needs a restart); the request
        knobs (temperature, maxTokens, stop) reach each new session at once."""
        return (
            self.name,
            self.base_url,
            self.api_key_env,
            self.thinking,
            self.reasoning_effort,
            self.timeouts,
            self.context_window,
        )

    def status(self, environ: Mapping[str, str]) -> dict[str, str | bool]:
        """What ``dsh/status`` reports: the model name, the resolved base URL (this setting,
        ``$DEEPSEEK_BASE_URL`` or DeepSeek's, normalised as the adapter uses it, without any
        ``user:password@``), the key variable and whether it is set and needed. Never the key.

        Raises ``ValueError`` naming ``DEEPSEEK_BASE_URL`` when that variable is not a usable
        base URL (start-up then failed already).
        """
        base_url = DeepSeekConfig(base_url=self.base_url).resolved_base_url(environ)
        return {
            "model": self.name,
            "baseUrl": display_url(base_url),
            "apiKeyEnv": self.api_key_env,
            "apiKeySet": bool(environ.get(self.api_key_env)),
            "apiKeyRequired": key_required(base_url),
        }


class PermissionSettings(BaseModel):
    """When a tool call needs the user's approval."""

    model_config = _CONFIG

    edit: EditPolicy = "allow"
    """File edits: ``allow`` (they stay undoable in the editor) or ``ask`` per call."""
    shell: ShellPolicy = "ask"
    """Command execution tools."""
    shell_allow: tuple[str, ...] = ()
    """Command prefixes approved without asking when ``shell`` is ``ask`` (``npm test``,
    ``pytest``); they approve simple commands only, never chains, pipes or redirections.
    Prefixes remembered by "always allow" come on top (``dsh/shell/allowedPrefixes``)."""
    read_outside_workspace: ReadOutsidePolicy = "ask"
    """Reads (read, list, glob, grep) of paths outside every workspace folder."""


class EditSettings(BaseModel):
    """How agent edits reach the disk (they land in the editor's buffers, unsaved)."""

    model_config = _CONFIG

    save_after_turn: bool = False
    """Ask the editor (``dsh/saveDocuments``) to save the agent's edits after each turn;
    off: the user saves."""


class EditorSettings(BaseModel):
    """What the agent takes from the editor's language servers (``dsh/editor/*``)."""

    model_config = _CONFIG

    diagnostics_after_edit: bool = True
    """Add the new problems the editor's language servers report for the version an edit
    wrote to the edit's result."""
    diagnostics_timeout_ms: int = Field(default=1500, ge=0, le=10_000)
    """How long an edit's result waits for the diagnostics of that version."""
    request_timeout_ms: int = Field(default=5000, ge=100, le=60_000)
    """How long a ``definition``/``references``/``symbols``/``hover``/``diagnostics`` tool
    waits for the editor's answer."""


class ShellSettings(BaseModel):
    """The command tools' limits (``bash``)."""

    model_config = _CONFIG

    default_timeout: float = Field(default=120.0, gt=0, le=86_400)
    """Seconds a command may run when the model names no timeout."""
    max_timeout: float = Field(default=600.0, gt=0, le=86_400)
    """The largest timeout the model may ask for."""


class CompactionSettings(BaseModel):
    """When long sessions are summarized to fit the context window."""

    model_config = _CONFIG

    threshold: float = Field(default=0.8, gt=0, le=1)
    """Compact before a step whose request would fill this share of the window."""


class InstructionsSettings(BaseModel):
    """Project instruction files the agent follows."""

    model_config = _CONFIG

    files: tuple[str, ...] = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md")
    """Names looked for in the workspace root and in folders of files the agent touches."""


class DshSettings(BaseModel):
    """The whole ``dsh`` section."""

    model_config = _CONFIG

    model: ModelSettings = Field(default_factory=ModelSettings)
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    edits: EditSettings = Field(default_factory=EditSettings)
    editor: EditorSettings = Field(default_factory=EditorSettings)
    shell: ShellSettings = Field(default_factory=ShellSettings)
    instructions: InstructionsSettings = Field(default_factory=InstructionsSettings)
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    max_steps_per_turn: int = Field(default=64, ge=1, le=10_000)
    """Model requests one turn may make before it stops with ``max_turn_requests``."""
    session_dir: str | None = Field(default=None, min_length=1)
    """Where session logs live; ``None``: ``$XDG_STATE_HOME/dsh-lsp/sessions``."""
    session_store: Literal["jsonl", "sqlite"] = "jsonl"
    """The storage backend: one JSONL file per session, or one SQLite database."""

    def agent_options(self) -> AgentOptions:
        """The options every new agent gets (model, step cap, request knobs). Imports the
        agent layer; never raises (the fields were validated)."""
        from dsh_lsp.agent import AgentOptions

        model = self.model
        return AgentOptions(
            model=model.name,
            max_steps=self.max_steps_per_turn,
            temperature=model.temperature,
            max_tokens=model.max_tokens,
            stop=model.stop,
        )

    def needs_restart(self, other: DshSettings) -> bool:
        """Whether switching from these settings to ``other`` needs a restart: a changed
        model endpoint, session directory or session store, or the shell, instructions or
        compaction blocks (their plugins are configured when they load); the rest applies
        at once."""
        return self._load_time() != other._load_time()

    def _load_time(self) -> tuple[object, ...]:
        return (
            self.model.endpoint(),
            self.session_dir,
            self.session_store,
            self.shell,
            self.instructions,
            self.compaction,
        )


def parse_settings(raw: object) -> DshSettings:
    """Validate ``raw`` (a JSON object, or None for defaults) as the ``dsh`` section.

    Raises SettingsError naming each bad field (``dsh.model.name: …``); values never appear.
    """
    if raw is None:
        return DshSettings()
    if not isinstance(raw, Mapping):
        raise SettingsError(f"{SECTION}: must be an object, not {type(raw).__name__}")
    try:
        return DshSettings.model_validate(dict(raw))
    except ValidationError as exc:
        raise SettingsError(describe_validation_error(exc, SECTION)) from None


def describe_validation_error(exc: ValidationError, root: str) -> str:
    """One line per error: ``<root>.<path>: <message>``; input values are left out."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        path = root + "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
        )
        message = "unknown field" if error["type"] == "extra_forbidden" else error["msg"]
        lines.append(f"{path}: {message}")
    return "; ".join(lines) or f"{root}: invalid"


def merge_settings(base: object, override: object) -> object:
    """``override`` merged over ``base``: objects merge key by key (recursively), anything
    else in ``override`` replaces; ``None`` (an absent section) leaves ``base`` as it is."""
    if override is None:
        return base
    if isinstance(base, Mapping) and isinstance(override, Mapping):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = merge_settings(base.get(key), value)
        return merged
    return override
