"""The DeepSeek / OpenAI-compatible streaming adapter over httpx (llm.deepseek layer).

The I/O shell around the pure parts: ``RequestEncoder`` builds the body, ``SseDecoder``
splits the byte stream, the wire models validate each payload, ``StreamTranslator`` maps it,
``error_from_response`` codes failures, ``RetryPolicy`` decides on retries. One request is
``POST {base_url}/chat/completions``, the base URL normalised by ``endpoint`` (``/v1`` added
to a URL without a path); the same adapter serves any OpenAI-compatible endpoint (vLLM,
SGLang, llama.cpp server, Ollama) through ``base_url``. Without a key no ``Authorization``
header is sent (local servers need none, see ``endpoint.key_required``). The endpoint, and
each model the first time it is called, are logged at info level.

Provider rules: the body follows ``serialize.wire_rules`` for the request's model; reasoning
goes back in the field the server last streamed it in (before any answer, the host's
default: ``endpoint.default_reasoning_field``) unless ``reasoning_field`` fixes it.

A 200 whose body holds no SSE event but one JSON document (an error object, or a whole
non-streamed completion) is read as that document: an error is coded by its fields and
retried only when transient; a completion is translated like a stream.

Secrets: every text that comes from the endpoint (each event's data, the body of a 200 without
events, an HTTP error body, a transport error) passes ``kernel.SECRETS`` (which holds this
adapter's key from its construction on) before it is parsed, quoted or logged, and every
``LlmError`` leaving ``stream`` is scrubbed once more: the key cannot reach an error message,
a session record, the client or a log line, whatever the endpoint echoes.

Reliability: connect and read-idle timeouts live on the injected ``httpx.AsyncClient`` (and
go with each request when it is sent to the lean transport directly). A call
that fails with a retryable code before it delivered its first chunk is retried after a
backoff (``Retry-After`` honoured); once a chunk was delivered it never is. Cancelling the
consuming task, or closing the iterator, closes the HTTP response at once.

Deltas: the chunks of one network read go through ``merge_deltas``, so a read that carried
many events yields one delta per block rather than one per event; the call's first text
goes out as soon as its event is read, so merging never delays the first update.

Keep-alive: after ``[DONE]`` the rest of the body (the chunked terminator) is drained within a
``DrainBudget`` before the response closes, so the connection goes back to the client's pool
and the next call skips the connect; the finish chunks follow the drain.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Sequence,
)

import anyio
import httpx

from dsh_lsp import __version__
from dsh_lsp.kernel import SECRETS, Redactor
from dsh_lsp.llm.chunks import ReasoningDelta, StreamChunk, TextDelta
from dsh_lsp.llm.errors import LlmCode, LlmError
from dsh_lsp.llm.http1 import KeepAliveTransport
from dsh_lsp.llm.merge import merge_deltas
from dsh_lsp.llm.request import LlmRequest
from dsh_lsp.llm.retry import LlmRetry, RetryPolicy, parse_retry_after
from dsh_lsp.llm.secret_stream import redact_chunks
from dsh_lsp.llm.sse import SseDecoder

from .drain import DrainBudget, drain_body
from .endpoint import (
    ReasoningField,
    default_reasoning_field,
    display_url,
    normalize_base_url,
)
from .http_errors import error_from_payload, error_from_response
from .serialize import ReasoningEffort, RequestEncoder, Thinking, wire_rules
from .translate import StreamTranslator, ThinkTags
from .wire import ChatChunk, parse_chat_chunk

_log = logging.getLogger(__name__)

USER_AGENT = f"dsh-lsp/{__version__}"
"""Sent with every request so the provider can attribute the traffic."""

DONE = "[DONE]"

SNIFF_BYTES = 64 * 1024
"""How much of a body without SSE events is kept to read it as one JSON document."""


class DeepSeekAdapter:
    """An ``LlmAdapter`` for one chat-completions endpoint.

    The adapter does not own ``client``: whoever created it closes it (the plugin does, when
    it is disposed). ``api_key`` may be empty (a local server): then no ``Authorization``
    header is sent. ``think_tags`` picks how inline ``<think>`` content is read (see
    ``translate``); ``reasoning_field`` fixes the field reasoning goes back in (default: the one
    the server streams). ``sleep``, ``clock`` (Unix seconds, for ``Retry-After`` dates) and
    ``random`` (a [0, 1) draw for jitter) are injectable for tests; ``drain`` bounds the read
    after ``[DONE]``. ``first_byte_timeout`` bounds the wait for the response to start,
    ``retry_budget`` the seconds one call may spend on failed attempts and backoff
    (``monotonic`` measures them), and ``on_retry`` hears of each retry before its backoff.
    ``transport``, when given, is the lean transport ``client`` routes this endpoint to:
    requests then go to its ``send`` with the client's timeouts, past the client's own
    machinery (base URL merge, cookies, auth flows, redirects), none of which this adapter
    uses; the client still owns and closes it. The API key is held privately and never
    appears in a repr, an error or a log line. Raises ``ValueError`` (naming ``baseUrl``) for
    a base URL that breaks the ``endpoint`` rule.
    """

    __slots__ = (
        "_api_key",
        "_client",
        "_clock",
        "_drain",
        "_encoder",
        "_field_fixed",
        "_first_byte",
        "_logged_models",
        "_monotonic",
        "_on_retry",
        "_random",
        "_raw_headers",
        "_reasoning_effort",
        "_reasoning_field",
        "_retry",
        "_retry_budget",
        "_secrets",
        "_sleep",
        "_think_tags",
        "_thinking",
        "_timeouts",
        "_transport",
        "_url",
        "_url_parsed",
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
        think_tags: ThinkTags = "auto",
        reasoning_field: ReasoningField | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        clock: Callable[[], float] = time.time,
        random: Callable[[], float] = random.random,
        drain: DrainBudget | None = None,
        first_byte_timeout: float | None = None,
        retry_budget: float | None = None,
        on_retry: Callable[[LlmRetry], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        transport: KeepAliveTransport | None = None,
    ) -> None:
        self._client = client
        self._transport = transport
        self._timeouts = client.timeout.as_dict()
        self.base_url = normalize_base_url(base_url, setting="baseUrl")
        self._url = f"{self.base_url}/chat/completions"
        self._url_parsed = httpx.URL(self._url)  # parsed once, not per request
        self._api_key = api_key
        self._raw_headers = [  # the lean transport's form, built once (Host and length it adds)
            (name.encode("ascii"), value.encode("latin-1"))
            for name, value in self._headers().items()
        ]
        SECRETS.add(api_key)
        self._secrets = Redactor()  # this adapter's own key: what its chunk stream masks
        self._secrets.add(api_key)
        self._thinking: Thinking | None = thinking
        self._reasoning_effort: ReasoningEffort | None = reasoning_effort
        self._think_tags: ThinkTags = think_tags
        self._field_fixed = reasoning_field is not None
        self._reasoning_field: ReasoningField = reasoning_field or default_reasoning_field(
            self.base_url
        )
        self._logged_models: set[str] = set()
        self._encoder = RequestEncoder()
        self._retry = retry if retry is not None else RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._random = random
        self._drain = drain if drain is not None else DrainBudget()
        self._first_byte = first_byte_timeout
        self._retry_budget = retry_budget
        self._on_retry = on_retry
        self._monotonic = monotonic
        _log.info(
            "model endpoint %s (%s)",
            display_url(self._url),
            "API key set" if api_key else "no API key",
        )

    def __repr__(self) -> str:
        return f"DeepSeekAdapter(base_url={display_url(self.base_url)!r})"

    def _redact(self, text: str) -> str:
        text = text.replace(self._api_key, "***") if self._api_key else text
        return SECRETS.redact(text)

    def stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        """Stream one model call; see ``LlmAdapter.stream`` for the contract. The chunks pass
        ``redact_chunks`` (a key split across deltas is masked too).

        Raises ``LlmError``: ``INVALID_REQUEST`` before any I/O if the body cannot be encoded,
        the table code of ``http_errors`` for a non-2xx status, ``TIMEOUT``/``TRANSPORT`` for
        connection trouble, ``MALFORMED_RESPONSE``, ``EMPTY_RESPONSE`` or ``STREAM_CLOSED``
        for a broken stream. Retryable failures are raised only once the retries ran out.
        """
        return redact_chunks(self._stream(request), self._secrets)

    async def _stream(self, request: LlmRequest) -> AsyncGenerator[StreamChunk, None]:
        rules = wire_rules(
            request.model,
            base_url=self.base_url,
            thinking=self._thinking,
            reasoning_field=self._reasoning_field,
        )
        body = self._encoder.encode(
            request,
            thinking=self._thinking,
            reasoning_effort=self._reasoning_effort,
            rules=rules,
        )
        if request.model not in self._logged_models:
            self._logged_models.add(request.model)
            _log.info(
                "model %s at %s (thinking %s)",
                request.model,
                display_url(self.base_url),
                self._thinking or "default",
            )
        retries = 0
        delivered = False
        started = self._monotonic()
        while True:
            translator = StreamTranslator(think_tags=self._think_tags)
            try:
                with self._httpx_errors_translated():
                    async with self._opened(body) as response:
                        if not response.is_success:
                            raise await self._status_error(response)
                        seen_event = done = False
                        sniffed = bytearray()
                        received = _kept(response.aiter_bytes(), sniffed)
                        decoder = SseDecoder()
                        events_of = _event_batches(received, decoder)
                        async with contextlib.aclosing(events_of) as batches:
                            async for events in batches:
                                read: list[StreamChunk] = []
                                failure: LlmError | None = None
                                for event in events:
                                    seen_event = True
                                    data = self._redact(event)  # the one seam: see the docstring
                                    if data == DONE:
                                        done = True
                                        break
                                    try:
                                        fed = translator.feed(parse_chat_chunk(data))
                                    except LlmError as error:
                                        failure = error  # after what the read gave before it
                                        break
                                    read.extend(fed)
                                    if not delivered and _shows_text(fed):
                                        delivered = True  # the first text goes out at once
                                        for chunk in read:
                                            yield chunk
                                        read = []
                                for chunk in merge_deltas(read) if len(read) > 1 else read:
                                    delivered = True
                                    yield chunk
                                if failure is not None:
                                    raise failure
                                if done:
                                    break
                        if done:
                            # What the last read held past [DONE] counts toward the cap.
                            await drain_body(received, self._drain, already=decoder.buffered)
                        elif not seen_event:
                            document = _json_document(
                                self._redact(bytes(sniffed).decode("utf-8", "replace")),
                                self._redact,
                            )
                            if document is not None:
                                for chunk in translator.feed(document):
                                    delivered = True
                                    yield chunk
                                done = True
                if not done:
                    raise _incomplete(seen_event)
            except LlmError as error:
                _scrub(error, self._redact)
                if delivered:
                    raise
                delay = self._retry.delay(error, retries, self._random())
                if delay is None:
                    raise
                spent = self._monotonic() - started
                if self._retry_budget is not None and spent + delay > self._retry_budget:
                    _log.warning(
                        "model call failed (%s); the retry budget of %.0fs is spent",
                        error.code,
                        self._retry_budget,
                    )
                    raise
                retries += 1
                if self._on_retry is not None:
                    reason = str(error.status) if error.status is not None else error.code
                    notice = LlmRetry(
                        session_id=request.session_id,
                        attempt=retries,
                        max_retries=self._retry.max_retries,
                        reason=reason,
                        delay=delay,
                    )
                    self._on_retry(notice)
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
            if translator.reasoning_field is not None and not self._field_fixed:
                self._reasoning_field = translator.reasoning_field
            # The response is closed already (its connection pooled when the drain read the body
            # to the end): a caller that stops at the finish holds no socket.
            for chunk in translator.finish():
                yield chunk
            return

    @contextlib.asynccontextmanager
    async def _opened(self, body: Sequence[bytes]) -> AsyncIterator[httpx.Response]:
        """The streamed response, its headers awaited within the first-byte timeout.
        Raises LlmError ``TIMEOUT`` when they do not arrive in time (and httpx's errors)."""
        async with contextlib.AsyncExitStack() as stack:
            try:
                with anyio.fail_after(self._first_byte):
                    response = await stack.enter_async_context(self._sent(body))
            except TimeoutError:
                raise LlmError(
                    f"the model API sent nothing within {self._first_byte:g}s (first-byte timeout)",
                    code=LlmCode.TIMEOUT,
                ) from None
            yield response

    def _sent(
        self, body: Sequence[bytes]
    ) -> contextlib.AbstractAsyncContextManager[httpx.Response]:
        """The request (``body`` in its pieces) sent, as a context that closes its response."""
        if self._transport is not None:
            sending = self._transport.send(
                "POST", self._url_parsed, self._raw_headers, body, self._timeouts
            )
            return _opened_by(sending)
        whole = b"".join(body)
        headers = self._headers()
        headers["Content-Length"] = str(len(whole))
        return self._client.stream("POST", self._url, content=_sent_once(whole), headers=headers)

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "User-Agent": USER_AGENT,
        }
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

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


def _scrub(error: LlmError, redact: Callable[[str], str]) -> None:
    """Redact ``error``'s message and provider message in place."""
    message = redact(error.message)
    if message != error.message:
        error.message = message
        error.args = (message, *error.args[1:])
    if error.provider_message is not None:
        error.provider_message = redact(error.provider_message)


async def _kept(body: AsyncIterator[bytes], kept: bytearray) -> AsyncGenerator[bytes, None]:
    """``body``, with its first ``SNIFF_BYTES`` also copied into ``kept``."""
    async for raw in body:
        if len(kept) < SNIFF_BYTES:
            kept.extend(raw[: SNIFF_BYTES - len(kept)])
        yield raw


def _json_document(body: str, redact: Callable[[str], str]) -> ChatChunk | None:
    """A body without SSE events (already redacted) read as one JSON document: a completion
    to translate, or ``None`` when it is no document at all. Raises the ``LlmError`` an error
    object names."""
    text = body.strip()
    if not text.startswith("{"):
        return None
    try:
        document = parse_chat_chunk(text)
    except LlmError:
        return None
    error = document.get("error")
    if error is not None:
        raise error_from_payload(error, where="as the whole response body", redact=redact)
    choices = document.get("choices")
    if not choices or choices[0].get("message") is None:
        return None
    return document


async def _event_batches(
    body: AsyncIterator[bytes], decoder: SseDecoder
) -> AsyncGenerator[list[str], None]:
    """The event data of ``body`` (decoded by ``decoder``, which the caller keeps to see what
    it still buffers), one list per network read, then the unterminated tail.

    The first read is decoded in two parts, its head first, so the first event is not kept
    waiting while the rest of a large read is split. Closing this generator early leaves
    ``body`` open, so the rest can still be drained.
    """
    first = True
    async for raw in body:
        if first and len(raw) > _FIRST_SLICE:
            yield decoder.feed(raw[:_FIRST_SLICE])
            raw = raw[_FIRST_SLICE:]
        first = False
        yield decoder.feed(raw)
    yield decoder.close()


_FIRST_SLICE = 2048
"""Bytes of the first read decoded before the rest (a few events)."""


def _shows_text(chunks: list[StreamChunk]) -> bool:
    """Whether ``chunks`` hold answer or reasoning text (what the first update shows)."""
    return any(isinstance(chunk, TextDelta | ReasoningDelta) for chunk in chunks)


def _incomplete(seen_event: bool) -> LlmError:
    if not seen_event:
        return LlmError("the model API returned an empty stream", code=LlmCode.EMPTY_RESPONSE)
    return LlmError("the model API stream ended before [DONE]", code=LlmCode.STREAM_CLOSED)


@contextlib.asynccontextmanager
async def _opened_by(sending: Awaitable[httpx.Response]) -> AsyncIterator[httpx.Response]:
    """The response ``sending`` gives; it is closed on the way out."""
    response = await sending
    try:
        yield response
    finally:
        await response.aclose()


async def _sent_once(body: bytes) -> AsyncIterator[bytes]:
    """The request body as a one-shot stream (its length is in the headers). Given as bytes,
    httpx's request keeps them in a response-stream reference cycle that only the cycle
    collector frees, so a long session held several of its largest bodies at once; the
    generator lets them go as soon as they are sent."""
    yield body
