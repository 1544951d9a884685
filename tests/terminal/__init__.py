"""Text for a terminal."""
