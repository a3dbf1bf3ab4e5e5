"""File tools: the FileSystem seam, the local provider, the policy plugin and file tools."""
