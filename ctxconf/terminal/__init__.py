"""Text for a person at a terminal: differences between two texts with white space made visible
(`textdiff`), and text from outside with its control characters made visible (`controls`)."""
