"""Shell: the command-execution seam, its local executor and the command tools.

Layers, each replaceable on its own:

- the seam: ``ShellExecutor`` runs one ``ShellSpec`` into a ``ShellTask`` (output in a
  bounded ``OutputBuffer``; exit code, timeout and signal recorded, never raised); the
  ``shell/*`` events (live output, background completion, and the before/after-run seam a
  front end uses to bring editor buffers to disk);
- the backend: ``LocalExecutor`` (``bash -c`` in its own process group, stdin closed,
  secrets scrubbed from the environment by ``scrubbed_env`` / ``EnvScrubber``);
- the tools: ``ShellPlugin`` registers ``bash``, ``bash_output`` and ``bash_kill`` and
  their prompt section; ``command_rules`` decides which commands a remembered prefix may
  approve.
"""

from __future__ import annotations

from .command_rules import is_compound as is_compound
from .command_rules import prefix_allows as prefix_allows
from .command_rules import suggest_prefix as suggest_prefix
from .command_rules import valid_prefix as valid_prefix
from .config import ShellConfig as ShellConfig
from .env import EnvScrubber as EnvScrubber
from .env import is_secret_name as is_secret_name
from .env import scrubbed_env as scrubbed_env
from .errors import ShellError as ShellError
from .events import SHELL_AFTER_RUN as SHELL_AFTER_RUN
from .events import SHELL_BEFORE_RUN as SHELL_BEFORE_RUN
from .events import SHELL_OUTPUT as SHELL_OUTPUT
from .events import SHELL_TASK_DONE as SHELL_TASK_DONE
from .events import ShellOutput as ShellOutput
from .events import ShellRunIntent as ShellRunIntent
from .executor import LocalExecutor as LocalExecutor
from .executor import ShellExecutor as ShellExecutor
from .executor import ShellSpec as ShellSpec
from .executor import ShellTask as ShellTask
from .output import OutputBuffer as OutputBuffer
from .plugin import SHELL_SECTIONS as SHELL_SECTIONS
from .plugin import SHELL_TOOL_FACTORIES as SHELL_TOOL_FACTORIES
from .plugin import ShellPlugin as ShellPlugin
from .tasks import ShellTasks as ShellTasks

__all__ = (
    "SHELL_AFTER_RUN",
    "SHELL_BEFORE_RUN",
    "SHELL_OUTPUT",
    "SHELL_SECTIONS",
    "SHELL_TASK_DONE",
    "SHELL_TOOL_FACTORIES",
    "EnvScrubber",
    "LocalExecutor",
    "OutputBuffer",
    "ShellConfig",
    "ShellError",
    "ShellExecutor",
    "ShellOutput",
    "ShellPlugin",
    "ShellRunIntent",
    "ShellSpec",
    "ShellTask",
    "ShellTasks",
    "is_compound",
    "is_secret_name",
    "prefix_allows",
    "scrubbed_env",
    "suggest_prefix",
    "valid_prefix",
)
