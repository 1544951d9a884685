"""`ctxconf fuzz`."""
