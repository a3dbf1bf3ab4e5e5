"""The LSP wire: bytes to frames to JSON-RPC to the protocol, and back (server layer).

The bottom of the server's rooms: nothing in it knows about sessions, documents or files.
The byte connection (``transport``: stdio or one TCP client), ``Content-Length`` framing
(``framing``), the strict JSON reading of bodies (``strict_json``), the read loop that feeds
the protocol and answers bad input (``read_loop``), pygls's protocol with the LSP lifecycle
and error answers (``protocol``), the converter that keeps custom params as plain dicts
(``converter``), the ``dsh/*`` params and client answers validated at the trust boundary
(``params``), and the client channel: what the server may send to the editor and what the
editor supports (``channel``).
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .channel import DSH_VERSION as DSH_VERSION
    from .channel import ClientChannel as ClientChannel
    from .channel import ClientFeatures as ClientFeatures
    from .channel import ClientRequestError as ClientRequestError
    from .channel import PyglsChannel as PyglsChannel
    from .channel import client_features as client_features
    from .converter import dict_params_converter as dict_params_converter
    from .framing import DEFAULT_MAX_BODY as DEFAULT_MAX_BODY
    from .framing import Frame as Frame
    from .framing import FrameDecoder as FrameDecoder
    from .framing import encode_frame as encode_frame
    from .params import CancelledOutcome as CancelledOutcome
    from .params import MessageActionAnswer as MessageActionAnswer
    from .params import PermissionAnswer as PermissionAnswer
    from .params import Position as Position
    from .params import PromptParams as PromptParams
    from .params import Range as Range
    from .params import ResourceLinkContent as ResourceLinkContent
    from .params import SessionListParams as SessionListParams
    from .params import SessionNewParams as SessionNewParams
    from .params import SessionRefParams as SessionRefParams
    from .params import ShellPrefixesParams as ShellPrefixesParams
    from .params import ShellRevokeParams as ShellRevokeParams
    from .params import StatusParams as StatusParams
    from .params import TextContent as TextContent
    from .params import check_storable as check_storable
    from .params import parse_params as parse_params
    from .protocol import DshProtocol as DshProtocol
    from .read_loop import pump as pump
    from .strict_json import strict_loads as strict_loads
    from .transport import Connection as Connection
    from .transport import open_stdio as open_stdio
    from .transport import open_tcp as open_tcp

__all__ = _lazy_face(globals())
