"""The implementation under test in a fuzz run, through any transport `ctxconf run` takes."""

from __future__ import annotations

from ctxconf.fuzzing.model import AREA, Case, SessionFailed
from ctxconf.runner.errors import ImplementationStartError
from ctxconf.runner.protocol import ProtocolError, parse_hello, parse_run_response, run_request
from ctxconf.runner.transports import CaseFailure, KeepsStderr, Transport, transport_factory


class Implementation:
    """An implementation reached through any transport `ctxconf run` takes, as a SessionRunner.

    Raises `CtxconfError` when the SPEC is unusable or the implementation does not start.
    """

    def __init__(self, spec: str, *, timeout: float, area: str = AREA) -> None:
        self._timeout = timeout
        self._area = area
        self._seq = 0
        self._transport: Transport = transport_factory(spec)()
        try:
            hello = parse_hello(self._transport.hello())
        except (CaseFailure, ProtocolError) as error:
            stderr = error.stderr if isinstance(error, CaseFailure) else ""
            if not stderr and isinstance(self._transport, KeepsStderr):
                stderr = self._transport.take_stderr()
            self.close()
            detail = f"\n--- its stderr:\n{stderr.rstrip()}" if stderr.strip() else ""
            raise ImplementationStartError(
                f"the implementation did not answer hello: {error.message}{detail}"
            ) from None
        if area not in hello.areas:
            self.close()
            raise ImplementationStartError(
                f"the implementation does not list the area {area!r} in its hello "
                f"(it lists {', '.join(hello.areas) or 'none'})"
            )
        self.name = f"{hello.implementation.name} {hello.implementation.version}"

    def __call__(self, case: Case) -> list[str]:
        self._seq += 1
        request = run_request(self._seq, self._area, case)
        try:
            answer = self._transport.run(request, self._timeout)
            reply = parse_run_response(answer, self._seq, len(case["steps"]))
        except CaseFailure as failure:
            raise SessionFailed(f"{failure.kind}: {failure.message}", failure.stderr) from None
        except ProtocolError as error:
            raise SessionFailed(f"broken response: {error.message}") from None
        if reply.kind == "error":
            raise SessionFailed(f"the implementation answered with an error: {reply.message}")
        if reply.kind == "skipped":
            raise SessionFailed(f"the implementation skipped the session: {reply.message}")
        return list(reply.outputs)

    def close(self) -> None:
        self._transport.close()
