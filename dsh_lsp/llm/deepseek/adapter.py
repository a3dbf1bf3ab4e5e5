"""The DeepSeek / OpenAI-compatible streaming adapter over httpx (llm.deepseek layer).

The I/O shell around the pure parts: ``serialize_request`` builds the body, ``SseDecoder``
splits the byte stream, the wire models validate each payload, ``StreamTranslator`` maps it,
``error_from_response`` codes failures, ``RetryPolicy`` decides on retries. One request is
``POST {base_url}/chat/completions``; the same adapter serves any OpenAI-compatible endpoint
(vLLM, SGLang, llama.cpp server, Ollama) through ``base_url``.

Reliability: connect and read-idle timeouts live on the injected ``httpx.AsyncClient``. A call
that fails with a retryable code before it delivered its first chunk is retried after a
backoff (``Retry-After`` honoured); once a chunk was delivered it never is. Cancelling the
consuming task, or closing the iterator, closes the HTTP response at once.

Keep-alive: after ``[DONE]`` the rest of the body (the chunked terminator) is drained within a
``DrainBudget`` before the response closes, so the connection goes back to the client's pool
and the next call skips the connect; the finish chunks follow the drain.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator

import anyio
import httpx

from dsh_lsp import __version__
from dsh_lsp.llm.chunks import StreamChunk
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.request import LlmRequest
from dsh_lsp.llm.retry import RetryPolicy, parse_retry_after
from dsh_lsp.llm.sse import SseDecoder

from .drain import DrainBudget, drain_body
from .http_errors import error_from_response
from .serialize import ReasoningEffort, Thinking, serialize_request
from .translate import StreamTranslator
from .wire import parse_chat_chunk

_log = logging.getLogger(__name__)

USER_AGENT = f"dsh-lsp/{__version__}"
"""Sent with every request so the provider can attribute the traffic."""

DONE = "[DONE]"


class DeepSeekAdapter:
    """An ``LlmAdapter`` for one chat-completions endpoint.

    The adapter does not own ``client``: whoever created it closes it (the plugin does, when
    it is disposed). ``sleep``, ``clock`` (Unix seconds, for ``Retry-After`` dates) and
    ``random`` (a [0, 1) draw for jitter) are injectable for tests; ``drain`` bounds the read
    after ``[DONE]``. The API key is held privately and never appears in a repr, an error or
    a log line.
    """

    __slots__ = (
        "_api_key",
        "_client",
        "_clock",
        "_drain",
        "_random",
        "_reasoning_effort",
        "_retry",
        "_sleep",
        "_thinking",
        "_url",
        "base_url",
    )

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str,
        api_key: str,
        thinking: Thinking | None = None,
        reasoning_effort: ReasoningEffort | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        clock: Callable[[], float] = time.time,
        random: Callable[[], float] = random.random,
        drain: DrainBudget | None = None,
    ) -> None:
        self._client = client
        self.base_url = base_url.rstrip("/")
        self._url = f"{self.base_url}/chat/completions"
        self._api_key = api_key
        self._thinking: Thinking | None = thinking
        self._reasoning_effort: ReasoningEffort | None = reasoning_effort
        self._retry = retry if retry is not None else RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._random = random
        self._drain = drain if drain is not None else DrainBudget()

    def __repr__(self) -> str:
        return f"DeepSeekAdapter(base_url={self.base_url!r})"

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    async def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        """Stream one model call; see ``LlmAdapter.stream`` for the contract.

        Raises ``LlmError``: ``INVALID_REQUEST`` before any I/O if the body cannot be encoded,
        the table code of ``http_errors`` for a non-2xx status, ``TIMEOUT``/``TRANSPORT`` for
        connection trouble, ``MALFORMED_RESPONSE``, ``EMPTY_RESPONSE`` or ``STREAM_CLOSED``
        for a broken stream. Retryable failures are raised only once the retries ran out.
        """
        body = serialize_request(
            request, thinking=self._thinking, reasoning_effort=self._reasoning_effort
        )
        retries = 0
        delivered = False
        while True:
            translator = StreamTranslator()
            try:
                with self._httpx_errors_translated():
                    async with self._client.stream(
                        "POST", self._url, content=body, headers=self._headers()
                    ) as response:
                        if not response.is_success:
                            raise await self._status_error(response)
                        seen_event = done = False
                        received = response.aiter_bytes()
                        async with contextlib.aclosing(_event_batches(received)) as batches:
                            async for events in batches:
                                for data in events:
                                    seen_event = True
                                    if data == DONE:
                                        done = True
                                        break
                                    for chunk in translator.feed(parse_chat_chunk(data)):
                                        delivered = True
                                        yield chunk
                                if done:
                                    break
                        if done:
                            await drain_body(received, self._drain)
                if not done:
                    raise _incomplete(seen_event)
            except LlmError as error:
                if delivered:
                    raise
                delay = self._retry.delay(error, retries, self._random())
                if delay is None:
                    raise
                retries += 1
                _log.warning(
                    "model call failed (%s: %s); retry %d of %d in %.2fs",
                    error.code,
                    error,
                    retries,
                    self._retry.max_retries,
                    delay,
                )
                await self._sleep(delay)
                continue
            # The response is closed already (its connection pooled when the drain read the body
            # to the end): a caller that stops at the finish holds no socket.
            for chunk in translator.finish():
                yield chunk
            return

    def _headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._api_key}",
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "User-Agent": USER_AGENT,
        }

    async def _status_error(self, response: httpx.Response) -> LlmError:
        raw = await response.aread()
        retry_after = parse_retry_after(response.headers.get("retry-after"), self._clock())
        return error_from_response(
            response.status_code, raw, retry_after=retry_after, redact=self._redact
        )

    @contextlib.contextmanager
    def _httpx_errors_translated(self) -> Iterator[None]:
        """Re-raise httpx's timeout and transport errors as coded ``LlmError``s."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise LlmError(
                f"the model API timed out ({type(exc).__name__})",
                code=LlmCode.TIMEOUT,
                cause=exc,
            ) from exc
        except httpx.TransportError as exc:
            raise LlmError(
                f"the connection to the model API failed ({type(exc).__name__}: "
                f"{self._redact(str(exc))})",
                code=LlmCode.TRANSPORT,
                cause=exc,
            ) from exc


async def _event_batches(body: AsyncIterator[bytes]) -> AsyncGenerator[list[str], None]:
    """The event data of ``body``, one list per network read, then the unterminated tail.

    Closing this generator early leaves ``body`` open, so the rest can still be drained.
    """
    decoder = SseDecoder()
    async for raw in body:
        yield decoder.feed(raw)
    yield decoder.close()


def _incomplete(seen_event: bool) -> LlmError:
    if not seen_event:
        return LlmError("the model API returned an empty stream", code=LlmCode.EMPTY_RESPONSE)
    return LlmError("the model API stream ended before [DONE]", code=LlmCode.STREAM_CLOSED)
