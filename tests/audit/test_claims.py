"""Each fixture is claimed by its own reader and by no other: a JSON-lines file could be many
sources' and each reader must tell its own from the first bytes. In `real/`, each harness's
session files are its reader's, and what else its home held (the probe's results, Copilot's
workspace file and store, Codex's thread stores) is nobody's."""

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
# real/<folder>: the folder's name starts with the harness, whose files one reader reads.
REAL_OWNER = {
    "claude-code-": "claude-code",
    "codex-": "codex",
    "gemini-cli-": "gemini-cli",
    "opencode-": "opencode",
    "kilo-": "opencode",
    "copilot-": "copilot",
    "pi-": "pi",
}
# Files of the real homes that hold no session record any reader takes.
NOT_RECORDS = {
    "probe-results.json",
    "workspace.yaml",
    "session-store.db",
    "state_5.sqlite",
    "thread_history_1.sqlite",
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
    assert claimed == _owners(path.relative_to(FIXTURES))


def _owners(relative: Path) -> list[str]:
    if relative.parts[0] != "real":
        return [OWNER[relative.parts[0]]]
    if relative.name in NOT_RECORDS:
        return []
    folder = relative.parts[1]
    return [next(name for prefix, name in REAL_OWNER.items() if folder.startswith(prefix))]


def test_gateways_have_no_default_place() -> None:
    gateways = {"har", "mitm-flows", "litellm", "langfuse", "helicone", "otel-genai"}
    assert {r.name: r.places(Path("/home/u")) for r in READERS if r.name in gateways} == {
        name: [] for name in gateways
    }
