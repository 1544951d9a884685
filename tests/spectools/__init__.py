"""The spec editor's commands: validate, lint, regen, add-case, check, show."""
