"""Reading, repairing and listing JSONL session logs (session layer; blocking calls).

A log file is a header line, then one compact event record per line, each ending in ``\\n``.
``read_log`` reads a whole file, decides what survives with ``recovery.scan``, truncates a
torn tail to the end of the last good line, appends the closers of an interrupted turn, and
makes both repairs durable before returning. Errors name the file and the line (the header is
line 1, the event with seq N is line N + 2).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

from dsh_lsp.llm import loads_strict

from . import durable_files
from .errors import CORRUPT, IO_FAILED, SessionError
from .event import encode_event
from .header import SessionHeader, header_from_json
from .jsonl_layout import SUFFIX
from .persistence import LoadedSession, StoredSession
from .recovery import interrupted_turn_closers, scan

logger = logging.getLogger(__name__)


def encode_lines(records: list[str]) -> bytes:
    """``records`` as newline-terminated UTF-8 lines."""
    return "".join(record + "\n" for record in records).encode("utf-8")


def read_log(path: Path) -> LoadedSession:
    """Read the log at ``path``, repairing a crash durably (see the module docstring).

    Raises ``SessionError``: ``SESSION_CORRUPT`` / ``SESSION_UNSUPPORTED_VERSION`` naming
    the file and line, or ``SESSION_IO`` with the ``OSError`` as cause.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise io_error("read", path, exc) from exc
    lines = _split_lines(raw)
    header = _header(path, lines[0], complete=len(lines) > 1)
    body = lines[1:]
    damaged: dict[int, str] = {}
    if body[-1]:  # the file does not end with a newline: the last line is unfinished
        damaged[len(body) - 1] = "the line is unfinished (no line end)"
    else:
        body.pop()
    events = scan(body, lambda index: f"{path} line {index + 2}", damaged=damaged)
    repaired = False
    if len(events) < len(body):
        keep = sum(_byte_length(line) + 1 for line in lines[: len(events) + 1])
        logger.warning("%s: cutting a torn tail after line %d", path, len(events) + 1)
        _guard("truncate", path, lambda: durable_files.truncate(path, keep))
        repaired = True
    closers = interrupted_turn_closers(events)
    if closers:
        data = encode_lines([encode_event(event) for event in closers])
        _guard("repair", path, lambda: durable_files.append(path, data))
        repaired = True
    return LoadedSession(header=header, events=(*events, *closers), repaired=repaired)


def list_logs(root: Path) -> list[StoredSession]:
    """Every readable log under ``root`` (headers from first lines only), newest first.

    Files whose first line is not a valid header are skipped with a warning.
    """
    found: list[StoredSession] = []
    try:
        buckets = [entry for entry in root.iterdir() if entry.is_dir()]
    except FileNotFoundError:
        return found
    except OSError as exc:
        raise io_error("list", root, exc) from exc
    for bucket in buckets:
        for path in bucket.glob("*" + SUFFIX):
            try:
                first = durable_files.read_first_line(path)
                header = _header(path, first.rstrip(b"\n"), complete=first.endswith(b"\n"))
                updated = os.stat(path).st_mtime_ns // 1_000_000
            except (OSError, SessionError) as exc:
                logger.warning("skipping session log %s: %s", path, exc)
                continue
            found.append(StoredSession(header=header, updated_at=updated))
    found.sort(key=lambda s: (s.updated_at, s.header.created_at, s.header.id), reverse=True)
    return found


def io_error(action: str, path: Path, exc: OSError) -> SessionError:
    """The ``SESSION_IO`` error for a failed ``action`` on ``path``."""
    return SessionError(f"could not {action} {path}: {exc.strerror or exc}", code=IO_FAILED)


def _split_lines(raw: bytes) -> list[str] | list[bytes]:
    """The file's lines: decoded in one go when the file is valid UTF-8, else as bytes."""
    try:
        return raw.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return raw.split(b"\n")


def _byte_length(line: str | bytes) -> int:
    return len(line) if isinstance(line, bytes) else len(line.encode("utf-8"))


def _header(path: Path, line: str | bytes, *, complete: bool) -> SessionHeader:
    try:
        if not complete:
            raise SessionError("the header line is incomplete", code=CORRUPT)
        try:
            value = loads_strict(line)
        except ValueError as exc:
            raise SessionError(f"the header is not JSON ({exc})", code=CORRUPT) from exc
        return header_from_json(value)
    except SessionError as exc:
        raise SessionError(f"{path} line 1: {exc.message}", code=exc.code) from exc


def _guard(action: str, path: Path, write: Callable[[], None]) -> None:
    try:
        write()
    except OSError as exc:
        raise io_error(action, path, exc) from exc
