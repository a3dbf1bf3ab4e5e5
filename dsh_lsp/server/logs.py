"""Logging for the server process: stderr or a file, never stdout (server layer).

stdout carries the protocol, so the handler writes to stderr (which editors collect, e.g.
Neovim's ``lsp.log``) or to ``--log-file``. pygls logs every message body it sends at INFO;
its loggers stay at WARNING unless the level is DEBUG, which keeps both the cost and the log
size of a busy stream down. API keys are never logged: no code path formats them, and the
handler's ``RedactingFilter`` masks every secret in ``kernel.SECRETS`` as a second net.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Final, Literal

from dsh_lsp.kernel import RedactingFilter

INTERNAL_ERROR: Final = -32603

LogLevel = Literal["debug", "info", "warning", "error"]

LEVELS: Final[dict[str, int]] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}

FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class AnsweredErrors(logging.Filter):
    """Drops pygls's traceback for a request that failed with a ``JsonRpcException``: the
    handler raised it on purpose and the client got it as the answer (internal errors,
    -32603, are kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """False for the records described above."""
        error = record.exc_info[1] if record.exc_info else None
        # pygls loads after the early ``initialize`` answer; before that, no such error.
        exceptions = sys.modules.get("pygls.exceptions") if error is not None else None
        if exceptions is None:
            return True
        return not (isinstance(error, exceptions.JsonRpcException) and error.code != INTERNAL_ERROR)


def configure_logging(level: LogLevel = "warning", file: Path | None = None) -> None:
    """Send log records at ``level`` and above to ``file`` (appended) or stderr.

    Raises OSError when ``file`` cannot be opened.
    """
    handler: logging.Handler
    if file is None:
        handler = logging.StreamHandler(sys.stderr)
    else:
        handler = logging.FileHandler(file, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(LEVELS[level])
    quiet = LEVELS[level] > logging.DEBUG
    logging.getLogger("pygls").setLevel(logging.WARNING if quiet else logging.DEBUG)
    handler.addFilter(AnsweredErrors())
    handler.addFilter(RedactingFilter())
