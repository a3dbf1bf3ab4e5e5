"""The default agent loop, one swappable plugin. Only the composition root imports it."""
