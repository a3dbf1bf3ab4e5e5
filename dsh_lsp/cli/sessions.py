"""``dsh-lsp sessions``: list, show and delete the stored sessions (cli layer).

Reads the JSONL session folder the settings name (``--session-dir``, else the default:
``$XDG_STATE_HOME/dsh-lsp/sessions``, ``~/.local/state/dsh-lsp/sessions`` when it is unset)
directly, without a kernel or a model: ``list`` prints one line per session, newest first
(id, last written, workspace, title); ``show ID`` prints the header and the conversation
(user and assistant text, tool calls); ``delete ID...`` removes logs. Exit status 0, or 2
with one line on stderr when a session does not exist or the folder cannot be read. Never
run ``delete`` on a session another dsh-lsp is writing.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import anyio

from dsh_lsp.llm import ContentBlock, SessionId, TextBlock
from dsh_lsp.session import (
    AssistantMessagePayload,
    JsonlPersistence,
    SessionError,
    SessionEvent,
    SteeringMessagePayload,
    ToolCallPayload,
    TurnCompleted,
    TurnEndPayload,
    UserMessagePayload,
    default_sessions_dir,
)


def sessions_command(args: argparse.Namespace) -> int:
    """Run the parsed ``sessions`` command line; the exit status (see the module docstring)."""
    directory = Path(args.session_dir) if args.session_dir else default_sessions_dir()
    store = JsonlPersistence(directory)
    action = args.action or "list"
    try:
        if action == "list":
            return anyio.run(_list, store, sys.stdout, backend="asyncio")
        if action == "show":
            return anyio.run(_show, store, SessionId(args.ids[0]), sys.stdout, backend="asyncio")
        return anyio.run(_delete, store, args.ids, sys.stdout, backend="asyncio")
    except SessionError as exc:
        sys.stderr.write(f"dsh-lsp sessions {action}: {exc}\n")
        return 2


def _when(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ms / 1000))


async def _list(store: JsonlPersistence, out: TextIO) -> int:
    stored = await store.list()
    if not stored:
        out.write(f"no stored sessions in {store.directory}\n")
        return 0
    for entry in stored:
        header = entry.header
        title = f"  {header.title}" if header.title else ""
        out.write(f"{header.id}  {_when(entry.updated_at)}  {header.cwd or '-'}{title}\n")
    return 0


async def _show(store: JsonlPersistence, session_id: SessionId, out: TextIO) -> int:
    loaded = await store.load(session_id)
    header = loaded.header
    out.write(f"session:   {header.id}\n")
    if header.title:
        out.write(f"title:     {header.title}\n")
    out.write(f"workspace: {header.cwd or '-'}\n")
    out.write(f"created:   {_when(header.created_at)}\n")
    if header.parent_session:
        out.write(f"forked from: {header.parent_session}\n")
    for event in loaded.events:
        line = _conversation_line(event)
        if line:
            out.write(line)
    return 0


def _text(content: Sequence[ContentBlock]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextBlock))


def _conversation_line(event: SessionEvent) -> str:
    match event.payload:
        case UserMessagePayload(content=content) | SteeringMessagePayload(content=content):
            return f"\n> {_text(content)}\n"
        case AssistantMessagePayload(content=content):
            text = _text(content)
            return f"{text}\n" if text else ""
        case ToolCallPayload(name=name, arguments=arguments):
            return f"→ {name} {arguments}\n"
        case TurnEndPayload(reason=TurnCompleted()):
            return ""
        case TurnEndPayload(reason=reason):
            return f"(turn ended: {reason.kind})\n"
        case _:
            return ""  # other events, plugin payloads included, are not part of the conversation


async def _delete(store: JsonlPersistence, ids: list[str], out: TextIO) -> int:
    for raw in ids:
        path = await store.delete(SessionId(raw))
        out.write(f"deleted {raw} ({path})\n")
    return 0
