"""Text for a person at a terminal: differences between two texts, white space made visible."""
