"""Spec tooling: validate, lint, regen, add-case and check over a spec folder."""
