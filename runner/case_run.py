"""One case over one transport: send it, read the answer, judge it. Whatever the implementation
does wrong costs this case alone; only a hello that does not come stops the run."""

from __future__ import annotations

import re
import time

from .cases import Case
from .errors import ImplementationStartError
from .protocol import Hello, ProtocolError, parse_hello, parse_run_response, run_request
from .results import CaseResult, CaseVerdict, StepResult
from .transports import CaseFailure, KeepsStderr, Transport
from .transports.base import STDERR_KEPT_BYTES
from .verdicts import Judge


def greet(transport: Transport) -> Hello:
    """The implementation's hello, or ImplementationStartError saying why there is none."""
    try:
        return parse_hello(transport.hello())
    except (CaseFailure, ProtocolError) as error:
        stderr = transport.take_stderr() if isinstance(transport, KeepsStderr) else ""
        if isinstance(error, CaseFailure):
            stderr = error.stderr or stderr
        transport.close()
        detail = f"\n--- its stderr:\n{stderr.rstrip()}" if stderr.strip() else ""
        raise ImplementationStartError(
            f"the implementation did not answer hello: {error.message}{detail}"
        ) from None


def run_case(
    transport: Transport, seq: int, case: Case, hello: Hello, judge: Judge, timeout: float
) -> CaseResult:
    """Send one case and judge what comes back; a misbehaving implementation costs this case."""
    started = time.perf_counter()
    verdict: CaseVerdict
    message = ""
    stderr = ""
    steps: tuple[StepResult, ...]
    if case.area not in hello.areas:
        verdict, steps = "skipped", judge.steps(case, None)
        message = f"the implementation does not list the area {case.area!r} in its hello"
    else:
        request = run_request(seq, case.area, case.data)
        try:
            reply = parse_run_response(
                transport.run(request, timeout),
                seq,
                len(case.steps),
                ops=[str(step.get("op")) for step in case.steps],
            )
        except CaseFailure as failure:
            verdict, stderr = failure.kind, failure.stderr
            message = _naming_the_step(failure, case)
            steps = judge.steps(case, None)
        except ProtocolError as error:
            verdict, message = "error", error.message
            steps = judge.steps(case, error.outputs)
        else:
            if reply.kind == "outputs":
                verdict, steps = judge.answered(case, reply.outputs, reply.step_errors)
            elif reply.kind == "error":
                verdict, steps = "error", judge.steps(case, None)
                message = f"the implementation answered with an error: {reply.message}"
            else:
                verdict, steps = "skipped", judge.steps(case, None)
                message = reply.message
    if isinstance(transport, KeepsStderr):
        stderr = (stderr + transport.take_stderr())[-STDERR_KEPT_BYTES:]
    result = CaseResult(
        area=case.area,
        file=case.file,
        name=case.name,
        description=case.description,
        rules=case.rules,
        verdict=verdict,
        message=message,
        duration=time.perf_counter() - started,
        stderr=stderr,
        steps=steps,
    )
    return judge.settle(result)


_OUTPUT_POINTER = re.compile(r"^/outputs/(\d+)(?:/|$)")


def _naming_the_step(failure: CaseFailure, case: Case) -> str:
    """The failure's message, led by the step it concerns when it concerns one output."""
    match = _OUTPUT_POINTER.match(getattr(failure, "pointer", ""))
    if match is None or int(match.group(1)) >= len(case.steps):
        return failure.message
    index = int(match.group(1))
    return f"output {index} (step {index}, {case.steps[index].get('op')}): {failure.message}"
