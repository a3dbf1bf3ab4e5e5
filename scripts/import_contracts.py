"""Our own import-linter contract type: other packages are imported through their faces.

import-linter has no contract for "only through ``__init__``", so this one is registered in
``pyproject.toml`` (``contract_types = ["faces: scripts.import_contracts.FacesContract"]``;
``lint-imports`` puts the working directory on ``sys.path``).

For each *container* listed (``dsh_lsp``, ``dsh_lsp.server``) its direct children are the
*units* (``dsh_lsp.fs_tools``, ``dsh_lsp.app``; ``dsh_lsp.server.wire``, ``dsh_lsp.server.boot``).
An import from inside one unit of a container to a module inside another unit of the same
container must name a *face*: the other unit itself, or a package inside it (its
``__init__``, e.g. ``dsh_lsp.fs_tools.local``) with no private (``_x``) part. A module that
is not a package (``dsh_lsp.fs_tools.text``) is never a face, so a new deep import fails the
contract the moment it is written. Imports inside one unit are not checked; a unit that is a
plain module (``dsh_lsp.app``, ``dsh_lsp.server.errors``) is its own face.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import grimp
from importlinter import Contract, ContractCheck, fields, output


class FacesContract(Contract):
    """Cross-unit imports inside each container go through faces (packages), never modules.

    Configuration: ``containers`` (required), the packages whose children are the units.
    """

    type_name = "faces"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        """Collect every import that reaches past another unit's face."""
        containers: list[str] = self.containers  # type: ignore[assignment]
        deep: list[tuple[str, str, int]] = []
        for container in containers:
            for importer in sorted(graph.find_descendants(container) | {container}):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if not _is_face(container, importer, imported):
                        details = graph.get_import_details(importer=importer, imported=imported)
                        deep += [(importer, imported, d["line_number"]) for d in details]
        return ContractCheck(kept=not deep, warnings=None, metadata={"deep": sorted(set(deep))})

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Print each deep import with its line number."""
        output.print_error("Import another package through its face (its __init__):", bold=False)
        output.new_line()
        for importer, imported, line in check.metadata["deep"]:
            output.print_error(f"- {importer} -> {imported} (l.{line})", bold=False)
        output.new_line()


def _unit(container: str, module: str) -> str | None:
    """The child of ``container`` that ``module`` belongs to (None: outside, or the container)."""
    if not module.startswith(container + "."):
        return None
    return f"{container}.{module[len(container) + 1 :].split('.')[0]}"


def _is_face(container: str, importer: str, imported: str) -> bool:
    target = _unit(container, imported)
    if target is None or target == _unit(container, importer) or imported == target:
        return True
    inner = imported[len(target) + 1 :].split(".")
    return not any(part.startswith("_") for part in inner) and _is_package(imported)


@functools.cache
def _is_package(module: str) -> bool:
    """Whether ``module`` is a package, found the way grimp finds the root package."""
    root, _, rest = module.partition(".")
    spec = importlib.util.find_spec(root)
    if spec is None or not spec.submodule_search_locations:
        return False
    base = Path(next(iter(spec.submodule_search_locations)))
    return (base.joinpath(*rest.split(".")) / "__init__.py").is_file()
