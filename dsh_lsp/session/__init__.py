"""Session log: append-only events, the derived surface and persistence backends."""
