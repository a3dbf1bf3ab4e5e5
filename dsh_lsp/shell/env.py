"""The environment a command sees: the server's, without its secrets (shell layer).

A name is secret when it matches ``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD``, ``PASSWD``,
``CREDENTIAL`` or ``AUTH`` (case-insensitive) anywhere, or is listed explicitly (the model's
API key variable, whatever it is called). A variable whose value holds a secret the process
knows (``dsh_lsp.kernel.SECRETS``) is dropped too, whatever its name. Nothing here logs a
value.

``EnvScrubber`` is ``scrubbed_env`` for a command after command: it keeps the last result
and hands out a copy while the environment (compared as the dict behind it: ``os.environ``
keeps its bytes in one, compared in C), the extra names and the registered secrets are the
same, since decoding and matching every variable is a good part of a short command's cost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final, cast

from dsh_lsp.kernel import SECRETS

SECRET_NAME: Final = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
"""Environment names that are never passed to a command."""

FIXED: Final = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
"""Set for every command: nothing may wait for a terminal that is not there."""


def is_secret_name(name: str) -> bool:
    """Whether the variable ``name`` is treated as a secret by pattern."""
    return SECRET_NAME.search(name) is not None


def scrubbed_env(environ: Mapping[str, str], extra_secrets: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without secret names (pattern or ``extra_secrets``) and without values
    holding a known secret (``SECRETS``), plus ``FIXED``.

    Never raises.
    """
    explicit = {name.upper() for name in extra_secrets}
    env = {
        name: value
        for name, value in environ.items()
        if not is_secret_name(name) and name.upper() not in explicit and value not in SECRETS
    }
    env.update(FIXED)
    return env


class EnvScrubber:
    """``scrubbed_env`` with the last result kept; see the module docstring. One per user
    (not thread-safe)."""

    __slots__ = ("_env", "_key")

    def __init__(self) -> None:
        self._key: tuple[int, tuple[str, ...], dict[object, object]] | None = None
        self._env: dict[str, str] = {}

    def __call__(
        self, environ: Mapping[str, str], extra_secrets: tuple[str, ...] = ()
    ) -> dict[str, str]:
        """A fresh copy of ``scrubbed_env(environ, extra_secrets)``. Never raises."""
        raw = getattr(environ, "_data", environ)
        if not isinstance(raw, dict):  # a mapping of its own: nothing cheap to compare
            return scrubbed_env(environ, extra_secrets)
        known = SECRETS.count
        key = self._key
        if key is None or key[0] != known or key[1] != extra_secrets or key[2] != raw:
            snapshot = dict(cast("dict[object, object]", raw))  # before: a change re-scrubs
            self._env = scrubbed_env(environ, extra_secrets)
            self._key = (known, extra_secrets, snapshot)
        return dict(self._env)
