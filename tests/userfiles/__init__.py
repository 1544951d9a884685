"""Reading and writing a user's files."""
