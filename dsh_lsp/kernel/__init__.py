"""Microkernel: services, plugins with disposable effects, and typed events (stdlib + anyio).

The lowest layer of dsh-lsp; it imports nothing of ours. One ``Kernel`` owns the task group
and the root ``Context``; every feature is a ``Plugin`` loaded through a context into a
``Fiber``. Registrations (services, listeners, effects, tasks, child plugins) are owned by the
registering fiber and undone newest first when it unloads. Events are typed declarations
whose class fixes the dispatch mode: emit, waterfall, stream waterfall, serial, parallel.
A process runs its kernel on the event loop ``loop_options`` picks (uvloop where installed).
"""

from __future__ import annotations

from .context import Context as Context
from .disposer import Disposer as Disposer
from .effects import AsyncEffectBody as AsyncEffectBody
from .effects import EffectBody as EffectBody
from .effects import Teardown as Teardown
from .errors import DshError as DshError
from .errors import EffectError as EffectError
from .errors import KernelClosedError as KernelClosedError
from .errors import ListenerError as ListenerError
from .errors import PluginConfigError as PluginConfigError
from .errors import PluginFailedError as PluginFailedError
from .errors import ServiceConflictError as ServiceConflictError
from .errors import ServiceMissingError as ServiceMissingError
from .errors import WaterfallMisuseError as WaterfallMisuseError
from .event_loop import loop_options as loop_options
from .events import EmitEvent as EmitEvent
from .events import ParallelEvent as ParallelEvent
from .events import SerialEvent as SerialEvent
from .events import StreamWaterfallEvent as StreamWaterfallEvent
from .events import WaterfallEvent as WaterfallEvent
from .fiber import Fiber as Fiber
from .fiber import FiberState as FiberState
from .kernel import Kernel as Kernel
from .plugin import ConfigModel as ConfigModel
from .plugin import Plugin as Plugin
from .secrets import SECRETS as SECRETS
from .secrets import RedactingFilter as RedactingFilter
from .secrets import Redactor as Redactor
from .secrets import install_log_filter as install_log_filter
from .services import ServiceKey as ServiceKey

__all__ = (
    "SECRETS",
    "AsyncEffectBody",
    "ConfigModel",
    "Context",
    "Disposer",
    "DshError",
    "EffectBody",
    "EffectError",
    "EmitEvent",
    "Fiber",
    "FiberState",
    "Kernel",
    "KernelClosedError",
    "ListenerError",
    "ParallelEvent",
    "Plugin",
    "PluginConfigError",
    "PluginFailedError",
    "RedactingFilter",
    "Redactor",
    "SerialEvent",
    "ServiceConflictError",
    "ServiceKey",
    "ServiceMissingError",
    "StreamWaterfallEvent",
    "Teardown",
    "WaterfallEvent",
    "WaterfallMisuseError",
    "install_log_filter",
    "loop_options",
)
