"""Serves as the reference does, but ignores SIGTERM and stop, and keeps a child that ignores
SIGTERM too: only a kill of the whole process group ends them."""

import json
import signal
import subprocess
import sys
from decimal import Decimal  # numbers by exact value, as the reference reads them

from _faux import reference_hello, reference_run, send

IGNORE_AND_SLEEP = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
)

signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", IGNORE_AND_SLEEP])
sys.stderr.write(f"ignore_sigterm: child pid {child.pid}\n")
sys.stderr.flush()
for raw in sys.stdin.buffer:
    message = json.loads(raw, parse_float=Decimal)
    if message.get("cmd") == "hello":
        send(reference_hello())
    elif message.get("cmd") == "run":
        send(reference_run(message))
while True:  # stdin closed, stop ignored: only SIGKILL ends this
    signal.pause()
