"""Tools: the registry, argument validation, the guarded pipeline and prompt assembly."""
