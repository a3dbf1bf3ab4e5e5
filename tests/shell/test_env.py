"""The environment a command sees: secret names and known secret values are left out."""

from __future__ import annotations

import os

import pytest

from dsh_lsp.kernel import SECRETS
from dsh_lsp.shell import EnvScrubber, scrubbed_env


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


def test_the_kept_environment_follows_every_change() -> None:
    scrub = EnvScrubber()
    environ = {"PATH": "/usr/bin", "A": "one"}
    first = scrub(environ)
    assert first["A"] == "one"
    first["A"] = "mutated by a caller"
    assert scrub(environ)["A"] == "one", "each call gets its own copy"
    environ["A"] = "two"
    environ["API_TOKEN"] = "t"
    assert scrub(environ)["A"] == "two"
    assert "API_TOKEN" not in scrub(environ)
    value = "merge3-later-secret-value-9876543210"
    environ["HARMLESS"] = value
    assert scrub(environ)["HARMLESS"] == value
    SECRETS.add(value)
    assert "HARMLESS" not in scrub(environ), "a secret registered later is dropped at once"
    assert "A" not in scrub(environ, ("a",))


def test_the_process_environment_is_followed_too(monkeypatch: pytest.MonkeyPatch) -> None:
    scrub = EnvScrubber()
    monkeypatch.setenv("DSH_SCRUB_PROBE", "before")
    assert scrub(os.environ)["DSH_SCRUB_PROBE"] == "before"
    monkeypatch.setenv("DSH_SCRUB_PROBE", "after")
    assert scrub(os.environ)["DSH_SCRUB_PROBE"] == "after"
    monkeypatch.delenv("DSH_SCRUB_PROBE")
    assert "DSH_SCRUB_PROBE" not in scrub(os.environ)
