"""wire (placeholder face, filled in the next commit)."""

__all__ = ()
