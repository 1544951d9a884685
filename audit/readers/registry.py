"""Every source the audit reads, in the order the scan asks them whether a file is theirs: one
module of this folder and one line here per source."""

from __future__ import annotations

from importlib import import_module

from .base import Reader

MODULES: tuple[str, ...] = (
    "claude_code",
    "codex",
    "gemini_cli",
    "opencode",
    "copilot",
    "pi",
    "proxy_record",
    "har",
    "mitm_flows",
    "litellm",
    "langfuse",
    "helicone",
    "otel_genai",
)

READERS: tuple[Reader, ...] = tuple(
    import_module(f"{__package__}.{module}").READER for module in MODULES
)


def reader_named(name: str) -> Reader | None:
    return next((reader for reader in READERS if reader.name == name), None)
