"""Text for a person at a terminal: differences between two texts with white space made visible
(`textdiff`)."""
