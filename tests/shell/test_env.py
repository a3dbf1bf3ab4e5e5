"""The environment a command sees: secret names and known secret values are left out."""

from __future__ import annotations

from dsh_lsp.kernel import SECRETS
from dsh_lsp.shell import scrubbed_env


def test_secret_names_and_known_secret_values_never_reach_a_command() -> None:
    value = "merge3-known-secret-value-0123456789"
    SECRETS.add(value)
    env = scrubbed_env(
        {"PATH": "/usr/bin", "MY_TOKEN": "t", "CUSTOM": "c", "INNOCENT": value, "URL": f"x{value}"},
        extra_secrets=("custom",),
    )
    assert env["PATH"] == "/usr/bin"
    assert sorted(env) == ["GIT_PAGER", "GIT_TERMINAL_PROMPT", "PAGER", "PATH"]
    assert env["PAGER"] == "cat"
