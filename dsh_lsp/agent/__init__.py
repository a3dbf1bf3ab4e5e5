"""Agent vocabulary: the agent handle, decisions, and the agent/* interception events."""
