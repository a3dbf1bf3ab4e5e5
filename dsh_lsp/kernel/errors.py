"""DshError, the root of every error dsh-lsp raises, and the kernel's own errors (kernel layer).

Every error carries a stable, machine-routable ``code``. Each layer subclasses ``DshError`` in
its own ``errors.py``; the kernel's branch is complete here::

    DshError                        DSH_ERROR         root; any layer may raise it directly
     ├── ServiceConflictError       SERVICE_CONFLICT  a second provider for a service key
     ├── ServiceMissingError        SERVICE_MISSING   ctx.require() of an absent service
     ├── PluginConfigError          PLUGIN_CONFIG     config rejected before apply ran
     ├── PluginFailedError          PLUGIN_FAILED     a plugin's apply raised (__cause__)
     ├── EffectError                EFFECT_INVALID    an effect body of the wrong shape
     ├── ListenerError              LISTENER_INVALID  a listener of the wrong shape
     │    └── WaterfallMisuseError  WATERFALL_MISUSE  next() called twice by one listener
     ├── KernelClosedError          KERNEL_CLOSED     registration on a closed kernel/context
     ├── LlmError                   (llm layer)       see dsh_lsp.llm.errors
     └── …                          one branch per layer (session, tools, fs, agent, server)

Errors a listener, disposer or plugin raises are not wrapped by the bus: they propagate as they
are, except through ``ctx.plugin`` (wrapped in ``PluginFailedError``) and the contained paths
that log them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from .fiber import Fiber


class DshError(Exception):
    """Root of every error dsh-lsp raises; ``code`` is stable and safe to route on.

    The class sets the default ``code``; a ``code`` argument overrides it for this instance.
    ``cause`` becomes ``__cause__``. Messages never contain secrets.
    """

    code: ClassVar[str] = "DSH_ERROR"

    def __init__(
        self, message: str, *, code: str | None = None, cause: BaseException | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            # The class-level code is the default; an instance may narrow it (e.g. LlmError's
            # per-failure codes). mypy forbids assigning a ClassVar through an instance.
            self.code = code  # type: ignore[misc]
        if cause is not None:
            self.__cause__ = cause


class ServiceConflictError(DshError):
    """A service key already has a provider; the message names the key and both owners.

    Replacement means disposing the first provider, then providing again.
    """

    code: ClassVar[str] = "SERVICE_CONFLICT"

    def __init__(self, key: str, *, existing: str, incoming: str) -> None:
        super().__init__(
            f"service {key!r} is already provided by {existing}; {incoming} cannot provide it"
            " too (dispose the first provider before providing another)"
        )
        self.key = key
        self.existing = existing
        self.incoming = incoming


class ServiceMissingError(DshError):
    """``ctx.require(key)`` found no provider for the key."""

    code: ClassVar[str] = "SERVICE_MISSING"

    def __init__(self, key: str) -> None:
        super().__init__(f"service {key!r} is not provided")
        self.key = key


class PluginConfigError(DshError):
    """A plugin's config failed validation; raised by ``ctx.plugin`` before anything loads.

    ``plugin`` is the plugin's name and ``fields`` the dotted paths of the rejected fields
    (empty when the validator reported no locations). The message holds the validator's
    per-field explanations but never the rejected values.
    """

    code: ClassVar[str] = "PLUGIN_CONFIG"

    def __init__(self, message: str, *, plugin: str, fields: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.fields = fields


class PluginFailedError(DshError):
    """A plugin's ``apply`` raised; its ``__cause__`` is that exception.

    Raised only to the caller awaiting the activation (``await ctx.plugin(...)``). ``fiber``
    is the failed fiber (state ``FAILED``), still owned by the context that loaded it; dispose
    it to drop it early.
    """

    code: ClassVar[str] = "PLUGIN_FAILED"

    def __init__(self, plugin: str, *, fiber: Fiber, cause: BaseException) -> None:
        super().__init__(f"plugin {plugin!r} failed to apply: {type(cause).__name__}", cause=cause)
        self.plugin = plugin
        self.fiber = fiber


class EffectError(DshError):
    """An effect body or a value it produced is not of a shape ``effect``/``aeffect`` accept."""

    code: ClassVar[str] = "EFFECT_INVALID"


class ListenerError(DshError):
    """A listener does not fit its event's dispatch mode (e.g. a coroutine on an emit event)."""

    code: ClassVar[str] = "LISTENER_INVALID"


class WaterfallMisuseError(ListenerError):
    """A waterfall listener called its ``next()`` a second time."""

    code: ClassVar[str] = "WATERFALL_MISUSE"


class KernelClosedError(DshError):
    """Registration through a kernel, or a fiber's context, that is closed or unloaded."""

    code: ClassVar[str] = "KERNEL_CLOSED"
