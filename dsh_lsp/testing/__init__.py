"""Test kit shipped with the package: a scripted OpenAI-compatible server, a scripted
in-process model, and a replay adapter.

Production packages never import this package; tests, benchmarks and the offline demo do.
"""

from __future__ import annotations

from .openai_chunks import DONE as DONE
from .openai_chunks import ToolCallSpec as ToolCallSpec
from .openai_chunks import completion as completion
from .openai_chunks import delta_payload as delta_payload
from .openai_chunks import error as error
from .openai_chunks import tool_call_events as tool_call_events
from .openai_chunks import usage_payload as usage_payload
from .openai_chunks import wire_usage as wire_usage
from .script import Delay as Delay
from .script import Disconnect as Disconnect
from .script import ErrorResponse as ErrorResponse
from .script import Event as Event
from .script import Raw as Raw
from .script import ScriptedResponse as ScriptedResponse
from .script import Stall as Stall
from .script import Step as Step
from .script import StreamResponse as StreamResponse
from .script import script_from_json as script_from_json
from .script import script_to_json as script_to_json
from .scripted_model import Fail as Fail
from .scripted_model import Hang as Hang
from .scripted_model import Reply as Reply
from .scripted_model import Respond as Respond
from .scripted_model import ScriptedModel as ScriptedModel
from .scripted_model import ScriptedModelPlugin as ScriptedModelPlugin
from .scripted_model import ScriptEntry as ScriptEntry
from .scripted_model import finish_error_reply as finish_error_reply
from .scripted_model import max_tokens_reply as max_tokens_reply
from .scripted_model import reply as reply
from .scripted_model import text_reply as text_reply
from .scripted_model import tool_reply as tool_reply
from .scripted_server import RecordedRequest as RecordedRequest
from .scripted_server import ScriptedServer as ScriptedServer

__all__ = (
    "DONE",
    "Delay",
    "Disconnect",
    "ErrorResponse",
    "Event",
    "Fail",
    "Hang",
    "Raw",
    "RecordedRequest",
    "Reply",
    "Respond",
    "ScriptEntry",
    "ScriptedModel",
    "ScriptedModelPlugin",
    "ScriptedResponse",
    "ScriptedServer",
    "Stall",
    "Step",
    "StreamResponse",
    "ToolCallSpec",
    "completion",
    "delta_payload",
    "error",
    "finish_error_reply",
    "max_tokens_reply",
    "reply",
    "script_from_json",
    "script_to_json",
    "text_reply",
    "tool_call_events",
    "tool_reply",
    "usage_payload",
    "wire_usage",
)
