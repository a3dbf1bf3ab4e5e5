"""ShellConfig: the limits of the command tools and the local executor (shell layer).

Every bound the shell enforces is a field here; the constants in the code are only these
defaults.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ShellConfig(BaseModel):
    """Limits of ``bash``, ``bash_output`` and ``bash_kill``.

    ``default_timeout_s`` / ``max_timeout_s``: a call's timeout when it names none, and the
    largest one it may name. ``kill_grace_s``: seconds between SIGTERM and SIGKILL of a
    command's process group. ``output_cap_bytes``: output a result quotes (head and tail);
    the rest is kept in a private spill file ``bash_output`` pages through.
    ``live_interval_s`` / ``live_tail_chars``: how often a running command's card is updated
    and how much of its output tail it shows. ``secret_env_names``: environment variables
    never passed to a command besides every name matching ``KEY|SECRET|TOKEN|PASSWORD``.
    ``max_background_tasks``: background commands one session may have running.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    default_timeout_s: float = Field(default=120.0, gt=0)
    max_timeout_s: float = Field(default=600.0, gt=0)
    kill_grace_s: float = Field(default=3.0, ge=0)
    output_cap_bytes: int = Field(default=64 * 1024, ge=1024)
    live_interval_s: float = Field(default=0.25, gt=0)
    live_tail_chars: int = Field(default=4000, ge=100)
    secret_env_names: tuple[str, ...] = ()
    max_background_tasks: int = Field(default=8, ge=1)
