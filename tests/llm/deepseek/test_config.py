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
    assert config.resolved_base_url({}) == DEFAULT_BASE_URL == "https://api.deepseek.com"


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
    assert config.resolved_base_url({"DEEPSEEK_BASE_URL": "http://proxy/"}) == "http://proxy"


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
