"""The fake harness's side of the mid-session changes: an instruction file, an MCP server, plan
mode, a model switch and `/compact`, each kept to the rules by default and broken by a fault
(see common.py's docstring)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

COMPACT_PROMPT = "Summarise this conversation so that the work can go on from your summary alone."
SUMMARY_HEAD = "This session goes on from a summary of what came before:\n"


class Mcp:
    """A stdio MCP client: one server, newline-delimited JSON-RPC."""

    def __init__(self, config: Path) -> None:
        spec = json.loads(config.read_text())
        # A config that holds other settings too keeps its servers by name, as most harnesses'.
        spec = spec["mcpServers"]["probe"] if "mcpServers" in spec else spec
        self.process = subprocess.Popen(
            [spec["command"], *spec["args"]],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ids = 0
        self.ask("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
        self.tell("notifications/initialized")

    def tell(self, method: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.process.stdin.flush()

    def ask(self, method: str, params: dict[str, Any] | None = None) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.ids += 1
        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params or {}}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        while True:  # notifications may come first
            reply = json.loads(self.process.stdout.readline())
            if reply.get("id") == self.ids:
                return reply["result"]

    def tools(self) -> list[str]:
        return [tool["name"] for tool in self.ask("tools/list")["tools"]]

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)


class Changes:
    def __init__(self, session: Any, state: dict[str, Any]) -> None:
        self.session = session
        self.faults: set[str] = session.faults
        options = session.options
        name = getattr(options, "instructions", None)
        self.instructions = Path(name) if name else None
        self.told_file: str | None = state.get("told_file")
        self.plan = bool(getattr(options, "plan", False))
        self.plan_told = bool(state.get("plan_told", False))
        self.model: str | None = getattr(options, "model", None)
        config = getattr(options, "mcp_config", None)
        self.mcp = Mcp(Path(config)) if config else None
        self.mcp_now: list[str] = []
        # The tool list is made at the session's first request and kept, across resumes too.
        self.mcp_made: list[str] | None = state.get("mcp_made")

    def state(self) -> dict[str, Any]:
        return {"told_file": self.told_file, "plan_told": self.plan_told, "mcp_made": self.mcp_made}

    def read_file(self) -> str:
        if self.instructions is None or not self.instructions.is_file():
            return ""
        return self.instructions.read_text()

    def in_system(self) -> list[str]:
        """What the prompt holds of the instruction file, when it is made."""
        if self.instructions is None:
            return []
        content = self.read_file()
        self.told_file = content
        return [f"Instructions from {self.instructions.name}:", content]

    def note_lines(self) -> list[str]:
        lines = []
        if self.plan and not self.plan_told:
            lines.append("The person switched to plan mode.")
            self.plan_told = True
        if self.instructions is not None and self.told_file is not None:
            content = self.read_file()
            if content != self.told_file and "instructions-ignored" not in self.faults:
                if "instructions-in-system" in self.faults:
                    self.session.system = self.session.make_system(self.session.requests)
                elif "instructions-into-first" in self.faults and self.session.resumed:
                    first = self.session.messages[0]
                    first["text"] = f"{self.instructions.name}:\n{content}\n{first['text']}"
                    self.told_file = content
                else:
                    lines.append(f"{self.instructions.name} was changed. It now reads:\n{content}")
                    self.told_file = content
        return lines

    def turn_starts(self) -> None:
        if self.mcp is not None:
            self.mcp_now = self.mcp.tools()

    def tools(self, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.plan and "plan-tools" in self.faults:
            tools = [t for t in tools if t["name"] != self.session.shape.shell_tool[0]]
        if self.mcp is None:
            return tools
        if self.mcp_made is None:
            self.mcp_made = list(self.mcp_now)
        names = self.mcp_now if "mcp-join" in self.faults else self.mcp_made
        mcp = [
            {
                "name": f"mcp_{n}",
                "description": f"{n} of the MCP server.",
                "schema": {"type": "object", "properties": {}},
            }
            for n in names
        ]
        return tools + mcp

    def on_the_wire(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if self.model and "switch-rewrites" in self.faults and messages:
            first = dict(messages[0])
            first["text"] = f"{first['text']}\n(for {self.model})"
            return [first, *messages[1:]]
        return messages

    def body(self, body: dict[str, Any]) -> dict[str, Any]:
        if self.model and "model" in body:
            body["model"] = self.model
        return body

    def compact(self, base_url: str) -> None:
        session = self.session
        if "compact-apart" in self.faults:
            transcript = json.dumps(session.messages)
            task = [{"role": "user", "text": f"{COMPACT_PROMPT}\n{transcript}"}]
            answer = session.post(base_url, session.shape.body("You summarise.", [], task))
        else:
            session.requests += 1
            task = [*session.messages, {"role": "user", "text": COMPACT_PROMPT}]
            body = session.shape.body(session.system, session.tools(), task)
            if session.shape.finish is not None:
                body = session.shape.finish(body, session)
            answer = session.post(base_url, body)
            if "compact-twice" in self.faults:  # asks again before going on, the prefix resent
                session.requests += 1
                answer = session.post(base_url, body)
        summary = {"role": "user", "text": SUMMARY_HEAD + answer.text}
        if "compact-keeps-history" in self.faults:
            session.messages = [*session.messages, summary]
        else:
            session.messages = [summary]
        session.told = None  # the date is told again after a compaction

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()
