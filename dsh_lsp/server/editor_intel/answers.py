"""The client's ``dsh/editor/*`` answers, validated at the trust boundary (server layer).

pydantic models read each answer (unknown fields ignored, as LSP asks); ``read_*`` turn a
valid answer into the frozen values the tools use and raise ``EditorAnswerError`` naming the
method and each bad field for anything else, so a broken client gives the model a
clear tool error and the server goes on serving.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from dsh_lsp.kernel import DshError
from dsh_lsp.llm import JsonValue
from dsh_lsp.server.settings import describe_validation_error
from dsh_lsp.server.wire import Position, Range

M = TypeVar("M", bound=BaseModel)


class EditorAnswerError(DshError):
    """The editor answered a ``dsh/editor/*`` request with an error or a malformed result."""

    code: ClassVar[str] = "EDITOR_BAD_ANSWER"


class EditorNoAnswerError(DshError):
    """The editor did not answer a ``dsh/editor/*`` request in time."""

    code: ClassVar[str] = "EDITOR_NO_ANSWER"


@dataclass(frozen=True, slots=True, kw_only=True)
class Spot:
    """A zero-based position in the negotiated encoding."""

    line: int
    character: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """One diagnostic: where it starts and ends, how bad it is (1 error … 4 hint)."""

    start: Spot
    end: Spot
    severity: int
    message: str
    code: str | None = None
    source: str | None = None

    @property
    def key(self) -> tuple[int, str, str | None, str | None]:
        """What makes two problems the same problem, wherever they are."""
        return (self.severity, self.message, self.code, self.source)


@dataclass(frozen=True, slots=True, kw_only=True)
class DocumentProblems:
    """The diagnostics of one document, and the version they describe (None: unknown)."""

    uri: str
    version: int | None
    complete: bool
    problems: tuple[Problem, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Place:
    """A location: a URI and the start of its range (None: the server gave none)."""

    uri: str
    start: Spot | None


@dataclass(frozen=True, slots=True, kw_only=True)
class SymbolInfo:
    """One workspace symbol."""

    name: str
    kind: int
    container: str | None
    place: Place


class _Answer(BaseModel):
    """A part of a client's answer: camelCase on the wire, unknown fields ignored."""

    model_config = ConfigDict(
        extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class _Diagnostic(_Answer):
    range: Range
    severity: int | None = Field(default=None, ge=1, le=4)
    code: str | int | None = None
    source: str | None = None
    message: str


class _Item(_Answer):
    uri: str
    version: int | None = None
    complete: bool = True
    diagnostics: list[_Diagnostic] = Field(default_factory=list)


class _Diagnostics(_Answer):
    items: list[_Item]


class _Location(_Answer):
    uri: str
    range: Range | None = None


class _Locations(_Answer):
    locations: list[_Location]


class _Symbol(_Answer):
    name: str
    kind: int = 0
    container_name: str | None = None
    location: _Location


class _Symbols(_Answer):
    symbols: list[_Symbol]


class _Hover(_Answer):
    contents: str


def _spot(position: Position) -> Spot:
    return Spot(line=position.line, character=position.character)


def _place(location: _Location) -> Place:
    start = None if location.range is None else _spot(location.range.start)
    return Place(uri=location.uri, start=start)


def _validate(model: type[M], method: str, answer: JsonValue) -> M:
    try:
        return model.model_validate(answer)
    except ValidationError as exc:
        raise EditorAnswerError(
            f"the editor's answer to dsh/editor/{method} is malformed"
            f" ({describe_validation_error(exc, 'result')})"
        ) from None


def read_diagnostics(answer: JsonValue) -> tuple[DocumentProblems, ...]:
    """The documents of a ``dsh/editor/diagnostics`` answer. Raises EditorAnswerError."""
    parsed = _validate(_Diagnostics, "diagnostics", answer)
    return tuple(
        DocumentProblems(
            uri=item.uri,
            version=item.version,
            complete=item.complete,
            problems=tuple(
                Problem(
                    start=_spot(d.range.start),
                    end=_spot(d.range.end),
                    severity=d.severity or 1,
                    message=d.message,
                    code=None if d.code is None else str(d.code),
                    source=d.source,
                )
                for d in item.diagnostics
            ),
        )
        for item in parsed.items
    )


def read_locations(method: str, answer: JsonValue) -> tuple[Place, ...]:
    """The locations of a ``definition`` / ``references`` answer, without duplicates.
    Raises EditorAnswerError."""
    parsed = _validate(_Locations, method, answer)
    return tuple(dict.fromkeys(_place(loc) for loc in parsed.locations))


def read_symbols(answer: JsonValue) -> tuple[SymbolInfo, ...]:
    """The symbols of a ``dsh/editor/symbols`` answer. Raises EditorAnswerError."""
    parsed = _validate(_Symbols, "symbols", answer)
    return tuple(
        SymbolInfo(
            name=s.name,
            kind=s.kind,
            container=s.container_name,
            place=_place(s.location),
        )
        for s in parsed.symbols
    )


def read_hover(answer: JsonValue) -> str:
    """The Markdown text of a ``dsh/editor/hover`` answer. Raises EditorAnswerError."""
    return _validate(_Hover, "hover", answer).contents
