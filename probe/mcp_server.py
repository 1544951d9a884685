"""The probe's MCP server: JSON-RPC 2.0 over stdio, standard library only, run by the harness.

    python mcp_server.py --tools a,b,c --ready FILE --log FILE --state FILE

Its tools come late and come back reordered, as users see real servers do. Its first start lists
no tools until FILE `--ready` exists (the mock writes it when the session's first request with
tools has come), then sends `notifications/tools/list_changed` and lists them; every later start
(a resumed harness connecting again) lists them at once, each start in the other order than
the start before (reversed, then as given, …). Each message it gets
and each list it gives is a JSON line of `--log`, which the probe reads to tell whether the
change happened: the harness connected, asked for the tools after they came, connected again.
Messages are newline-delimited JSON, as the protocol's stdio transport has them.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import sys
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"
POLL_S = 0.1


class Server:
    def __init__(self, tools: list[str], ready: Path, log: Path, start: int) -> None:
        self.start = start
        self.ready, self.log = ready, log
        # Each start lists them in another order than the start before: a reconnect reorders.
        self.names = tools if start % 2 else list(reversed(tools))
        self.listed = start > 1  # a later start has its tools at once
        self.told = False

    def note(self, event: str, **fields: Any) -> None:
        with self.log.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"start": self.start, "event": event, **fields}) + "\n")

    def tools(self) -> list[dict[str, Any]]:
        if not self.listed:
            return []
        return [
            {
                "name": name,
                "description": f"Answers with the word {name}.",
                "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
            }
            for name in self.names
        ]

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            self.note("notification", method=method)
            return None
        if method == "initialize":
            self.note("initialize")
            result: dict[str, Any] = {
                "protocolVersion": message.get("params", {}).get("protocolVersion", PROTOCOL),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "ctxconf-probe", "version": "1.0.0"},
            }
        elif method == "tools/list":
            listed = [t["name"] for t in self.tools()]
            self.note("tools/list", tools=listed)
            result = {"tools": self.tools()}
        elif method == "tools/call":
            name = message.get("params", {}).get("name", "")
            self.note("tools/call", tool=name)
            result = {"content": [{"type": "text", "text": name}], "isError": False}
        elif method == "ping":
            result = {}
        else:
            self.note("unknown", method=method)
            error = {"code": -32601, "message": f"method not found: {method}"}
            return {"jsonrpc": "2.0", "id": ident, "error": error}
        return {"jsonrpc": "2.0", "id": ident, "result": result}

    def poll(self) -> dict[str, Any] | None:
        """The late tools' notice, once the session's first request has come."""
        if self.listed or not self.ready.exists():
            return None
        self.listed = True
        self.note("list_changed", tools=self.names)
        return {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(server: Server) -> None:
    buffer = b""
    stdin = sys.stdin.fileno()
    while True:
        notice = server.poll()
        if notice is not None:
            send(notice)
        readable, _, _ = select.select([stdin], [], [], POLL_S)
        if not readable:
            continue
        chunk = os.read(stdin, 65536)
        if not chunk:
            server.note("closed")
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}})
                continue
            # A message read after the first request came sees the tools: no race with the poll.
            notice = server.poll()
            if notice is not None:
                send(notice)
            reply = server.answer(message) if isinstance(message, dict) else None
            if reply is not None:
                send(reply)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", required=True)
    parser.add_argument("--ready", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--state", type=Path, required=True)
    args = parser.parse_args()
    start = int(args.state.read_text()) + 1 if args.state.is_file() else 1
    args.state.write_text(str(start))
    server = Server(args.tools.split(","), args.ready, args.log, start)
    server.note("started", order=server.names)
    try:
        serve(server)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
