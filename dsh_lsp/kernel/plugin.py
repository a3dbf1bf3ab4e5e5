"""Plugin: the unit of extension, and validation of its config (kernel layer).

A plugin declares its ``name``, the services it needs (``inject``), the class that validates
its config (``config_model``) and an async ``apply``. Config validation is duck-typed: any
class with a ``model_validate(obj)`` classmethod works, so a pydantic model is the usual
choice while the kernel itself never imports pydantic. A validator's structured errors are
read through ``errors()`` items carrying ``loc`` and ``msg`` (pydantic's shape). The
DeepSeek endpoint plugin, in short (``dsh_lsp.llm.deepseek.plugin``)::

    class DeepSeekPlugin(Plugin[DeepSeekConfig]):
        name = "deepseek"
        config_model = DeepSeekConfig
        inject = (LLM,)

        async def apply(self, ctx: Context, config: DeepSeekConfig) -> None:
            client = httpx.AsyncClient()
            ctx.effect(lambda: client.aclose)
            adapter = DeepSeekAdapter(client, base_url=DEFAULT_BASE_URL, api_key="...")
            ctx.require(LLM).register_adapter(ctx, config.models, adapter)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from .errors import PluginConfigError
from .services import ServiceKey

if TYPE_CHECKING:
    from .context import Context

C = TypeVar("C")
C_co = TypeVar("C_co", covariant=True)


class ConfigModel(Protocol[C_co]):
    """A config class: ``model_validate(obj)`` returns the validated config or raises."""

    def model_validate(self, obj: Any, /) -> C_co:
        # Any: the raw config is whatever the caller hands to ctx.plugin (often a dict).
        ...


class Plugin(ABC, Generic[C]):
    """Base class of every plugin; ``C`` is the validated config type (``None`` for none).

    ``config_model`` None means the plugin takes no config. ``inject`` lists the service keys
    that must be provided before ``apply`` runs; the fiber unloads when one is withdrawn and
    applies again when it returns.
    """

    name: ClassVar[str] = ""
    inject: ClassVar[tuple[ServiceKey[Any], ...]] = ()
    # Any: a plugin injects services of unrelated types.
    config_model: ConfigModel[C] | None = None

    @abstractmethod
    async def apply(self, ctx: Context, config: C) -> None:
        """Register everything the plugin contributes through ``ctx``.

        Everything registered through ``ctx`` is owned by this plugin's fiber and undone when
        it unloads. An exception marks the fiber FAILED, undoes what was registered so far,
        and reaches only the caller awaiting the activation (as PluginFailedError).
        """


def plugin_name(plugin: Plugin[Any]) -> str:
    """The plugin's declared name, or its class name when it declares none.

    Any: the name does not depend on the config type.
    """
    return plugin.name or type(plugin).__name__


def validate_config(plugin: Plugin[C], raw: object) -> C:
    """Validate ``raw`` with the plugin's ``config_model`` (``None`` validates as ``{}``).

    Raises PluginConfigError naming the plugin and the failing fields. A validator error with
    structured ``errors()`` is not chained, since its text may quote the rejected values
    (secrets included); any other validator error is kept as ``__cause__``.
    """
    name = plugin_name(plugin)
    model = plugin.config_model
    if model is None:
        if raw is not None:
            raise PluginConfigError(f"plugin {name!r} takes no config", plugin=name)
        # The plugin declared no config model, so its config type is None by contract.
        return None  # type: ignore[return-value]
    try:
        return model.model_validate({} if raw is None else raw)
    except Exception as exc:
        problems = _problems(exc)
        if not problems:
            raise PluginConfigError(
                f"plugin {name!r}: invalid config ({type(exc).__name__})", plugin=name
            ) from exc
    fields = tuple(field for field, _ in problems)
    detail = "; ".join(f"field {field!r}: {msg}" for field, msg in problems)
    raise PluginConfigError(
        f"plugin {name!r}: invalid config: {detail}", plugin=name, fields=fields
    ) from None


def _problems(exc: Exception) -> list[tuple[str, str]]:
    """(dotted field, message) pairs from an ``errors()`` method, if the error has one."""
    errors = getattr(exc, "errors", None)
    if not callable(errors):
        return []
    try:
        items = errors()
    except Exception:
        return []
    if not isinstance(items, Sequence):
        return []
    problems: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        loc = item.get("loc", ())
        parts = loc if isinstance(loc, Sequence) and not isinstance(loc, str) else (loc,)
        field = ".".join(str(part) for part in parts) or "<root>"
        problems.append((field, str(item.get("msg", "invalid"))))
    return problems
