"""Secrets the process knows, and the one redactor every outside text passes (kernel layer).

``SECRETS`` is the process-wide ``Redactor``: whoever holds a credential registers it once
(``SECRETS.add(key)``: the model adapter does, when it is built), and from then on
``SECRETS.redact(text)`` replaces the value with ``***``, and so the ``Authorization`` header
built from it (``Bearer ***``); any other token-looking ``Bearer`` credential (16 or more
token characters, a digit among them) is masked too, registered or not. The model adapter
runs every text that came from the model endpoint through it (event data, HTTP error
bodies, transport errors) before anything parses or quotes it, the server runs every
outgoing LSP body through it, and ``RedactingFilter`` (on every log handler the process
installs) is the second net for log records.

Values shorter than ``MIN_SECRET`` characters are not registered: redacting ``"a"`` would
shred every text, and no credential is that short.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Final

MIN_SECRET: Final = 8
"""The shortest value ``Redactor.add`` registers."""
MASK: Final = "***"
_BEARER: Final = re.compile(r"(?i)(\bbearer\s+)(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{16,}")


class Redactor:
    """A set of secret values and ``redact``; thread-safe, append-only."""

    __slots__ = ("_bare", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._bare: tuple[str, ...] = ()

    def add(self, secret: str) -> None:
        """Register ``secret``; short or empty values are ignored."""
        secret = secret.strip()
        if len(secret) < MIN_SECRET:
            return
        with self._lock:
            if secret not in self._bare:
                # Longest first, so a secret that holds another is masked whole.
                self._bare = tuple(sorted((*self._bare, secret), key=len, reverse=True))

    def __bool__(self) -> bool:
        """True once a secret is registered."""
        return bool(self._bare)

    @property
    def count(self) -> int:
        """How many secrets are registered; it only grows, so a cache of anything derived
        from them is current while it is unchanged."""
        return len(self._bare)

    def unsafe_tail(self, text: str) -> int:
        """The length of the longest suffix of ``text`` that starts a registered secret: a
        stream that redacts piece by piece holds that much back until the next piece."""
        longest = 0
        end = len(text)
        for secret in self._bare:
            # Only a suffix that starts with the secret's first character can start it; the
            # leftmost such position that does gives the longest suffix.
            first = secret[0]
            at = text.find(first, max(0, end - len(secret) + 1))
            while at != -1 and end - at > longest:
                if secret.startswith(text[at:]):
                    longest = end - at
                    break
                at = text.find(first, at + 1)
        return longest

    def redact(self, text: str) -> str:
        """``text`` with every registered secret, and every bearer token, replaced by
        ``***``."""
        for value in self._bare:
            if value in text:
                text = text.replace(value, MASK)
        if "earer" in text or "EARER" in text:
            text = _BEARER.sub(rf"\g<1>{MASK}", text)
        return text

    def __contains__(self, text: object) -> bool:
        """True when ``text`` (a str) holds a registered secret."""
        return isinstance(text, str) and any(value in text for value in self._bare)

    def __repr__(self) -> str:
        return f"Redactor({len(self._bare)} secrets)"


SECRETS: Final = Redactor()
"""The process's secrets (see the module docstring)."""


class RedactingFilter(logging.Filter):
    """A handler filter that redacts the formatted message and traceback of every record.

    It renders ``record.msg % record.args`` once, redacts it and stores the result as the
    message (args cleared); the traceback text is rendered and redacted the same way. Never
    drops a record.
    """

    def __init__(self, redactor: Redactor = SECRETS) -> None:
        super().__init__()
        self._redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact ``record`` in place; always True."""
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            message = str(record.msg)
        record.msg = self._redactor.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self._redactor.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redactor.redact(record.stack_info)
        return True


def install_log_filter(logger: logging.Logger | None = None) -> None:
    """Add a ``RedactingFilter`` to every handler of ``logger`` (default: the root logger)
    that has none yet."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
