"""Open vocabularies: the one registry mechanism every merge-extensible union uses (llm layer).

A *vocabulary* is a tagged union of frozen values written to JSON records: content blocks,
finish reasons and message sources here; turn triggers, turn-end reasons and session event
payloads in the session layer. Each has a closed set of core kinds plus an ``Extension``
subclass per vocabulary, which plugins subclass to add kinds. A plugin makes its class
decodable with ``Vocabulary.register`` (through ``ctx.effect``, so the kind lives exactly as
long as the plugin); a record whose kind nobody registered decodes to that vocabulary's
*opaque* value, which keeps the record's JSON and re-encodes it unchanged, so a log written
with a plugin still loads, byte for byte, without it. Each vocabulary's codec writes its core
kinds itself and hands plugin values to ``Vocabulary.encode`` / ``Vocabulary.decode``; its
decoder reads a record's kind with ``Vocabulary.read_kind``, which knows the vocabulary's tag.

The rule for readers: a ``match`` over a closed union ends in ``assert_never``; a ``match``
over an open vocabulary ends in ``case Extension…():``, a documented default that handles
every plugin value (registered or opaque) generically, and only then ``assert_never``.

Registries are process-wide because decoding happens wherever a record is read (session
load, replay), far from any plugin context. Registration is reference-counted per class, so
the same plugin loaded into two kernels shares one entry; a *different* class claiming a kind
already in use, or a core kind, is rejected.
"""

from __future__ import annotations

import abc
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from .errors import LlmCode, LlmError
from .json_fields import as_object, malformed, read_str
from .json_value import JsonObject, JsonValue


class Extension(abc.ABC):
    """Base of every plugin-defined value of an open vocabulary.

    A subclass is a frozen dataclass with a unique ``kind`` class attribute (never a core
    kind of its vocabulary) that converts its own fields to and from a JSON object.
    """

    __slots__ = ()
    kind: ClassVar[str]

    @abc.abstractmethod
    def to_json(self) -> dict[str, JsonValue]:
        """The value's fields as a JSON object, without the vocabulary's tag."""

    @classmethod
    @abc.abstractmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Rebuild the value from ``to_json`` output (the tag may be present).

        Raises ``LlmError`` (code ``MALFORMED_RECORD``) or ``ValueError`` for a bad shape.
        """


@dataclass(frozen=True, slots=True, kw_only=True)
class Opaque(Extension):
    """A value of a kind no loaded plugin registered: its record, kept exactly as read.

    Each vocabulary's opaque class derives from this and from its extension base (so the
    documented default arm of a ``match`` catches it) and names its record tag.
    """

    tag: ClassVar[str] = "type"
    """The record field that names the kind."""
    kind: str  # type: ignore[misc]  # per instance: the unregistered kind
    record: JsonObject
    """The whole record, tag included; ``to_json`` gives it back unchanged."""

    def to_json(self) -> dict[str, JsonValue]:
        """The record as read."""
        return dict(self.record)

    @classmethod
    def from_json(cls, data: JsonObject) -> Self:
        """Keep ``data``, named by its tag."""
        return cls(kind=str(data.get(cls.tag)), record=data)


E = TypeVar("E", bound=Extension)
E_co = TypeVar("E_co", bound=Extension, covariant=True)


class OpaqueClass(Protocol[E_co]):
    """A vocabulary's opaque class (an ``Opaque`` subclass of its extension base): built
    from an unregistered kind and its record; ``tag`` names the record field of the kind."""

    @property
    def tag(self) -> str:
        """The record field that names the kind."""
        ...

    def __call__(self, *, kind: str, record: JsonObject) -> E_co:
        """The opaque value of ``record``, a record of ``kind``."""
        ...


class Vocabulary(Generic[E]):
    """The registry of one open vocabulary's plugin kinds.

    ``name`` words error messages (``"block"``, ``"finish reason"``); ``core`` are the kinds
    the owning module defines; ``opaque`` is the class of the value for a kind nobody
    registered, and its ``tag`` the record field that names a kind. ``duplicate_code`` is the
    ``LlmError`` code of a refused registration.
    """

    __slots__ = (
        "_classes",
        "_counts",
        "_lock",
        "_opaque",
        "core",
        "duplicate_code",
        "name",
        "tag",
    )

    def __init__(
        self,
        name: str,
        core: Iterable[str],
        opaque: OpaqueClass[E],
        *,
        duplicate_code: str = LlmCode.DUPLICATE_KIND,
    ) -> None:
        self.name = name
        self.core: frozenset[str] = frozenset(core)
        self.duplicate_code = duplicate_code
        self.tag = opaque.tag
        self._opaque = opaque
        self._lock = threading.Lock()
        self._classes: dict[str, type[E]] = {}
        self._counts: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Vocabulary({self.name!r}, plugin kinds {sorted(self._classes)})"

    def register(self, cls: type[E]) -> Callable[[], None]:
        """Make ``cls`` decodable under ``cls.kind``; return the single-shot unregister callable.

        Raises ``LlmError`` (``duplicate_code``) when the kind is a core kind or belongs to a
        different class. The caller owns the returned callable: hand it to the plugin's
        ``ctx.effect`` (``ctx.effect(lambda: VOCABULARY.register(cls))``).
        """
        kind = cls.kind
        with self._lock:
            current = self._classes.get(kind)
            if kind in self.core or (current is not None and current is not cls):
                owner = "the core vocabulary" if current is None else current.__qualname__
                raise LlmError(
                    f"{self.name} kind {kind!r} is already registered by {owner}",
                    code=self.duplicate_code,
                )
            self._classes[kind] = cls
            self._counts[kind] = self._counts.get(kind, 0) + 1
        done = False

        def unregister() -> None:
            nonlocal done
            with self._lock:
                if done:
                    return
                done = True
                self._counts[kind] -= 1
                if self._counts[kind] == 0:
                    del self._counts[kind]
                    del self._classes[kind]

        return unregister

    def lookup(self, kind: str) -> type[E] | None:
        """The registered class for ``kind``, or ``None`` when no plugin registered it."""
        with self._lock:
            return self._classes.get(kind)

    def encode(self, value: E) -> dict[str, JsonValue]:
        """The record of a plugin value: its ``to_json`` fields and ``tag``: its kind (the
        plugin arm of a codec whose records name their kind; event payloads are named by the
        event's type instead). Never raises unless the value's ``to_json`` does."""
        return {**value.to_json(), self.tag: value.kind}

    def read_kind(self, value: object, what: str | None = None) -> tuple[JsonObject, str]:
        """The record ``value`` as a JSON object, and the kind its ``tag`` field names: the
        first step of a codec's decoder, core kinds and plugin kinds alike.

        Raises ``LlmError`` (``MALFORMED_RECORD``, naming ``what``, by default ``name``) when
        ``value`` is not a JSON object or its tag is not a string.
        """
        what = self.name if what is None else what
        record = as_object(value, what)
        return record, read_str(record, self.tag, what)

    def decode(self, kind: str, record: JsonObject) -> E:
        """The plugin value of a record tagged ``kind`` (not a core kind): the registered
        class's ``from_json``, or the opaque value when nobody registered ``kind``.

        Raises ``LlmError`` (``MALFORMED_RECORD``) when the registered class refuses the record.
        """
        cls = self._classes.get(kind)  # a dict read is atomic; no lock on the decode path
        if cls is None:
            return self._opaque(kind=kind, record=record)
        try:
            return cls.from_json(record)
        except LlmError:
            raise
        except (ValueError, TypeError, KeyError) as exc:
            malformed(f"{kind} {self.name}", str(exc), exc)
