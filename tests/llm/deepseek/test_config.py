"""DeepSeekConfig: defaults, camelCase JSON, validation, base URL resolution."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dsh_lsp.llm.deepseek import DEFAULT_BASE_URL, DEFAULT_MODELS, DeepSeekConfig


def test_defaults() -> None:
    config = DeepSeekConfig()
    assert config.models == DEFAULT_MODELS == ("deepseek-v4-flash", "deepseek-v4-pro")
    assert config.api_key_env == "DEEPSEEK_API_KEY"
    assert (config.thinking, config.reasoning_effort) == (None, None)
    assert DEFAULT_BASE_URL == "https://api.deepseek.com"
    assert config.resolved_base_url({}) == "https://api.deepseek.com/v1"


def test_camel_case_json_is_accepted() -> None:
    config = DeepSeekConfig.model_validate(
        {
            "models": ["qwen3"],
            "baseUrl": "http://gpu-box:8000/v1/",
            "apiKeyEnv": "VLLM_KEY",
            "thinking": "disabled",
            "reasoningEffort": "high",
            "connectTimeout": 2,
            "readTimeout": 30,
            "maxRetries": 0,
        }
    )
    assert config.models == ("qwen3",)
    assert config.resolved_base_url({"DEEPSEEK_BASE_URL": "http://ignored"}) == (
        "http://gpu-box:8000/v1"
    )
    assert (config.api_key_env, config.max_retries, config.read_timeout) == ("VLLM_KEY", 0, 30.0)


def test_base_url_falls_back_to_the_environment() -> None:
    config = DeepSeekConfig()
    assert config.resolved_base_url({"DEEPSEEK_BASE_URL": "http://proxy/"}) == "http://proxy/v1"
    assert config.resolved_base_url({"DEEPSEEK_BASE_URL": "http://p:1/api/"}) == "http://p:1/api"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("http://localhost:11434", "http://localhost:11434/v1"),
        ("http://localhost:11434/", "http://localhost:11434/v1"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1"),
        ("http://localhost:11434/v1/", "http://localhost:11434/v1"),
        ("http://localhost:8000/v1/chat/completions", "http://localhost:8000/v1"),
        ("HTTPS://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"),
        ("https://api.groq.com/openai/v1", "https://api.groq.com/openai/v1"),
        ("  http://[::1]:8080  ", "http://[::1]:8080/v1"),
    ],
)
def test_base_url_rule_with_or_without_v1(raw: str, expected: str) -> None:
    assert DeepSeekConfig(base_url=raw).resolved_base_url({}) == expected
    assert DeepSeekConfig().resolved_base_url({"DEEPSEEK_BASE_URL": raw}) == expected


@pytest.mark.parametrize(
    "raw",
    ["localhost:11434/v1", "127.0.0.1:8000", "ftp://host/v1", "http://", "http://h/v1?x=1"],
)
def test_a_base_url_without_scheme_or_host_is_rejected_naming_the_setting(raw: str) -> None:
    with pytest.raises(ValidationError) as caught:
        DeepSeekConfig.model_validate({"baseUrl": raw})
    assert "baseUrl" in str(caught.value)
    with pytest.raises(ValueError, match="DEEPSEEK_BASE_URL"):
        DeepSeekConfig().resolved_base_url({"DEEPSEEK_BASE_URL": raw})


def test_credentials_in_a_base_url_never_reach_the_error() -> None:
    with pytest.raises(ValueError, match="DEEPSEEK_BASE_URL") as caught:
        DeepSeekConfig().resolved_base_url({"DEEPSEEK_BASE_URL": "ftp://user:s3cret@h/v1"})
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    "raw",
    [
        {"models": []},
        {"models": ["a", "a"]},
        {"models": [""]},
        {"thinking": "maybe"},
        {"readTimeout": 0},
        {"maxRetries": -1},
        {"apiKey": "sk-nope"},
    ],
    ids=[
        "no-models",
        "duplicate-models",
        "empty-name",
        "bad-thinking",
        "zero-timeout",
        "negative-retries",
        "key-in-config",
    ],
)
def test_invalid_configs_are_rejected(raw: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        DeepSeekConfig.model_validate(raw)
