"""DeepSeekPlugin: one OpenAI-compatible endpoint as a kernel plugin (llm.deepseek layer).

Validates ``DeepSeekConfig``, reads the API key from the environment variable the config
names, opens one shared ``httpx.AsyncClient`` with the configured timeouts over the lean
``KeepAliveTransport`` (``llm.http1``; with a proxy variable set, httpx's own), and
registers a ``DeepSeekAdapter`` for every configured model name with ``LlmService``; at INFO
it logs the endpoint, the model names and whether the key variable is set (never the key).
Unloading the plugin unregisters the models and closes the client.

Without a key the plugin fails to load, or, with ``missingKey: "defer"`` (the language
server's choice: sessions can still be listed and resumed), loads in deferred mode: it
registers the models with an adapter that opens nothing and fails every call with
``LlmError`` (``AUTH``) naming the variable to set.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

import anyio
import httpx

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm.chunks import StreamChunk
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.http1 import KeepAliveTransport
from dsh_lsp.llm.request import LlmRequest
from dsh_lsp.llm.retry import LLM_RETRY, RetryPolicy
from dsh_lsp.llm.service import LLM

from .adapter import DeepSeekAdapter
from .config import DeepSeekConfig
from .endpoint import key_required

_log = logging.getLogger(__name__)


class DeepSeekPlugin(Plugin[DeepSeekConfig]):
    """Registers DeepSeek (or any OpenAI-compatible endpoint) models; injects ``LLM``.

    ``environ`` replaces ``os.environ`` as the source of the key and base URL; ``transport``
    and ``sleep`` reach the client and the retry loop (tests use them). ``apply`` raises
    ``LlmError`` (``AUTH``) when the key variable is unset or empty and the endpoint needs a key
    (``endpoint.key_required``: a local server does not), unless the config's ``missing_key``
    is ``defer`` (see the module docstring); and ``ValueError`` naming ``DEEPSEEK_BASE_URL``
    when that variable is not a usable base URL.
    """

    name = "deepseek"
    config_model = DeepSeekConfig
    inject = (LLM,)

    def __init__(
        self,
        *,
        environ: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
    ) -> None:
        self._environ = environ
        self._transport = transport
        self._sleep = sleep

    async def apply(self, ctx: Context, config: DeepSeekConfig) -> None:
        """Open the client and register the adapter; both are owned by this plugin's fiber."""
        environ = os.environ if self._environ is None else self._environ
        api_key = environ.get(config.api_key_env, "")
        base_url = config.resolved_base_url(environ)
        _log.info(
            "model endpoint %s for %s (API key from $%s: %s)",
            base_url,
            ", ".join(config.models),
            config.api_key_env,
            "set" if api_key else "not set",
        )
        if not api_key and key_required(base_url):
            deferred = MissingKeyAdapter(config.api_key_env)
            if config.missing_key == "fail":
                raise deferred.error()
            ctx.require(LLM).register_adapter(ctx, config.models, deferred)
            return
        # httpx applies proxy variables only to a client without a transport of ours; with
        # none set, requests go to the lean transport directly, past the client's machinery.
        transport = self._transport
        if transport is None and not proxied(environ):
            transport = KeepAliveTransport()
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(config.read_timeout, connect=config.connect_timeout),
            transport=transport,
            verify=needs_tls(base_url, environ),
        )
        ctx.effect(lambda: client.aclose)
        adapter = DeepSeekAdapter(
            client,
            base_url=base_url,
            api_key=api_key,
            thinking=config.thinking,
            reasoning_effort=config.reasoning_effort,
            retry=RetryPolicy(
                max_retries=config.max_retries,
                initial_delay=config.retry_initial_delay,
                max_delay=config.retry_max_delay,
                max_retry_after=config.max_retry_after,
            ),
            sleep=self._sleep,
            first_byte_timeout=config.first_byte_timeout,
            retry_budget=config.retry_budget,
            on_retry=lambda notice: ctx.emit_contained(LLM_RETRY, notice),
            transport=transport if isinstance(transport, KeepAliveTransport) else None,
        )
        ctx.require(LLM).register_adapter(ctx, config.models, adapter)


_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def needs_tls(base_url: str, environ: Mapping[str, str]) -> bool:
    """Whether the client needs its verifying TLS context: for an ``https`` endpoint, or
    when a proxy variable is set (the proxy may be ``https``). Building that context (the
    CA bundle) costs tens of milliseconds of start-up, which a local ``http`` endpoint
    never uses: the client only talks to ``base_url`` and follows no redirects."""
    return not base_url.startswith("http://") or proxied(environ)


def proxied(environ: Mapping[str, str]) -> bool:
    """Whether a proxy variable is set. httpx reads them only for a client without a transport
    of ours, so such a client keeps httpx's own transports (and its proxy mounts)."""
    return any(environ.get(name) or environ.get(name.upper()) for name in _PROXY_VARIABLES)


class MissingKeyAdapter:
    """The deferred mode's adapter: every call fails with ``LlmError`` (``AUTH``) naming the
    unset variable, before anything is sent. Owns nothing."""

    __slots__ = ("variable",)

    def __init__(self, variable: str) -> None:
        self.variable = variable

    def error(self) -> LlmError:
        """A fresh copy of the error each call raises (``apply`` raises it in ``fail`` mode)."""
        return LlmError(f"the API key variable {self.variable} is not set", code=LlmCode.AUTH)

    async def stream(self, request: LlmRequest) -> AsyncIterator[StreamChunk]:
        """Raises the ``AUTH`` error when iterated."""
        raise self.error()
        yield  # pragma: no cover - makes this an async generator that raises when started
