"""The spec text's rules and decisions."""
