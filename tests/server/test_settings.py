"""The ``dsh`` settings model: camelCase fields, defaults, merging, errors that name the
field and never echo a value."""

from __future__ import annotations

import contextlib
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh_lsp.llm.deepseek import DEFAULT_MODELS, Thinking
from dsh_lsp.server import settings as settings_module
from dsh_lsp.server.settings import DshSettings, SettingsError, merge_settings, parse_settings


def test_defaults() -> None:
    settings = parse_settings(None)
    assert settings == DshSettings()
    assert settings.permissions.edit == "allow"
    assert settings.permissions.shell == "ask"
    assert settings.model.api_key_env == "DEEPSEEK_API_KEY"


def test_camel_case_fields_are_read() -> None:
    settings = parse_settings(
        {
            "model": {
                "name": "m",
                "baseUrl": "http://x",
                "apiKeyEnv": "MY_KEY",
                "thinking": "enabled",
            },
            "permissions": {"edit": "ask", "shell": "deny", "readOutsideWorkspace": "allow"},
            "maxStepsPerTurn": 3,
            "sessionDir": "/tmp/s",
        }
    )
    assert settings.model.base_url == "http://x"
    assert settings.model.thinking == "enabled"
    assert settings.permissions.read_outside_workspace == "allow"
    assert settings.max_steps_per_turn == 3
    assert settings.session_dir == "/tmp/s"


def test_request_knobs_reach_the_agent_options_and_apply_without_a_restart() -> None:
    base = parse_settings({"model": {"name": "m"}, "maxStepsPerTurn": 3})
    tuned = parse_settings(
        {
            "model": {"name": "m", "temperature": 0.5, "maxTokens": 9, "stop": ["END"]},
            "maxStepsPerTurn": 3,
        }
    )
    options = tuned.agent_options()
    assert (options.model, options.max_steps) == ("m", 3)
    assert (options.temperature, options.max_tokens, options.stop) == (0.5, 9, ("END",))
    assert not base.needs_restart(tuned)
    assert base.needs_restart(parse_settings({"model": {"name": "m", "reasoningEffort": "max"}}))
    assert base.needs_restart(parse_settings({"model": {"name": "other"}}))


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ({"permissions": {"edit": "sometimes"}}, "dsh.permissions.edit"),
        ({"model": {"temperature": 3}}, "dsh.model.temperature"),
        ({"model": {"maxTokens": 0}}, "dsh.model.maxTokens"),
        ({"model": {"stop": []}}, "dsh.model.stop"),
        ({"model": {"reasoningEffort": "extreme"}}, "dsh.model.reasoningEffort"),
        ({"maxStepsPerTurn": 0}, "dsh.maxStepsPerTurn"),
        ({"model": {"apiKey": "sk-live-123"}}, "dsh.model.apiKey: unknown field"),
        ({"model": {"apiKeyEnv": "not a name"}}, "dsh.model.apiKeyEnv"),
        ([], "dsh: must be an object"),
    ],
)
def test_errors_name_the_field_and_never_echo_values(raw: object, path: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings(raw)
    assert path in str(caught.value)
    assert "sk-live-123" not in str(caught.value)
    assert "sometimes" not in str(caught.value)


json_values = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=8,
)


@given(json_values, json_values)
def test_merging_keeps_override_leaves_and_base_elsewhere(base: object, override: object) -> None:
    merged = merge_settings(base, override)
    if override is None:
        assert merged == base
    elif isinstance(base, dict) and isinstance(override, dict):
        assert isinstance(merged, dict)
        assert set(merged) == set(base) | set(override)
        for key in set(base) - set(override):
            assert merged[key] == base[key]
    else:
        assert merged == override


@given(st.dictionaries(st.text(max_size=5), json_values, max_size=4))
def test_any_object_either_parses_or_raises_settings_error(raw: dict[str, object]) -> None:
    with contextlib.suppress(SettingsError):
        parse_settings(raw)


def test_the_model_defaults_match_the_deepseek_adapter() -> None:
    assert DEFAULT_MODELS[0] == settings_module.DEFAULT_MODEL
    assert get_args(settings_module.Thinking) == get_args(Thinking)
