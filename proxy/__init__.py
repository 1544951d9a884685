"""`ctxconf proxy`: a byte-transparent recording reverse proxy, put between a real harness and
its real provider. It forwards every request and streams every answer back as it comes, and
writes down each exchange (the request's body, times, status, usage, hashes of the bytes each
way) with no credential in it, for the cache audit to read.

    forward.py   the forwarding: bytes as they came, answers streamed, WebSocket refused
    tee.py       one direction's hashes and bounded copy      decode.py  the copy decoded
    usage.py     the usage of an answer, whole or streamed     redact.py  secrets kept out
    exchange.py  one exchange as the record's line             record.py  the record file
    live.py      the console's lines and summary               serve.py   a proxy running
    command.py   what `ctxconf proxy` does                     apis.py    what it borrows
    calibration.py  the provider's input beside the estimate   watcher.py the seam for a view
"""

from __future__ import annotations

from .command import ProxyError, options, run_proxy
from .record import read_record
from .serve import Options, Proxy, ProxyThread
from .watcher import Watcher

__all__ = [
    "Options",
    "Proxy",
    "ProxyError",
    "ProxyThread",
    "Watcher",
    "options",
    "read_record",
    "run_proxy",
]
