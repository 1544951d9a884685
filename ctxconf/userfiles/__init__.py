"""Reading and writing a user's files: bounded reads, JSON positions, user YAML, atomic writes."""
