"""A results file of a run cut short: the reference answers until a chosen message, where the
run is interrupted as Ctrl-C would."""

from __future__ import annotations

from pathlib import Path

from ctxconf.runner.engine import RunOptions, run_suite
from ctxconf.runner.reference_impl import ReferenceImplementation
from ctxconf.runner.transports import FakeTransport, Message


def write_interrupted_run(results: Path, *, interrupted_at_seq: int) -> None:
    """Run the suite against the reference, interrupted when message `interrupted_at_seq` is
    sent, and write what it finished to `results`."""
    reference = ReferenceImplementation()

    def answer(request: Message) -> Message:
        if request["seq"] == interrupted_at_seq:
            raise KeyboardInterrupt
        return reference.run(request)

    run_suite(
        RunOptions(impl="fake"),
        factory=lambda: FakeTransport(answer, hello=reference.hello()),
        results_path=results,
    )
