"""How `ctxconf serve --http` copes with many clients at once.

Starts `ctxconf serve --http 127.0.0.1:0` as a user would, then N clients, each on its own
connection and thread, released together: each sends one `POST /run` with a bundled case and
reads the answer. Prints how long all took, and how many were served, dropped or answered wrong.
Only ever connects to 127.0.0.1.

    python bench/serve_clients.py --clients 200 --rounds 3
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

from ctxconf.specdata.paths import bundled_spec_dir


@dataclass(frozen=True)
class Round:
    seconds: float
    served: int
    dropped: int
    wrong: int
    latencies: list[float]


def _case() -> tuple[bytes, list[Any]]:
    path = bundled_spec_dir() / "conformance" / "context.json"
    case = json.loads(path.read_text(encoding="utf-8"))["cases"][1]
    request = {"cmd": "run", "seq": 0, "area": "context", "case": {"steps": case["steps"]}}
    if "limits" in case:
        request["case"]["limits"] = case["limits"]
    return json.dumps(request).encode(), case["expect"]


def one_round(port: int, clients: int, body: bytes, expect: list[Any]) -> Round:
    start = threading.Barrier(clients + 1)
    results: list[tuple[str, float]] = []
    lock = threading.Lock()

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        start.wait()
        began = time.perf_counter()
        try:
            connection.request("POST", "/run", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            answer = json.loads(response.read())
            ok = response.status == 200 and answer == {"seq": 0, "outputs": expect}
            outcome = "served" if ok else "wrong"
        except (OSError, http.client.HTTPException, ValueError):
            outcome = "dropped"
        finally:
            connection.close()
        with lock:
            results.append((outcome, time.perf_counter() - began))

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - began
    outcomes = [outcome for outcome, _ in results]
    return Round(
        seconds,
        outcomes.count("served"),
        outcomes.count("dropped"),
        outcomes.count("wrong"),
        sorted(latency for _, latency in results),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200, help="clients at once (200)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each a new burst (3)")
    args = parser.parse_args(argv)
    server = subprocess.Popen(
        [sys.executable, "-m", "ctxconf", "serve", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        port = int(url.rsplit(":", 1)[1])
        body, expect = _case()
        print(f"ctxconf serve --http at {url}; {args.clients} clients at once, one POST /run each")
        failed = False
        for number in range(1, args.rounds + 1):
            result = one_round(port, args.clients, body, expect)
            p50 = statistics.median(result.latencies) * 1000
            worst = result.latencies[-1] * 1000
            print(
                f"round {number}: all done in {result.seconds * 1000:.0f} ms; "
                f"{result.served} served, {result.dropped} dropped, {result.wrong} wrong; "
                f"latency median {p50:.0f} ms, worst {worst:.0f} ms"
            )
            failed = failed or result.served != args.clients
    finally:
        server.terminate()
        server.wait(10)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
