"""DeepSeekPlugin: one OpenAI-compatible endpoint as a kernel plugin (llm.deepseek layer).

Validates ``DeepSeekConfig``, reads the API key from the environment variable the config
names, opens one shared ``httpx.AsyncClient`` with the configured timeouts, and registers a
``DeepSeekAdapter`` for every configured model name with ``LlmService``. Unloading the plugin
unregisters the models and closes the client.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping

import anyio
import httpx

from dsh_lsp.kernel import Context, Plugin
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.retry import LLM_RETRY, RetryPolicy
from dsh_lsp.llm.service import LLM

from .adapter import DeepSeekAdapter
from .config import DeepSeekConfig
from .endpoint import key_required


class DeepSeekPlugin(Plugin[DeepSeekConfig]):
    """Registers DeepSeek (or any OpenAI-compatible endpoint) models; injects ``LLM``.

    ``environ`` replaces ``os.environ`` as the source of the key and base URL; ``transport``
    and ``sleep`` reach the client and the retry loop (tests use them). ``apply`` raises
    ``LlmError`` (``AUTH``) when the key variable is unset or empty and the endpoint needs a key
    (``endpoint.key_required``: a local server does not), and ``ValueError`` naming
    ``DEEPSEEK_BASE_URL`` when that variable is not a usable base URL.
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
        if not api_key and key_required(base_url):
            raise LlmError(
                f"the API key variable {config.api_key_env} is not set", code=LlmCode.AUTH
            )
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(config.read_timeout, connect=config.connect_timeout),
            transport=self._transport,
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
        )
        ctx.require(LLM).register_adapter(ctx, config.models, adapter)
