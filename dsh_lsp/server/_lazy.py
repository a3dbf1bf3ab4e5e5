"""Lazy faces: a package's public names, written once, loaded on first use (server layer).

A face declares each public name exactly once, as a re-export inside its
``if typing.TYPE_CHECKING:`` block (``from .channel import ClientChannel as ClientChannel``),
so readers and type checkers see ordinary imports, and ends with
``__all__ = lazy_face(globals())``. ``lazy_face`` reads that block from the package's own
source (the way anyio 4.16 builds its lazy table), installs a PEP 562 ``__getattr__`` that
imports a name's module the first time the name is used, and returns the names as the
tuple ``__all__``. So ``import dsh_lsp.server`` costs no more than reading a few faces,
and a process serving LSP answers ``initialize`` before it imports the layers below.

One exception: a name that is also the name of the module defining it (``serve`` in
``serve.py``) is imported at once, because importing that module binds the module itself
under the same name on the package, which would hide the lazy attribute.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import MutableMapping
from pathlib import Path


def lazy_face(namespace: MutableMapping[str, object]) -> tuple[str, ...]:
    """Make the package whose ``globals()`` is ``namespace`` load its names lazily.

    Returns the sorted names declared in the package's ``TYPE_CHECKING`` block. Raises
    ImportError when the package's source cannot be read, and TypeError when that block
    holds anything but relative ``from module import name as name`` re-exports.
    """
    package = str(namespace["__name__"])
    homes = _declared_names(package, Path(str(namespace["__file__"])))

    def __getattr__(name: str) -> object:
        """Import the module that defines ``name`` and return it (PEP 562). Raises
        AttributeError for names the package does not export."""
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value: object = getattr(importlib.import_module(home, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(homes)

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    for name, home in homes.items():
        if home.rsplit(".", 1)[-1] == name:
            __getattr__(name)
    return tuple(sorted(homes))


def _declared_names(package: str, init_file: Path) -> dict[str, str]:
    """Each name of the ``TYPE_CHECKING`` block → the relative module that defines it."""
    try:
        source = init_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ImportError(f"{package}: cannot read its face {init_file}: {exc}") from exc
    homes: dict[str, str] = {}
    for node in ast.parse(source, filename=str(init_file)).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not (isinstance(statement, ast.ImportFrom) and statement.level > 0):
                raise TypeError(f"{package}: a face declares names as relative imports only")
            module = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                if alias.asname != alias.name:
                    raise TypeError(f"{package}: write {alias.name} as {alias.name} in its face")
                homes[alias.name] = module
    return homes


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
