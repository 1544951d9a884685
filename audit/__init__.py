"""The field audit: the session records users already have (harnesses' transcripts, gateways'
logs, captures) read into one per-request form, and which requests lost the prompt cache, why
and at what cost.

`readers/` holds one module per source (a new source is one module and one registry line);
each turns its files into `AuditRequest`s with four token classes. The rest works on those
alone: sessions, the timeline of losses, their causes, dollars, and the outputs.
"""

from __future__ import annotations

from .record import AuditRequest, Problem, Problems, TokenClasses

__all__ = ["AuditRequest", "Problem", "Problems", "TokenClasses"]
