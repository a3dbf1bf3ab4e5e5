"""AgentOptions defaults and validation; error codes recorded for failed turns."""

from __future__ import annotations

import pytest

from dsh_lsp.agent import DEFAULT_MAX_STEPS, AgentCode, AgentError, AgentOptions, error_code
from dsh_lsp.llm import LlmError


def test_defaults() -> None:
    options = AgentOptions(model="m")
    assert options.max_steps == DEFAULT_MAX_STEPS == 64
    assert options.system_prompt is None
    assert options.temperature is None


def test_max_steps_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_steps"):
        AgentOptions(model="m", max_steps=0)


def test_error_code_uses_dsh_codes_and_unknown_otherwise() -> None:
    assert error_code(LlmError("x", code="RATE_LIMIT")) == "RATE_LIMIT"
    assert error_code(AgentError("x", code=AgentCode.NO_MODEL)) == "NO_MODEL"
    assert error_code(RuntimeError("x")) == AgentCode.UNKNOWN
