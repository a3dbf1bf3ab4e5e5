"""The cattrs converter that keeps custom-method params as plain dicts (server layer).

pygls's default converter turns the params of methods lsprotocol does not know into nested
namedtuples, which renames keys that are not identifiers and drops a ``type_name`` key. This
converter structures the generic JSON-RPC envelopes field by field instead, so ``dsh/*``
params (and results of our own server→client requests) stay the JSON objects they were.
Standard LSP methods are unaffected: lsprotocol's typed hooks still apply to them.
"""

from __future__ import annotations

from typing import Any

from cattrs import Converter
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)


def _with_params(obj: Any, cls: type[Any]) -> Any:  # Any: cattrs hook over raw JSON
    return cls(**{"params": None, **obj})  # JSON-RPC lets a request omit its params


def _with_result(obj: Any, cls: type[Any]) -> Any:  # Any: cattrs hook over raw JSON
    return cls(**{"result": None, **obj})


def dict_params_converter() -> Converter:
    """A converter for server and test clients alike; see the module docstring."""
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]  # pygls is untyped here
    converter.register_structure_hook(JsonRPCRequestMessage, _with_params)
    converter.register_structure_hook(JsonRPCNotification, _with_params)
    converter.register_structure_hook(JsonRPCResponseMessage, _with_result)
    return converter
