"""One reader per source of session records (see base.py for what a reader is)."""

from __future__ import annotations

from .base import Reader
from .registry import READERS, reader_named

__all__ = ["READERS", "Reader", "reader_named"]
