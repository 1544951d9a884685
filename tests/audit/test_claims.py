"""Each fixture is claimed by its own reader and by no other: a JSON-lines file could be many
sources' and each reader must tell its own from the first bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxconf.audit.readers import READERS
from tests.audit.helpers import FIXTURES, head

OWNER = {
    "claude_code": "claude-code",
    "codex": "codex",
    "gemini_cli": "gemini-cli",
    "opencode": "opencode",
    "copilot": "copilot",
    "pi": "pi",
    "har": "har",
    "mitm_flows": "mitm-flows",
    "litellm": "litellm",
    "langfuse": "langfuse",
    "helicone": "helicone",
    "otel_genai": "otel-genai",
}
FILES = sorted(
    p
    for p in FIXTURES.rglob("*")
    if p.is_file()
    and p.suffix != ".md"
    and p.name != "messages.json"
    # Written by real harnesses, several files to a folder: tests/audit/test_real_records.py.
    and p.relative_to(FIXTURES).parts[0] != "real"
)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_a_fixture_is_claimed_by_its_reader_alone(path: Path) -> None:
    claimed = [reader.name for reader in READERS if reader.claims(path, head(path))]
    assert claimed == [OWNER[path.relative_to(FIXTURES).parts[0]]]


def test_gateways_have_no_default_place() -> None:
    gateways = {"har", "mitm-flows", "litellm", "langfuse", "helicone", "otel-genai"}
    assert {r.name: r.places(Path("/home/u")) for r in READERS if r.name in gateways} == {
        name: [] for name in gateways
    }
