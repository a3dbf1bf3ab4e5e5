"""What an endpoint's base URL says about it: where to POST, whether a key is needed, which
wire rules apply (llm.deepseek layer).

Pure: no I/O, no DNS. Three decisions live here so the plugin, the adapter and the docs share
one spelling of each:

* ``normalize_base_url``: the one base-URL rule. The value must be an absolute ``http://`` or
  ``https://`` URL with a host. A pasted ``…/chat/completions`` suffix and trailing slashes are
  dropped. A URL with no path at all gets ``/v1`` (every OpenAI-compatible server serves
  ``/v1/chat/completions``; DeepSeek serves both spellings), one with a path is kept as written
  (``https://openrouter.ai/api/v1``, ``https://api.groq.com/openai/v1``). Anything else is
  rejected at once with a message naming the setting, never retried.
* ``key_required``: a loopback or private-network endpoint (a local vLLM, SGLang, Ollama or
  llama.cpp server) needs no API key.
* ``is_deepseek`` / ``thinks_by_default`` / ``default_reasoning_field``: which provider rules
  the serializer follows (see ``serialize``).
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from typing import Final, Literal

ReasoningField = Literal["reasoning_content", "reasoning"]
"""The message field a server streams reasoning in, and takes it back in."""

_PRIVATE_SUFFIXES: Final = (".localhost", ".local", ".internal", ".lan", ".home.arpa")
_REASONING_HOSTS: Final = ("openrouter.ai", "groq.com")
"""Hosts whose assistant messages take reasoning back as ``reasoning``."""


def _host(base_url: str) -> str:
    return (urllib.parse.urlsplit(base_url).hostname or "").lower()


def _host_is(host: str, domain: str) -> bool:
    return host == domain or host.endswith("." + domain)


def display_url(base_url: str) -> str:
    """``base_url`` without any ``user:password@`` part, for messages and logs."""
    parts = urllib.parse.urlsplit(base_url)
    if "@" not in parts.netloc:
        return base_url
    netloc = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def normalize_base_url(raw: str, *, setting: str) -> str:
    """The API root ``raw`` names, per the module's rule; ``/chat/completions`` is appended.

    ``setting`` names where the value came from (``baseUrl``, ``DEEPSEEK_BASE_URL``) and is
    quoted in the error. Raises ``ValueError`` for a value without an ``http``/``https``
    scheme or host, or with a query or fragment.
    """
    text = raw.strip()
    shown = display_url(text)
    parts = urllib.parse.urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{setting} {shown!r} is not an http:// or https:// URL; write the scheme and host, "
            "for example http://localhost:11434/v1"
        )
    try:
        parts.port  # noqa: B018 - urlsplit validates the port only when it is read
    except ValueError as exc:
        raise ValueError(f"{setting} {shown!r} has an invalid port") from exc
    if not parts.hostname:
        raise ValueError(f"{setting} {shown!r} has no host")
    if parts.query or parts.fragment:
        raise ValueError(f"{setting} {shown!r} must not carry a query or fragment")
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        path = path[: -len("/chat/completions")].rstrip("/")
    if not path:
        path = "/v1"
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc, path, "", ""))


def key_required(base_url: str) -> bool:
    """Whether calls to ``base_url`` need an API key: ``False`` for a local endpoint.

    Local means a loopback, private, link-local or unique-local IP address, ``localhost``, a
    single-label host name (``http://vllm:8000``, as container networks name services) or a
    name under ``.localhost``, ``.local``, ``.internal``, ``.lan`` or ``.home.arpa``. Every
    other host needs a key. Never raises; an unparsable URL needs a key.
    """
    host = _host(base_url)
    if not host:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return not (host == "localhost" or "." not in host or host.endswith(_PRIVATE_SUFFIXES))
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return not (address.is_loopback or address.is_private or address.is_link_local)


def is_deepseek(base_url: str, model: str) -> bool:
    """Whether DeepSeek's thinking-mode rules apply: its API host, or a DeepSeek model name.

    A DeepSeek model behind a gateway (OpenRouter, SGLang, a proxy) inherits the rules, which
    are harmless where a server does not enforce them.
    """
    return _host_is(_host(base_url), "deepseek.com") or "deepseek" in model.lower()


def thinks_by_default(model: str) -> bool:
    """Whether a DeepSeek model thinks when the request does not say: V4 models and
    ``deepseek-reasoner`` do, the ``deepseek-chat`` alias does not."""
    return "deepseek-chat" not in model.lower()


def default_reasoning_field(base_url: str) -> ReasoningField:
    """The field reasoning goes back in before the server has shown its own: ``reasoning``
    for OpenRouter and Groq, ``reasoning_content`` elsewhere (DeepSeek, vLLM, SGLang,
    llama.cpp; Ollama ignores either)."""
    host = _host(base_url)
    return "reasoning" if any(_host_is(host, h) for h in _REASONING_HOSTS) else "reasoning_content"
