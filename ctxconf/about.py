"""What `ctxconf --help` says before and after the list of commands."""

from __future__ import annotations

ABOUT = """\
Conformance tests and spec tooling for context hygiene: how an LLM agent harness fills the
model's context so that nothing already sent is rewritten and what is sent stays small. Run the
cases against a harness, or edit the spec and regenerate and check its expected texts."""

GUIDE = """\
where to start (the docs are in the ctxconf repository):
  README.md              what ctxconf is, how to install it, a first run
  docs/running.md        implementers: ctxconf run --impl SPEC, verdicts, expected failures
  docs/spec-editors.md   spec editors: ctxconf check, regen, add-case
`ctxconf COMMAND --help` shows a command's options."""
