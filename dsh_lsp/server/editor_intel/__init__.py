"""The editor's language servers as agent tools (server layer).

When the client lends them (``capabilities.experimental.dsh.editor``, ``capabilities``),
``EditorIntel`` (``client``) sends the ``dsh/editor/*`` requests with deadlines and reads
the answers (``answers``, validated at the trust boundary). ``EditorIntelPlugin``
(``plugin``) registers one tool per method the client answers (``tools``; positions are a
line and a symbol name, ``symbols_on_line``; lines of context come from ``lines``) and adds
the new problems of the version an edit wrote to the edit's result (``after_edit``).
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .after_edit import changed_lines as changed_lines
    from .after_edit import new_problems as new_problems
    from .answers import DocumentProblems as DocumentProblems
    from .answers import EditorAnswerError as EditorAnswerError
    from .answers import EditorNoAnswerError as EditorNoAnswerError
    from .answers import Problem as Problem
    from .answers import Spot as Spot
    from .capabilities import METHODS as METHODS
    from .capabilities import EditorMethod as EditorMethod
    from .capabilities import EditorMethods as EditorMethods
    from .capabilities import editor_methods as editor_methods
    from .client import EditorIntel as EditorIntel
    from .plugin import EditorIntelPlugin as EditorIntelPlugin
    from .symbols_on_line import symbol_column as symbol_column
    from .symbols_on_line import symbol_index as symbol_index

__all__ = _lazy_face(globals())
