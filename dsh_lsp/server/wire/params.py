"""The ``dsh/*`` params and the client's answers, validated at the trust boundary (server).

Every model is camelCase on the wire and forbids unknown fields where the method is ours to
define. ``parse_params`` turns a validation failure into ``-32602`` whose message names each
bad field by its JSON path (``params.prompt[0].text: Field required``); a string holding an
unpaired surrogate is refused the same way, naming its path, since it could not be stored.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel
from pygls.exceptions import JsonRpcInvalidParams

from dsh_lsp.llm import SessionId
from dsh_lsp.server.settings import describe_validation_error

_STRICT = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)
_OPEN = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True)

M = TypeVar("M", bound=BaseModel)

SessionIdText = Annotated[SessionId, Field(min_length=1, max_length=256)]
"""A session id from the wire, branded as it is validated."""


class Position(BaseModel):
    """An LSP position (zero-based, in the negotiated encoding)."""

    model_config = _OPEN

    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(BaseModel):
    """An LSP range."""

    model_config = _OPEN

    start: Position
    end: Position


class TextContent(BaseModel):
    """Prompt text."""

    model_config = _STRICT

    type: Literal["text"]
    text: str


class ResourceLinkContent(BaseModel):
    """A file (or a selection in it) attached as context; read from the editor buffer when
    the document is open, else from disk."""

    model_config = _STRICT

    type: Literal["resource_link"]
    uri: str = Field(min_length=1)
    range: Range | None = None
    name: str | None = None


PromptBlock = Annotated[TextContent | ResourceLinkContent, Field(discriminator="type")]


class SessionNewParams(BaseModel):
    """``dsh/session/new``."""

    model_config = _STRICT

    cwd: str | None = Field(default=None, min_length=1)


class SessionListParams(BaseModel):
    """``dsh/session/list``."""

    model_config = _STRICT


class StatusParams(BaseModel):
    """``dsh/status``."""

    model_config = _STRICT


class SessionRefParams(BaseModel):
    """``dsh/session/resume`` and ``dsh/cancel``."""

    model_config = _STRICT

    session_id: SessionIdText


class ShellPrefixesParams(BaseModel):
    """``dsh/shell/allowedPrefixes``: the prefixes of a workspace folder (default: the first)."""

    model_config = _STRICT

    cwd: str | None = Field(default=None, min_length=1)


class ShellRevokeParams(BaseModel):
    """``dsh/shell/revokePrefix``: forget one remembered prefix."""

    model_config = _STRICT

    cwd: str | None = Field(default=None, min_length=1)
    prefix: str = Field(min_length=1)


class PromptParams(BaseModel):
    """``dsh/prompt``."""

    model_config = _STRICT

    session_id: SessionIdText
    prompt: list[PromptBlock] = Field(min_length=1)


class SelectedOutcome(BaseModel):
    """The user picked ``option_id``."""

    model_config = _OPEN

    outcome: Literal["selected"]
    option_id: str
    prefix: str | None = None
    """For a shell command's ``allow_always``: the command prefix the user confirmed (may
    differ from the one offered)."""


class CancelledOutcome(BaseModel):
    """The request ended without a choice."""

    model_config = _OPEN

    outcome: Literal["cancelled"]


class PermissionAnswer(BaseModel):
    """The client's answer to ``dsh/requestPermission``."""

    model_config = _OPEN

    outcome: Annotated[SelectedOutcome | CancelledOutcome, Field(discriminator="outcome")]


class MessageActionAnswer(BaseModel):
    """The client's answer to ``window/showMessageRequest`` (``null`` when dismissed)."""

    model_config = _OPEN

    title: str


def unpaired_surrogate(value: object, path: str) -> str | None:
    """The JSON path (under ``path``) of the first string in ``value`` holding an unpaired
    surrogate, or None. Such text cannot be stored (it is not valid Unicode): a JavaScript
    client sends one for a string cut in the middle of an emoji. Never raises."""
    if isinstance(value, str):
        if value.isascii():
            return None
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = unpaired_surrogate(key, f"{path} (a key)") or unpaired_surrogate(
                item, f"{path}.{key}"
            )
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = unpaired_surrogate(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def check_storable(value: object, path: str, what: str) -> None:
    """Refuse text that cannot be stored. Raises JsonRpcInvalidParams (-32602) naming the
    field: ``invalid params for dsh/prompt: params.prompt[0].text: holds an unpaired
    surrogate ...``."""
    where = unpaired_surrogate(value, path)
    if where is not None:
        raise JsonRpcInvalidParams(
            f"invalid params for {what}: {where}: holds an unpaired UTF-16 surrogate (text cut"
            " inside a character), which cannot be stored; send well-formed text"
        )


def parse_params(model: type[M], params: object, method: str) -> M:
    """``params`` validated as ``model``. Raises JsonRpcInvalidParams (-32602) naming every
    bad field, or the first string holding an unpaired surrogate (``check_storable``);
    ``null`` params count as ``{}``."""
    check_storable(params, "params", method)
    try:
        return model.model_validate({} if params is None else params)
    except ValidationError as exc:
        detail = describe_validation_error(exc, "params")
        raise JsonRpcInvalidParams(f"invalid params for {method}: {detail}") from None
