"""``workspace/executeCommand``: the dsh commands any LSP editor can run (server layer).

Advertised in ``executeCommandProvider``:

- ``dsh.newSession`` → ``{"sessionId"}``: a new session becomes the active one;
- ``dsh.prompt`` with arguments ``[prompt, uri?, range?]`` (or one object
  ``{"prompt", "uri"?, "range"?}``) → ``{"sessionId"}`` at once; the turn runs in the
  background with work-done progress, and the file (or the range of it) is attached;
- ``dsh.cancel`` → ``{"cancelled": bool}``: cancels the active session's turn;
- ``dsh.resumeLast`` → ``{"sessionId": id | null}``: resumes the most recent session;
- ``dsh.lastAnswer`` → ``{"answer": text | null}``: the whole last answer (the message box
  shows its first line; an editor without a log window can show the rest with this).

``window/workDoneProgress/cancel`` on a turn's progress token cancels that turn. Bad
arguments answer ``-32602`` naming the argument; any other ``DshError`` its JSON-RPC error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from lsprotocol import types
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from dsh_lsp.kernel import DshError
from dsh_lsp.llm import JsonObject, JsonValue
from dsh_lsp.server.errors import to_jsonrpc
from dsh_lsp.server.sessions import prompt_content
from dsh_lsp.server.settings import describe_validation_error
from dsh_lsp.server.wire import Range, ResourceLinkContent, TextContent, check_storable

if TYPE_CHECKING:  # loaded by start-up, after ``initialize`` was answered
    from .plain_client import PlainClient

NEW_SESSION: Final = "dsh.newSession"
PROMPT: Final = "dsh.prompt"
CANCEL: Final = "dsh.cancel"
RESUME_LAST: Final = "dsh.resumeLast"
LAST_ANSWER: Final = "dsh.lastAnswer"
COMMANDS: Final = (NEW_SESSION, PROMPT, CANCEL, RESUME_LAST, LAST_ANSWER)
EXCERPT_CHARS: Final = 60

R = TypeVar("R")

PlainSource = Callable[[], Awaitable["PlainClient"]]
"""The connection's ``PlainClient`` once start-up finished (raises its failure)."""
ClientCommand = Callable[["PlainClient"], Awaitable[JsonObject]]
"""What a command without arguments does with the connection's ``PlainClient``."""


class PromptArguments(BaseModel):
    """The arguments of ``dsh.prompt``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str = Field(min_length=1)
    uri: str | None = Field(default=None, min_length=1)
    range: Range | None = None


def parse_prompt_arguments(args: Sequence[JsonValue]) -> PromptArguments:
    """``[prompt, uri?, range?]`` or ``[{"prompt", "uri"?, "range"?}]``.

    Raises JsonRpcInvalidParams naming the bad argument (also one holding an unpaired
    surrogate)."""
    if len(args) == 1 and isinstance(args[0], dict):
        raw: JsonValue = args[0]
    elif 1 <= len(args) <= 3:
        raw = dict(zip(("prompt", "uri", "range"), args, strict=False))
    else:
        raise JsonRpcInvalidParams(f"{PROMPT} takes [prompt, uri?, range?], got {len(args)}")
    check_storable(raw, "arguments", PROMPT)
    try:
        return PromptArguments.model_validate(raw)
    except ValidationError as exc:
        detail = describe_validation_error(exc, "arguments")
        raise JsonRpcInvalidParams(f"invalid arguments for {PROMPT}: {detail}") from None


def excerpt(prompt: str) -> str:
    """The start of a prompt, on one line, for the progress title."""
    line = " ".join(prompt.split())
    return line if len(line) <= EXCERPT_CHARS else line[: EXCERPT_CHARS - 1] + "\u2026"


async def _answer(plain: PlainSource, action: Callable[[PlainClient], Awaitable[R]]) -> R:
    """``action`` run with the connection's ``PlainClient``; a ``DshError`` (start-up's
    failure included) raised as its JSON-RPC error."""
    try:
        return await action(await plain())
    except DshError as exc:
        raise to_jsonrpc(exc) from None


def register_commands(server: LanguageServer, plain: PlainSource) -> None:
    """Register the commands and the progress-cancel handler on ``server``."""

    def command(name: str) -> Callable[[ClientCommand], ClientCommand]:
        """Register the command ``name``, which takes no arguments and answers what
        ``action`` returns for the connection's ``PlainClient``."""

        def register(action: ClientCommand) -> ClientCommand:
            @server.command(name)
            async def run(ls: LanguageServer, *args: JsonValue) -> JsonObject:
                return await _answer(plain, action)

            return action

        return register

    @command(NEW_SESSION)
    async def new_session(client: PlainClient) -> JsonObject:
        return {"sessionId": await client.new_session()}

    @server.command(PROMPT)
    async def prompt(ls: LanguageServer, *args: JsonValue) -> JsonObject:
        request = parse_prompt_arguments(args)
        blocks: list[TextContent | ResourceLinkContent] = [
            TextContent(type="text", text=request.prompt)
        ]
        if request.uri is not None:
            blocks.append(
                ResourceLinkContent(type="resource_link", uri=request.uri, range=request.range)
            )

        async def run(client: PlainClient) -> JsonObject:
            content = await prompt_content(blocks, ls.workspace)
            return {"sessionId": await client.prompt(content, excerpt(request.prompt))}

        return await _answer(plain, run)

    @command(CANCEL)
    async def cancel(client: PlainClient) -> JsonObject:
        return {"cancelled": client.cancel()}

    @command(RESUME_LAST)
    async def resume_last(client: PlainClient) -> JsonObject:
        return {"sessionId": await client.resume_last()}

    @command(LAST_ANSWER)
    async def last_answer(client: PlainClient) -> JsonObject:
        return {"answer": client.last_answer}

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    async def progress_cancelled(
        ls: LanguageServer, params: types.WorkDoneProgressCancelParams
    ) -> None:
        try:
            client = await plain()
        except DshError:
            return
        client.cancel_progress(str(params.token))
