"""The language server: the only package importing pygls and lsprotocol."""
