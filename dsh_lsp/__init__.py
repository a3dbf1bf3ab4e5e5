"""dsh-lsp: an editor-integrated coding-agent backend served over the Language Server Protocol.

The package is layered; imports only point downward (checked by import-linter in CI)::

    app          composition root: the only module that loads the agent loop plugin
    server       the language server (the only package importing pygls / lsprotocol)
    agent_loop   the default agent loop, one swappable plugin
    fs_tools     the filesystem seam, the local provider and the model-facing file tools
    agent        agent handle, decisions and the agent/* events
    tools        tool registry, argument validation and prompt assembly
    session      the append-only session log, its surface and persistence
    llm          the content-block vocabulary, streaming chunks and model adapters
    kernel       services, plugins, effects and typed events (stdlib + anyio only)

See ``docs/architecture.md`` for the full map.
"""

__version__ = "0.1.0"
"""The one place the version is written: ``pyproject.toml`` reads it (``dynamic``), so no
``importlib.metadata`` lookup (tens of milliseconds) runs before ``initialize`` is answered."""

__all__ = ["__version__"]
