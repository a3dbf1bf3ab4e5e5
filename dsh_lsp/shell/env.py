"""The environment a command sees: the server's, without its secrets (shell layer).

A name is secret when it matches ``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD``, ``PASSWD``,
``CREDENTIAL`` or ``AUTH`` (case-insensitive) anywhere, or is listed explicitly (the model's
API key variable, whatever it is called). A variable whose value holds a secret the process
knows (``dsh_lsp.kernel.SECRETS``) is dropped too, whatever its name. Nothing here logs a
value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

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
