"""Session driving: ``dsh/*`` sessions run through ``AGENTS`` and rendered from the log (server).

``ServerBridgePlugin`` (``plugin``) is the server's part inside the kernel: it provides the
``SessionBridge`` (``bridge``, with one ``SessionRecord`` per open session, titled by
``session_title``) that creates, resumes and prompts agents, and renders every logged event
through one pure ``UpdateTranslator`` (``updates``) into a coalescing ``UpdateSink``
(``sink``) as ``dsh/session/update``. A prompt settles exactly once (``outcome``). Prompt
content and attached files (``attachments``, ``attachment_frame``), the ``PERMISSIONS``
service that asks the user (``permissions``), the ``dsh.permissions`` policy (``policy``), the
shell prefixes remembered per workspace (``shell_rules``) and
the paths a person reads (``display_paths``) live here too.
"""

import typing as _typing

from dsh_lsp.server._lazy import lazy_face as _lazy_face

if _typing.TYPE_CHECKING:
    from .attachments import prompt_content as prompt_content
    from .bridge import SessionBridge as SessionBridge
    from .display_paths import relative_path as relative_path
    from .display_paths import relative_title as relative_title
    from .outcome import PendingPrompt as PendingPrompt
    from .outcome import PromptResult as PromptResult
    from .permissions import EditorPermissions as EditorPermissions
    from .plugin import BRIDGE as BRIDGE
    from .plugin import ServerBridgePlugin as ServerBridgePlugin
    from .shell_rules import ShellAllowList as ShellAllowList
    from .shell_rules import shell_allow_path as shell_allow_path
    from .sink import UpdateSink as UpdateSink
    from .updates import UpdateTranslator as UpdateTranslator

__all__ = _lazy_face(globals())
