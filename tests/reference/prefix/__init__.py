"""The prefix area's reference and the faults its cases catch."""
