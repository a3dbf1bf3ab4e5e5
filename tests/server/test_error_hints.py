"""The one error-presentation rule (``user_message``): what happened, then what fixes it."""

from __future__ import annotations

import pytest

from dsh_lsp.server.errors import MODEL_HINT, error_hint, user_message


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("the model API rejected the request (HTTP 400): Model Not Exist", "INVALID_REQUEST"),
        ("The model `gpt-9` does not exist or you do not have access to it.", "HTTP_404"),
        ("Unknown model: deepseek-v9", "HTTP_422"),
        ("model 'x' not found", "HTTP_404"),
    ],
)
def test_a_provider_saying_the_model_does_not_exist_gets_the_model_hint(
    message: str, code: str
) -> None:
    assert error_hint(message, code) == MODEL_HINT
    shown = user_message(message, code)
    assert shown.startswith(message.rstrip(". "))
    assert shown.endswith(MODEL_HINT)
    assert "dsh.model.name" in shown
    assert "--model" in shown


def test_other_client_errors_get_no_guess() -> None:
    assert error_hint("bad request body", "INVALID_REQUEST") is None
    assert user_message("bad request body", "INVALID_REQUEST") == "bad request body"


def test_every_known_code_names_a_setting_or_an_action_and_is_added_once() -> None:
    for code in ("AUTH", "QUOTA_EXCEEDED", "RATE_LIMIT", "TIMEOUT", "TRANSPORT", "NO_ADAPTER"):
        hint = error_hint("it failed", code)
        assert hint is not None, code
        once = user_message("it failed", code)
        assert once == f"it failed. {hint}"
        assert user_message(once, code) == once, "a message that carries its hint keeps it once"
